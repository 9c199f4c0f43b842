"""The kind of face around a card's index: a check on the reader from outside the index.

The reader names a card from its corner index alone. On decks whose font it never saw,
it can be wrongly *sure*: in two held-out fonts a J's hook looks like our fonts' 3, and
the reader reads the J as a 3 at 0.99, so no reading level marks it (2026-11-28: 5 of
the shipped reader's 15 sure-wrong reads on the unseen-look validation crops). Yet the
photo shows what the index hides: beside a court card's index lies the frame of its
picture, beside a 3's only blank card. A small classifier on a wider square around the
index names that kind (`FACE_KINDS`); a read whose kind the face plainly contradicts is
proposed marked unsure (`scan.PhotoScanner.is_sure`).

This module is the one definition of the face crop and of each card's kind, shared by
the runtime and the training data (`shanghai.datasets.crops.write_face_crops`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from shanghai.engine.cards import Card, DeckFamily, Suit

from .arrays import BoolArray, Box, Frame, as_box
from .crops import square_crop
from .model_files import ModelFiles
from .onnx_models import OnnxClassifier
from .readings import IndexReadings

__all__ = [
    "FACE_CONTEXT",
    "FACE_KINDS",
    "FACE_MASK",
    "FACE_SIZE",
    "FaceCheck",
    "face_crop",
    "face_kind",
]

FACE_CONTEXT = 3.0
"""The face crop's side in index sizes (the index box's longer side): the index and
about one index size of card around it, where a court's picture frame begins."""
FACE_SIZE = 64
FACE_MASK = 0.4
"""The share of the face crop's side blanked at its centre, where the index lies: the
classifier must judge the card around the index, never the index itself, or it would
learn to read a J's letter and share the reader's blind spot."""
MASK_GREY = 127
CHECKED = ("court", "pips")
"""The kinds a read is checked against. On the unseen-look validation crops (the
classifier after 5 epochs), 109 of 898 Rook crops and 87 of 146 jokers had their own
kind under 0.05, against 31 of 924 courts and 8 of 3,158 pips."""
OWN_FACE_LEAST = 0.5
"""A taught deck's card whose own enrolled face shows its kind under this share against
the other (`FaceCheck.takes_for_another_kind`) is left unchecked: the check leans the
other way on it. On the real-dev deck the ace of spades scored 0.34 (its best corner),
its 23 other cards 0.98-1.00."""
RUNNER_UP_LEAST = 0.1
"""Least reader probability of a read's second name for the face check to prefer it
(`FaceCheck.chosen`)."""
SETTLED = 0.9
"""Least share the face check gives one of an unread index's two kinds for it to name
the index by that kind (`FaceCheck.settled`): a plain answer, not a lean."""
PAIR_SHARE = 0.9
"""Least probability the reader's first two names hold together for the face check to
name an unread index (`FaceCheck.settled`): the reader's doubt must lie between those
two names only."""
FACE_KINDS: tuple[str, ...] = ("court", "joker", "pips", "rook")
"""The face classifier's classes, in class-id order (ultralytics sorts its folders)."""


def face_kind(card: Card) -> str:
    """The kind of face `card` shows: a standard J, Q or K a court picture, a joker its
    own design, any other standard card pips, a Rook card (bird included) its own."""
    if card.suit is Suit.JOKER:
        return "joker"
    if card.family is DeckFamily.ROOK:
        return "rook"
    return "court" if card.rank >= 11 else "pips"


def face_crop(
    image: Frame,
    index_xyxy: tuple[float, float, float, float],
    *,
    context: float = FACE_CONTEXT,
    shift: tuple[float, float] = (0.0, 0.0),
) -> Frame:
    """The face classifier's input: the square `context` index sizes wide around an
    index box (`crops.square_crop`), its centre (`FACE_MASK`) blanked grey."""
    crop = square_crop(image, index_xyxy, size=FACE_SIZE, context=context, shift=shift)
    a = round(FACE_SIZE * (1 - FACE_MASK) / 2)
    crop[a : FACE_SIZE - a, a : FACE_SIZE - a] = MASK_GREY
    return crop


class KindModel(Protocol):
    """What the face check needs of its model (`onnx_models.OnnxClassifier`)."""

    names: tuple[str, ...]

    def __call__(self, crops: list[Frame]) -> npt.NDArray[np.float32]: ...


