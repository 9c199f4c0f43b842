"""Random scenes for training and testing: which decks, which table, which layout,
which camera. One `numpy` generator drives every choice, so a seed fixes the scene."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from shanghai.engine.cards import DeckFamily

from .camera import IMAGE_SIZES, Camera, sample_camera
from .faces import DeckLook
from .layouts import Layout, TableDecks, sample_layout
from .scene import Rendered, render_scene
from .splits import choose_background, choose_looks

__all__ = ["ROOK_SHARE", "sample_scene", "sample_table"]

ROOK_SHARE = 0.25
"""Share of tables played with Rook decks (the rest: standard decks and jokers)."""


def sample_table(
    rng: np.random.Generator,
    split: str,
    looks: Sequence[DeckLook],
    *,
    size: tuple[int, int] | None = None,
    rook_share: float = ROOK_SHARE,
    extra_jokers: int = 0,
) -> tuple[Layout, Camera, str]:
    """What a random scene shows: the layout, the camera, the table surface family.

    Split from the drawing so that a benchmark can draw one table twice (the same
    generator state, a card swapped: `tests/benchmarks/read_cache_eval.py`).
    """
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
    return layout, sample_camera(rng, size, target), background


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
    layout, camera, background = sample_table(
        rng, split, looks, size=size, rook_share=rook_share, extra_jokers=extra_jokers
    )
    return render_scene(layout, camera, background, rng, effects=effects)
