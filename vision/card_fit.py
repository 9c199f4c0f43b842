"""Fit card poses to read indices and visible-pixel boxes (see `card_model`).

Boxes of overlapping cards overlap too: in a row turned on the table, the axis-aligned
box of each card's visible strip also holds the indices of its neighbours, so "the
smallest box holding the index" is often the neighbour's. What tells a card's own box
is that the box lies inside the card: a pose fitted to the index (and a direction from
the whole cards around it) reaches over its own box and not over the neighbour's.

- `quad_fits`: four same-name indices as the four corners of one card.
- `pair_fits`: two same-name indices as corners of one card, for each box holding
  both: on a diagonal (the card's box must match the box), or on a long side (the box
  must lie in the card); `twin_pairs` tells which pairs lie along a side.
- `lone_fits`: one index and a box: the best pose near the local direction; the
  cost is the box's overhang plus a penalty for turning away from that direction.
- `prior_axes`: that local direction, from the cards already placed.
- `along_one_side`: two lone indices as the two corners of one side of a four-index
  card whose outline was never found.
- `on_one_diagonal`: two lone indices as the two opposite corners of one card whose
  outline was never found.
- `corner_span`, `span_length`: a taught deck's corners apart in index sizes, and the
  card length that tells for two index boxes with no outline to measure it by.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import numpy.typing as npt

from .arrays import Float64Array
from .box_overlap import box_iou
from .card_model import (
    CARD_ASPECT,
    DIAGONAL_TO_LENGTH,
    INDEX_INSET,
    SIDE_TO_LENGTH,
    card_bbox,
    centre_from_index,
    diagonal_axis,
    overhang,
    right_of,
    turn,
)

__all__ = [
    "Fit",
    "PairFit",
    "QuadFit",
    "along_one_side",
    "card_shaped",
    "corner_span",
    "in_line_between",
    "lone_fits",
    "on_one_diagonal",
    "pair_fits",
    "prior_axes",
    "quad_fits",
    "span_length",
    "twin_pairs",
]


ROOMY = 1.1
"""Overhang is measured against a card this much larger than the nominal one: decks
differ in where their indices sit, so a size read from indices is rough."""
CORNER_SLACK = 0.05
"""How far (card lengths) the corner next to a lone index may lie outside its box: the
box of the card's visible part reaches that corner, the next card's does not."""
PRIOR_FALLOFF = 0.5
PRIOR_REACH = 3.0
TWIN_TOLERANCE = 0.25
"""Twin pairs: their vectors differ by at most this share of their length."""
TWIN_REACH = 0.8
"""Twin pairs: their middles lie within this many of their lengths."""
QUAD_TOLERANCE = 0.1
"""Four corners of one card: the midpoints of their diagonals within this share of
the diagonals' length."""
QUAD_MIN_ASPECT = 0.6
"""... and their short side at least this share of their long side: a card's corner
indices span about 0.76-0.81 of its length across (less when the camera looks along the
card from low down); two strips of a row of copies, a step apart, span 0.3-0.55.
On the scan's validation photos 0.6 and 0.65 gave the same outcomes; 0.45 left a
missed Qh of the last locator candidate silent."""
TURN_LIMIT_DEG = 60.0
TURN_STEP_DEG = 7.5
TURN_PENALTY = 0.1
"""Cost (in card lengths of overhang) of turning `TURN_PENALTY_PER_DEG` away from the
local direction."""
TURN_PENALTY_PER_DEG = 30.0
SIDE_SPAN = (0.5, 0.92)
"""Two corners along one long side of a four-index card lie this share of its length
apart, centre to centre, the length being the long side of the photo's card outlines:
0.70 for a poker card with 20 x 9 mm indices 13 mm from its ends, 0.58 when its outline
is the box of the card turned 25 degrees (1.2 times longer), 0.74-0.87 on the generated
decks. On the scan's validation photos (seed 3101) each pair this test took was one
card; two copies lay nearer or further (0.27, 1.64)."""
SIDE_TURN_DEG = 30.0
"""... and the line between them runs along the indices' own long side (rank above
suit runs down the card) within this angle: copies side by side in a row lie across it."""
SQUARE_INDEX = 1.15
"""An index box less elongated than this (a card turned near 45 degrees) tells no axis."""


