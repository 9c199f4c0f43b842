"""`TableSnapshot`: what one frame shows, in engine types only, with the engine's verdicts.

Every card is an engine `Card` with its confidence and location; each seat holds its
melds (card positions in table order, so a joker's place in a run is known) and its
hand. Verdicts come from the engine and nowhere else: `check_meld(..., ordered=True)`
per meld, `check_lay_down(..., ordered=True)` for a seat's melds against a round's
contract, `score_hand` for the hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from shanghai.engine.cards import Card
from shanghai.engine.contracts import LayDownReport, MeldVerdict, check_lay_down
from shanghai.engine.errors import IllegalMeldError, ShanghaiError
from shanghai.engine.melds import check_meld
from shanghai.engine.scoring import HandScore, score_hand
from shanghai.engine.variants import Rules

from .arrays import Box, Float32Array

__all__ = [
    "PhotoKind",
    "ScanWarning",
    "SeatSnapshot",
    "SeenCard",
    "TableSnapshot",
    "meld_verdict",
]


class PhotoKind(StrEnum):
    """What a photo shows, which decides how its cards are placed (`scan.PhotoScanner`):
    `hand`, one player's cards left at round end (every card read is that hand);
    `lay-down`, melds shown for a dispute (rows and fans are melds, a lone card is
    loose); `table`, the whole table (seats by sector, each seat's melds and hand)."""

    HAND = "hand"
    LAY_DOWN = "lay-down"
    TABLE = "table"


@dataclass(frozen=True, slots=True)
class ScanWarning:
    """Something a person must look at before trusting a scan. `code` is stable (the
    page and tests go by it); `message` says what to do; `cards` are positions into
    `TableSnapshot.cards` it concerns (empty when it concerns no card read)."""

    code: str
    message: str
    cards: tuple[int, ...] = ()

    def __str__(self) -> str:
        return self.message

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "cards": list(self.cards)}


@dataclass(frozen=True, slots=True)
class SeenCard:
    """A physical card seen in a frame: the one card type of vision, from identification
    (`physical.CardIdentifier`) through rows and seats to the snapshot, the live
    tracker and the server's answers (as supervision keeps one `Detections` from model
    to tracker, so no step re-describes a card).

    `card` is the face read; `confidence` the best of its indices' locating x reading
    confidences; `xyxy` the card's box (its visible pixels) when a card outline was
    matched (`box_id`, a position in the frame's card boxes), else the box around its
    indices; `index_xyxy` the boxes of the indices read; `axis` the card's long axis as
    fitted (a unit vector; for a card showing one index it points from the index down
    the card), None when nothing told. `reading` is the reader's own probability of the
    name (the best of its indices'; None when not known), `score_reading` its probability
    of the name's point value in the game (`readings.score_probabilities`; None when not
    known). `outlined` is False for a card read where no card outline was found (its
    indices lie in none: `physical.CardIdentifier`), proposed but never sure. `excess`
    marks a copy beyond the shoe; `sure` is False for a read the scan proposes marked, to check
    (`scan.PhotoScanner.is_sure`); `track_id` is the live tracker's identity of the
    card across frames (None outside live video).
    """

    card: Card
    confidence: float
    xyxy: Box
    _: KW_ONLY
    index_xyxy: tuple[Box, ...] = ()
    box_id: int | None = None
    axis: tuple[float, float] | None = None
    reading: float | None = None
    score_reading: float | None = None
    face: float | None = None
    """The face check's probability of the card's kind (court, pips, joker, Rook) around
    its indices (`face_kind.FaceCheck.agreement`); None when not checked."""
    outlined: bool = True
    covered: bool = False
    """Two corners folded into one card though other cards' indices lie on its face
    (`physical.one_card_pairs`, `covered`): a card lying across another's middle, or
    two copies in a row; proposed but never sure."""
    excess: bool = False
    sure: bool = True
    track_id: int | None = None

    @property
    def center(self) -> tuple[float, float]:
        x1, y1, x2, y2 = self.xyxy
        return (x1 + x2) / 2, (y1 + y2) / 2

    @property
    def size(self) -> float:
        """The geometric mean of the box's sides (at least 1 px each)."""
        x1, y1, x2, y2 = self.xyxy
        return float(np.sqrt(max(x2 - x1, 1.0) * max(y2 - y1, 1.0)))

    @property
    def index_centers(self) -> Float32Array:
        """(K, 2) centres of the card's read indices."""
        boxes = np.asarray(self.index_xyxy, dtype=np.float32).reshape(-1, 4)
        return ((boxes[:, :2] + boxes[:, 2:]) / 2).astype(np.float32)

    @property
    def index_span(self) -> float:
        """The largest distance in pixels between two of its read indices' centres (0
        with fewer than two): what its corners say of its size."""
        pts = self.index_centers.astype(np.float64)
        if len(pts) < 2:
            return 0.0
        return float(np.hypot(*(pts[:, None, :] - pts[None, :, :]).transpose(2, 0, 1)).max())


