"""Rows to seats: which rows are melds, which cards are a player's hand.

Rules (each seat on its own):
- a row or fan with fewer cards than the smallest meld the variant allows is loose
  cards: hand;
- the row nearest the player is the hand, unless it is a legal meld as it lies (a
  player who went out leaves melds only). Where the player is comes from the cards:
  the way their bottoms point (the side away from their indices), since a player lays
  melds and hand the same way round, facing themselves or turned for the table to
  read, and the hand goes in front of the melds in that frame. Only when no card
  tells does the zone's `towards_player` decide (outwards from the table's centre);
- a row in the same band as the hand (within `hand_band` card lengths towards the
  table of the row nearest the player, loose cards included) that is not a legal
  meld is part of the hand too (a hand laid in two pieces);
- every other row is a meld, legal or not (an illegal meld is shown red, never hidden
  in the hand).
Melds of a seat are listed row band by row band, the band farthest from the player
first, left to right as the player sees them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from shanghai.engine.errors import IllegalMeldError
from shanghai.engine.melds import check_meld
from shanghai.engine.variants import Rules

from .layout import CardRow, RowGrouper
from .physical import PhysicalCard
from .snapshot import SeatSnapshot
from .zones import SeatZone, ZoneConfig, nearest_area, sector_zones

__all__ = ["Seating"]


def _row_box(cards: Sequence[PhysicalCard], row: CardRow) -> tuple[float, float, float, float]:
    boxes = np.asarray([cards[m].xyxy for m in row.members], dtype=np.float64)
    return (
        float(boxes[:, 0].min()),
        float(boxes[:, 1].min()),
        float(boxes[:, 2].max()),
        float(boxes[:, 3].max()),
    )


def _row_centre(cards: Sequence[PhysicalCard], row: CardRow) -> np.ndarray:
    return np.asarray([cards[m].center for m in row.members], dtype=np.float64).mean(axis=0)


@dataclass(frozen=True)
class Seating:
    """Places rows at seats. `players` > 1 without `zones` splits the frame into
    sectors; 1 (the default) scans one player's area."""

    players: int = 1
    zones: ZoneConfig | None = None
    rules: Rules | None = None
    grouper: RowGrouper = field(default_factory=RowGrouper)
    area_gap: float = 1.5
    """Single-player scans: a gap wider than this (card lengths) ends the area."""
    hand_band: float = 0.6
    role: str = "auto"
    """`auto` (the rules above), `melds` (every row is a meld: a lay-down shown for a
    dispute check) or `hand` (every card is hand: a player showing what is left)."""

    def __post_init__(self) -> None:
        if self.role not in ("auto", "melds", "hand"):
            raise ValueError(f"role must be auto, melds or hand (got {self.role!r})")

    def arrange(
        self, cards: Sequence[PhysicalCard], width: int, height: int
    ) -> tuple[list[SeatSnapshot], list[str]]:
        rows, length = self.grouper.group(cards)
        notes: list[str] = []
        by_seat, zones = self._assign(cards, rows, length, width, height)
        outside = sum(len(r.members) for r in rows) - sum(
            len(r.members) for rs in by_seat.values() for r in rs
        )
        if outside:
            notes.append(f"{outside} card{'s' if outside != 1 else ''} outside every seat's area")
        seats = []
        for zone in zones:
            seat_rows = by_seat.get(zone.seat, [])
            seats.append(self._seat(zone, cards, seat_rows, length))
        return seats, notes

    def _assign(
        self,
        cards: Sequence[PhysicalCard],
        rows: list[CardRow],
        length: float,
        width: int,
        height: int,
    ) -> tuple[dict[int, list[CardRow]], list[SeatZone]]:
        if self.zones is not None:
            zones = self.zones.zones(width, height)
        elif self.players > 1:
            centres = np.asarray([_row_centre(cards, r) for r in rows]).reshape(-1, 2)
            weights = np.asarray([len(r.members) for r in rows], dtype=np.float64)
            zones = sector_zones(centres, self.players, width, height, weights=weights)
        else:
            boxes = [_row_box(cards, r) for r in rows]
            keep = list(range(len(rows)))
            if self.role == "auto":  # `hand`/`melds`: the photo shows only what is asked
                sides = np.asarray([r.side for r in rows], dtype=np.float64).reshape(-1, 2)
                counts = np.asarray([len(r.members) for r in rows], dtype=np.float64)
                keep = nearest_area(
                    boxes, self.area_gap * length, width, height, sides=sides, counts=counts
                )
            whole = (
                (0.0, 0.0),
                (float(width), 0.0),
                (float(width), float(height)),
                (0.0, float(height)),
            )
            return {0: [rows[k] for k in keep]} if keep else {}, [SeatZone(0, whole)]
        by_seat: dict[int, list[CardRow]] = {}
        for row in rows:
            votes: dict[int, int] = {}
            for m in row.members:
                for zone in zones:
                    if zone.contains(cards[m].center):
                        votes[zone.seat] = votes.get(zone.seat, 0) + 1
                        break
            if votes:
                seat = max(votes, key=lambda s: (votes[s], -s))
                by_seat.setdefault(seat, []).append(row)
        return by_seat, zones

    def _towards_player(self, zone: SeatZone, rows: list[CardRow]) -> np.ndarray:
        side = sum((np.asarray(r.side) * len(r.members) for r in rows), np.zeros(2))
        norm = float(np.hypot(*side))
        if norm > 1e-6:
            return -side / norm
        if zone.towards_player is not None:
            return np.asarray(zone.towards_player, dtype=np.float64)
        return np.array([0.0, 1.0])  # nothing tells: the player holds the camera below

    def _legal(self, cards: Sequence[PhysicalCard], row: CardRow) -> bool:
        if self.rules is None:
            return False
        try:
            check_meld(
                [cards[m].card for m in row.members], self.rules, ordered=True, at_lay_down=False
            )
        except IllegalMeldError:
            return False
        return True

    def _seat(
        self, zone: SeatZone, cards: Sequence[PhysicalCard], rows: list[CardRow], length: float
    ) -> SeatSnapshot:
        if not rows:
            return SeatSnapshot(zone.seat, (), ())
        down = self._towards_player(zone, rows)
        across = np.array([down[1], -down[0]])  # left to right as the player sees it

        def place(r: CardRow) -> tuple[float, float]:
            centre = _row_centre(cards, r)
            return round(float(centre @ down) / (0.5 * length)), float(centre @ across)

        if self.role != "auto":
            ordered = sorted(rows, key=place)
            if self.role == "melds":
                return SeatSnapshot(zone.seat, tuple(r.members for r in ordered), ())
            return SeatSnapshot(zone.seat, (), tuple(m for r in ordered for m in r.members))
        smallest = 3
        if self.rules is not None:
            smallest = min(self.rules.variant.min_set, self.rules.variant.min_run)
        depth = {id(r): float(_row_centre(cards, r) @ down) for r in rows}
        hand_rows = [r for r in rows if len(r.members) < smallest]
        rowlike = [r for r in rows if len(r.members) >= smallest]
        outer = max(rows, key=lambda r: depth[id(r)])
        if len(outer.members) < smallest or not self._legal(cards, outer):
            band = depth[id(outer)] - self.hand_band * length
            hand_rows += [
                r
                for r in rowlike
                if r is outer or (depth[id(r)] >= band and not self._legal(cards, r))
            ]
        melds = [r for r in rowlike if all(r is not h for h in hand_rows)]
        melds.sort(key=place)
        hand_rows.sort(key=place)
        hand = tuple(m for r in hand_rows for m in r.members)
        return SeatSnapshot(zone.seat, tuple(r.members for r in melds), hand)
