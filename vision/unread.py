"""Card boxes without a readable index, counted in the rows they lie in.

A card whose indices are blurred, too small or covered is seen (a card box) but not
read, so it is no `SeenCard` and no row member. It still tells how long its row
is: a meld of four with one card read is a row of four, not a loose card. Seating
needs that length (rows shorter than the smallest meld are hand), so each unread box
is counted in the row it lies in; its face stays unknown and it is never scored.

An unread box lies in a row when it touches the box of a card of the row (a row's
cards overlap, so their boxes touch or overlap) and sits level with it along the
cards' long axis (a box in the next row is a card's length away along that axis).
Unread boxes chain: a meld read at one card, the rest blurred, is one row. A box that
two rows reach goes to the one it reaches in fewer steps, then to the nearer card.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .arrays import Float64Array
from .box_overlap import box_gaps, overlap_areas
from .layout import PAIR_TO_LENGTH, CardRow
from .snapshot import SeenCard

__all__ = ["count_unread", "unread_boxes"]


TOUCH = 0.02
"""Largest gap between two boxes of one row, in card lengths (a row's boxes overlap)."""
LEVEL = 0.3
"""Largest offset of two boxes of one row along the cards' long axis, in card lengths."""
SPANNED = 0.9
"""Share of a card box that the boxes of cards read in it must cover for it to be a box
around those cards rather than a card of its own (`_spans_read_cards`)."""
SPANNED_MANY = 0.75
"""The same share when the box holds indices of two or more cards read with boxes of
their own (`_spans_read_cards`), chosen on validation with a margin (no photo
changed outcome for the worse down to 0.6)."""
OUTSIZED = 1.8
"""A card box whose longer side is over this many times the longest card the photo's
reads imply is no card (`_outsized`): a card's box, turned any way, is at most 1.23 of
its length (the card's diagonal), and 1.8 leaves half a card more for cards nearer
the camera than those read."""

PART_WITHIN = 0.8
"""Share of a card box that must lie inside a read card's own box for it to be a part
of that card (`_part_of_a_read_card`)."""
PART_AREA = 0.7
"""Largest area of a card box, as a share of a read card's own box, for it to be a part
of that card rather than a card under it (`_part_of_a_read_card`)."""
AROUND_READ = 1.35
"""A card box holding an index of a card read with an outline of its own is no card when
its longer side is over this many times the longest card the reads imply
(`_around_a_read_card`): a card's box, turned any way, is at most 1.23 of its length,
and a tenth more is left for a loosely drawn box."""


def unread_boxes(
    card_boxes: npt.NDArray[np.float32],
    cards: Sequence[SeenCard],
    claimed: Sequence[int] = (),
) -> npt.NDArray[np.float32]:
    """(K, 4) xyxy of the card boxes no card was read in: not given to a card (nor
    `claimed`: boxes of cards read but set aside), and holding no index of a card that
    got no box (that card is the box's own)."""
    boxes = np.asarray(card_boxes, dtype=np.float32).reshape(-1, 4)
    used = {c.box_id for c in cards if c.box_id is not None} | set(claimed)
    points = _index_centres([c for c in cards if c.box_id is None])
    read = _index_centres([c for c in cards if c.box_id is not None])
    longest = _longest_card(cards)
    keep = []
    for k in range(len(boxes)):
        if k in used or _holds(boxes[k], points).any() or _outsized(boxes[k], longest):
            continue
        if _around_a_read_card(boxes[k], read, longest):
            continue
        if _part_of_a_read_card(boxes[k], boxes, cards):
            continue
        if not _spans_read_cards(boxes[k], boxes, cards):
            keep.append(k)
    return boxes[keep]


def _longest_card(cards: Sequence[SeenCard]) -> float:
    """The longest a card's long side may be in pixels by the cards read: the largest of
    their matched outlines and their corners' spans (0 when no card read has either).
    An index's own height is no measure here: with it (times `layout.INDEX_TO_LENGTH`)
    the outlines of real cards left unread on 12 validation photos whose few cards were
    read at table distance without an outline were taken for outsized."""
    lengths = [0.0]
    for card in cards:
        lengths.append(card.index_span / PAIR_TO_LENGTH)
        if card.outlined and card.box_id is not None:
            x0, y0, x1, y1 = card.xyxy
            lengths.append(max(x1 - x0, y1 - y0))
    return max(lengths)


def _index_centres(cards: Sequence[SeenCard]) -> npt.NDArray[np.float32]:
    """(P, 2) the index centres of `cards`."""
    centres = [c.index_centers for c in cards]
    return np.concatenate(centres).reshape(-1, 2) if centres else np.zeros((0, 2), np.float32)


def _around_a_read_card(
    box: npt.NDArray[np.float32], read: npt.NDArray[np.float32], longest: float
) -> bool:
    """Whether `box` holds an index of a card read with its own outline (`read`: their
    index centres) and is larger than a card lying there can box (`AROUND_READ`): that
    card and what lies around it, not a card under it. A card under another may hold the
    other's index in its box, but it lies at the same place, so it boxes no larger than
    a card; the `OUTSIZED` margin is for cards elsewhere, nearer the camera. On the
    real-dev photos a taught deck's locator boxed a drum pad, a sheaf of papers and a
    cloth around the one card read (1.4-1.8 times its box), each "a card could not be
    read" on a photo read right (2026-12-06, fifth session: docs/vision.md)."""
    return bool(_holds(box, read).any()) and _outsized(box, longest, AROUND_READ)


def _part_of_a_read_card(
    box: npt.NDArray[np.float32], boxes: npt.NDArray[np.float32], cards: Sequence[SeenCard]
) -> bool:
    """Whether `box` is a part of a card read with its own outline: it holds that card's
    index, lies `PART_WITHIN` inside its outline and is at most `PART_AREA` of it. The
    locator sometimes boxes a strip of a card (the edge holding its corner) as well as
    the whole card; counted as a card not read, such strips put "1 card could not be
    read" on real photos read right (a 10s's and a Jh's right edges, 0.36-0.47 of the
    card, 0.87-0.88 inside it, just under `SPANNED`). A card under the read card that
    shows past it boxes larger, or lies further out."""
    for c in cards:
        if c.box_id is None or not _holds(box, c.index_centers).any():
            continue
        own = boxes[c.box_id]
        if _area(box) > PART_AREA * _area(own):
            continue
        if float(overlap_areas(box, own)) >= PART_WITHIN * _area(box):
            return True
    return False


def _area(box: npt.NDArray[np.float32]) -> float:
    """A box's area in square pixels."""
    return float(max(box[2] - box[0], 0.0) * max(box[3] - box[1], 0.0))


def _outsized(box: npt.NDArray[np.float32], longest: float, bound: float = OUTSIZED) -> bool:
    """Whether `box` is too large to be a card beside the cards read (`OUTSIZED`, or
    `bound` times the longest card read). On
    the real photos of one deck, a taught deck's locator outlined patches of a blanket,
    a table or a drum pad two to three cards large beside the one card read, and "1
    card could not be read" flagged photos read right: dropping such outlines took the
    296 photos (`real_photos.py`) from 64.5 / 30.1 / 5.4 / 0.0% (exact / right but
    flagged / wrong, flagged / silent) to 66.9 / 27.7 / 5.4 / 0.0% with the real deck
    taught, and 63.2 / 26.7 / 9.5 / 0.7% to 63.9 / 26.0 / 9.5 / 0.7% with the shipped
    models. The shipped models' validation replays (seeds 3101 and 3301, 400 hands and
    200 lay-downs) change in no photo; two taught validation decks' 160 photos in two,
    one hand read right now exact and one wrong hand still flagged."""
    if longest <= 0:
        return False
    return float(max(box[2] - box[0], box[3] - box[1])) > bound * longest


def _spans_read_cards(
    box: npt.NDArray[np.float32], boxes: npt.NDArray[np.float32], cards: Sequence[SeenCard]
) -> bool:
    """Whether `box` is one box around cards read with boxes of their own: it holds an
    index of at least one of them and their own boxes cover `SPANNED` of it. The
    locator sometimes boxes two overlapping cards of a row as one as well as each
    alone; counted as a card not read, that box put "1 card could not be read" on
    photos read right. A card of its own that went unread keeps its box: the boxes of
    its neighbours are their visible parts and leave its own visible part uncovered.

    Measured by replaying the seventh model's reads of the scan's validation photos
    (seed 3101, 400 hands, 200 lay-downs): hands exact 28.2% -> 29.5%, right but
    flagged 25.5% -> 24.2%, silent 1.0% -> 1.0%; lay-downs exact 13.0% -> 14.0%,
    silent 0.5% -> 1.0% (one lay-down whose never-located joker had been flagged only
    by such a box around read cards).

    A box around two or more read cards is covered less (`SPANNED_MANY`): it reaches
    past their own boxes, which are each card's visible part. Of the validation photos
    read right but flagged only "could not be read", most had such a box, its two or
    three read cards covering 0.76-0.90 of it (one 0.66); on the photos read wrong and
    flagged only so, the boxes holding read indices were covered 0.27-0.60, but for two
    (0.82, 0.86) each beside another box that stays. Replaying the upright reader's
    reads (`SPANNED_MANY` 0.9 -> 0.75): seeds 3101 + 3103, 800 hands, right but flagged
    11.1% -> 10.0%, 400 lay-downs 9.5% -> 8.2%; unseen looks 3301 + 3303, 400 hands
    10.0% -> 9.5%, 200 lay-downs 9.5% -> 9.0%; seed 3105, 400 hands 13.8% -> 12.5%, 200
    lay-downs 7.5% -> 5.5%; every other photo's outcome unchanged (silent too)."""
    inside = []
    for c in cards:
        if c.box_id is None:
            continue
        own = boxes[c.box_id]
        centres = c.index_centers
        if _holds(box, centres).any() and _holds(own, centres).any():
            inside.append(own)
    if not inside:
        return False
    own = np.asarray(inside, dtype=np.float32)
    least = SPANNED_MANY if len(inside) >= 2 else SPANNED
    xs = np.linspace(box[0], box[2], 16, dtype=np.float32)
    ys = np.linspace(box[1], box[3], 16, dtype=np.float32)
    gx, gy = np.meshgrid(xs, ys)
    px, py = gx.reshape(-1, 1), gy.reshape(-1, 1)
    covered = ((px >= own[:, 0]) & (px <= own[:, 2]) & (py >= own[:, 1]) & (py <= own[:, 3])).any(
        axis=1
    )
    return bool(covered.mean() >= least)


def _holds(box: npt.NDArray[np.float32], points: npt.NDArray[np.float32]) -> npt.NDArray[np.bool_]:
    """(P,) whether each point lies in the box."""
    out: npt.NDArray[np.bool_] = (
        (points[:, 0] >= box[0])
        & (points[:, 0] <= box[2])
        & (points[:, 1] >= box[1])
        & (points[:, 1] <= box[3])
    )
    return out


def _centres(boxes: Float64Array) -> Float64Array:
    out: Float64Array = (boxes[:, :2] + boxes[:, 2:]) / 2
    return out


def _in_row(
    unread: Float64Array, row_boxes: Float64Array, side: tuple[float, float], length: float
) -> npt.NDArray[np.bool_]:
    """(U, R) whether unread box u may lie in a row next to the row's box r."""
    near = box_gaps(unread, row_boxes) <= TOUCH * length
    if not any(side):
        return near
    step = _centres(row_boxes)[None, :, :] - _centres(unread)[:, None, :]
    level = np.abs(step @ np.asarray(side, dtype=np.float64)) <= LEVEL * length
    out: npt.NDArray[np.bool_] = near & level
    return out


def count_unread(
    cards: Sequence[SeenCard],
    rows: Sequence[CardRow],
    boxes: npt.NDArray[np.float32],
    length: float,
) -> tuple[list[int], list[tuple[int, int]]]:
    """Per row, how many of the unread card `boxes` ((K, 4) xyxy) lie in it; and the
    pairs of rows that unread boxes join into one (a spread hand, or a meld, whose
    reading stops at a blurred card falls into two rows that are one)."""
    unread = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    counts = [0] * len(rows)
    if len(unread) == 0 or not rows:
        return counts, []
    # Breadth first from every row at once: each box goes to the row that reaches it
    # in the fewest steps (ties: the nearest box of that row); a box that two rows
    # reach joins them.
    owner = np.full(len(unread), -1)
    joined: set[tuple[int, int]] = set()
    frontier: list[tuple[int, Float64Array]] = [
        (r, np.asarray([cards[m].xyxy for m in row.members], dtype=np.float64))
        for r, row in enumerate(rows)
    ]
    while frontier:
        best: dict[int, tuple[float, int]] = {}
        reach: dict[int, set[int]] = {}
        for r, row_boxes in frontier:
            fits = _in_row(unread, row_boxes, rows[r].side, length)
            gaps = np.where(fits, box_gaps(unread, row_boxes), np.inf).min(axis=1)
            for u in np.nonzero(np.isfinite(gaps))[0].tolist():
                reach.setdefault(u, set()).add(r)
                if owner[u] < 0 and (u not in best or gaps[u] < best[u][0]):
                    best[u] = (float(gaps[u]), r)
        for u, (_, r) in best.items():
            owner[u] = r
        for u, found in reach.items():
            joined |= {(min(a, int(owner[u])), max(a, int(owner[u]))) for a in found}
        frontier = [
            (r, unread[[u for u, (_, o) in best.items() if o == r]])
            for r in sorted({o for _, o in best.values()})
        ]
    for r in owner.tolist():
        if r >= 0:
            counts[r] += 1
    return counts, sorted((a, b) for a, b in joined if a != b)
