"""Seat zones: which player a row of cards belongs to.

Configured zones are polygons in fractions of the frame (0..1, so one configuration
serves any resolution), one per seat, written as JSON:

    {"zones": [{"seat": 0, "polygon": [[0, 0.5], [1, 0.5], [1, 1], [0, 1]]},
               {"seat": 1, "polygon": [[0, 0], [1, 0], [1, 0.5], [0, 0.5]]}]}

Without a configuration:
- one player (a scan of one player's cards): the scanning area is the cluster of
  cards nearest the frame centre; cards separated from it by more than `area_gap` card
  lengths (another player's cards at the edge of the photo) are left out;
- N players (a camera over the whole table): N equal sectors around the centre of the
  cards, turned so that the boundaries run through the emptiest directions; seat 0 is
  the sector nearest the bottom of the frame, then clockwise.

Each zone may also know where its player sits (`towards_player`): for sectors,
outwards from the table's centre. `seating` goes by the way the cards themselves face
first, and uses it only when they do not tell. A single scanning area leaves out
cards that face another way (`nearest_area`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from .arrays import Float64Array

__all__ = [
    "SeatZone",
    "ZoneConfig",
    "facing_sector",
    "near_edge",
    "nearest_area",
    "sector_zones",
]


@dataclass(frozen=True, slots=True)
class SeatZone:
    """One seat's area. `polygon` is (K, 2) in frame pixels; `towards_player` a unit
    vector (or None: take it from the cards)."""

    seat: int
    polygon: tuple[tuple[float, float], ...]
    towards_player: tuple[float, float] | None = None

    def contains(self, point: tuple[float, float]) -> bool:
        contour = np.asarray(self.polygon, dtype=np.float32).reshape(-1, 1, 2)
        return cv2.pointPolygonTest(contour, (float(point[0]), float(point[1])), False) >= 0


@dataclass(frozen=True, slots=True)
class ZoneConfig:
    """Zones as configured: polygons in frame fractions, per seat."""

    polygons: tuple[tuple[int, tuple[tuple[float, float], ...]], ...]

    def __post_init__(self) -> None:
        seats = [seat for seat, _ in self.polygons]
        if len(set(seats)) != len(seats):
            raise ValueError("each seat may have one zone")
        for seat, polygon in self.polygons:
            if len(polygon) < 3:
                raise ValueError(f"zone of seat {seat} needs at least 3 points")
            if any(not (-0.5 <= x <= 1.5 and -0.5 <= y <= 1.5) for x, y in polygon):
                raise ValueError(f"zone of seat {seat}: points are fractions of the frame (0..1)")

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ZoneConfig:
        try:
            items = [
                (int(z["seat"]), tuple((float(x), float(y)) for x, y in z["polygon"]))
                for z in data["zones"]
            ]
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(
                'zones must look like {"zones": [{"seat": 0, "polygon": [[x, y], ...]}]}'
            ) from exc
        return cls(tuple(items))

    @classmethod
    def load(cls, path: str | Path) -> ZoneConfig:
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"{path}: cannot read zones ({exc})") from None
        return cls.from_json(data)

    def zones(self, width: int, height: int) -> list[SeatZone]:
        return [
            SeatZone(seat, tuple((x * width, y * height) for x, y in polygon))
            for seat, polygon in self.polygons
        ]


def sector_zones(
    points: Float64Array,
    players: int,
    width: int,
    height: int,
    *,
    weights: Float64Array | None = None,
) -> list[SeatZone]:
    """`players` equal sectors around the centre of `points` (N, 2), boundaries turned
    to the directions with the fewest points near them."""
    if players < 2:
        raise ValueError("sectors need at least 2 players")
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if len(pts):
        centre = (pts.min(axis=0) + pts.max(axis=0)) / 2
    else:
        centre = np.array([width / 2, height / 2])
    w = np.ones(len(pts)) if weights is None else np.asarray(weights, dtype=np.float64)
    span = 360.0 / players
    angles = np.degrees(np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])) % 360
    best_phase, best_score = 0.0, -1.0
    for phase in np.arange(0.0, span, 1.0):
        offset = (angles - phase) % span
        clearance = np.minimum(offset, span - offset)
        score = float((np.minimum(clearance, span / 4) * w).sum())
        if score > best_score:
            best_phase, best_score = float(phase), score
    # Seat 0 is the sector holding the bottom of the frame (90 degrees in image
    # coordinates, y down); seats go on clockwise on screen (increasing angle).
    first = best_phase + span * math.floor((90.0 - best_phase) / span)
    reach = 4.0 * max(width, height)
    zones = []
    for seat in range(players):
        start = first + seat * span
        steps = np.linspace(start, start + span, 9)
        rim = [
            (
                centre[0] + reach * math.cos(math.radians(a)),
                centre[1] + reach * math.sin(math.radians(a)),
            )
            for a in steps
        ]
        mid = math.radians(start + span / 2)
        zones.append(
            SeatZone(
                seat,
                ((float(centre[0]), float(centre[1])), *rim),
                (math.cos(mid), math.sin(mid)),
            )
        )
    return zones


FACING_WEIGHT = 1.0
"""Degrees of position error one degree of facing error is worth (see `facing_sector`)."""
FACING_FROM = 0.5
"""Facing is asked only for rows this share of the way from a sector's middle to its
edge or farther: a hand held askew lies well inside its player's sector."""


