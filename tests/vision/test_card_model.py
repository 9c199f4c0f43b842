"""Card geometry: poses from indices, boxes of turned cards, how far a box overhangs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from shanghai.vision.card_model import (
    CARD_ASPECT,
    INDEX_INSET,
    card_bbox,
    card_corners,
    centre_from_index,
    diagonal_axis,
    overhang,
    turn,
)


def _down(degrees: float) -> np.ndarray:
    """The "down" of a card turned `degrees` clockwise on screen from upright."""
    return turn(np.array([0.0, 1.0]), degrees)


@pytest.mark.parametrize("degrees", [0.0, 17.0, 45.0, 90.0, 133.0, 200.0, 301.0])
def test_bbox_is_the_box_around_the_corners(degrees: float) -> None:
    centre, down = np.array([300.0, 200.0]), _down(degrees)
    corners = card_corners(centre, down, 120.0)
    want = [*corners.min(axis=0), *corners.max(axis=0)]
    np.testing.assert_allclose(card_bbox(centre, down, 120.0), want, atol=1e-9)


def test_an_upright_card() -> None:
    corners = card_corners(np.array([0.0, 0.0]), np.array([0.0, 1.0]), 88.0)
    width = 88.0 * CARD_ASPECT
    np.testing.assert_allclose(corners[0], [-width / 2, -44.0])  # top-left
    np.testing.assert_allclose(corners[2], [width / 2, 44.0])  # bottom-right


@pytest.mark.parametrize("degrees", [0.0, 30.0, 90.0, 180.0, 250.0])
def test_the_index_sits_inset_from_the_top_left_corner(degrees: float) -> None:
    down, length = _down(degrees), 100.0
    index = np.array([50.0, 60.0])
    centre = centre_from_index(index, down, length)
    top_left = card_corners(centre, down, length)[0]
    right = np.array([down[1], -down[0]])
    offset = index - top_left
    assert offset @ right == pytest.approx(INDEX_INSET[0] * CARD_ASPECT * length)
    assert offset @ down == pytest.approx(INDEX_INSET[1] * length)


@pytest.mark.parametrize("degrees", [0.0, 40.0, 95.0, 180.0, 275.0])
def test_two_diagonal_indices_give_the_long_axis(degrees: float) -> None:
    """Top-left and bottom-right indices of a card turned any way: the axis comes back
    (up to sign: a card reads the same turned half a turn)."""
    down, length = _down(degrees), 88.0
    centre = np.array([0.0, 0.0])
    right = np.array([down[1], -down[0]])
    inset = (0.5 - INDEX_INSET[0]) * CARD_ASPECT * length * right + (
        0.5 - INDEX_INSET[1]
    ) * length * down
    top_left, bottom_right = centre - inset, centre + inset
    for first, second in ((top_left, bottom_right), (bottom_right, top_left)):
        axis = diagonal_axis(first, second)
        assert abs(float(axis @ down)) > math.cos(math.radians(6))


def test_overhang_counts_only_what_reaches_outside() -> None:
    card = np.array([0.0, 0.0, 100.0, 150.0])
    assert overhang(np.array([10.0, 10.0, 90.0, 140.0]), card) == 0.0
    assert overhang(np.array([-5.0, 10.0, 90.0, 160.0]), card) == pytest.approx(15.0)