@dataclass(frozen=True)
class FaceCheck:
    """The face classifier of a models folder (`ModelFiles.face`) and its levels: a read
    whose kind it gives less than `least` (a joker: `joker_least`) is contradicted by
    the card around it."""

    model: KindModel
    least: float
    joker_least: float | None = None
    """None: joker reads are not checked."""
    unchecked: frozenset[str] = frozenset()
    """Cards whose faces the check says nothing about: a taught deck's cards whose own
    enrolled face it takes for another kind (`StoredDeck.face_unchecked`, set for the deck's scans
    by `scan.PhotoScanner.reading_with`). The real-dev deck's ace of spades, a Bicycle
    one with the maker's name printed beside its index, looked like a court card to
    the check, so every photo of it read right was marked "As looks like a court card"
    (5 hands, 2026-12-06, fifth session); what the deck's own face looks like is what
    its reads are to be judged against."""

    @classmethod
    def load(cls, files: ModelFiles, *, threads: int | None = None) -> FaceCheck | None:
        """The folder's face check; None when its `models.toml` names no face model.
        Raises `ModelSettingsError` for a model whose classes are not `FACE_KINDS`."""
        if files.face is None:
            return None
        model = OnnxClassifier.with_classes(files.face, FACE_KINDS, threads=threads)
        return cls(model, files.face_least, files.face_joker_least)

    def checked(self, card: Card) -> bool:
        """Whether reads of this card are checked: courts and pips always (the
        misreads the check is for are a court read as pips or the reverse), jokers when
        `joker_least` is set, Rook cards never (the classifier tells Rook faces apart
        from each other not at all, and from jokers poorly)."""
        if str(card) in self.unchecked:
            return False
        kind = face_kind(card)
        return kind in CHECKED or (kind == "joker" and self.joker_least is not None)

    def kinds(self, frame: Frame, boxes: Sequence[Box]) -> list[tuple[float, ...]]:
        """The classifier's probabilities of each kind (`FACE_KINDS` order) for the face
        crop around each index box: what a card's enrolment keeps of its face
        (`deck_enrol.EnrolledCard.face_kinds`)."""
        if not boxes:
            return []
        rows = self.model([face_crop(frame, box) for box in boxes])
        return [tuple(float(v) for v in row) for row in rows]

    def takes_for_another_kind(self, card: Card, kinds: Sequence[Sequence[float]]) -> bool:
        """Whether the check takes `card`'s own face for the other kind, court for pips
        or pips for court: on every crop of these kind probabilities (`kinds`, its
        enrolment photo's) the other kind outweighs its own (`OWN_FACE_LEAST`). Then its
        verdicts on reads of that card say nothing about this deck. Jokers are never
        so taken: their check stops a pip card read as a joker, 50 points in silence."""
        if not kinds or face_kind(card) not in CHECKED or not self.checked(card):
            return False
        return _agreement(card, np.asarray(kinds, np.float32)) < OWN_FACE_LEAST

    def agreement(
        self, frame: Frame, cards: Sequence[tuple[Card, Sequence[Box]]]
    ) -> list[float | None]:
        """For each (card, its read index boxes): how much its face looks like its kind
        against the standard kinds it may be confused with, the most over its indices'
        face crops (one clear view of a court's picture is enough): a court or pip card
        p(kind) / (p(court) + p(pips)), a joker p(joker) / (p(joker) + p(court) +
        p(pips)). None for a card with no index box and a card not `checked`."""
        crops: list[Frame] = []
        owners: list[int] = []
        for i, (card, boxes) in enumerate(cards):
            if not self.checked(card):
                continue
            for box in boxes:
                crops.append(face_crop(frame, box))
                owners.append(i)
        found: list[float | None] = [None] * len(cards)
        if not crops:
            return found
        probabilities = self.model(crops)
        mine = np.asarray(owners)
        for i in sorted(set(owners)):
            found[i] = _agreement(cards[i][0], probabilities[mine == i])
        return found

    def contradicts(self, agreement: float | None, card: Card | None = None) -> bool:
        """Whether a card's `agreement` says its face is of another kind than its read
        (`card`: the read, whose kind picks the level; a joker's is `joker_least`)."""
        if agreement is None:
            return False
        if card is not None and face_kind(card) == "joker":
            return self.joker_least is not None and agreement < self.joker_least
        return agreement < self.least

    def chosen(self, frame: Frame, readings: IndexReadings) -> IndexReadings:
        """`readings` with each court-or-pips read whose kind the face contradicts
        (`contradicts`) named by the reader's second name instead, where that name is
        of the other kind and the reader gives it at least `RUNNER_UP_LEAST`. The new
        read keeps the reader's own probability of it (under a half, being second) and
        its locating x reading follows, so it is proposed marked, never sure
        (`scan.PhotoScanner.is_sure`: under the sure level and the name level).

        Why: on a font it never saw, a deck's own reader still read a J as a 3 (a Jh
        and a Js read 3h 0.55 and 3s 0.54, their J second), and marking the 3 left the
        player to find the J. On one validation deck's 80 photos (code-unseen-00,
        docs/decks.md, 2026-12-05, eighth session) 166 located true indices had a
        court and a pip card as the reader's first two names: the choice turned those
        two right, one wrong card into another wrong one, and none read right wrong."""
        candidates = [
            i
            for i, (card, second, p) in enumerate(
                zip(readings.cards, readings.second_names, readings.second_probability, strict=True)
            )
            if p >= RUNNER_UP_LEAST and _of_two_kinds(card, second)
        ]
        if not candidates:
            return readings
        found = self.agreement(
            frame, [(readings.cards[i], [as_box(readings.xyxy[i])]) for i in candidates]
        )
        switch = [
            i for i, agreement in zip(candidates, found, strict=True) if self.contradicts(agreement)
        ]
        if not switch:
            return readings
        return _second_named(readings, switch)

    def settled(
        self, frame: Frame, unread: IndexReadings, floor: float
    ) -> tuple[BoolArray, IndexReadings]:
        """Which of the `unread` indices (under the read floor) the face names, and
        their reads: an index whose reader's first two names are a court and a pips card,
        holding at least `PAIR_SHARE` together and enough for the floor (locating x the
        two names' probabilities reaches `floor`), and whose face is plainly of one of
        those two kinds (the check gives that kind at least `SETTLED`). The read takes that kind's
        name with the reader's own probability of it, so locating x reading stays under
        the floor and the card is proposed marked, never sure.

        Why: a crisp 69 px Jh of a font no model saw was read Jh 0.51 / 3h 0.48 by its
        deck's own reader (one view J, the other 3: docs/decks.md, 2026-12-05, ninth
        session) with the locator at 0.79, just under the floor, and the card was left
        out of the hand. The reader's doubt there is between two names of two kinds,
        which is what the face check tells apart. On one validation deck's 80 photos
        (code-unseen-00) it named five unread indices, all five right (two Jh, a 7h,
        an As, a 3s): cards read right 408 -> 411 of 444, wrong cards 6 as before, none
        unmarked. A settled read stays marked (unless the card's other corner is read
        surely by the same name), so the hand keeps a flag. Not for the
        shipped models: their upright reader reads each card again and made one settled
        5s sure, and with the warnings about that unread corner gone, the hand's other
        misread (a 10s read surely as 6s) became silent (unseen-look validation hands)."""
        both = unread.reader_probability + unread.second_probability
        located = unread.confidence / np.maximum(unread.reader_probability, 1e-6)
        candidates = [
            i
            for i, (card, second) in enumerate(zip(unread.cards, unread.second_names, strict=True))
            if both[i] >= PAIR_SHARE
            and located[i] * both[i] >= floor
            and _of_two_kinds(card, second)
        ]
        named = np.zeros(len(unread), dtype=bool)
        if not candidates:
            return named, unread.take(named)
        found = self.agreement(
            frame, [(unread.cards[i], [as_box(unread.xyxy[i])]) for i in candidates]
        )
        switch = []
        for i, agreement in zip(candidates, found, strict=True):
            if agreement is None:
                continue
            if agreement >= SETTLED:
                named[i] = True
            elif agreement <= 1 - SETTLED:
                named[i] = True
                switch.append(i)
        return named, _second_named(unread, switch).take(named)


