"""Six or nine: a Rook index read the right way up.

A Rook card's index is its number alone, with no suit pip under it to show which way is
up. The reader reads square crops cut straight from the photo, of cards lying at every
angle. So a 6 upside down looks like a 9, and only the card's corner in the crop tells
them apart, which the reader uses poorly.

On 800 validation hands (seeds 3101 + 3103, 2026-11-28), about half of the Rook hands
read right but flagged `unsure` alone doubted a 6 against the 9 of its colour, and 6
hands were wrong only by such a swap. The same reader on crops turned upright did no
better: it never learned which way is up.

The scan knows which way is up, though. A corner index is printed upright from its own
corner: the card's body lies below it. So the card's pose gives each index its up
(`index_up`). A small classifier (`UPRIGHT_CLASSES`), trained only on index crops turned
upright that way, tells a 6 from a 9 as plainly as a person does.

The scan shares the reader's probability of the pair {6, 9} of a colour between the two
by both views, the reader's own split and the upright classifier's (`split_pair`).
When both agree, the read gets surer. Where the reader doubts and the upright view is
plain, the name turns to the other card of the pair. Two plain views that disagree leave
the read unsure.

This module is the one definition of the upright crop, shared by the runtime and the
training data (`shanghai.datasets.crops.write_upright_crops`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Self

import cv2
import numpy as np
import numpy.typing as npt

from shanghai.engine.cards import Card, DeckFamily

from .arrays import Box, Float64Array, Frame
from .card_model import DIAGONAL_TURN_DEG, turn
from .crops import CROP_CONTEXT, CROP_SIZE, square_crop
from .face_kind import KindModel
from .layout import card_length
from .model_files import ModelFiles
from .onnx_models import OnnxClassifier
from .snapshot import SeenCard

__all__ = [
    "TURNED_RANKS",
    "UPRIGHT_CLASSES",
    "PairSplit",
    "UprightCheck",
    "UprightView",
    "index_up",
    "index_ups",
    "split_pair",
    "turned_card",
    "upright_crop",
    "upright_index",
]

TURNED_RANKS = {6: 9, 9: 6}
"""Rook ranks that are each other turned half a turn."""
BORROW_REACH = 0.8
"""How far (card lengths, `layout.card_length`) an index without an up of its own looks
for a neighbour's (`index_ups`): a row or fan steps well under a card length."""
UPRIGHT_CLASSES: tuple[str, ...] = ("6", "9")
"""The upright classifier's classes, in class-id order (ultralytics sorts its folders)."""

ReaderProbabilities = Callable[[list[Frame]], npt.NDArray[np.float32]]
"""The reader as the scan reads with it: crops -> (N, classes) probabilities
(`pipeline.CardModels.classify`, both ways up, with a taught deck's head)."""


def turned_card(card: Card) -> Card | None:
    """The card this one is read as upside down: a Rook 6 or 9's partner of its colour
    (None for every other card)."""
    if card.family is not DeckFamily.ROOK or card.rank not in TURNED_RANKS:
        return None
    return Card(card.suit, TURNED_RANKS[card.rank])


