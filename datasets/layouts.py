"""Where cards lie on the table, as players put them: fans, spread hands, meld rows that
overlap so only a strip and the index of each card shows, discard piles, the stock,
loose cards, face-down hands.

A layout is plain data in table millimetres (`Placement`s in drawing order, later over
earlier); the scene composer turns it into pixels. Round-end scenes build their own
layout from a game's melds and hands with the same pieces (`row_positions` and friends).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from shanghai.engine.cards import JOKER, Card, Suit

from .clutter import make_clutter
from .faces import CARD_W_MM, FACE_H, FACE_W, DeckLook

__all__ = [
    "ClutterItem",
    "Layout",
    "Placement",
    "TableDecks",
    "fan_positions",
    "pile_positions",
    "row_positions",
    "sample_layout",
    "scatter_positions",
]

Rng = np.random.Generator
Pose = tuple[float, float, float]
"""(x mm, y mm, angle degrees) of a card centre; y points down the table like image y."""
Matrix = npt.NDArray[np.float64]


def pose_matrix(x: float, y: float, angle_deg: float, scale: float, w: float, h: float) -> Matrix:
    """3x3 map from a sprite's pixels (w x h, at `scale` mm per px) to table mm."""
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    centre = np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1]], np.float64)
    rotate = np.array([[c * scale, -s * scale, x], [s * scale, c * scale, y], [0, 0, 1]])
    return rotate @ centre


@dataclass(frozen=True, slots=True, kw_only=True)
class Placement:
    """One physical card on the table.

    `zone` says what it is part of (`hand`, `meld`, `discard`, `stock`, `loose`);
    round-end scenes also set `owner` (player index), `meld` (meld index of that
    player) and `position` (order within the meld or hand, left to right).
    """

    card: Card
    look: DeckLook
    face_up: bool
    x_mm: float
    y_mm: float
    angle_deg: float
    zone: str
    owner: int | None = None
    meld: int | None = None
    position: int | None = None

    def to_table(self) -> Matrix:
        """Face pixels -> table millimetres."""
        return pose_matrix(self.x_mm, self.y_mm, self.angle_deg, CARD_W_MM / FACE_W, FACE_W, FACE_H)


@dataclass(frozen=True, slots=True, kw_only=True)
class ClutterItem:
    """A non-card object; `above_cards` objects are drawn after every card."""

    name: str
    rgba: npt.NDArray[np.uint8]
    x_mm: float
    y_mm: float
    angle_deg: float
    above_cards: bool


@dataclass(slots=True)
class Layout:
    """Everything on the table, plus the points worth aiming a camera at."""

    placements: list[Placement] = field(default_factory=list)
    clutter: list[ClutterItem] = field(default_factory=list)
    focus_mm: list[tuple[float, float]] = field(default_factory=list)


def _of_suit_and_rank(suit: Suit, rank: int) -> Callable[[Card], bool]:
    """A `TableDecks.take` predicate for cards of `suit` and `rank`."""
    return lambda c: c.suit is suit and c.rank == rank


class TableDecks:
    """The shuffled cards of the decks on one table (2-3 decks: duplicates are real).

    Each copy of a deck may have its own look (mixed decks happen at home); cards come
    out without replacement, so no card appears more often than the decks hold.
    `extra_jokers` adds that many jokers to each copy of a look that has a joker: real
    shoes hold about one joker per 100 cards, too few for the locator to learn the tall
    "JOKER" index from, so joker-heavy training batches ask for more.
    """

    def __init__(
        self, rng: Rng, looks: Sequence[DeckLook], copies: int, *, extra_jokers: int = 0
    ) -> None:
        self._rng = rng
        self.pool: list[tuple[Card, DeckLook]] = []
        for i in range(copies):
            look = looks[i % len(looks)]
            cards = look.cards()
            self.pool += [(card, look) for card in cards]
            if JOKER in cards:
                self.pool += [(JOKER, look)] * extra_jokers
        order = rng.permutation(len(self.pool))
        self.pool = [self.pool[i] for i in order]

    def take(self, wanted: Callable[[Card], bool] | None = None) -> tuple[Card, DeckLook] | None:
        for i, (card, look) in enumerate(self.pool):
            if wanted is None or wanted(card):
                del self.pool[i]
                return card, look
        return None

    def draw(self, n: int) -> list[tuple[Card, DeckLook]]:
        out = []
        for _ in range(n):
            got = self.take()
            if got is None:
                break
            out.append(got)
        return out

    def draw_set(self, n: int) -> list[tuple[Card, DeckLook]]:
        """Up to `n` cards of one rank (a set), best effort."""
        first = self.take(lambda c: not c.is_suitless)
        if first is None:
            return []
        out = [first]
        rank = first[0].rank
        while len(out) < n:
            got = self.take(lambda c: c.rank == rank and not c.is_suitless)
            if got is None:
                break
            out.append(got)
        return out

    def draw_run(self, n: int) -> list[tuple[Card, DeckLook]]:
        """Up to `n` consecutive cards of one suit (a run), in order, best effort."""
        first = self.take(lambda c: not c.is_suitless)
        if first is None:
            return []
        out = [first]
        suit, rank = first[0].suit, first[0].rank
        top = 14 if first[0].family.value == "rook" else 13
        while len(out) < n and rank < top:
            rank += 1
            got = self.take(_of_suit_and_rank(suit, rank))
            if got is None:
                break
            out.append(got)
        return out


