"""Read card indices: each located index with the card name the reader gave it.

`IndexReadings` is the boundary between the models and the card logic: the oracle
(ground truth from generated scenes) and the model pipeline both produce it, so the
logic after it is tested without a model. `restrict_probabilities` keeps the reader to
the cards a game can hold: a variant's deck (with its wilds and removed cards), or,
without a variant, the family of the taught deck read with, else the deck family that
the frame's readings agree on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from shanghai.engine.cards import Card, DeckFamily
from shanghai.engine.errors import CardParseError
from shanghai.engine.variants import Rules

from .arrays import BoolArray, Float32Array

__all__ = [
    "IndexReadings",
    "family_mask",
    "infer_family",
    "restrict_probabilities",
    "rules_mask",
    "score_probabilities",
]


@dataclass(frozen=True)
class IndexReadings:
    """N read indices: `xyxy` (N, 4) float32 pixels, `names` (N,) engine card notation,
    `confidence` (N,) float32 in 0..1 (locating x reading), `reading` (N,) the reader's
    own probability of each name (None: not known apart, taken as `confidence`).

    The two are kept apart because they answer two questions: whether the name is right
    (the reader) and whether an index is really there (the locator). On 3,377 cards of
    400 hand and 200 lay-down validation photos, the reads the reader gave at least
    0.99 were one misread in 518 however low their locating confidence; what went
    wrong there was a card counted twice (`scan.PhotoScanner.is_sure`)."""

    xyxy: Float32Array
    names: tuple[str, ...]
    confidence: Float32Array
    reading: Float32Array | None = None
    score_reading: Float32Array | None = None
    """(N,) the reader's probability of each read's point value: summed over the names
    the game's rules make worth what the read name is worth (`score_probabilities`);
    None: not known apart (no rules), taken as `reading`."""
    runner_up: tuple[str, ...] | None = None
    """(N,) the reader's second name for each index ("" where none is known) and
    `runner_up_reading` its probability (0 there): what a cue from outside the index
    can prefer (`face_kind.FaceCheck.chosen`). None: none known."""
    runner_up_reading: Float32Array | None = None
    cards: tuple[Card, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        xyxy = np.asarray(self.xyxy, dtype=np.float32).reshape(-1, 4)
        confidence = np.asarray(self.confidence, dtype=np.float32).reshape(-1)
        reading = confidence if self.reading is None else self.reading
        reading = np.asarray(reading, dtype=np.float32).reshape(-1)
        score = reading if self.score_reading is None else self.score_reading
        score = np.asarray(score, dtype=np.float32).reshape(-1)
        if not len(xyxy) == len(self.names) == len(confidence) == len(reading) == len(score):
            raise ValueError(
                f"readings need aligned arrays: {len(xyxy)} boxes, {len(self.names)} names, "
                f"{len(confidence)} confidences, {len(reading)} reader probabilities, "
                f"{len(score)} point-value probabilities"
            )
        object.__setattr__(self, "xyxy", xyxy)
        object.__setattr__(self, "confidence", confidence)
        object.__setattr__(self, "reading", reading)
        object.__setattr__(self, "score_reading", score)
        runner_up = ("",) * len(xyxy) if self.runner_up is None else tuple(self.runner_up)
        second = np.zeros(len(xyxy), np.float32)
        if self.runner_up_reading is not None:
            second = np.asarray(self.runner_up_reading, dtype=np.float32).reshape(-1)
        if not len(runner_up) == len(second) == len(xyxy):
            raise ValueError("readings need a runner-up name and probability for every index")
        object.__setattr__(self, "names", tuple(self.names))
        object.__setattr__(self, "runner_up", runner_up)
        object.__setattr__(self, "runner_up_reading", second)
        object.__setattr__(self, "cards", tuple(Card.parse(n) for n in self.names))

    @classmethod
    def empty(cls) -> IndexReadings:
        return cls(np.zeros((0, 4), np.float32), (), np.zeros(0, np.float32))

    def __len__(self) -> int:
        return len(self.names)

    def take(self, keep: BoolArray) -> IndexReadings:
        """The readings where `keep` (N,) is True."""
        names = tuple(n for n, k in zip(self.names, keep.tolist(), strict=True) if k)
        second = tuple(n for n, k in zip(self.second_names, keep.tolist(), strict=True) if k)
        return IndexReadings(
            self.xyxy[keep],
            names,
            self.confidence[keep],
            self.reader_probability[keep],
            self.score_probability[keep],
            second,
            self.second_probability[keep],
        )

    def join(self, other: IndexReadings) -> IndexReadings:
        """These readings followed by `other`'s."""
        return IndexReadings(
            np.concatenate([self.xyxy, other.xyxy]),
            self.names + other.names,
            np.concatenate([self.confidence, other.confidence]),
            np.concatenate([self.reader_probability, other.reader_probability]),
            np.concatenate([self.score_probability, other.score_probability]),
            self.second_names + other.second_names,
            np.concatenate([self.second_probability, other.second_probability]),
        )

    @property
    def reader_probability(self) -> Float32Array:
        """(N,) the reader's own probability of each name (`reading`, set in
        `__post_init__`; `confidence` where the maker gave none)."""
        assert self.reading is not None
        return self.reading

    @property
    def score_probability(self) -> Float32Array:
        """(N,) the reader's probability of each read's point value (`score_reading`,
        set in `__post_init__`; `reading` where the maker gave none)."""
        assert self.score_reading is not None
        return self.score_reading

    @property
    def second_names(self) -> tuple[str, ...]:
        """(N,) `runner_up`, set in `__post_init__` ("" where none is known)."""
        assert self.runner_up is not None
        return self.runner_up

    @property
    def second_probability(self) -> Float32Array:
        """(N,) `runner_up_reading`, set in `__post_init__` (0 where none is known)."""
        assert self.runner_up_reading is not None
        return self.runner_up_reading

    @property
    def centers(self) -> Float32Array:
        """(N, 2) box centres."""
        return ((self.xyxy[:, :2] + self.xyxy[:, 2:]) / 2).astype(np.float32)

    @property
    def sizes(self) -> Float32Array:
        """(N,) longer side of each box: the index's size whatever its rotation."""
        wh = self.xyxy[:, 2:] - self.xyxy[:, :2]
        sizes: Float32Array = wh.max(axis=1).astype(np.float32)
        return sizes