@dataclass(frozen=True, slots=True)
class PairFit:
    """Indices `a`, `b` as two corners of one card lying in box `box`."""

    cost: float
    a: int
    b: int
    box: int
    axis: tuple[float, float]
    length: float
    diagonal: bool


@dataclass(frozen=True, slots=True)
class Fit:
    """Index `index` as the only read corner of the card whose box is `box`; `axis`
    points from the index down the card."""

    cost: float
    index: int
    box: int
    axis: tuple[float, float]


def _covers(centre: Float64Array, down: Float64Array, length: float, points: Float64Array) -> bool:
    """Whether any of `points` (K, 2) lies on the face of the card (its inner 90%)."""
    if len(points) == 0:
        return False
    rel = points - centre
    along = np.abs(rel @ down)
    across = np.abs(rel @ right_of(down))
    inner = (along <= 0.45 * length) & (across <= 0.45 * CARD_ASPECT * length)
    return bool(inner.any())


MIN_SPREAD = 0.3
DIAGONAL_TURNS = np.arange(24.0, 50.1, 2.0)
DIAGONAL_RATIOS = np.arange(0.72, 1.081, 0.04)
ASPECTS = np.array([0.6, CARD_ASPECT, 0.85])
"""Width over length as seen: a camera looking at the table from the side shortens
cards along its line of sight by up to a third."""
_GRID = np.meshgrid(DIAGONAL_TURNS, DIAGONAL_RATIOS, ASPECTS, indexing="ij")
_GRID_COS = np.cos(np.radians(_GRID[0].ravel()))
_GRID_SIN = np.sin(np.radians(_GRID[0].ravel()))
_GRID_RATIO = _GRID[1].ravel()
_GRID_ASPECT = _GRID[2].ravel()


def pair_fits(
    points: Float64Array,
    a: int,
    b: int,
    boxes: Float64Array,
    shared: Sequence[int],
    *,
    min_fill: float,
    max_overhang: float,
    others: Float64Array,
) -> list[PairFit]:
    """The ways indices `a` and `b` can be two corners of one card in one of the
    `shared` boxes, the best per box and kind:

    - on a diagonal: both corners in view means most of the card is, so the card's
      box matches its visible box; the turn and size that match it best (decks and
      perspective vary both) must reach `min_fill` IoU; cost 1 - IoU. Nothing lies on
      a card seen whole, so no index of another card (`others`, (K, 2)) may lie on
      its face: two copies in one row or fan have their neighbours' indices between
      them;
    - on a long side (a four-index card covered on one side): the box must lie in the
      card, reaching over it by at most `max_overhang` lengths; cost that overhang.
    """
    pa, pb = points[a], points[b]
    d = pb - pa
    dist = float(np.hypot(*d))
    diagonals = np.hypot(boxes[shared, 2] - boxes[shared, 0], boxes[shared, 3] - boxes[shared, 1])
    # Two corners of a card lie at least half its width apart, and the box of its
    # visible part is never much more than its diagonal: cheap rejections first.
    shared = [k for k, diag in zip(shared, diagonals, strict=True) if dist >= MIN_SPREAD * diag]
    if not shared or dist < 1e-6:
        return []
    unit = d / dist
    mid = (pa + pb) / 2
    axes = np.stack(
        [_GRID_COS * unit[0] - _GRID_SIN * unit[1], _GRID_SIN * unit[0] + _GRID_COS * unit[1]],
        axis=1,
    )
    sizes = dist / _GRID_RATIO
    diagonal = card_bbox(mid, axes, sizes, _GRID_ASPECT)
    side_size = dist / SIDE_TO_LENGTH
    shifts = [
        sign * (0.5 - INDEX_INSET[0]) * CARD_ASPECT * side_size * right_of(unit)
        for sign in (1.0, -1.0)
    ]
    sides = [card_bbox(mid + shift, unit, side_size * ROOMY) for shift in shifts]
    out = []
    for k in shared:
        iou = box_iou(boxes[k], diagonal)
        best = int(np.argmax(iou))
        if iou[best] >= min_fill and not _covers(mid, axes[best], sizes[best], others):
            axis = (float(axes[best, 0]), float(axes[best, 1]))
            out.append(PairFit(1.0 - float(iou[best]), a, b, k, axis, float(sizes[best]), True))
        cost = min(float(overhang(boxes[k], bbox)) / side_size for bbox in sides)
        if cost <= max_overhang:
            axis = (float(unit[0]), float(unit[1]))
            out.append(PairFit(cost, a, b, k, axis, side_size, False))
    return out