def fan_positions(rng: Rng, n: int) -> list[Pose]:
    """A hand fanned around a pivot below the cards; later cards lie on top, so the
    top-left index of every card stays in view."""
    radius = rng.uniform(80, 170)
    spread = min(rng.uniform(5, 13) * max(n - 1, 1), 140.0)
    out = []
    for i in range(n):
        a = -spread / 2 + (spread * i / (n - 1) if n > 1 else spread / 2)
        r = math.radians(a)
        out.append((radius * math.sin(r), radius - radius * math.cos(r), a))
    return out


def row_positions(rng: Rng, n: int, step_mm: float, *, vertical: bool = False) -> list[Pose]:
    """Cards in a row, each `step_mm` past the last (overlapping when step < card)."""
    out = []
    for i in range(n):
        offset = (i - (n - 1) / 2) * step_mm
        jitter = (rng.normal(0, 0.8), rng.normal(0, 0.8), rng.normal(0, 1.5))
        x, y = (0.0, offset) if vertical else (offset, 0.0)
        out.append((x + jitter[0], y + jitter[1], jitter[2]))
    return out


def pile_positions(rng: Rng, n: int, *, messy: bool) -> list[Pose]:
    """A discard pile (messy: turned and shifted) or a squared-up stock."""
    spread, turn = (9.0, 35.0) if messy else (1.2, 3.0)
    return [(rng.normal(0, spread), rng.normal(0, spread), rng.normal(0, turn)) for _ in range(n)]


def scatter_positions(rng: Rng, n: int) -> list[Pose]:
    """Loose cards at any angle in a small area; some overlap, some lie apart."""
    radius = rng.uniform(30, 150)
    out = []
    for _ in range(n):
        r, t = radius * math.sqrt(rng.random()), rng.uniform(0, 2 * math.pi)
        out.append((r * math.cos(t), r * math.sin(t), rng.uniform(0, 360)))
    return out


def place_group(
    layout: Layout,
    cards: Sequence[tuple[Card, DeckLook]],
    poses: Sequence[Pose],
    origin: Pose,
    *,
    zone: str,
    face_up: bool | Sequence[bool] = True,
    owner: int | None = None,
    meld: int | None = None,
) -> None:
    """Add cards at `poses` (group coordinates) moved and turned by `origin`."""
    ox, oy, oa = origin
    c, s = math.cos(math.radians(oa)), math.sin(math.radians(oa))
    for i, ((card, look), (x, y, a)) in enumerate(zip(cards, poses, strict=False)):
        up = face_up if isinstance(face_up, bool) else face_up[i]
        layout.placements.append(
            Placement(
                card=card,
                look=look,
                face_up=up,
                x_mm=ox + c * x - s * y,
                y_mm=oy + s * x + c * y,
                angle_deg=a + oa,
                zone=zone,
                owner=owner,
                meld=meld,
                position=i,
            )
        )


