"""Group physical cards into rows and fans, in table order.

Only boxes are known (no card outlines), so the rules use two measurements the boxes
give reliably:

- **Scale** `card_length` (pixels of a card's long side): from cards whose two corner
  indices were both read (their distance is about 0.93 of the card's length), else
  from the index size (a card is about 4.4 index heights long).
- **Index side** of each covered card: the vector from its visible box's centre to its
  index. Cards overlap so that each index stays in view, so in a row this vector is
  perpendicular to the row (it points "up" in a row laid left to right, "left" in a
  column laid top to bottom). It is smoothed over the neighbours within 1.5 card lengths.

Two cards are neighbours in a row or fan when their nearest indices are within
`link_distance` card lengths (optionally: and the step between them is not along the
index side, which would go from one row to the row below it). Rows are the connected
groups.
Table order runs along the row (perpendicular to the index side, or along the row's
longest extent when no side is known) towards the card lying on top: each card is laid
over the last so the indices show, which puts the first card at the bottom of the pile
and the last one whole in view (both indices read, the largest visible box).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .physical import PhysicalCard

__all__ = ["CardRow", "RowGrouper", "card_length", "index_sides"]

FloatArray = npt.NDArray[np.float64]

PAIR_TO_LENGTH = 0.93
INDEX_TO_LENGTH = 4.4


def card_length(cards: Sequence[PhysicalCard]) -> float:
    """Median length of a card's long side in pixels, from the cards themselves."""
    pairs = []
    sizes = []
    for card in cards:
        pts = card.index_centers.astype(np.float64)
        boxes = np.asarray(card.index_xyxy, dtype=np.float64)
        sizes.extend((boxes[:, 2:] - boxes[:, :2]).max(axis=1).tolist())
        if len(pts) >= 2:
            gaps = np.hypot(*(pts[:, None, :] - pts[None, :, :]).transpose(2, 0, 1))
            pairs.append(float(gaps.max()) / PAIR_TO_LENGTH)
    if pairs:
        return float(np.median(pairs))
    if sizes:
        return float(np.median(sizes)) * INDEX_TO_LENGTH
    return 1.0


def index_sides(cards: Sequence[PhysicalCard], length: float) -> FloatArray:
    """(N, 2) unit vectors from each card's box centre towards its index, smoothed over
    neighbours within 1.5 card lengths; rows of zeros where nothing tells."""
    raw = np.zeros((len(cards), 2))
    for i, card in enumerate(cards):
        if card.box_id is None or len(card.index_xyxy) != 1:
            continue  # a whole card (indices at both ends) or no box: no side
        v = card.index_centers[0].astype(np.float64) - np.asarray(card.center)
        norm = float(np.hypot(*v))
        if norm > 1e-6:
            raw[i] = v / norm
    centres = np.asarray([c.center for c in cards], dtype=np.float64).reshape(-1, 2)
    out = np.zeros_like(raw)
    for i in range(len(cards)):
        near = np.hypot(*(centres - centres[i]).T) <= 1.5 * length
        mean = raw[near].sum(axis=0)
        norm = float(np.hypot(*mean))
        if norm > 0.25 * max(1, int(np.count_nonzero(raw[near].any(axis=1)))):
            out[i] = mean / norm
    return out


@dataclass(frozen=True, slots=True)
class CardRow:
    """Cards that lie together in one row or fan, `members` in table order (indices
    into the card list given to the grouper); `side` is the row's index side (0, 0
    when unknown)."""

    members: tuple[int, ...]
    side: tuple[float, float]


@dataclass(frozen=True)
class RowGrouper:
    link_distance: float = 0.45
    """Largest gap between the nearest indices of two neighbours, in card lengths."""
    across_cosine: float | None = None
    """When set, a step whose direction is this close to the index side (cosine above
    it) goes to another row, not along this one. Off by default: measured on generated
    round-end tables, visible-pixel boxes (slivers of covered cards widen them) make the
    index side too rough to decide this."""

    def group(self, cards: Sequence[PhysicalCard]) -> tuple[list[CardRow], float]:
        """Rows (in no particular order) and the card length used."""
        if not cards:
            return [], 1.0
        length = card_length(cards)
        sides = index_sides(cards, length)
        parent = list(range(len(cards)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        points = [c.index_centers.astype(np.float64) for c in cards]
        for i in range(len(cards)):
            for j in range(i + 1, len(cards)):
                step = self._nearest_step(points[i], points[j])
                if float(np.hypot(*step)) > self.link_distance * length:
                    continue
                side = sides[i] + sides[j]
                if self.across_cosine is not None and np.any(side) and self._across(step, side):
                    continue
                parent[find(j)] = find(i)
        rows: dict[int, list[int]] = {}
        for i in range(len(cards)):
            rows.setdefault(find(i), []).append(i)
        out = [self._ordered(cards, members, sides) for members in rows.values()]
        return out, length

    @staticmethod
    def _nearest_step(a: FloatArray, b: FloatArray) -> FloatArray:
        d = b[None, :, :] - a[:, None, :]
        dist = np.hypot(d[..., 0], d[..., 1])
        ia, ib = np.unravel_index(int(np.argmin(dist)), dist.shape)
        step: FloatArray = d[ia, ib]
        return step

    def _across(self, step: FloatArray, side: FloatArray) -> bool:
        norm = float(np.hypot(*step)) * float(np.hypot(*side))
        if norm < 1e-9:
            return False
        assert self.across_cosine is not None
        return abs(float(step @ side)) / norm > self.across_cosine

    @staticmethod
    def _ordered(cards: Sequence[PhysicalCard], members: list[int], sides: FloatArray) -> CardRow:
        side = sides[members].sum(axis=0)
        norm = float(np.hypot(*side))
        unit = side / norm if norm > 0 else np.zeros(2)
        if len(members) == 1:
            return CardRow((members[0],), (float(unit[0]), float(unit[1])))
        anchors = []
        for m in members:
            pts = cards[m].index_centers.astype(np.float64)
            # A whole card shows two indices; its top one (towards the side) lines up
            # with the indices of the covered cards.
            anchors.append(pts[int(np.argmax(pts @ unit))] if norm > 0 else pts.mean(axis=0))
        anchor_arr = np.asarray(anchors).reshape(-1, 2)
        if norm > 0:
            axis = np.array([-unit[1], unit[0]])
        else:
            centred = anchor_arr - anchor_arr.mean(axis=0)
            axis = np.linalg.svd(centred, full_matrices=False)[2][0]
        order = list(np.argsort(anchor_arr @ axis, kind="stable"))
        if _on_top(cards[members[order[0]]]) > _on_top(cards[members[order[-1]]]):
            order.reverse()  # the card lying on top, seen whole, is the last laid
        return CardRow(tuple(members[k] for k in order), (float(unit[0]), float(unit[1])))


def _on_top(card: PhysicalCard) -> tuple[int, float]:
    """How whole a card looks: indices read, then the area of its visible box."""
    x1, y1, x2, y2 = card.xyxy
    return len(card.index_xyxy), (x2 - x1) * (y2 - y1)
