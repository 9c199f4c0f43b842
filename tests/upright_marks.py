"""A mini table's frame painted so an upright view can tell which way each index is
read: stand-in upright models look for the dark dot painted at the glyph's top."""

from __future__ import annotations

import math

import cv2
import numpy as np
from mini_table import CARD_H, CARD_W, INDEX_CENTRE, MiniTable

from shanghai.vision.arrays import Frame


def marked_frame(table: MiniTable, towards: float) -> Frame:
    """A white frame with a dark dot 8 units from each index's centre, towards the top
    of its glyph (`towards` 1) or its bottom (-1), in each card's own frame."""
    # Light noise: a plain frame is refused as one colour before any model reads it.
    noise = np.random.default_rng(3).integers(190, 255, (table.height, table.width, 3))
    image = noise.astype(np.uint8)
    cx, cy = INDEX_CENTRE
    for _, x, y, angle, _ in table.placed:
        a = math.radians(angle)
        for ix, iy, up in ((cx, cy, -1.0), (CARD_W - cx, CARD_H - cy, 1.0)):
            lx, ly = ix - CARD_W / 2, iy + towards * up * 8 - CARD_H / 2
            px = x + table.scale * (lx * math.cos(a) - ly * math.sin(a))
            py = y + table.scale * (lx * math.sin(a) + ly * math.cos(a))
            cv2.circle(image, (round(px), round(py)), 4, (10, 10, 10), -1)
    return image