@dataclass(frozen=True, slots=True)
class QuadFit:
    """Four same-name indices as the four corners of one card in box `box`."""

    cost: float
    members: tuple[int, int, int, int]
    box: int
    axis: tuple[float, float]
    length: float


def _upright_share(index_boxes: Float64Array, axis: Float64Array) -> float:
    """How well index boxes (K, 4 xyxy) fit a card whose long axis is `axis`: an index
    is about twice as tall as wide in the card's frame, so turned by t from upright
    its box is about (cos t + 2 sin t) by (sin t + 2 cos t) (up to scale). Mean
    absolute error of the log aspect; lower fits better."""
    t = abs(float(np.arctan2(axis[0], axis[1])))
    c, s = abs(np.cos(t)), abs(np.sin(t))
    want = np.log((c + 2 * s) / (s + 2 * c))
    wh = np.maximum(index_boxes[:, 2:] - index_boxes[:, :2], 1e-6)
    return float(np.abs(np.log(wh[:, 0] / wh[:, 1]) - want).mean())


def quad_fits(
    points: Float64Array,
    same: Sequence[int],
    boxes: Float64Array,
    shared_box: int,
    others: Float64Array,
    index_boxes: Float64Array,
) -> list[QuadFit]:
    """Four-index cards seen whole: four of the indices `same` (all in box
    `shared_box`) whose diagonals bisect each other (a parallelogram: a card's corners
    under any camera near the table); the long sides give the axis, or, when a camera
    looking from the side makes them look no longer than the short ones, the shape of
    the index boxes does. Nothing may lie on the card's face (see `pair_fits`)."""
    out = []
    for combo in combinations(same, 4):
        pts = points[list(combo)]
        shape = _parallelogram(pts)
        if shape is None or shape[0] > QUAD_TOLERANCE:
            continue
        _, sides = shape
        long_side = sides[0]
        if not _card_aspect(sides):
            continue
        if float(np.hypot(*sides[0])) < 1.2 * float(np.hypot(*sides[1])):
            held = index_boxes[list(combo)]
            long_side = min(sides, key=lambda v: _upright_share(held, v / np.hypot(*v)))
        size = float(np.hypot(*long_side)) / SIDE_TO_LENGTH
        axis = long_side / max(1e-9, float(np.hypot(*long_side)))
        centre = pts.mean(axis=0)
        if _covers(centre, axis, size, others):
            continue
        members = (combo[0], combo[1], combo[2], combo[3])
        out.append(QuadFit(shape[0], members, shared_box, (float(axis[0]), float(axis[1])), size))
    return out


def _parallelogram(
    pts: Float64Array,
) -> tuple[float, tuple[Float64Array, Float64Array]] | None:
    """How far four points are from a parallelogram (the gap between its diagonals'
    midpoints over their mean length) and its two sides from one corner, longer first;
    None when the points coincide."""
    best: tuple[float, tuple[int, int], tuple[int, int]] | None = None
    for (a, b), (c, d) in (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2))):
        gap = float(np.hypot(*((pts[a] + pts[b]) / 2 - (pts[c] + pts[d]) / 2)))
        span = float(np.hypot(*(pts[a] - pts[b])) + np.hypot(*(pts[c] - pts[d]))) / 2
        if span > 0 and (best is None or gap / span < best[0]):
            best = (gap / span, (a, b), (c, d))
    if best is None:
        return None
    (a, _), (c, d) = best[1], best[2]
    first, second = sorted([pts[c] - pts[a], pts[d] - pts[a]], key=lambda v: -float(np.hypot(*v)))
    return best[0], (first, second)


def card_shaped(pts: Float64Array) -> bool:
    """Whether four corners of one name can be one card's: their parallelogram's short
    side at least `QUAD_MIN_ASPECT` of its long side. Two copies side by side in a row
    of a four-index deck show two strips' side pairs, parallel like a card's two sides
    but a step apart, not a card's width; merged as one card, a copy went missing
    without a word."""
    shape = _parallelogram(np.asarray(pts, dtype=np.float64))
    return shape is not None and _card_aspect(shape[1])


def _card_aspect(sides: tuple[Float64Array, Float64Array]) -> bool:
    """A parallelogram's (long, short) sides as a card's corners span them."""
    long_side, short_side = sides
    return float(np.hypot(*short_side)) >= QUAD_MIN_ASPECT * float(np.hypot(*long_side))


