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

Cards seen without a readable index (`unread`) are no cards, but they count in the
length of the row they lie in, and they join the pieces of a row whose reading stops
at them into one unit decided together: a meld read at one card is not a loose hand
card. A unit with unread cards is legal when what was read is, row by row.

Automatic sectors place a row by where its cards lie; near a sector's edge a legal
meld goes by the way it faces (`zones.facing_sector`) and any other row with the
nearest such meld (`follow_reach`); rows joined by unread cards stay together.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

from shanghai.engine.errors import IllegalMeldError
from shanghai.engine.melds import check_meld
from shanghai.engine.variants import Rules

from .layout import CardRow, RowGrouper
from .snapshot import ScanWarning, SeatSnapshot, SeenCard
from .unread import count_unread
from .zones import SeatZone, ZoneConfig, facing_sector, near_edge, nearest_area, sector_zones

__all__ = ["Seating"]


def _row_box(cards: Sequence[SeenCard], row: CardRow) -> tuple[float, float, float, float]:
    boxes = np.asarray([cards[m].xyxy for m in row.members], dtype=np.float64)
    return (
        float(boxes[:, 0].min()),
        float(boxes[:, 1].min()),
        float(boxes[:, 2].max()),
        float(boxes[:, 3].max()),
    )


def _row_centre(cards: Sequence[SeenCard], row: CardRow) -> npt.NDArray[np.float64]:
    centres = np.asarray([cards[m].center for m in row.members], dtype=np.float64)
    centre: npt.NDArray[np.float64] = centres.mean(axis=0)
    return centre


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
    follow_reach: float = 2.5
    """Near a sector's edge, a row that is no legal meld goes with the nearest legal
    meld this near (card lengths), whose facing tells its seat."""
    role: str = "auto"
    """`auto` (the rules above), `melds` (every row is a meld: a lay-down shown for a
    dispute check) or `hand` (every card is hand: a player showing what is left)."""

    def __post_init__(self) -> None:
        if self.role not in ("auto", "melds", "hand"):
            raise ValueError(f"role must be auto, melds or hand (got {self.role!r})")

    def arrange(
        self,
        cards: Sequence[SeenCard],
        width: int,
        height: int,
        unread: npt.NDArray[np.float32] | None = None,
    ) -> tuple[list[SeatSnapshot], list[ScanWarning]]:
        """Seats with their melds and hands. `unread` ((K, 4) xyxy) are the card boxes
        no index was read in: they are no cards, but count in the length of their rows."""
        rows, length = self.grouper.group(cards)
        piece: dict[int, int] = {}
        if unread is not None and len(unread):
            counts, joined = count_unread(cards, rows, unread, length)
            rows = [replace(r, unread=n) for r, n in zip(rows, counts, strict=True)]
            piece = _pieces(rows, joined)
        notes: list[ScanWarning] = []
        by_seat, zones = self._assign(cards, rows, length, width, height)
        by_seat = _keep_units_together(by_seat, piece)
        outside = sum(len(r.members) for r in rows) - sum(
            len(r.members) for rs in by_seat.values() for r in rs
        )
        if outside:
            notes.append(
                ScanWarning(
                    "outside",
                    f"{outside} card{'s' if outside != 1 else ''} outside every seat's area",
                )
            )
        seats = []
        for zone in zones:
            seat_rows = by_seat.get(zone.seat, [])
            seats.append(self._seat(zone, cards, seat_rows, length, piece))
        return seats, notes

    def _assign(
        self,
        cards: Sequence[SeenCard],
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
        for row, seat in zip(rows, self._seats_of(cards, rows, zones, length), strict=True):
            if seat is not None:
                by_seat.setdefault(seat, []).append(row)
        return by_seat, zones

    def _seats_of(
        self,
        cards: Sequence[SeenCard],
        rows: list[CardRow],
        zones: list[SeatZone],
        length: float,
    ) -> list[int | None]:
        """Per row, its seat: the zone holding most of its cards. Near the edge of an
        automatic sector a legal meld goes by the way it faces (a meld lies straight
        along its player's line; a hand may curve any way, see `facing_sector`), and
        any other row follows the nearest such meld within `follow_reach` card
        lengths: a player's hand lies by their own melds."""
        seats: list[int | None] = [self._zone_vote(cards, row, zones) for row in rows]
        if self.zones is not None:
            return seats
        centres = [(float(c[0]), float(c[1])) for c in (_row_centre(cards, r) for r in rows)]
        legal = [self._legal(cards, row) for row in rows]
        melds: list[tuple[int, int]] = []  # (row, seat) of the legal melds
        for k, row in enumerate(rows):
            if legal[k]:
                faced = facing_sector(centres[k], row.side, zones)
                seat = seats[k] = faced if faced is not None else seats[k]
                if seat is not None:
                    melds.append((k, seat))
        for k in range(len(rows)):
            edge = None if legal[k] else near_edge(centres[k], zones)
            near = [
                (math.dist(centres[k], centres[m]), seat)
                for m, seat in melds
                if edge is not None and seat in edge
            ]
            if near and min(near)[0] <= self.follow_reach * length:
                seats[k] = min(near)[1]
        return seats

    @staticmethod
    def _zone_vote(cards: Sequence[SeenCard], row: CardRow, zones: list[SeatZone]) -> int | None:
        votes: dict[int, int] = {}
        for m in row.members:
            for zone in zones:
                if zone.contains(cards[m].center):
                    votes[zone.seat] = votes.get(zone.seat, 0) + 1
                    break
        return max(votes, key=lambda s: (votes[s], -s)) if votes else None

    def _towards_player(self, zone: SeatZone, rows: list[CardRow]) -> np.ndarray:
        side = sum((np.asarray(r.side) * len(r.members) for r in rows), np.zeros(2))
        norm = float(np.hypot(*side))
        if norm > 1e-6:
            return -side / norm
        if zone.towards_player is not None:
            return np.asarray(zone.towards_player, dtype=np.float64)
        return np.array([0.0, 1.0])  # nothing tells: the player holds the camera below

    def _legal(self, cards: Sequence[SeenCard], row: CardRow) -> bool:
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
        self,
        zone: SeatZone,
        cards: Sequence[SeenCard],
        rows: list[CardRow],
        length: float,
        piece: dict[int, int] | None = None,
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
        depth = {id(r): float(_row_centre(cards, r) @ down) for r in rows}
        hand_ids = self._hand_rows(cards, _units(rows, piece or {}), depth, length)
        melds = sorted((r for r in rows if id(r) not in hand_ids), key=place)
        hand_rows = sorted((r for r in rows if id(r) in hand_ids), key=place)
        hand = tuple(m for r in hand_rows for m in r.members)
        return SeatSnapshot(zone.seat, tuple(r.members for r in melds), hand)

    def _hand_rows(
        self,
        cards: Sequence[SeenCard],
        units: list[list[CardRow]],
        depth: dict[int, float],
        length: float,
    ) -> set[int]:
        """ids of the rows that are hand, deciding unit by unit (a row, or rows that
        unread cards join into one): short units, the unit nearest the player unless
        it is a legal meld, and the units in its band that are not legal melds."""
        smallest = 3
        if self.rules is not None:
            smallest = min(self.rules.variant.min_set, self.rules.variant.min_run)

        def size(unit: list[CardRow]) -> int:
            return sum(r.size for r in unit)

        def legal(unit: list[CardRow]) -> bool:
            # An unread card cannot be checked: what was read must be legal as it lies,
            # each row long enough to tell (a hand read in pieces tells nothing).
            long = [r for r in unit if len(r.members) >= smallest]
            return bool(long) and all(self._legal(cards, r) for r in long)

        def deep(unit: list[CardRow]) -> float:
            weights = [len(r.members) for r in unit]
            return float(np.average([depth[id(r)] for r in unit], weights=weights))

        hand = [u for u in units if size(u) < smallest]
        outer = max(units, key=deep)
        if size(outer) < smallest or not legal(outer):
            band = deep(outer) - self.hand_band * length
            hand += [
                u
                for u in units
                if size(u) >= smallest and (u is outer or (deep(u) >= band and not legal(u)))
            ]
        return {id(r) for u in hand for r in u}


def _keep_units_together(
    by_seat: dict[int, list[CardRow]], piece: dict[int, int]
) -> dict[int, list[CardRow]]:
    """Rows that unread cards join into one (a hand read in pieces) go to one seat: the
    one that holds most of their cards. Facing and position can split a messy hand's
    pieces between two sectors; the cards between them cannot."""
    if not piece:
        return by_seat
    cards_at: dict[int, dict[int, int]] = {}
    for seat, rows in by_seat.items():
        for row in rows:
            votes = cards_at.setdefault(piece[row.members[0]], {})
            votes[seat] = votes.get(seat, 0) + len(row.members)
    out: dict[int, list[CardRow]] = {}
    for rows in by_seat.values():
        for row in rows:
            votes = cards_at[piece[row.members[0]]]
            out.setdefault(max(votes, key=lambda s: (votes[s], -s)), []).append(row)
    return out


def _pieces(rows: Sequence[CardRow], joined: Sequence[tuple[int, int]]) -> dict[int, int]:
    """Row (by its first member) -> the label of the rows joined with it."""
    label = list(range(len(rows)))

    def find(i: int) -> int:
        while label[i] != i:
            label[i] = label[label[i]]
            i = label[i]
        return i

    for a, b in joined:
        label[find(b)] = find(a)
    return {row.members[0]: find(i) for i, row in enumerate(rows)}


def _units(rows: Sequence[CardRow], piece: dict[int, int]) -> list[list[CardRow]]:
    """The seat's rows gathered into units: rows joined by unread cards go together."""
    units: dict[int, list[CardRow]] = {}
    for k, row in enumerate(rows):
        key = piece.get(row.members[0], -1 - k)
        units.setdefault(key, []).append(row)
    return list(units.values())
