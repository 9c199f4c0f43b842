"""A small taught deck for tests: six cards of a training look, enrolled from generated
photos (three cards a photo) with the real models."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from shanghai.datasets.deck_photos import enrolment_photos
from shanghai.datasets.decks import code_looks
from shanghai.engine.cards import Card, DeckFamily
from shanghai.vision.deck_enrol import enrol, read_labels
from shanghai.vision.deck_store import DeckStore, StoredDeck
from shanghai.vision.pipeline import CardModels

CARDS = ["7h", "8s", "Kd", "Ac", "10h", "3c"]


def teaching_photos(folder: Path) -> Path:
    """Two photos of three of `CARDS` (`code-classic`) each, apart, in `folder`; returns
    their labels CSV."""
    look = next(look for look in code_looks() if look.name == "code-classic")
    return enrolment_photos(
        look,
        folder,
        np.random.default_rng(8),
        cards=[Card.parse(c) for c in CARDS],
        per_photo=3,
        size=(1024, 768),
    )


def taught_deck(folder: Path, models: CardModels, name: str = "home") -> StoredDeck:
    """Enrol `CARDS` into a deck store under `folder`."""
    labels = read_labels(teaching_photos(folder))
    return enrol(DeckStore(folder / "decks"), name, DeckFamily.STANDARD, labels, models)