def twin_pairs(
    centers: npt.NDArray[np.float64], names: Sequence[str], pairs: set[tuple[int, int]]
) -> set[tuple[int, int]]:
    """Same-name pairs that have a twin: a pair of another name beside it, parallel
    and as long. A row of four-index cards shows each covered card's two indices on
    its uncovered side, one such pair beside the next; a whole card's two diagonal
    corners have no twin (the cards under it show one index each). So a pair with a
    twin lies along a card's side, not across its diagonal."""
    keys = sorted(pairs)
    if len(keys) < 2:
        return set()
    vec = np.asarray([centers[b] - centers[a] for a, b in keys])
    mid = np.asarray([(centers[a] + centers[b]) / 2 for a, b in keys])
    size = np.hypot(vec[:, 0], vec[:, 1])
    out = set()
    for i, (a, _) in enumerate(keys):
        same_way = (
            np.minimum(np.hypot(*(vec - vec[i]).T), np.hypot(*(vec + vec[i]).T))
            <= TWIN_TOLERANCE * size[i]
        )
        near = np.hypot(*(mid - mid[i]).T) <= TWIN_REACH * size[i]
        other = np.asarray([names[k[0]] != names[a] for k in keys])
        if np.any(same_way & near & other):
            out.add(keys[i])
    return out


def along_one_side(a_xyxy: Sequence[float], b_xyxy: Sequence[float], length: float) -> bool:
    """Whether two index boxes of one name can be the two corners of one long side of a
    four-index card `length` pixels long: a fan or a row covers each card but a strip
    along one side, and on a four-index deck that strip shows the card's index twice,
    the lower one upside down. When the strip's outline is not found, nothing else ties
    the two together, and they were counted as two cards. Two copies of a card lie so
    only when laid end to end."""
    a = np.asarray(a_xyxy, dtype=np.float64)
    b = np.asarray(b_xyxy, dtype=np.float64)
    wide = (a[2] - a[0]) + (b[2] - b[0])
    tall = (a[3] - a[1]) + (b[3] - b[1])
    if max(wide, tall) < SQUARE_INDEX * min(wide, tall) or length <= 0:
        return False
    dx = abs((a[0] + a[2]) - (b[0] + b[2])) / 2
    dy = abs((a[1] + a[3]) - (b[1] + b[3])) / 2
    along, across = (dy, dx) if tall >= wide else (dx, dy)
    span = float(np.hypot(dx, dy)) / length
    turned = float(np.degrees(np.arctan2(across, along)))
    return SIDE_SPAN[0] <= span <= SIDE_SPAN[1] and turned <= SIDE_TURN_DEG


DIAGONAL_SPAN = (0.8, 1.15)
"""Distance of two lone indices over the photo's card length for them to be one card's
opposite corners (`on_one_diagonal`): decks put them 0.89-1.04 of the length apart,
and a slant view shortens the outlines that measure the length as well."""
TALL_INDEX = 1.3
"""An index box this much taller than wide (or wider than tall) stands along its card's
long axis to within `TALL_SLACK`: a printed index is a tall rank over its suit, and
turned further its box comes out nearly square."""
TALL_SLACK = 0.5
"""Sine of the largest turn between a tall index box and its card's long axis (30
degrees)."""


def on_one_diagonal(
    a_xyxy: Sequence[float], b_xyxy: Sequence[float], length: float, others: Float64Array
) -> bool:
    """Whether two index boxes of one name can be the two opposite corners of one card
    `length` pixels long whose outline the locator never found: their distance is the
    card's diagonal (`DIAGONAL_SPAN`), the card that diagonal implies (a card is never
    seen mirrored, so the line between them fixes its axis, `card_model.diagonal_axis`)
    lies the way both index boxes stand (`TALL_INDEX`), and no index of another card
    (`others`, (K, 2) centres) lies on its face. The top card of a fan shows both
    corners; with no outline of its own, its two indices stood as two cards, doubling
    its points without a word. Two copies of a card lie so only apart from the rest
    (in a row or fan the cards between them lie on the implied face), at a card's
    diagonal and turned to it (copies laid end to end stand in line with the line
    between them, not turned `card_model.DIAGONAL_TURN_DEG` from it)."""
    a = np.asarray(a_xyxy, dtype=np.float64)
    b = np.asarray(b_xyxy, dtype=np.float64)
    pa, pb = (a[:2] + a[2:]) / 2, (b[:2] + b[2:]) / 2
    dist = float(np.hypot(*(pb - pa)))
    if length <= 0 or not DIAGONAL_SPAN[0] <= dist / length <= DIAGONAL_SPAN[1]:
        return False
    down = diagonal_axis(pa, pb)
    for box in (a, b):
        wide, tall = box[2] - box[0], box[3] - box[1]
        if tall >= TALL_INDEX * wide and abs(down[0]) > TALL_SLACK:
            return False
        if wide >= TALL_INDEX * tall and abs(down[1]) > TALL_SLACK:
            return False
    card_length = dist / DIAGONAL_TO_LENGTH
    return not _covers((pa + pb) / 2, down, card_length, others)


