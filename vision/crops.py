"""Index crops for the reader: the one definition of how an index is cut out.

The contract shared by training data and runtime: a crop is the square centred on the
index's axis-aligned box, `CROP_CONTEXT` times its longer side, resized to the model's
input. A square keeps the classifier's centre crop from cutting off the rank or the
suit, and the margin keeps a little card edge in view, which tells a 6 from an
upside-down 9. `shanghai.datasets` imports this module, so a crop made for training and
a crop made from a camera frame come from the same lines of code.
"""

from __future__ import annotations

import cv2
import numpy as np

from .arrays import Frame

__all__ = ["CROP_CONTEXT", "CROP_SIZE", "square_crop", "zoomed_in"]

CROP_CONTEXT = 1.3
CROP_SIZE = 64


def square_crop(
    image: Frame,
    box_xyxy: tuple[float, float, float, float],
    *,
    size: int = CROP_SIZE,
    context: float = CROP_CONTEXT,
    shift: tuple[float, float] = (0.0, 0.0),
) -> Frame:
    """The (size, size, 3) square around a box; pixels outside the frame repeat the edge.

    `shift` moves the centre by that fraction of the square's side (training jitter).
    """
    x0, y0, x1, y1 = box_xyxy
    side = max(x1 - x0, y1 - y0) * context
    cx = (x0 + x1) / 2 + shift[0] * side
    cy = (y0 + y1) / 2 + shift[1] * side
    scale = size / max(side, 1e-3)
    # An affine map straight from the square to the output: one resample, any side.
    m = np.array([[scale, 0, size / 2 - cx * scale], [0, scale, size / 2 - cy * scale]], np.float32)
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    if scale < 0.5:  # shrink in two steps so thin strokes survive
        region = _region(image, cx, cy, side)
        return np.asarray(
            cv2.resize(region, (size, size), interpolation=interpolation), dtype=np.uint8
        )
    warped = cv2.warpAffine(
        image, m, (size, size), flags=interpolation, borderMode=cv2.BORDER_REPLICATE
    )
    return np.asarray(warped, dtype=np.uint8)


def _region(image: Frame, cx: float, cy: float, side: float) -> Frame:
    h, w = image.shape[:2]
    half = side / 2
    x0, y0 = round(cx - half), round(cy - half)
    x1, y1 = x0 + max(1, round(side)), y0 + max(1, round(side))
    pad = max(0, -x0, -y0, x1 - w, y1 - h)
    if pad:
        image = np.asarray(
            cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_REPLICATE), dtype=np.uint8
        )
        x0, y0, x1, y1 = x0 + pad, y0 + pad, x1 + pad, y1 + pad
    return image[y0:y1, x0:x1]


def zoomed_in(crop: Frame, share: float) -> Frame:
    """The central `share` of a square crop, resized back to the crop's side: what
    `square_crop` would cut with `share` times its context, made from the pixels already
    cut (a second view of an index without going back to the frame)."""
    side = crop.shape[0]
    inner = max(1, round(side * share))
    start = (side - inner) // 2
    centre = crop[start : start + inner, start : start + inner]
    return np.asarray(cv2.resize(centre, (side, side), interpolation=cv2.INTER_LINEAR), np.uint8)
