"""Is a photo fit to read cards from? Size, light, sharpness, one colour.

A scan must say plainly why it read nothing or little: a 1x1 image, a black frame, a
blurred photo or a picture of plain cloth are not "a hand with no cards". The checks run
on a small grey thumbnail, so they cost a few milliseconds whatever the photo's size.
The levels are deliberately loose: they flag photos a person would call unreadable, not
merely dim ones (a warning on a photo read right is a cost too).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .arrays import Frame

__all__ = [
    "MIN_SIDE",
    "ImageQuality",
    "ScanInputError",
    "assess",
    "check_size",
    "edge_sharpness",
]

MIN_SIDE = 64
"""Fewest pixels on the short side: a card index needs about 10 px, a card about 40."""
THUMB_SIDE = 512
DARK_MEAN = 35.0
"""Mean grey level (0-255) below which a photo is too dark: a dim room photo is 60-110."""
FLAT_SPREAD = 4.0
"""Grey-level standard deviation below which the image is one colour (no card edge)."""
BLUR_SHARPNESS = 12.0
"""Variance of the Laplacian of the 512-px thumbnail below which the photo is blurred
(a sharp card photo gives hundreds; a frame shaken by a hand in motion, under 10)."""


class ScanInputError(ValueError):
    """The image cannot be scanned at all (say why, in words a person can act on)."""


@dataclass(frozen=True, slots=True)
class ImageQuality:
    """Grey-level mean and spread, and sharpness, measured on a thumbnail."""

    mean: float
    spread: float
    sharpness: float

    @property
    def one_colour(self) -> bool:
        return self.spread < FLAT_SPREAD

    @property
    def dark(self) -> bool:
        return self.mean < DARK_MEAN

    @property
    def blurred(self) -> bool:
        return not self.one_colour and self.sharpness < BLUR_SHARPNESS


def check_size(image: Frame) -> None:
    """Raise `ScanInputError` for images too small or not a colour picture."""
    if image.ndim != 3 or image.shape[2] != 3:
        raise ScanInputError("the image is not a colour picture (expected 3 channels)")
    height, width = image.shape[:2]
    if min(height, width) < MIN_SIDE:
        raise ScanInputError(
            f"the image is {width}x{height} px: too small to show a card "
            f"(at least {MIN_SIDE} px on each side)"
        )


def assess(image: Frame) -> ImageQuality:
    """Light, spread and sharpness of a BGR image, on a thumbnail of `THUMB_SIDE`."""
    height, width = image.shape[:2]
    scale = min(1.0, THUMB_SIDE / max(height, width))
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    thumb = cv2.resize(image, size, interpolation=cv2.INTER_AREA) if scale < 1 else image
    grey = cv2.cvtColor(thumb, cv2.COLOR_BGR2GRAY)
    sharpness = float(cv2.Laplacian(grey, cv2.CV_32F).var())
    return ImageQuality(float(grey.mean()), float(grey.std()), sharpness)


EDGE_DIRECTIONS = (0.0, 22.5, 45.0, 67.5, 90.0, 112.5, 135.0, 157.5)
"""Directions (degrees) the steepest edges are measured along (`edge_sharpness`): eight,
so a shake between two of them is measured along too (with four, 8.7% of the smeared
cards below passed `deck_enrol.SHARP_INDEX` instead of 6.5%)."""
CONTRAST_SHARE = 0.5
"""Middle share of a crop's side the contrast is measured on (`edge_sharpness`): the
index, which an enrolment crop (2.6 times the index, `deck_head.ENROL_CONTEXT`) holds in
its middle 38%."""
CONTRAST_PERCENTILES = (1.0, 99.0)


def edge_sharpness(image: Frame) -> float:
    """How steep a crop's edges are in its softest direction: over each of
    `EDGE_DIRECTIONS`, the 99.5th percentile of the grey gradient along it, as a share of
    the index's contrast (1st to 99th percentile of the crop's middle, `CONTRAST_SHARE`)
    per pixel; the least of the directions. The crop is centred on what is judged.

    Why this and not the Laplacian's variance (`assess`): it is meant for small crops
    of one card's index (`deck_enrol`), where the variance follows the print and the
    table around it as much as the focus, and a shake blurs along one direction only,
    so edges across it stay steep. A crisp glyph's edges rise over a pixel or two in
    every direction; a blurred one's over many in at least one.

    Why the contrast of the middle: over the whole crop (2nd to 98th percentile, until
    2026-12-07) a thin or small index's ink was under 2% of the pixels, the contrast
    came out as paper against table, and a smeared joker index (a star and a thin J) on
    a light table measured 0.29 and 0.41, as crisp as a sharp card: its face was stored
    smeared and the deck's reader read a shaken joker as a 7d, sure. Measured on
    enrolment photos of four validation looks drawn as the benchmark draws them
    (`data/exp/s19/sharp_probe.py`, `sharp_final.py`, git-ignored; 272 cards sharp,
    blur up to 2 px, 184 smeared 5 px or more) a sharp card ranks above a smeared one
    99.7% of the time (98.1% before)."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    height, width = grey.shape
    dy0, dx0 = round(height * (1 - CONTRAST_SHARE) / 2), round(width * (1 - CONTRAST_SHARE) / 2)
    middle = grey[dy0 : height - dy0, dx0 : width - dx0]
    low, high = np.percentile(middle if middle.size else grey, CONTRAST_PERCENTILES)
    contrast = max(float(high - low), 1.0)
    dx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3) / 8
    dy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3) / 8
    steepest = [
        float(np.percentile(np.abs(np.cos(a) * dx + np.sin(a) * dy), 99.5))
        for a in np.deg2rad(EDGE_DIRECTIONS)
    ]
    return min(steepest) / contrast
