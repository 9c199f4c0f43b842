"""How much axis-aligned boxes overlap: the one intersection the scan's rules share.

Three rules measure it: a located index mostly covered by a read one is the same index
(`scan`), an index box matched to a card outline by IoU (`card_fit`), and a loose card
lying on another (`layout.piled_cards`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .arrays import Float64Array

__all__ = ["overlap_areas"]


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
