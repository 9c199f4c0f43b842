"""Train / val / test, and which deck looks and table surfaces each split may use.

Every generated item has an index; its split follows from the index alone (80 / 10 /
10), so any subset of a run (or a rerun with more workers) agrees on splits. Looks and
background families marked held out appear only in the test split, where about half
the scenes use them: test numbers then say how the models do on decks and tables they
have never seen. Randomised training looks (`train_only`) appear only in the train
split, where about half the tables of their family use them; val and test draw from
the fixed looks exactly as before they existed.

The validation split draws the looks the models trained on, so it cannot tell how a
choice does on a deck the models never saw, which is what the test's held-out looks
measure. `UNSEEN_VAL` is validation with unseen looks instead (`DeckLook.val_only`, in
fonts no training or test look draws), on the validation tables: where a level or rule
meant for unfamiliar decks is chosen, so the test stays unlooked at.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from shanghai.engine.cards import DeckFamily

from .backgrounds import FAMILY_WEIGHTS, HELD_OUT_FAMILIES, TRAIN_FAMILIES
from .decks import all_looks, looks_for, unseen_val_looks
from .faces import DeckLook

__all__ = [
    "SPLITS",
    "UNSEEN_VAL",
    "choose_background",
    "choose_looks",
    "split_for_index",
    "split_looks",
]

SPLITS: tuple[str, ...] = ("train", "val", "test")
UNSEEN_VAL = "val-unseen"
"""Validation drawn with unseen looks (module docstring); no item index falls in it:
only the photo benchmarks ask for it by name."""
HELD_OUT_SHARE = 0.5
"""Share of test scenes drawn with a held-out look / background family."""
RANDOMISED_SHARE = 0.5
"""Share of train tables (of a family that has them) drawn with randomised looks."""


def split_for_index(index: int) -> str:
    """80% train, 10% val, 10% test, interleaved so small runs hold every split."""
    r = index % 10
    return "train" if r < 8 else ("val" if r == 8 else "test")


def split_looks(split: str, cache_dir: Path | None = None) -> tuple[DeckLook, ...]:
    """The looks a scene of `split` draws from: every look (`decks.all_looks`), and the
    unseen-validation ones only in `UNSEEN_VAL`."""
    looks = all_looks(cache_dir)
    return (*looks, *unseen_val_looks()) if split == UNSEEN_VAL else looks


def choose_looks(
    rng: np.random.Generator, split: str, family: DeckFamily, looks: Sequence[DeckLook]
) -> list[DeckLook]:
    """One or two looks for a table: held-out looks only (and often) in test,
    randomised looks only (and often) in train, unseen-validation looks only (and as
    often as test's held-out ones) in `UNSEEN_VAL`.

    Val and test never draw the extra number the train branch does, so their scenes are
    the same with or without randomised looks.
    """
    unheld = looks_for(looks, family, held_out=False)
    seen = [look for look in unheld if not look.train_only and not look.val_only]
    randomised = [look for look in unheld if look.train_only]
    held = looks_for(looks, family, held_out=True)
    unseen = [look for look in unheld if look.val_only]
    if split == "train" and randomised and (not seen or rng.random() < RANDOMISED_SHARE):
        pool = randomised
    elif split == UNSEEN_VAL and unseen and rng.random() < HELD_OUT_SHARE:
        pool = unseen
    else:
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
