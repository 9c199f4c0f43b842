"""From read indices and card boxes to physical cards.

A card shows its index in two (some decks: four) corners, and several decks put the
same face on the table more than once. The rules, in order:

1. **Corners of one card merge.** Indices with the same reading are one card when one
   card box holds them all and they sit where a card's corners do: a pair of them lies
   symmetric about that box's centre (midpoint within `centre_tolerance` x the box
   diagonal) and far apart (at least `min_spread` x the diagonal). Two copies of a card
   from two decks never pass this: overlapped in a row their indices are a step apart,
   side by side; loose, they lie in two different boxes.
2. **Copies stay copies.** Everything not merged is its own card, so two 7h are two.
3. **Plausible cards only.** An index that no card box holds is ignored (a printed
   number on a score pad, a chip) unless `require_card_box` is off. A card box without
   any index is a face-down card or a card seen only from its back: it is not a card.
4. **Not more than the decks hold.** With a variant's rules, copies beyond what its
   shoe holds are kept but flagged `excess` (lowest confidence first) and reported in
   `warnings`; a reading the variant cannot hold at all is dropped and reported.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from shanghai.engine.cards import Card
from shanghai.engine.variants import Rules, build_shoe

from .readings import IndexReadings

__all__ = ["CardIdentifier", "Identification", "PhysicalCard", "shoe_counts"]

FloatArray = npt.NDArray[np.float32]
Box = tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class PhysicalCard:
    """One card on the table.

    `xyxy` is the card's box (its visible pixels) when a card box was matched, else the
    box around its indices; `index_xyxy` the boxes of the indices read; `confidence` the
    best of its indices' confidences; `excess` marks a copy beyond the shoe.
    """

    card: Card
    confidence: float
    xyxy: Box
    index_xyxy: tuple[Box, ...]
    box_id: int | None = None
    excess: bool = False

    @property
    def index_centers(self) -> FloatArray:
        """(K, 2) centres of the card's read indices."""
        boxes = np.asarray(self.index_xyxy, dtype=np.float32).reshape(-1, 4)
        return ((boxes[:, :2] + boxes[:, 2:]) / 2).astype(np.float32)

    @property
    def center(self) -> tuple[float, float]:
        x1, y1, x2, y2 = self.xyxy
        return (x1 + x2) / 2, (y1 + y2) / 2


@dataclass(frozen=True, slots=True)
class Identification:
    cards: tuple[PhysicalCard, ...]
    warnings: tuple[str, ...] = ()
    ignored_indices: int = 0
    """Indices dropped as implausible (no card box holds them, or not in this game)."""


def shoe_counts(rules: Rules) -> Counter[Card]:
    """How many copies of each face the variant's decks hold (wild cards included)."""
    return Counter(build_shoe(rules.variant.family, rules.setup))


class _Groups:
    """Union-find over indices with the members of each group at hand."""

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))
        self.members: dict[int, list[int]] = {i: [i] for i in range(n)}

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        self.parent[rb] = ra
        self.members[ra] += self.members.pop(rb)


def _contains(boxes: FloatArray, points: FloatArray, margin: float) -> npt.NDArray[np.bool_]:
    """(P, B) whether point p lies in box b grown by `margin` x the box's shorter side."""
    wh = boxes[:, 2:] - boxes[:, :2]
    grow = (margin * wh.min(axis=1))[None, :]
    x, y = points[:, :1], points[:, 1:2]
    inside: npt.NDArray[np.bool_] = (
        (x >= boxes[None, :, 0] - grow)
        & (x <= boxes[None, :, 2] + grow)
        & (y >= boxes[None, :, 1] - grow)
        & (y <= boxes[None, :, 3] + grow)
    )
    return inside


