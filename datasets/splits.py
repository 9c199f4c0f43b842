"""Train / val / test, and which deck looks and table surfaces each split may use.

Every generated item has an index; its split follows from the index alone (80 / 10 /
10), so any subset of a run (or a rerun with more workers) agrees on splits. Looks and
background families marked held out appear only in the test split, where about half
the scenes use them: test numbers then say how the models do on decks and tables they
have never seen.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from shanghai.engine.cards import DeckFamily

from .backgrounds import FAMILY_WEIGHTS, HELD_OUT_FAMILIES, TRAIN_FAMILIES
from .decks import looks_for
from .faces import DeckLook

__all__ = ["SPLITS", "choose_background", "choose_looks", "split_for_index"]

SPLITS: tuple[str, ...] = ("train", "val", "test")
HELD_OUT_SHARE = 0.5
"""Share of test scenes drawn with a held-out look / background family."""


def split_for_index(index: int) -> str:
    """80% train, 10% val, 10% test, interleaved so small runs hold every split."""
    r = index % 10
    return "train" if r < 8 else ("val" if r == 8 else "test")


def choose_looks(
    rng: np.random.Generator, split: str, family: DeckFamily, looks: Sequence[DeckLook]
) -> list[DeckLook]:
    """One or two looks for a table: held-out looks only (and often) in test."""
    seen = looks_for(looks, family, held_out=False)
    held = looks_for(looks, family, held_out=True)
    pool = held if split == "test" and held and rng.random() < HELD_OUT_SHARE else seen
    count = 1 if rng.random() < 0.7 or len(pool) == 1 else 2
    picked = rng.choice(len(pool), size=count, replace=False)
    return [pool[int(i)] for i in picked]


def choose_background(rng: np.random.Generator, split: str) -> str:
    """A table surface family: held-out families only (and often) in test."""
    if split == "test" and rng.random() < HELD_OUT_SHARE:
        return HELD_OUT_FAMILIES[int(rng.integers(len(HELD_OUT_FAMILIES)))]
    weights = np.array([FAMILY_WEIGHTS[f] for f in TRAIN_FAMILIES], np.float64)
    return TRAIN_FAMILIES[int(rng.choice(len(TRAIN_FAMILIES), p=weights / weights.sum()))]
