"""How much axis-aligned boxes overlap, and how far apart they lie: the geometry the
scan's rules share.

Overlap: a located index mostly covered by a read one is the same index (`scan`), an
index box matched to a card outline by IoU (`card_fit`), a loose card lying on
another (`layout.piled_cards`), and a card placed by its indices checked against its
box (`deck_faces`). Distance: an unread box in a row (`unread`), and a
located index far from every card read (`scan`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .arrays import Float64Array

__all__ = ["box_gaps", "box_iou", "overlap_areas"]


def overlap_areas(
    box: Sequence[float] | npt.NDArray[np.floating], boxes: npt.ArrayLike
) -> Float64Array:
    """(...) areas where `box` (x1, y1, x2, y2) meets each of `boxes` (..., 4 xyxy);
    0 where they do not meet."""
    b = np.asarray(box, dtype=np.float64)
    others = np.asarray(boxes, dtype=np.float64)
    wide = np.minimum(b[2], others[..., 2]) - np.maximum(b[0], others[..., 0])
    high = np.minimum(b[3], others[..., 3]) - np.maximum(b[1], others[..., 1])
    out: Float64Array = np.clip(wide, 0.0, None) * np.clip(high, 0.0, None)
    return out


def box_iou(box: Sequence[float] | npt.NDArray[np.floating], boxes: npt.ArrayLike) -> Float64Array:
    """(...) intersection over union of `box` (x1, y1, x2, y2) with each of `boxes`
    (..., 4 xyxy); 0 where both have no area."""
    b = np.asarray(box, dtype=np.float64)
    others = np.asarray(boxes, dtype=np.float64)
    inter = overlap_areas(b, others)
    area = (others[..., 2] - others[..., 0]) * (others[..., 3] - others[..., 1])
    union = (b[2] - b[0]) * (b[3] - b[1]) + area - inter
    out: Float64Array = np.where(union > 0, inter / np.maximum(union, 1e-9), 0.0)
    return out


def box_gaps(a: npt.ArrayLike, b: npt.ArrayLike) -> Float64Array:
    """(A, B) distance between boxes (A, 4) and (B, 4) xyxy, 0 where they touch or
    overlap (a point is a box of no size)."""
    first = np.asarray(a, dtype=np.float64).reshape(-1, 4)
    second = np.asarray(b, dtype=np.float64).reshape(-1, 4)
    lo = np.maximum(first[:, None, :2], second[None, :, :2])
    hi = np.minimum(first[:, None, 2:], second[None, :, 2:])
    apart = np.maximum(0.0, lo - hi)
    out: Float64Array = np.hypot(apart[..., 0], apart[..., 1])
    return out
