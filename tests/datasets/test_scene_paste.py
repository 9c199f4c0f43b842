"""Pasting a sprite into a frame: the one step every scene repeats for every card."""

from __future__ import annotations

import numpy as np

from shanghai.datasets.scene import _paste


def test_a_card_almost_in_the_camera_plane_is_pasted_with_a_bounded_shadow() -> None:
    """Its far edge projects ~10^7 px away. The shadow blur used to scale with that
    size: a kernel of ~700k px that took the generator to 20+ GB and a segfault."""
    rgba = np.full((350, 250, 4), 255, np.uint8)
    m = np.array([[1.0, 0, 20], [0, 1.0, 10], [0, -(1 - 1e-5) / 350, 1.0]])
    canvas = np.zeros((72, 128, 3), np.float32)
    mask = np.zeros((72, 128), np.int32)
    _paste(canvas, mask, rgba, m, 7, np.random.default_rng(0), shadow=0.4)
    assert (mask == 7).any()
    assert canvas.max() > 200  # the white face is there
