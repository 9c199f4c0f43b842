"""Group physical cards into rows and fans, in table order.

Only boxes are known (no card outlines). Cards in a row or fan overlap so that each
index stays in view, which gives rows a shape the boxes show reliably: the read indices
of a row's cards lie on one line (the index line), a short step apart along it, and
every card's body lies on the same side of that line. So two cards are neighbours when
an index of one and an index of the other

- are within `link_distance` card lengths of each other (the local length: near cards
  look larger than far ones),
- differ by at most `across` card lengths along the cards' long axis (the index line
  runs across the cards, so a step down the cards goes to another row),
- have their cards' bodies on the same side (the bottom index of a whole card lying
  just above the next row's indices has its body above them; theirs lie below). Two
  covered cards are spared this test: their sides come from boxes, which may be a
  neighbour's;
- sit on their cards' leading edges, for cards seen whole (`_leading`): a four-index
  card ending a meld shows its top-right index close to the next meld.

Axes, bodies and the local card length come from `orientation`. Rows are the
connected groups. A covered card's box gives its axis only roughly, so the rows found
give it again, across the line through its neighbours' indices, and the cards are
linked anew with those axes (twice); a covered card left alone takes the axis of
the row it lies near, until no more join (`RowGrouper._loose_axes`).

Table order runs along the row (across the cards' long axis) towards the card lying
on top: each card is laid over the last so the indices show, which puts the first card
at the bottom of the pile and the last one whole in view (both indices read, the
largest visible box). A four-index card seen whole between covered cards ends its
meld, so the row is cut after it (`_split_after_whole`): `_leading` cannot tell its
bottom-right corner (trailing) from a top-left one read upside down, and with melds
laid close that corner reaches the next meld's bottom-left index.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

import numpy as np
import numpy.typing as npt

from .arrays import Float64Array
from .box_overlap import overlap_areas
from .card_fit import corner_span
from .orientation import body_vectors, card_axes, local_lengths
from .snapshot import SeenCard

__all__ = [
    "GAP_STEPS",
    "PILE_OVERLAP",
    "CardRow",
    "RowGrouper",
    "card_length",
    "outline_floor",
    "piled_cards",
    "row_gaps",
]

WHOLE_CORNERS = 3
"""A card with this many indices read is a four-index card seen whole (a covered card
shows at most the two of one side; the fourth corner of a whole one is often unread)."""
WHOLE_ALONG = 0.4
"""The least cosine between a row's direction and the line joining two indices of one
of its cards for them to be opposite corners (`_seen_whole`): across a card's width
and length, a diagonal runs 0.5-0.6 of its length along a row spread sideways; the two
corners of a covered card's leading side run across the row (cosine near 0)."""
WHOLE_TURN = (0.25, 0.8)
"""The sines of the angle between a card's own long axis (where fitted) and the line
joining two of its indices for which they are opposite corners (`_seen_whole`): a
diagonal between index centres lies 25-40 degrees from the axis (sine 0.4-0.65); a
four-index deck's two corners of one long side lie along it, of one short side across
it (sine 1). Either test alone misjudged right hands of the validation photos: a
covered card's fitted axis can be off, and a row's line bends in a tilted photo."""
WHOLE_SPAN = 3.0
"""Two indices of one card this many index sizes apart or more can be opposite corners
(a card's diagonal is about six index heights; two boxes of one corner overlap)."""
GAP_STEPS = 1.7
"""A step between two neighbours of a row this many times the row's shortest step is a
gap where a card may lie unseen (a card missed with no outline of its own, e.g. under a
neighbour's box, leaves one). 1.7, not 1.8, since rows are found by the outlines'
length too (`outline_floor`): a joker missed between 3c and 5c left a step 1.67 times
the shortest (validation lay-down); 1.5-1.7 flag no photo read right more on the 1,200
validation photos."""

PILE_OVERLAP = 0.2
"""A card lying loose (in no row of two or more) whose box covers this share of its own
or another card's box lies piled on it (`piled_cards`)."""

OUTLINE_FLOOR = 0.9
"""The card length is at least this share of the outlines' median long side
(`outline_floor`), a floor under the indices' estimate rather than a measure: a card
turned on the table has a box longer than itself (1.19 lengths turned 20 degrees), and
melds laid against each other put their leading indices 0.61 lengths apart, under
`link_distance`. On the validation photos 0.9 gains two thirds of what the full median
does (hands exact 40.2 -> 40.8% and 35.2 -> 35.8%, no photo more silent); the full
median joins melds laid side by side when turned."""

