"""A second read of each card, on its index turned the right way up.

The reader reads square crops cut straight from the photo, of cards lying at every
angle, so it must learn every glyph at every turn; a Rook "12" on its side or a J
upside down is a different picture to it. The scan knows which way each read index is
up (`upright.index_up`: an index is printed upright from its own corner). The upright
reader is a reader of every card, fine-tuned from the shipped reader on index crops
turned upright that way only (`shanghai data generate --kind upright-index-crops`).

Its read is a second witness. For each card, the reader's probabilities over its
indices (both ways up, as the scan read them) and the upright reader's over the indices
whose up is known are multiplied class by class (`combine`): where both agree the read
gets surer; where they disagree it falls under the sure level and is marked, and where
the reader doubts and the upright view is plain, the upright view decides.

A taught deck reads without it: the upright reader knows only the decks we trained on,
and its plain view of a deck it never saw would outvote the deck's own head.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from shanghai.engine.cards import DeckFamily
from shanghai.engine.variants import Rules

from .arrays import Frame
from .crops import square_crop
from .model_files import ModelFiles
from .readings import restrict_probabilities, score_probabilities
from .snapshot import SeenCard
from .upright import UprightView, index_ups, upright_index

__all__ = ["EVIDENCE_WEIGHT", "CardRead", "UprightReader", "combine"]

EVIDENCE_WEIGHT = 0.75
"""How much each view's probabilities count in the product (`combine`). Replayed on the
validation reads (2026-11-29; hands exact / right flagged / wrong flagged / silent):
- 3101 + 3103, 800 hands: shipped 41.9 / 12.2 / 45.8 / 0.1%; weight 1 (the plain
  product) 43.1 / 11.1 / 45.4 / 0.4%; 0.75 43.1 / 11.1 / 45.6 / 0.1%; 0.5 (the
  geometric mean) 42.5 / 11.8 / 45.6 / 0.1%; the two views' mean 40.4 / 13.9 / 45.6 / 0.1%.
- unseen 3301 + 3303, 400 hands: shipped 26.5 / 10.5 / 61.2 / 1.8%; weight 1 30.2 /
  9.2 / 59.2 / 1.2%; 0.75 29.5 / 10.0 / 59.5 / 1.0%; 0.5 28.0 / 11.5 / 59.5 / 1.0%.
The plain product made two hands of 3101 + 3103 silent that 0.75 keeps flagged: the
readers share their errors, so two agreeing views are less than twice the evidence."""


@dataclass(frozen=True, slots=True)
class CardRead:
    """A card's name and readings after both views (`UprightReader.reads`)."""

    name: str
    reading: float
    score_reading: float


def combine(
    plain: npt.NDArray[np.float64],
    upright: npt.NDArray[np.float64],
    weight: float = EVIDENCE_WEIGHT,
) -> npt.NDArray[np.float64]:
    """(C,) the two views' class probabilities multiplied, each raised to `weight`, and
    renormalised; all zeros when they share no class. At weight 1 this is two
    independent witnesses; the two readers share most of their features (the upright
    reader is the reader fine-tuned), so each view's evidence counts `weight`."""
    both = (plain * upright) ** weight
    total = float(both.sum())
    if total <= 0.0:
        return np.zeros_like(both)
    out: npt.NDArray[np.float64] = both / total
    return out


@dataclass(frozen=True)
class UprightReader(UprightView):
    """The upright reader of a models folder (`ModelFiles.upright_reader`) beside the
    reader whose reads it checks; both read the same classes in the same order."""

    @staticmethod
    def model_file(files: ModelFiles) -> Path | None:
        return files.upright_reader

    @staticmethod
    def model_classes(names: tuple[str, ...]) -> tuple[str, ...]:
        return names

    def reads(
        self, frame: Frame, cards: Sequence[SeenCard], rules: Rules | None
    ) -> list[CardRead | None]:
        """Per card, its name and readings by both views (None for a card with no index
        whose up is known). The names the game's rules cannot hold are left out, as the
        scan's first read leaves them (`readings.restrict_probabilities`)."""
        ups = index_ups(cards)
        jobs = [
            (i, box, up)
            for i, card in enumerate(cards)
            for box, up in zip(card.index_xyxy, ups[i], strict=True)
            if up is not None
        ]
        found: list[CardRead | None] = [None] * len(cards)
        if not jobs:
            return found
        upright = self.model([upright_index(frame, box, up) for _, box, up in jobs])
        plain = self.reader([square_crop(frame, box) for _, box, _ in jobs])
        family = None if rules is not None else _family_of(cards)
        for i in sorted({i for i, _, _ in jobs}):
            rows = [row for row, (j, _, _) in enumerate(jobs) if j == i]
            both = combine(
                plain[rows].astype(np.float64).mean(axis=0),
                upright[rows].astype(np.float64).mean(axis=0),
            )
            kept = restrict_probabilities(both[None].astype(np.float32), self.names, rules, family)
            if float(kept.max()) <= 0.0:
                continue
            best = int(kept[0].argmax())
            score = score_probabilities(kept, self.names, rules)
            found[i] = CardRead(self.names[best], float(kept[0, best]), float(score[0]))
        return found


def _family_of(cards: Sequence[SeenCard]) -> DeckFamily | None:
    """The deck family the photo's reads agree on (None: mixed or none)."""
    families = {card.card.family for card in cards}
    return families.pop() if len(families) == 1 else None