def upright_crop(
    image: Frame,
    centre: tuple[float, float],
    side: float,
    up: Float64Array,
    *,
    size: int = CROP_SIZE,
) -> Frame:
    """The (size, size, 3) square of `side` pixels around `centre`, turned so the image
    direction `up` (a unit vector, y down) points up in the crop. Pixels outside the
    frame repeat the edge, as the reader's crop does."""
    angle = math.degrees(math.atan2(float(up[1]), float(up[0]))) + 90.0
    m = cv2.getRotationMatrix2D((float(centre[0]), float(centre[1])), angle, size / max(side, 1e-3))
    m[0, 2] += size / 2 - centre[0]
    m[1, 2] += size / 2 - centre[1]
    out = cv2.warpAffine(
        image, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return np.asarray(out, dtype=np.uint8)


def index_up(card: SeenCard, k: int) -> Float64Array | None:
    """Which way is up (a unit vector in the image) for the glyph of the card's `k`th
    read index. An index is printed upright from its own corner, so its up points from
    the card's centre out past the index along the long axis: with a fitted axis
    (`SeenCard.axis`, pointing from a lone index down the card), the axis turned to
    the index's side; without one, the direction from the box centre to the index
    turned `card_model.DIAGONAL_TURN_DEG`, the angle between a card's diagonal and
    its long axis. None when nothing tells (one index and no box of its own)."""
    x1, y1, x2, y2 = card.index_xyxy[k]
    offset = np.array([(x1 + x2) / 2 - card.center[0], (y1 + y2) / 2 - card.center[1]])
    if card.axis is not None:
        axis = np.asarray(card.axis, dtype=np.float64)
        norm = float(np.hypot(*axis))
        if norm > 1e-9:
            axis = axis / norm
            # The axis of a lone index points down from it; with two, each takes its side.
            return axis if len(card.index_xyxy) > 1 and float(offset @ axis) > 0 else -axis
    norm = float(np.hypot(*offset))
    if norm < 1e-6:
        return None
    up: Float64Array = turn(offset / norm, DIAGONAL_TURN_DEG)
    return up


@dataclass(frozen=True, slots=True)
class PairSplit:
    """One read 6 or 9 as both views see it: `pair` the reader's probability of the
    pair {6, 9} of its colour, `reader` its share of that for the read name, `upright`
    the upright classifier's probability of the read rank."""

    pair: float
    reader: float
    upright: float


def split_pair(split: PairSplit) -> tuple[bool, float]:
    """(whether the card is the read name's partner, the reading of the name proposed):
    the reader's probability of the pair, shared between the two names by the product
    of both views' splits, as two independent witnesses. Two views that agree make the
    read surer; a plain upright view outweighs a reader that doubts (the reader sees no
    up, so its split of a 6 from a 9 is often near even); two plain views that disagree
    leave the read near half the pair, so it is marked.

    Replayed on validation against the rule "disagreeing views always halve the read"
    (2026-11-28): hands exact 41.5 against 41.0% on 3101 + 3103, no silent hand more
    on any validation set (`models/MODEL_CARD.md`, "Upright check")."""
    mine = split.reader * split.upright
    other = (1.0 - split.reader) * (1.0 - split.upright)
    share = mine / (mine + other) if mine + other > 0 else 0.5
    return share < 0.5, split.pair * max(share, 1.0 - share)


@dataclass(frozen=True)
class UprightView:
    """A model of a models folder that reads indices again turned upright, beside the
    reader whose reads it checks (`UprightCheck`, `upright_reader.UprightReader`)."""

    model: KindModel
    reader: ReaderProbabilities
    names: tuple[str, ...]
    """The reader's class names (engine card notation), in its probabilities' order."""

    @classmethod
    def load(
        cls,
        files: ModelFiles,
        reader: ReaderProbabilities,
        names: Sequence[str],
        *,
        threads: int | None = None,
    ) -> Self | None:
        """The folder's model of this kind (`model_file`); None when its `models.toml`
        names none. Raises `ModelSettingsError` for a model whose classes are not
        `model_classes`."""
        path = cls.model_file(files)
        if path is None:
            return None
        model = OnnxClassifier.with_classes(path, cls.model_classes(tuple(names)), threads=threads)
        return cls(model, reader, tuple(names))

    @staticmethod
    def model_file(files: ModelFiles) -> Path | None:
        """Which of the folder's files the model is."""
        raise NotImplementedError

    @staticmethod
    def model_classes(names: tuple[str, ...]) -> tuple[str, ...]:
        """The classes the model must read, given the reader's."""
        raise NotImplementedError


@dataclass(frozen=True)
class UprightCheck(UprightView):
    """The upright 6-or-9 classifier (`ModelFiles.upright`, classes `UPRIGHT_CLASSES`)
    beside the reader it corrects."""

    learnt: frozenset[str] = frozenset()
    """Cards whose 6 from 9 the reader beside it tells apart itself: a taught deck's
    own reader, fine-tuned on the deck's own scenes both ways up
    (`pipeline.CardModels.own_cards`). A card whose pair both lie here is left to that
    reader. On three decks taught on the band look (validation, 160 Rook 6/9 reads),
    the deck's reader named every true 6 and 9 right, while the upright check, which
    never saw the deck, turned 4 reads and none of them right: an up borrowed from a
    neighbour in a loose pile, or a glyph of a print it never learnt, reads as the
    other rank (docs/decks.md, 2026-12-06, third session)."""

    @staticmethod
    def model_file(files: ModelFiles) -> Path | None:
        return files.upright

    @staticmethod
    def model_classes(names: tuple[str, ...]) -> tuple[str, ...]:
        return UPRIGHT_CLASSES

    def checks(self, card: Card) -> bool:
        """Whether a read of `card` is read again upright: a Rook 6 or 9 whose pair
        the reader beside it did not learn itself (`learnt`)."""
        partner = turned_card(card)
        return partner is not None and not {str(card), str(partner)} <= self.learnt

    def splits(self, frame: Frame, cards: Sequence[SeenCard]) -> list[PairSplit | None]:
        """Per card: how both views split its pair (None for a card not a Rook 6 or 9,
        one whose pair the reader learnt (`checks`), or with no index whose up is
        known). The views are the mean over the card's
        read indices."""
        found: list[PairSplit | None] = [None] * len(cards)
        if not any(self.checks(card.card) for card in cards):
            return found  # most photos: no index's up is needed
        ups = index_ups(cards)
        jobs: list[tuple[int, Box, Float64Array]] = []
        for i, card in enumerate(cards):
            if not self.checks(card.card):
                continue
            for k, box in enumerate(card.index_xyxy):
                up = ups[i][k]
                if up is not None:
                    jobs.append((i, box, up))
        if not jobs:
            return found
        upright = self.model([upright_index(frame, box, up) for _, box, up in jobs])
        read = self.reader([square_crop(frame, box) for _, box, _ in jobs])
        by_card: dict[int, list[tuple[float, float, float]]] = {}
        for row, (i, _, _) in enumerate(jobs):
            name = cards[i].card
            partner = turned_card(name)
            assert partner is not None
            mine = float(read[row, self.names.index(str(name))])
            other = float(read[row, self.names.index(str(partner))])
            up_share = float(upright[row, UPRIGHT_CLASSES.index(str(name.rank))])
            share = mine / (mine + other) if mine + other > 0 else 0.5
            by_card.setdefault(i, []).append((mine + other, share, up_share))
        for i, views in by_card.items():
            pair, reader, up_share = (float(np.mean(v)) for v in zip(*views, strict=True))
            found[i] = PairSplit(pair, reader, up_share)
        return found


def index_ups(cards: Sequence[SeenCard]) -> list[list[Float64Array | None]]:
    """Each read index's up (`index_up`); an index whose own card tells none (one index,
    no outline, no fitted axis) borrows the up of the nearest index that has one within
    `BORROW_REACH` card lengths: the cards of a row or fan lie nearly the same way up,
    and up against down needs the direction only to within a quarter turn. On the
    validation reads, 162 of 526 Rook 6/9 cards had no up of their own."""
    ups = [[index_up(card, k) for k in range(len(card.index_xyxy))] for card in cards]
    known = [
        (card.index_centers[k], up)
        for card, row in zip(cards, ups, strict=True)
        for k, up in enumerate(row)
        if up is not None
    ]
    if not known:
        return ups
    reach = BORROW_REACH * card_length(cards)
    for card, row in zip(cards, ups, strict=True):
        for k, up in enumerate(row):
            if up is not None:
                continue
            gaps = [float(np.hypot(*(at - card.index_centers[k]))) for at, _ in known]
            near = int(np.argmin(gaps))
            if gaps[near] <= reach:
                row[k] = known[near][1]
    return ups


def upright_index(frame: Frame, box: Box, up: Float64Array) -> Frame:
    """The upright crop of one index box, its side the reader crop's."""
    x1, y1, x2, y2 = box
    side = max(x2 - x1, y2 - y1) * CROP_CONTEXT
    return upright_crop(frame, ((x1 + x2) / 2, (y1 + y2) / 2), side, up)