def _nearest_sectors(
    point: tuple[float, float], zones: Sequence[SeatZone]
) -> list[tuple[float, float, int]]:
    """(degrees from the sector's middle, the middle's direction in degrees, seat) of
    the two sectors nearest `point` as seen from the table's centre (the first point
    of a sector's polygon, see `sector_zones`), nearest first."""
    centre = np.asarray(zones[0].polygon[0], dtype=np.float64)
    pos = math.degrees(math.atan2(point[1] - centre[1], point[0] - centre[0]))
    out = []
    for zone in zones:
        tx, ty = zone.towards_player or (0.0, 0.0)
        mid = math.degrees(math.atan2(ty, tx))
        out.append((abs((pos - mid + 180.0) % 360.0 - 180.0), mid, zone.seat))
    return sorted(out)[:2]


def _sectors(zones: Sequence[SeatZone]) -> bool:
    return len(zones) >= 2 and all(z.towards_player is not None for z in zones)


def near_edge(point: tuple[float, float], zones: Sequence[SeatZone]) -> tuple[int, int] | None:
    """(its own seat, the neighbour's) for a point in the outer part of its sector
    (`FACING_FROM` of the way to the edge or farther) of `sector_zones`; else None."""
    if not _sectors(zones):
        return None
    near = _nearest_sectors(point, zones)
    if near[0][0] < FACING_FROM * 180.0 / len(zones):
        return None
    return near[0][2], near[1][2]


def facing_sector(
    point: tuple[float, float], side: tuple[float, float], zones: Sequence[SeatZone]
) -> int | None:
    """The seat of a row at `point` whose index side is `side`, among `sector_zones`:
    near a sector's edge (`near_edge`), of the two sectors there, the one whose
    direction best fits both the row's direction from the centre and the row's cards.
    A player's rows lie along the line from the centre to their seat (facing them, or
    turned for the table to read), so at a crowded table, where a player's melds reach
    past the sector's edge (the seats are not evenly spaced, the camera looks from the
    side), the cards still say whose they are. None when the side is unknown."""
    if not any(side) or not _sectors(zones):
        return None
    near = _nearest_sectors(point, zones)
    if near_edge(point, zones) is None:
        return near[0][2]  # well inside its sector: the position says enough
    face = math.degrees(math.atan2(side[1], side[0]))

    def cost(sector: tuple[float, float, int]) -> float:
        off, mid, _ = sector
        return off + FACING_WEIGHT * abs((face - mid + 90.0) % 180.0 - 90.0)

    return min(near, key=cost)[2]


def nearest_area(
    boxes: Sequence[tuple[float, float, float, float]],
    gap: float,
    width: int,
    height: int,
    *,
    sides: Float64Array | None = None,
    counts: Float64Array | None = None,
    max_turn_deg: float = 45.0,
) -> list[int]:
    """Indices of the boxes in the cluster nearest the frame centre, clusters being
    boxes linked by gaps of at most `gap` pixels.

    With `sides` ((N, 2) unit vectors, zeros where unknown; see `layout.CardRow.side`)
    the cluster takes only boxes facing within `max_turn_deg` of the way most cards
    near the centre face (each box weighted by its `counts` of cards and closeness to
    the centre), growing from the nearest such box: at a crowded table a neighbour's
    cards reach close to a player's, but face the neighbour. A box whose side is
    unknown joins when the nearest box that tells is in the cluster."""
    n = len(boxes)
    if n == 0:
        return []
    arr = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    dx = np.maximum(
        0, np.maximum(arr[:, None, 0] - arr[None, :, 2], arr[None, :, 0] - arr[:, None, 2])
    )
    dy = np.maximum(
        0, np.maximum(arr[:, None, 1] - arr[None, :, 3], arr[None, :, 1] - arr[:, None, 3])
    )
    gaps = np.hypot(dx, dy)
    centres = (arr[:, :2] + arr[:, 2:]) / 2
    dist = np.hypot(centres[:, 0] - width / 2, centres[:, 1] - height / 2)
    unit = np.zeros((n, 2)) if sides is None else np.asarray(sides, dtype=np.float64)
    known = np.hypot(unit[:, 0], unit[:, 1]) > 0.5
    if not known.any():
        return _cluster(gaps <= gap, int(np.argmin(dist)))
    weight = np.ones(n) if counts is None else np.asarray(counts, dtype=np.float64)
    weight = weight * np.exp(-dist / max(gap, 1e-9)) * known
    main = (unit * weight[:, None]).sum(axis=0)
    main = main / max(float(np.hypot(*main)), 1e-12)
    facing = known & (unit @ main >= math.cos(math.radians(max_turn_deg)))
    if not facing.any():
        facing = known
    seed = int(np.argmin(np.where(facing, dist, np.inf)))
    core = set(_cluster((gaps <= gap) & facing[:, None] & facing[None, :], seed))
    out = []
    for i in range(n):
        if i in core:
            out.append(i)
        elif not known[i]:
            nearest = int(np.argmin(np.where(known, gaps[i], np.inf)))
            if nearest in core and gaps[i, nearest] <= gap:
                out.append(i)
    return out


def _cluster(linked: npt.NDArray[np.bool_], seed: int) -> list[int]:
    """Indices connected to `seed` through `linked` (N, N)."""
    seen = {seed}
    stack = [seed]
    while stack:
        i = stack.pop()
        for j in np.nonzero(linked[i])[0].tolist():
            if j not in seen:
                seen.add(j)
                stack.append(j)
    return sorted(seen)