LONG_ROW = 4
"""A row of this many read cards or more is a spread hand, not part of a pile: a loose
card lying on its end alone is its top card or laid on it (`piled_cards`)."""

PAIR_TO_LENGTH = 0.93
INDEX_TO_LENGTH = 4.4


def card_length(cards: Sequence[SeenCard]) -> float:
    """Length of a card's long side in pixels, from the cards themselves: the median
    of what the cards showing two indices give (or index heights, when none does),
    never under the outlines' floor (`outline_floor`)."""
    return max(_index_length(cards), outline_floor(cards))


def _index_length(cards: Sequence[SeenCard]) -> float:
    """Median length of a card's long side in pixels, from the read indices alone."""
    pairs = []
    sizes = []
    for card in cards:
        boxes = np.asarray(card.index_xyxy, dtype=np.float64).reshape(-1, 4)
        sizes.extend((boxes[:, 2:] - boxes[:, :2]).max(axis=1).tolist())
        if len(boxes) >= 2:
            pairs.append(card.index_span / PAIR_TO_LENGTH)
    if pairs:
        return float(np.median(pairs))
    if sizes:
        return float(np.median(sizes)) * INDEX_TO_LENGTH
    return 1.0


def outline_floor(cards: Sequence[SeenCard]) -> float:
    """The shortest a card's long side can be in pixels, by the cards' matched outlines:
    `OUTLINE_FLOOR` times the median of their long sides (0 when none).

    Why: two indices of one card give its length only when they lie a diagonal apart.
    A covered four-index card shows the two of its leading edge, a length less the
    insets, and some decks print their indices further in: on the 1,200 validation
    photos (seeds 3101, 3103) the index estimate fell under 0.9 of the true length in
    27% of them, so a spread row's steps (up to 0.57 lengths) outran `link_distance` and
    its cards stood alone, each "piled" on the next. A row or fan shows every card's
    full length."""
    boxes = np.asarray([c.xyxy for c in cards if c.box_id is not None], dtype=np.float64)
    if not len(boxes):
        return 0.0
    sides = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    return OUTLINE_FLOOR * float(np.median(sides))


@dataclass(frozen=True, slots=True)
class CardRow:
    """Cards that lie together in one row or fan, `members` in table order (indices
    into the card list given to the grouper); `side` is the row's index side, a unit
    vector from the cards' bodies towards their indices (0, 0 when unknown); `unread`
    counts the cards seen in the row without a readable index (see `unread`)."""

    members: tuple[int, ...]
    side: tuple[float, float]
    unread: int = 0

    @property
    def size(self) -> int:
        """Cards lying in the row, read or not."""
        return len(self.members) + self.unread


@dataclass(frozen=True)
class _Geometry:
    """Per card: read index centres, body vectors, long axis (smoothed over the
    neighbours), the card's own fitted axis (zeros when none), local length."""

    points: list[Float64Array]
    bodies: list[Float64Array]
    axes: Float64Array
    own_axes: Float64Array
    lengths: Float64Array
    centres: Float64Array