def _group(rng: Rng, decks: TableDecks, layout: Layout, kind: str, origin: Pose) -> None:
    if kind == "fan":
        cards = decks.draw(int(rng.integers(3, 12)))
        place_group(layout, cards, fan_positions(rng, len(cards)), origin, zone="hand")
    elif kind == "spread":
        cards = decks.draw(int(rng.integers(2, 9)))
        step = rng.uniform(18, 70)
        place_group(layout, cards, row_positions(rng, len(cards), step), origin, zone="hand")
    elif kind == "melds":
        rows = int(rng.integers(1, 4))
        gap = rng.uniform(62, 115)
        vertical = rng.random() < 0.25
        for r in range(rows):
            n = int(rng.integers(3, 8))
            cards = decks.draw_set(n) if rng.random() < 0.5 else decks.draw_run(n)
            step = rng.uniform(13, 32) if not vertical else rng.uniform(20, 40)
            poses = row_positions(rng, len(cards), step, vertical=vertical)
            shift = (
                ((r - (rows - 1) / 2) * gap, 0.0) if vertical else (0.0, (r - (rows - 1) / 2) * gap)
            )
            poses = [(x + shift[0], y + shift[1], a) for x, y, a in poses]
            place_group(layout, cards, poses, origin, zone="meld", meld=r)
    elif kind == "discard":
        cards = decks.draw(int(rng.integers(2, 9)))
        place_group(
            layout, cards, pile_positions(rng, len(cards), messy=True), origin, zone="discard"
        )
    elif kind == "stock":
        cards = decks.draw(int(rng.integers(3, 15)))
        place_group(
            layout,
            cards,
            pile_positions(rng, len(cards), messy=False),
            origin,
            zone="stock",
            face_up=False,
        )
    elif kind == "facedown":
        cards = decks.draw(int(rng.integers(3, 11)))
        place_group(
            layout,
            cards,
            row_positions(rng, len(cards), rng.uniform(10, 25)),
            origin,
            zone="hand",
            face_up=False,
        )
    else:  # loose cards, now and then one of them face down
        cards = decks.draw(int(rng.integers(1, 6)))
        ups = [bool(rng.random() > 0.1) for _ in cards]
        place_group(
            layout, cards, scatter_positions(rng, len(cards)), origin, zone="loose", face_up=ups
        )


GROUP_WEIGHTS = {
    "fan": 2.0,
    "spread": 1.5,
    "melds": 3.0,
    "discard": 1.0,
    "stock": 0.6,
    "loose": 3.0,
    "facedown": 0.5,
}


def sample_layout(rng: Rng, decks: TableDecks, *, duplicate_rate: float = 0.4) -> Layout:
    """A table with 1-5 groups of cards and some clutter, for detector/reader scenes."""
    layout = Layout()
    kinds = list(GROUP_WEIGHTS)
    p = np.array([GROUP_WEIGHTS[k] for k in kinds])
    n_groups = int(rng.integers(1, 6))
    centres: list[tuple[float, float]] = []
    for _ in range(n_groups):
        for _attempt in range(20):
            cx, cy = rng.uniform(-380, 380), rng.uniform(-280, 280)
            if all(math.hypot(cx - x, cy - y) > 170 for x, y in centres):
                break
        centres.append((cx, cy))
        kind = kinds[int(rng.choice(len(kinds), p=p / p.sum()))]
        _group(rng, decks, layout, kind, (cx, cy, rng.uniform(0, 360)))
    if rng.random() < duplicate_rate:
        _add_duplicate(rng, decks, layout)
    layout.focus_mm = centres
    for _ in range(int(rng.poisson(1.6))):
        name, rgba = make_clutter(rng)
        cx, cy = centres[int(rng.integers(len(centres)))]
        layout.clutter.append(
            ClutterItem(
                name=name,
                rgba=rgba,
                x_mm=cx + rng.normal(0, 140),
                y_mm=cy + rng.normal(0, 140),
                angle_deg=rng.uniform(0, 360),
                above_cards=bool(rng.random() < 0.45),
            )
        )
    return layout


def _add_duplicate(rng: Rng, decks: TableDecks, layout: Layout) -> None:
    """Put a second copy of a face-up card near the first: two decks, one card twice."""
    shown = [p for p in layout.placements if p.face_up]
    if not shown:
        return
    first = shown[int(rng.integers(len(shown)))]
    twin = decks.take(lambda c: c == first.card)
    if twin is None:
        return
    angle = rng.uniform(0, 360)
    distance = rng.uniform(70, 160)
    layout.placements.append(
        Placement(
            card=twin[0],
            look=twin[1],
            face_up=True,
            x_mm=first.x_mm + distance * math.cos(math.radians(angle)),
            y_mm=first.y_mm + distance * math.sin(math.radians(angle)),
            angle_deg=rng.uniform(0, 360),
            zone="loose",
        )
    )