def meld_verdict(cards: Sequence[Card], rules: Rules, *, at_lay_down: bool = False) -> MeldVerdict:
    """The engine's verdict (`contracts.MeldVerdict`: one type with one key, `valid`,
    for the CLI, the API and the overlays) on cards in table order. Round-end melds may
    have grown by lay-offs, so the default uses the variant's limits for melds after
    the lay-down."""
    try:
        meld = check_meld(cards, rules, ordered=True, at_lay_down=at_lay_down)
        return MeldVerdict(tuple(cards), meld, None)
    except IllegalMeldError as exc:
        return MeldVerdict(tuple(cards), None, None, tuple(exc.reasons))


@dataclass(frozen=True, slots=True)
class SeatSnapshot:
    """One seat: `melds` as tuples of card positions (into `TableSnapshot.cards`) in
    table order, `hand` the positions of its loose cards."""

    seat: int
    melds: tuple[tuple[int, ...], ...]
    hand: tuple[int, ...]


@dataclass(frozen=True)
class TableSnapshot:
    """Everything read in one frame: the scan contract's result. `cards` holds every
    card read (also those outside every zone); `seats` only the cards placed at a seat;
    `loose` the cards of a lay-down photo that are part of no meld; `unread` the boxes
    of cards seen but not read (card outlines without a read, and corners of cards
    hidden under others: the `corner` warning). `rules` (when a variant is known)
    enables the verdicts. A snapshot with any `warnings` must be shown to a person
    before it counts."""

    width: int
    height: int
    cards: tuple[SeenCard, ...]
    seats: tuple[SeatSnapshot, ...]
    warnings: tuple[ScanWarning, ...] = ()
    rules: Rules | None = None
    kind: PhotoKind = PhotoKind.TABLE
    loose: tuple[int, ...] = ()
    unread: tuple[Box, ...] = ()

    def meld_cards(self, seat: SeatSnapshot) -> list[list[Card]]:
        return [[self.cards[i].card for i in meld] for meld in seat.melds]

    def hand_cards(self, seat: SeatSnapshot) -> list[Card]:
        return [self.cards[i].card for i in seat.hand]

    @property
    def placed(self) -> list[int]:
        """Positions of the cards placed at some seat."""
        out = [i for seat in self.seats for meld in seat.melds for i in meld]
        return out + [i for seat in self.seats for i in seat.hand]

    def _need_rules(self) -> Rules:
        if self.rules is None:
            raise ShanghaiError("a variant is needed to check melds and score hands")
        return self.rules

    def meld_verdicts(self, seat: SeatSnapshot) -> list[MeldVerdict]:
        rules = self._need_rules()
        return [meld_verdict(cards, rules) for cards in self.meld_cards(seat)]

    def lay_down(self, seat: SeatSnapshot, round_number: int) -> LayDownReport:
        """The seat's melds as a lay-down for round `round_number`'s contract."""
        return check_lay_down(self.meld_cards(seat), self._need_rules(), round_number, ordered=True)

    def hand_score(self, seat: SeatSnapshot) -> HandScore:
        return score_hand(self.hand_cards(seat), self._need_rules())

    def warned(self, code: str) -> bool:
        return any(w.code == code for w in self.warnings)

    def to_json(self) -> dict[str, Any]:
        """Plain data: cards with `card` and `confidence`, melds and hands per seat (card
        names in table order, and positions into `cards`), verdicts when known."""
        seats = []
        for seat in self.seats:
            entry: dict[str, Any] = {
                "seat": seat.seat,
                "melds": [
                    {"cards": [str(c) for c in cards], "positions": list(meld)}
                    for cards, meld in zip(self.meld_cards(seat), seat.melds, strict=True)
                ],
                "hand": [str(c) for c in self.hand_cards(seat)],
                "hand_positions": list(seat.hand),
            }
            if self.rules is not None:
                for meld_json, verdict in zip(
                    entry["melds"], self.meld_verdicts(seat), strict=True
                ):
                    meld_json["valid"] = verdict.valid
                    meld_json["reasons"] = list(verdict.reasons)
                    if verdict.meld is not None:
                        meld_json["description"] = verdict.meld.describe(self.rules.variant.family)
                try:
                    entry["points"] = self.hand_score(seat).points
                except ShanghaiError:
                    entry["points"] = None
            seats.append(entry)
        return {
            "width": self.width,
            "height": self.height,
            "cards": [
                {
                    "card": str(c.card),
                    "confidence": round(c.confidence, 4),
                    "xyxy": [round(v, 1) for v in c.xyxy],
                    "sure": c.sure,
                    **({"excess": True} if c.excess else {}),
                }
                for c in self.cards
            ],
            "seats": seats,
            "loose": [str(self.cards[i].card) for i in self.loose],
            "loose_positions": list(self.loose),
            "unread": [[round(v, 1) for v in box] for box in self.unread],
            "warnings": [w.to_json() for w in self.warnings],
            "kind": str(self.kind),
            "variant": self.rules.variant.name if self.rules else None,
        }