def _index_size(a: Float64Array, b: Float64Array) -> float:
    """Two index boxes' mean larger side."""
    return float(max(a[2] - a[0], a[3] - a[1]) + max(b[2] - b[0], b[3] - b[1])) / 2


def corner_span(a_xyxy: Sequence[float], b_xyxy: Sequence[float]) -> float:
    """How far apart two index boxes lie in index sizes: their centres' distance over
    their boxes' mean larger side. For a card's two opposite corners this is a fact of
    its deck (the print's index size over the card's diagonal), measured on the taught
    deck's enrolment photos (`deck_enrol`) as the scan measures it, on the locator's
    upright boxes: a turned index's box grows by up to a fifth, which the span of a
    photo's corners takes as it comes."""
    a = np.asarray(a_xyxy, dtype=np.float64)
    b = np.asarray(b_xyxy, dtype=np.float64)
    size = _index_size(a, b)
    dist = float(np.hypot(*((a[:2] + a[2:]) / 2 - (b[:2] + b[2:]) / 2)))
    return dist / size if size > 0 else 0.0


SPAN_DIAGONAL = float(np.mean(DIAGONAL_SPAN))
"""Where in `DIAGONAL_SPAN` a card's corners lie apart, in its length, for `span_length`:
its middle, so a photo's corners `span_length` measures pass within about 17% of the
deck's span either way (on a taught Rook validation deck's 88 two-corner cards of 80
photos, 90% lay within 13% of the enrolled span; docs/decks.md, 2026-12-05)."""


def span_length(a_xyxy: Sequence[float], b_xyxy: Sequence[float], span: float) -> float:
    """The length of a card of a deck whose opposite corners lie `span` index sizes
    apart (`corner_span`, measured at enrolment) were these two index boxes its
    corners: a size for `on_one_diagonal` that no outline gives. On a taught deck whose
    locator cut its cards at a printed band across the middle, each corner of a card
    lay in an outline of its own half, the photo's outlines measured half a card, and
    both corners stood as two cards (docs/decks.md, 2026-12-05)."""
    size = _index_size(np.asarray(a_xyxy, np.float64), np.asarray(b_xyxy, np.float64))
    return span * size / SPAN_DIAGONAL


def in_line_between(point: Float64Array, a: Float64Array, b: Float64Array, height: float) -> bool:
    """Whether `point` lies in line between `a` and `b` as an index lies between its
    neighbours' in a row: along the segment's middle half, off it by under half an index
    `height`. A row's indices stand on one line (a straight line stays straight in
    perspective); print on a card's face, or the index of a card lying across another,
    lies off it."""
    step = b - a
    length = float(np.hypot(*step))
    if length == 0:
        return False
    rel = point - a
    along = float(np.dot(rel, step)) / length**2
    off = abs(float(step[0] * rel[1] - step[1] * rel[0])) / length
    return 0.25 <= along <= 0.75 and off < 0.5 * height


