"""A playing card as geometry: where its indices sit, which way it lies, what box it fills.

Poker and bridge cards share one shape: a rectangle `CARD_ASPECT` as wide as it is
long, a corner index near each short side (top-left and bottom-right; some decks all
four corners), each index centre about `INDEX_INSET` of the card's width and length in
from its corner. Seen from above, cards are never mirrored. That is enough to turn
read indices into a card pose:

- two indices on a diagonal (top-left and bottom-right) fix the long axis: the line
  between them turns `DIAGONAL_TURN_DEG` to reach it (the other diagonal, of a
  four-index deck, turns the other way), and their distance is `DIAGONAL_TO_LENGTH`
  of the card's length;
- two indices on a long side (top-left and bottom-left, a four-index card covered on
  one side) lie along the axis, `SIDE_TO_LENGTH` of the length apart;
- one index, a direction and a length place the whole card.

A card's visible-pixel box lies inside the box of the card's rectangle, whatever
covers it; `overhang` measures how far a box breaks that rule, which tells a card's
own box from a neighbour's.

Directions are unit vectors in image coordinates (x right, y down); "down" runs from
a card's top edge to its bottom edge, "right" is down turned a quarter to the left
on screen: (down_y, -down_x).
"""

from __future__ import annotations

import math

import numpy as np

from .arrays import Float64Array

__all__ = [
    "CARD_ASPECT",
    "DIAGONAL_TO_LENGTH",
    "DIAGONAL_TURN_DEG",
    "INDEX_INSET",
    "SIDE_TO_LENGTH",
    "card_bbox",
    "card_corners",
    "centre_from_index",
    "diagonal_axis",
    "overhang",
    "right_of",
    "turn",
]


CARD_ASPECT = 63.0 / 88.0
"""Width over length (poker size; bridge cards are a little narrower)."""
INDEX_INSET = (0.095, 0.105)
"""Index centre from its corner, in card widths and card lengths (decks vary from
about 0.07 to 0.12 of either)."""
DIAGONAL_TURN_DEG = 37.0
"""Turn from the top-left -> bottom-right index line to the "down" axis, clockwise on
screen (decks measured from 34 to 38 degrees)."""
DIAGONAL_TO_LENGTH = 0.97
"""Distance of two diagonal indices over the card's length (decks: 0.89 to 1.04)."""
SIDE_TO_LENGTH = 1 - 2 * INDEX_INSET[1]
"""Distance of the two indices along a long side over the card's length."""


def turn(vectors: Float64Array, degrees: float | Float64Array) -> Float64Array:
    """Rotate (..., 2) vectors clockwise on screen (y down) by `degrees`."""
    t = np.radians(degrees)
    c, s = np.cos(t), np.sin(t)
    x, y = vectors[..., 0], vectors[..., 1]
    return np.stack([c * x - s * y, s * x + c * y], axis=-1)


def right_of(down: Float64Array) -> Float64Array:
    """The card's "right" for a "down" (..., 2): down turned a quarter to the left."""
    return np.stack([down[..., 1], -down[..., 0]], axis=-1)


def centre_from_index(
    index: Float64Array, down: Float64Array, length: float | Float64Array
) -> Float64Array:
    """(..., 2) centre of a card whose top-left index is at `index` (..., 2) and whose
    long axis points `down` (..., 2, unit): the body lies down and right of the index.
    An index read as bottom-right is the same card with `down` reversed."""
    length = np.asarray(length, dtype=np.float64)[..., None]
    width = CARD_ASPECT * length
    out: Float64Array = (
        index
        + (0.5 - INDEX_INSET[0]) * width * right_of(down)
        + (0.5 - INDEX_INSET[1]) * length * down
    )
    return out


def card_corners(
    centre: Float64Array,
    down: Float64Array,
    length: float | Float64Array,
    aspect: float | Float64Array = CARD_ASPECT,
) -> Float64Array:
    """(..., 4, 2) corners of a card centred at `centre` with its long axis `down`;
    `aspect` (width over length) other than the card's models foreshortening."""
    length = np.asarray(length, dtype=np.float64)[..., None, None]
    aspect = np.asarray(aspect, dtype=np.float64)[..., None, None]
    half_w = 0.5 * aspect * length * right_of(down)[..., None, :]
    half_l = 0.5 * length * down[..., None, :]
    signs = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
    out: Float64Array = centre[..., None, :] + signs[:, :1] * half_w + signs[:, 1:] * half_l
    return out


def card_bbox(
    centre: Float64Array,
    down: Float64Array,
    length: float | Float64Array,
    aspect: float | Float64Array = CARD_ASPECT,
) -> Float64Array:
    """(..., 4) xyxy bounding box of the card `card_corners` describes, without
    building its corners."""
    length = np.asarray(length, dtype=np.float64)
    aspect = np.asarray(aspect, dtype=np.float64)
    dx, dy = np.abs(down[..., 0]), np.abs(down[..., 1])
    half_x = 0.5 * length * (aspect * dy + dx)
    half_y = 0.5 * length * (aspect * dx + dy)
    cx, cy = centre[..., 0], centre[..., 1]
    out: Float64Array = np.stack([cx - half_x, cy - half_y, cx + half_x, cy + half_y], axis=-1)
    return out


def overhang(box: Float64Array, bbox: Float64Array) -> Float64Array:
    """(...) how far (pixels, summed over the four sides) `box` (..., 4 xyxy) reaches
    outside a card's bounding box `bbox` (..., 4 xyxy; see `card_bbox`)."""
    out: Float64Array = (
        np.maximum(0.0, bbox[..., 0] - box[..., 0])
        + np.maximum(0.0, bbox[..., 1] - box[..., 1])
        + np.maximum(0.0, box[..., 2] - bbox[..., 2])
        + np.maximum(0.0, box[..., 3] - bbox[..., 3])
    )
    return out


def diagonal_axis(first: Float64Array, second: Float64Array, *, anti: bool = False) -> Float64Array:
    """Long axis ("down", unit) of a card with indices `first` (top-left; top-right
    when `anti`) and `second` on the opposite corner."""
    d = np.asarray(second, dtype=np.float64) - np.asarray(first, dtype=np.float64)
    norm = float(math.hypot(float(d[0]), float(d[1])))
    if norm < 1e-9:
        return np.zeros(2)
    return turn(d / norm, -DIAGONAL_TURN_DEG if anti else DIAGONAL_TURN_DEG)