def _agreement(card: Card, probabilities: npt.NDArray[np.float32]) -> float:
    """How much the face crops of these kind probabilities (rows in `FACE_KINDS`
    order) look like `card`'s kind against the standard kinds it may be confused with,
    the most over the crops: a court or pip card p(kind) / (p(court) + p(pips)), a
    joker p(joker) / (p(joker) + p(court) + p(pips))."""
    kind = face_kind(card)
    court = probabilities[:, FACE_KINDS.index("court")]
    pips = probabilities[:, FACE_KINDS.index("pips")]
    joker = probabilities[:, FACE_KINDS.index("joker")]
    mine = {"court": court, "pips": pips, "joker": joker}[kind]
    rivals = court + pips + (joker if kind == "joker" else 0.0)
    return float((mine / np.maximum(rivals, 1e-6)).max())


def _of_two_kinds(card: Card, second: str) -> bool:
    """Whether a read and its second name ("" for none) are a court and a pips card,
    one of each: the doubt the face check can settle."""
    return bool(second) and {face_kind(card), face_kind(Card.parse(second))} == set(CHECKED)


def _second_named(readings: IndexReadings, switch: Sequence[int]) -> IndexReadings:
    """`readings` with the reads at `switch` named by their second name: the reader's
    probability of it becomes the read's, and locating x reading follows."""
    if not switch:
        return readings
    names = list(readings.names)
    second_names = list(readings.second_names)
    reading = readings.reader_probability.copy()
    second = readings.second_probability.copy()
    confidence = readings.confidence.copy()
    score = readings.score_probability.copy()
    for i in switch:
        located = confidence[i] / max(float(reading[i]), 1e-6)
        names[i], second_names[i] = second_names[i], names[i]
        reading[i], second[i] = second[i], reading[i]
        confidence[i] = located * reading[i]
        score[i] = reading[i]
    return IndexReadings(
        readings.xyxy, tuple(names), confidence, reading, score, tuple(second_names), second
    )
