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

from .arrays import Frame

__all__ = [
    "MIN_SIDE",
    "ImageQuality",
    "ScanInputError",
    "assess",
    "check_size",
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