@dataclass(frozen=True)
class RowGrouper:
    link_distance: float = 0.65
    """Largest step between the indices of two neighbours, in card lengths. A spread
    hand steps up to about half a card (0.57 in the generated photos); the next meld
    along a row starts a whole card width and a gap away (at least 0.8)."""
    across: float = 0.3
    """Largest offset of two neighbours' indices along the cards' long axis, in card
    lengths. Two rows of cards lie at least a card's length apart."""

    def group(self, cards: Sequence[SeenCard]) -> tuple[list[CardRow], float]:
        """Rows (in no particular order) and the card length used."""
        if not cards:
            return [], 1.0
        points = [c.index_centers.astype(np.float64) for c in cards]
        bodies = [body_vectors(c, p) for c, p in zip(cards, points, strict=True)]
        length = card_length(cards)
        lengths = np.maximum(local_lengths(cards, length, points), outline_floor(cards))
        geo = _Geometry(
            points=points,
            bodies=bodies,
            axes=card_axes(cards, lengths, points, bodies),
            own_axes=np.asarray(
                [c.axis if c.axis is not None else (0.0, 0.0) for c in cards], dtype=np.float64
            ).reshape(-1, 2),
            lengths=lengths,
            centres=np.asarray([c.center for c in cards], dtype=np.float64).reshape(-1, 2),
        )
        rows, heads = self._rows(cards, geo)
        for _ in range(2):
            geo = replace(geo, axes=self._row_axes(geo, rows, heads))
            rows, heads = self._rows(cards, geo)
        for _ in range(len(cards)):
            axes = self._loose_axes(geo, rows, self._line_axes(geo, rows, heads), geo.axes)
            if np.array_equal(axes, geo.axes):
                break
            geo = replace(geo, axes=axes)
            rows, heads = self._rows(cards, geo)
        return [piece for row in rows for piece in _split_after_whole(cards, row)], length

    def _rows(
        self, cards: Sequence[SeenCard], geo: _Geometry
    ) -> tuple[list[CardRow], list[Counter[int]]]:
        """Rows from the links, and per card how often each of its indices linked."""
        parent = list(range(len(cards)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        heads: list[Counter[int]] = [Counter() for _ in cards]
        for i, j, a, b in self._links(geo):
            heads[i][a] += 1
            heads[j][b] += 1
            parent[find(j)] = find(i)
        groups: dict[int, list[int]] = {}
        for i in range(len(cards)):
            groups.setdefault(find(i), []).append(i)
        rows = [self._ordered(cards, geo, members, heads) for members in groups.values()]
        return rows, heads

    @staticmethod
    def _line_axes(
        geo: _Geometry, rows: list[CardRow], heads: list[Counter[int]]
    ) -> dict[int, Float64Array]:
        """Per card in a row of two or more: the axis across the line through its
        neighbours' indices (its own and its one neighbour's at a row's end)."""
        lines: dict[int, Float64Array] = {}
        for row in rows:
            if len(row.members) < 2:
                continue
            pts = [
                geo.points[m][heads[m].most_common(1)[0][0] if heads[m] else 0] for m in row.members
            ]
            for k, m in enumerate(row.members):
                step = pts[min(k + 1, len(pts) - 1)] - pts[max(k - 1, 0)]
                norm = float(np.hypot(*step))
                if norm > 1e-6:
                    lines[m] = np.array([-step[1], step[0]]) / norm
        return lines

    def _row_axes(
        self, geo: _Geometry, rows: list[CardRow], heads: list[Counter[int]]
    ) -> Float64Array:
        """Long axes read off the rows found (`_line_axes`). A covered card's box gives
        its axis only roughly (a hand spread wide shows most of each card, and its box's
        centre lies well to the side of the index), the line of indices gives it well,
        fans included. Twice only: the axes of a row ordered wrongly (three melds
        joined) are wrong in turn, and passes after the second swing between two
        groupings."""
        lines = self._line_axes(geo, rows, heads)
        axes = geo.axes.copy()
        for m, axis in lines.items():
            axes[m] = axis
        return self._loose_axes(geo, rows, lines, axes)

    def _loose_axes(
        self,
        geo: _Geometry,
        rows: list[CardRow],
        lines: dict[int, Float64Array],
        axes: Float64Array,
    ) -> Float64Array:
        """`axes`, where each covered card left out of every row takes the row's axis
        (`lines`, from `_line_axes`) at the nearest row card whose index lies within `link_distance`
        of its own, so the next pass tests the link along the row's line rather than
        the card box's diagonal. Only loose cards change, and a loose card has no link
        to lose: rows only grow by it, and the passes settle.

        Why: at table distance a spread row steps about 0.6 card lengths, beyond the
        neighbours that `card_axes` smooths over, and a covered card's box (the whole
        card, its centre down and to the side of the index) gives an axis some 35
        degrees off; a row's end cards then failed `across` and stood alone, flagged
        "piled" on hands read right (validation seeds 3101 and 3103)."""
        if not lines:
            return axes
        axes = axes.copy()
        owner = np.concatenate([np.full(len(geo.points[m]), m) for m in lines])
        spots = np.concatenate([geo.points[m] for m in lines]).reshape(-1, 2)
        for row in rows:
            m = row.members[0]
            if len(row.members) != 1 or len(geo.points[m]) != 1:
                continue
            gaps = np.hypot(*(spots - geo.points[m][0]).T)
            near = int(np.argmin(gaps))
            reach = self.link_distance * (geo.lengths[m] + geo.lengths[owner[near]]) / 2
            if gaps[near] <= reach:
                axes[m] = lines[int(owner[near])]
        return axes

    def _links(self, geo: _Geometry) -> list[tuple[int, int, int, int]]:
        """(card i, card j, index of i, index of j) for every pair of neighbours in a
        row, through their closest pair of indices that passes the tests."""
        owner = np.concatenate([np.full(len(p), i) for i, p in enumerate(geo.points)])
        slot = np.concatenate([np.arange(len(p)) for p in geo.points])
        pts = np.concatenate(geo.points).reshape(-1, 2)
        body = np.concatenate(geo.bodies).reshape(-1, 2)
        d = pts[None, :, :] - pts[:, None, :]
        dist = np.hypot(d[..., 0], d[..., 1])
        scale = (geo.lengths[owner][:, None] + geo.lengths[owner][None, :]) / 2
        own = geo.own_axes[owner]
        counts = np.asarray([len(p) for p in geo.points])
        whole = (counts[owner] >= 2) & own.any(axis=1)
        head = ~whole | _leading(body, own)
        pa, pb = np.nonzero(
            (owner[:, None] < owner[None, :])
            & (dist <= self.link_distance * scale)
            & head[:, None]
            & head[None, :]
        )
        if len(pa) == 0:
            return []
        # Mean of the two cards' axes as lines (angles doubled), per candidate pair.
        ax = geo.axes[owner]
        doubled = np.stack([ax[:, 0] ** 2 - ax[:, 1] ** 2, 2 * ax[:, 0] * ax[:, 1]], axis=1)
        total = doubled[pa] + doubled[pb]
        half = np.arctan2(total[:, 1], total[:, 0]) / 2
        axis = np.stack([np.cos(half), np.sin(half)], axis=1)
        has_axis = np.hypot(total[:, 0], total[:, 1]) > 1e-6
        step = d[pa, pb]
        across = np.abs((step * axis).sum(axis=1))
        sides = (body[pa] * axis).sum(axis=1) * (body[pb] * axis).sum(axis=1)
        # Two covered cards: each side comes from a box, and a box may be a
        # neighbour's; the index line alone (across) tells rows apart there.
        covered = (counts[owner[pa]] == 1) & (counts[owner[pb]] == 1)
        ok = ~has_axis | ((across <= self.across * scale[pa, pb]) & ((sides >= 0) | covered))
        best: dict[tuple[int, int], tuple[float, int, int]] = {}
        for a, b in zip(pa[ok].tolist(), pb[ok].tolist(), strict=True):
            key = (int(owner[a]), int(owner[b]))
            if key not in best or dist[a, b] < best[key][0]:
                best[key] = (float(dist[a, b]), int(slot[a]), int(slot[b]))
        return [(i, j, a, b) for (i, j), (_, a, b) in best.items()]

    @staticmethod
    def _ordered(
        cards: Sequence[SeenCard],
        geo: _Geometry,
        members: list[int],
        heads: list[Counter[int]],
    ) -> CardRow:
        head = [heads[m].most_common(1)[0][0] if heads[m] else 0 for m in members]
        # Each card's axis, turned to point from its index line to its body; their sum
        # points down the row, and down the middle of a fan however wide it opens.
        axes = geo.axes[members]
        lean = np.asarray(
            [float(geo.bodies[m][h] @ geo.axes[m]) for m, h in zip(members, head, strict=True)]
        )
        told = np.asarray([bool(heads[m]) or len(geo.points[m]) == 1 for m in members])
        down = (axes * (np.sign(lean) * told)[:, None]).sum(axis=0)
        norm = float(np.hypot(*down))
        unit = -down / norm if norm > 1e-6 else np.zeros(2)
        if len(members) == 1:
            return CardRow((members[0],), (float(unit[0]), float(unit[1])))
        anchors = np.asarray(
            [geo.points[m][h] for m, h in zip(members, head, strict=True)]
        ).reshape(-1, 2)
        if np.any(unit):
            along = np.array([-unit[1], unit[0]])
        else:
            centred = anchors - anchors.mean(axis=0)
            along = np.linalg.svd(centred, full_matrices=False)[2][0]
        order = list(np.argsort(anchors @ along, kind="stable"))
        if _on_top(cards[members[order[0]]]) > _on_top(cards[members[order[-1]]]):
            order.reverse()  # the card lying on top, seen whole, is the last laid
        return CardRow(tuple(members[k] for k in order), (float(unit[0]), float(unit[1])))


def _split_after_whole(cards: Sequence[SeenCard], row: CardRow) -> list[CardRow]:
    """A row cut after every four-index card seen whole between covered cards: such a
    card ends its meld (nothing lies on it), and the next meld laid close beside it
    starts under its trailing corners, which four-index decks print too, so the
    indices link across the gap. A row of two-index cards never joins that way (the
    trailing corner is the bottom one, a card's length from the next meld's index)."""
    whole = [len(cards[m].index_xyxy) >= WHOLE_CORNERS for m in row.members]
    cuts = [
        k + 1
        for k in range(1, len(whole) - 1)
        if whole[k] and not whole[k - 1] and not whole[k + 1]
    ]
    if not cuts:
        return [row]
    bounds = [0, *cuts, len(row.members)]
    return [replace(row, members=row.members[a:b]) for a, b in pairwise(bounds)]


def _leading(body: Float64Array, axes: Float64Array) -> npt.NDArray[np.bool_]:
    """(P,) whether each index of a whole card sits on its leading edge: the rest of
    the card lies down and to the right of it, seen the way the index reads (a
    top-left index, or a bottom-right one read upside down). A row shows the leading
    edge of every card; the other corners (top-right and bottom-left of four-index
    decks) sit on the trailing edge, which the next card covers, so only the last
    card of a row shows them, and they must not reach over to the next meld along
    the table. (A covered card's box says too little about its sides to tell.)"""
    lean = (body * axes).sum(axis=1)
    down = axes * np.where(lean < 0, -1.0, 1.0)[:, None]
    right = np.stack([down[:, 1], -down[:, 0]], axis=1)
    size = np.hypot(body[:, 0], body[:, 1])
    out: npt.NDArray[np.bool_] = (body * right).sum(axis=1) >= -0.1 * size
    return out


def _on_top(card: SeenCard) -> tuple[int, float]:
    """How whole a card looks: indices read, then the area of its visible box."""
    x1, y1, x2, y2 = card.xyxy
    return len(card.index_xyxy), (x2 - x1) * (y2 - y1)


def row_gaps(cards: Sequence[SeenCard], rows: Sequence[CardRow]) -> list[tuple[int, int]]:
    """Neighbours (positions into `cards`) with a gap between them, in rows of three or
    more cards: each step is the shortest distance between the two cards' read indices
    (the far corner of a row's last card would stretch it), compared with the row's
    shortest step. A spread row steps evenly, so a step of `GAP_STEPS` shortest steps is
    a card the scan did not see. The shortest, not the median: in a row of three read
    cards with one missed, the median is half the gap (validation scan benchmark: the
    median left a missed joker silent, the shortest flagged it and no photo read right)."""
    gaps: list[tuple[int, int]] = []
    for row in rows:
        if len(row.members) < 3:
            continue
        pairs = list(pairwise(row.members))
        steps = np.asarray(
            [
                np.hypot(
                    *(
                        cards[a].index_centers[:, None, :] - cards[b].index_centers[None, :, :]
                    ).transpose(2, 0, 1)
                ).min()
                for a, b in pairs
            ]
        )
        typical = float(np.min(steps))
        if typical <= 0:
            continue
        gaps += [
            pair for pair, step in zip(pairs, steps, strict=True) if step > GAP_STEPS * typical
        ]
    return gaps


def piled_cards(cards: Sequence[SeenCard], rows: Sequence[CardRow]) -> list[int]:
    """Cards (positions into `cards`) lying loose, in no row of two or more read cards,
    whose box overlaps another card's box by `PILE_OVERLAP` of the smaller of the two;
    not a card whose one such neighbour is the end of a row of `LONG_ROW` or more and
    has another name (`_ends_a_row`).

    Why: a hand dropped in a loose pile hides cards. A row or fan is laid so that every
    index shows; a pile is not, and a card lying wholly under others shows no corner and,
    often, no outline the locator finds: nothing read, nothing unread, a score short and
    no word. On 800 generated validation hand photos (seeds 3101 and 3103) 86 of the 153
    loose piles hid a card's every index, and four of the six hands scored wrong in
    silence were such piles (or a fan card read twice where the pile rule also fires)."""
    in_rows = {
        m
        for row in rows
        if len(row.members) >= 2 and not _whole_inside(cards, row)
        for m in row.members
    }
    ends = {
        m for row in rows if len(row.members) >= LONG_ROW for m in (row.members[0], row.members[-1])
    }
    boxes = np.asarray([c.xyxy for c in cards], dtype=np.float64).reshape(-1, 4)
    areas = np.clip(boxes[:, 2] - boxes[:, 0], 1.0, None) * np.clip(
        boxes[:, 3] - boxes[:, 1], 1.0, None
    )
    piled = []
    for k in range(len(cards)):
        if k in in_rows:
            continue
        share = overlap_areas(boxes[k], boxes) / np.minimum(areas[k], areas)
        share[k] = 0.0
        touching = np.flatnonzero(share >= PILE_OVERLAP).tolist()
        if touching and not _ends_a_row(k, touching, ends, cards):
            piled.append(k)
    return piled


def _whole_inside(cards: Sequence[SeenCard], row: CardRow) -> bool:
    """Whether a card of the row other than its two ends is seen whole (`_seen_whole`,
    along the line from the card before it to the card after it).

    Why: in a row or fan each card lies on the one before it and hides its trailing
    corner, so only an end card shows two opposite corners. A card seen whole between
    two others lies on both: the three are a pile whose indices happen to line up, and a
    pile hides cards. A taught deck's validation photo (2026-12-05, fifth session): four
    Rook cards dropped in a pile, the top one whole across the middle, two others read by
    one corner each on either side of it, the fourth wholly beneath; grouped as a row of
    three, nothing warned and the hand was a card short in silence."""
    members = row.members
    for before, middle, after in zip(members, members[1:], members[2:], strict=False):
        line = (
            cards[after].index_centers.mean(axis=0) - cards[before].index_centers.mean(axis=0)
        ).astype(np.float64)
        if _seen_whole(cards[middle], line):
            return True
    return False


def _seen_whole(card: SeenCard, line: Float64Array) -> bool:
    """Whether a card of a row shows corners that the next card would hide: three or
    more indices (`WHOLE_CORNERS`), or two at least `WHOLE_SPAN` index sizes apart
    whose offset runs along the row's `line` (cosine `WHOLE_ALONG` or more) and, where
    the card's long axis was fitted, turned from it as a diagonal is (`WHOLE_TURN`), as
    a card's opposite corners lie. The two corners a covered card shows lie on its
    leading side, across the row: a four-index deck's two left corners in a row spread
    sideways, its two top corners in one spread end to end."""
    if len(card.index_xyxy) >= WHOLE_CORNERS:
        return True
    length = float(np.hypot(*line))
    if len(card.index_xyxy) != 2 or length <= 0:
        return False
    if corner_span(*card.index_xyxy) < WHOLE_SPAN:  # one corner boxed twice says nothing
        return False
    a, b = card.index_centers.astype(np.float64)
    d = b - a
    span = float(np.hypot(*d))
    if abs(float(d @ line)) / (span * length) < WHOLE_ALONG:
        return False
    if card.axis is None:
        return True
    across = abs(float(d[0] * card.axis[1] - d[1] * card.axis[0])) / span
    return WHOLE_TURN[0] <= across <= WHOLE_TURN[1]


def _ends_a_row(k: int, touching: Sequence[int], ends: set[int], cards: Sequence[SeenCard]) -> bool:
    """Whether loose card `k` lies on nothing but the end card of a long row, and is
    not named as that card: a spread hand's top card read only by its far corner (its
    leading index unread, so the row did not take it), or a card laid on the row's end.

    Why: of the validation hands read right and flagged `piled` alone (seeds 3101 and
    3103), 6 were such a card at the end of a spread row of four or more; no hand read
    wrong and flagged by `piled` alone was. A card named as its row's end is that card's
    far corner read as a second card (a fan's Ad counted twice), so it stays piled, as
    does one at the end of a row of three (a loose hand misread, flagged only by it)."""
    return len(touching) == 1 and touching[0] in ends and cards[touching[0]].card != cards[k].card