@dataclass(frozen=True)
class CardIdentifier:
    """Turns `IndexReadings` plus (M, 4) card boxes into physical cards."""

    centre_tolerance: float = 0.22
    min_spread: float = 0.4
    """A merged pair spans at least this share of the box diagonal (a whole card's
    corner indices span 0.54-0.75 of its box's diagonal, whatever its rotation)."""
    corner_gap: float = 0.3
    """Any two corners of one card are at least this share of the diagonal apart (the
    two top corners of a four-index card span about 0.46)."""
    box_margin: float = 0.08
    max_corners: int = 4
    require_card_box: bool = True
    rules: Rules | None = field(default=None)

    def identify(self, readings: IndexReadings, card_boxes: FloatArray) -> Identification:
        boxes = np.asarray(card_boxes, dtype=np.float32).reshape(-1, 4)
        centers = readings.centers
        inside = _contains(boxes, centers, self.box_margin)
        groups, group_box = self._merge_corners(readings, boxes, inside)
        warnings: list[str] = []
        ignored = 0
        cards: list[PhysicalCard] = []
        used_boxes: set[int] = set(group_box.values())
        for root in sorted(groups.members, key=lambda r: min(groups.members[r])):
            members = sorted(groups.members[root])
            box_id = group_box.get(root)
            if box_id is None:
                box_id = self._single_box(members[0], boxes, inside, used_boxes)
                if box_id is not None:
                    used_boxes.add(box_id)
            holders = inside[members[0]].any() if len(boxes) else False
            if box_id is None and self.require_card_box and not holders:
                ignored += len(members)
                continue
            cards.append(self._card(readings, members, boxes, box_id))
        if self.rules is not None:
            cards, dropped, notes = self._check_shoe(cards, self.rules)
            ignored += dropped
            warnings += notes
        return Identification(tuple(cards), tuple(warnings), ignored)

    def _merge_corners(
        self, readings: IndexReadings, boxes: FloatArray, inside: npt.NDArray[np.bool_]
    ) -> tuple[_Groups, dict[int, int]]:
        """Greedy merging of same-name indices into cards, best-placed pairs first."""
        n = len(readings)
        groups = _Groups(n)
        group_box: dict[int, int] = {}
        if n == 0 or len(boxes) == 0:
            return groups, group_box
        centers = readings.centers.astype(np.float64)
        box_centre = (boxes[:, :2] + boxes[:, 2:]).astype(np.float64) / 2
        diag = np.hypot(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]).astype(np.float64)
        candidates: list[tuple[float, int, int, int]] = []
        by_name: dict[str, list[int]] = {}
        for i, name in enumerate(readings.names):
            by_name.setdefault(name, []).append(i)
        for same in by_name.values():
            for a_pos, a in enumerate(same):
                for b in same[a_pos + 1 :]:
                    shared = np.nonzero(inside[a] & inside[b])[0]
                    for shared_box in shared:
                        k = int(shared_box)
                        mid = (centers[a] + centers[b]) / 2
                        off = float(np.hypot(*(mid - box_centre[k]))) / diag[k]
                        spread = float(np.hypot(*(centers[a] - centers[b]))) / diag[k]
                        if off <= self.centre_tolerance and spread >= self.min_spread:
                            candidates.append((off, a, b, k))
        candidates.sort()
        for _, a, b, box in candidates:
            ra, rb = groups.find(a), groups.find(b)
            if ra == rb:
                continue
            if group_box.get(ra, box) != box or group_box.get(rb, box) != box:
                continue  # each side already belongs to another card box
            merged = groups.members[ra] + groups.members[rb]
            if len(merged) > self.max_corners or not self._spread_ok(
                centers, merged, float(diag[box])
            ):
                continue
            groups.union(ra, rb)
            group_box.pop(rb, None)
            group_box[groups.find(a)] = box
        return groups, group_box

    def _spread_ok(self, centers: npt.NDArray[np.float64], members: list[int], diag: float) -> bool:
        """Corners of one card are far apart: no two within `min_spread` x the diagonal."""
        pts = centers[members]
        gaps = np.hypot(*(pts[:, None, :] - pts[None, :, :]).transpose(2, 0, 1))
        np.fill_diagonal(gaps, np.inf)
        return bool(gaps.min() >= self.corner_gap * diag)

    @staticmethod
    def _single_box(
        index: int, boxes: FloatArray, inside: npt.NDArray[np.bool_], used: set[int]
    ) -> int | None:
        """The smallest free card box holding a lone index (a covered card's strip is
        smaller than the card lying over it)."""
        holders = [int(b) for b in np.nonzero(inside[index])[0] if int(b) not in used]
        if not holders:
            return None
        areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
        return min(holders, key=lambda b: float(areas[b]))

    @staticmethod
    def _card(
        readings: IndexReadings, members: list[int], boxes: FloatArray, box_id: int | None
    ) -> PhysicalCard:
        index_boxes = tuple(
            (float(x1), float(y1), float(x2), float(y2))
            for x1, y1, x2, y2 in readings.xyxy[members]
        )
        if box_id is not None:
            x1, y1, x2, y2 = (float(v) for v in boxes[box_id])
        else:
            arr = readings.xyxy[members]
            x1, y1 = (float(v) for v in arr[:, :2].min(axis=0))
            x2, y2 = (float(v) for v in arr[:, 2:].max(axis=0))
        return PhysicalCard(
            card=readings.cards[members[0]],
            confidence=float(readings.confidence[members].max()),
            xyxy=(x1, y1, x2, y2),
            index_xyxy=index_boxes,
            box_id=box_id,
        )

    @staticmethod
    def _check_shoe(
        cards: Sequence[PhysicalCard], rules: Rules
    ) -> tuple[list[PhysicalCard], int, list[str]]:
        """Drop faces the game cannot hold; flag copies beyond the shoe."""
        holds = shoe_counts(rules)
        notes: list[str] = []
        kept = [c for c in cards if rules.accepts(c.card)]
        foreign = Counter(str(c.card) for c in cards if not rules.accepts(c.card))
        for name, count in sorted(foreign.items()):
            notes.append(f"{name} is not in play in {rules.variant.name}; ignored {count}")
        seen = Counter(c.card for c in kept)
        excess_ids: set[int] = set()
        for card, count in sorted(seen.items()):
            limit = holds[card]
            if count <= limit:
                continue
            decks = rules.setup.decks
            notes.append(
                f"{count} copies of {card} seen; the {decks} deck{'s' if decks > 1 else ''} "
                f"of {rules.variant.name} hold {limit}"
            )
            copies = sorted(
                (i for i, c in enumerate(kept) if c.card == card),
                key=lambda i: kept[i].confidence,
            )
            excess_ids.update(copies[: count - limit])
        out = [
            PhysicalCard(c.card, c.confidence, c.xyxy, c.index_xyxy, c.box_id, excess=True)
            if i in excess_ids
            else c
            for i, c in enumerate(kept)
        ]
        dropped = sum(len(c.index_xyxy) for c in cards if not rules.accepts(c.card))
        return out, dropped, notes
