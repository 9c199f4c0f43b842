"""Random scenes for training and testing: which decks, which table, which layout,
which camera. One `numpy` generator drives every choice, so a seed fixes the scene."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from shanghai.engine.cards import DeckFamily

from .camera import IMAGE_SIZES, sample_camera
from .faces import DeckLook
from .layouts import TableDecks, sample_layout
from .scene import Rendered, render_scene
from .splits import choose_background, choose_looks

__all__ = ["ROOK_SHARE", "sample_scene"]

ROOK_SHARE = 0.25
"""Share of tables played with Rook decks (the rest: standard decks and jokers)."""


def sample_scene(
    rng: np.random.Generator,
    split: str,
    looks: Sequence[DeckLook],
    *,
    size: tuple[int, int] | None = None,
    effects: bool = True,
    rook_share: float = ROOK_SHARE,
    extra_jokers: int = 0,
) -> Rendered:
    """Render one random table scene for `split` (`extra_jokers`: see `TableDecks`)."""
    family = DeckFamily.ROOK if rng.random() < rook_share else DeckFamily.STANDARD
    table_looks = choose_looks(rng, split, family, looks)
    copies = int(rng.choice([1, 2, 3], p=[0.15, 0.5, 0.35]))
    decks = TableDecks(rng, table_looks, max(copies, len(table_looks)), extra_jokers=extra_jokers)
    layout = sample_layout(rng, decks)
    background = choose_background(rng, split)
    if size is None:
        size = IMAGE_SIZES[int(rng.integers(len(IMAGE_SIZES)))]
    fx, fy = layout.focus_mm[int(rng.integers(len(layout.focus_mm)))]
    target = (fx + rng.normal(0, 40), fy + rng.normal(0, 40))
    camera = sample_camera(rng, size, target)
    return render_scene(layout, camera, background, rng, effects=effects)