def _card_or_none(name: str) -> Card | None:
    try:
        return Card.parse(name)
    except CardParseError:
        return None


def family_mask(names: Sequence[str], family: DeckFamily) -> BoolArray:
    """(C,) True for the reader classes of one deck family."""
    cards = [_card_or_none(n) for n in names]
    return np.array([c is not None and c.family is family for c in cards], dtype=bool)


def rules_mask(names: Sequence[str], rules: Rules) -> BoolArray:
    """(C,) True for the reader classes a variant's shoe can hold."""
    cards = [_card_or_none(n) for n in names]
    return np.array([c is not None and rules.accepts(c) for c in cards], dtype=bool)


def infer_family(probabilities: Float32Array, names: Sequence[str]) -> DeckFamily:
    """The deck family that the (N, C) readings put most probability on (one frame holds
    one game's cards, so one family)."""
    standard = family_mask(names, DeckFamily.STANDARD)
    rook = family_mask(names, DeckFamily.ROOK)
    if float(probabilities[:, rook].sum()) > float(probabilities[:, standard].sum()):
        return DeckFamily.ROOK
    return DeckFamily.STANDARD


def restrict_probabilities(
    probabilities: Float32Array,
    names: Sequence[str],
    rules: Rules | None,
    family: DeckFamily | None = None,
) -> Float32Array:
    """(N, C) probabilities with the classes the game cannot hold set to 0, so the
    arg-max is the best card that can really be on this table: the rules' shoe, else
    the `family` known (a taught deck's), else the family the readings agree on. Rows
    are not renormalised: the kept value stays the reader's own probability (an honest
    confidence)."""
    if len(probabilities) == 0:
        return probabilities
    if rules is not None:
        mask = rules_mask(names, rules)
    else:
        mask = family_mask(names, family or infer_family(probabilities, names))
    kept: Float32Array = np.where(mask[None, :], probabilities, 0.0).astype(np.float32)
    return kept


def score_probabilities(
    probabilities: Float32Array, names: Sequence[str], rules: Rules | None
) -> Float32Array:
    """(N,) for each row of (N, C) reader probabilities, the probability of its best
    name's point value: the sum over the names the rules make worth the same points
    (the best's own probability without rules, or for a name the rules cannot hold).

    Why: a round-end hand is read for its points, and the reader's doubt is mostly
    between names worth the same (Qc or Qs, 6s or 6c). On 800 validation hand photos
    (tenth model), a read counted sure when this reached the models' name level
    (`sure_name`) instead of the name's own probability: hands exact 32.4% -> 35.0%,
    read right but flagged 21.4% -> 18.8%, with the same hands' points wrong in silence
    (0.25%; one hand more listed a 6s for its 6c)."""
    n = len(probabilities)
    best = probabilities.argmax(axis=1) if n else np.zeros(0, dtype=np.int64)
    own: Float32Array = probabilities[np.arange(n), best].astype(np.float32)
    if rules is None or not n:
        return own
    points = _class_points(tuple(names), rules)
    same = points[best][:, None] == points[None, :]
    summed: Float32Array = np.where(same, probabilities, 0.0).sum(axis=1).astype(np.float32)
    return np.where(points[best] >= 0, summed, own).astype(np.float32)


@lru_cache(maxsize=16)
def _class_points(names: tuple[str, ...], rules: Rules) -> npt.NDArray[np.int64]:
    """(C,) each reader class's points under the rules, -1 for a class they cannot hold
    (kept per game: a live view asks for every frame)."""
    points = np.full(len(names), -1, dtype=np.int64)
    for k, name in enumerate(names):
        card = _card_or_none(name)
        if card is not None and rules.accepts(card):
            points[k] = rules.card_points(card)
    points.setflags(write=False)
    return points