def prior_axes(
    points: Float64Array, poses: Sequence[tuple[Float64Array, Float64Array, float]], fallback: float
) -> tuple[Float64Array, Float64Array, npt.NDArray[np.bool_], Float64Array]:
    """For each point (N, 2), from the placed cards near it (`poses`: centre, axis,
    length; the nearest count most, as the cards of a fan turn from one to the next):
    the long axis (unsigned line), the card length, whether the cards agree enough
    to tell the axis, and the distance to the nearest one in its lengths."""
    n = len(points)
    axes = np.zeros((n, 2))
    lengths = np.full(n, fallback)
    known = np.zeros(n, dtype=bool)
    reach = np.full(n, np.inf)
    if not poses:
        return axes, lengths, known, reach
    centres = np.asarray([p[0] for p in poses], dtype=np.float64)
    axis = np.asarray([p[1] for p in poses], dtype=np.float64)
    size = np.asarray([p[2] for p in poses], dtype=np.float64)
    doubled = np.arctan2(axis[:, 1], axis[:, 0]) * 2
    dist = (
        np.hypot(centres[None, :, 0] - points[:, None, 0], centres[None, :, 1] - points[:, None, 1])
        / size[None, :]
    )
    w = np.exp(-dist / PRIOR_FALLOFF) * (dist <= PRIOR_REACH)
    total = w.sum(axis=1)
    c, s = w @ np.cos(doubled), w @ np.sin(doubled)
    half = np.arctan2(s, c) / 2
    told = total > 1e-12
    axes[told] = np.stack([np.cos(half), np.sin(half)], axis=1)[told]
    lengths = np.where(told, (w @ size) / np.maximum(total, 1e-12), size[np.argmin(dist, axis=1)])
    known = told & (np.hypot(c, s) > 0.3 * total)
    reach = dist.min(axis=1)
    return axes, lengths, known, reach


def _outside(boxes: Float64Array, points: Float64Array) -> Float64Array:
    """(...) distance from each point (..., 2) to its box (..., 4 xyxy), 0 inside."""
    dx = np.maximum(0.0, np.maximum(boxes[..., 0] - points[..., 0], points[..., 0] - boxes[..., 2]))
    dy = np.maximum(0.0, np.maximum(boxes[..., 1] - points[..., 1], points[..., 1] - boxes[..., 3]))
    out: Float64Array = np.hypot(dx, dy)
    return out


def lone_fits(
    points: Float64Array,
    candidates: Sequence[tuple[int, int]],
    boxes: Float64Array,
    axes: Float64Array,
    lengths: Float64Array,
    known: npt.NDArray[np.bool_],
) -> list[Fit]:
    """The best pose per (index, box) candidate: turns within `TURN_LIMIT_DEG` of the
    prior axis (either way along it) when `known`, any turn otherwise. The cost is the
    box's overhang over the (roomy) card, plus how far the box falls short of the
    card's corners on the index's edge (the top-left one, and half for the
    bottom-left one, which another card may cover), plus the turning penalty."""
    if not candidates:
        return []
    index = np.asarray([c[0] for c in candidates])
    box = boxes[np.asarray([c[1] for c in candidates])][:, None, :]  # (C, 1, 4)
    near = np.arange(-TURN_LIMIT_DEG, TURN_LIMIT_DEG + 1e-9, TURN_STEP_DEG)
    near_turns = np.concatenate([near, near + 180.0])
    anywhere = np.linspace(0.0, 360.0, len(near_turns), endpoint=False)
    is_known = known[index][:, None]  # (C, 1)
    turns = np.where(is_known, near_turns[None, :], anywhere[None, :])  # (C, H)
    start = np.where(is_known, axes[index], np.array([0.0, 1.0]))  # (C, 2)
    penalty = np.where(
        is_known, TURN_PENALTY * np.abs(np.concatenate([near, near])) / TURN_PENALTY_PER_DEG, 0.0
    )
    downs = turn(np.broadcast_to(start[:, None, :], (*turns.shape, 2)), turns)  # (C, H, 2)
    size = lengths[index][:, None]  # (C, 1)
    centres = centre_from_index(points[index][:, None, :], downs, size)
    # The card's corners on the index's edge: top-left and bottom-left.
    edge = centres - 0.5 * CARD_ASPECT * size[..., None] * right_of(downs)
    top_left = edge - 0.5 * size[..., None] * downs
    bottom_left = edge + 0.5 * size[..., None] * downs
    short = _outside(box, top_left) + 0.5 * _outside(box, bottom_left)
    short = np.maximum(0.0, short / size - CORNER_SLACK)
    cost = overhang(box, card_bbox(centres, downs, size * ROOMY)) / size + short + penalty
    best = np.argmin(cost, axis=1).tolist()
    return [
        Fit(float(cost[r, b]), index_, box_, (float(downs[r, b, 0]), float(downs[r, b, 1])))
        for r, ((index_, box_), b) in enumerate(zip(candidates, best, strict=True))
    ]
