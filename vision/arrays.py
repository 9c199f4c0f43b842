"""The array types vision and the data generator pass around, each with its dtype.

One set of names so a signature says what it holds: before this module, `FloatArray`
meant float32 in some modules and float64 in others. Shapes are not checked by numpy's
typing; each alias's comment gives the shape its users expect, and functions say more
where it matters.

- `Frame`: an image, (H, W, 3) uint8 in OpenCV's BGR order (photos, live frames,
  rendered scenes and card faces).
- `Float32Array`: model outputs and what is built from them: boxes (N, 4) as x1, y1,
  x2, y2 pixels, scores (N,), reader probabilities (N, classes), crops.
- `Float64Array`: geometry worked out in double precision: card axes and corners,
  costs of an assignment, fitted poses.
- `IntArray`, `BoolArray`: class ids and masks.
- `Box`: one box as plain floats (x1, y1, x2, y2), for frozen dataclasses and JSON.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["BoolArray", "Box", "Float32Array", "Float64Array", "Frame", "IntArray", "as_box"]

Frame = npt.NDArray[np.uint8]
Float32Array = npt.NDArray[np.float32]
Float64Array = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
Box = tuple[float, float, float, float]


def as_box(row: npt.NDArray[np.float32]) -> Box:
    """One row of an (N, 4) box array as a `Box` of plain floats."""
    return (float(row[0]), float(row[1]), float(row[2]), float(row[3]))
