"""Card backs drawn in code. Face-down cards are on every real table (the stock, other
players' hands) and must teach the detector that a back is not a card to read."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw

from .drawing import SUPERSAMPLE, Colour, rounded_alpha
from .faces import FACE_H, FACE_W

__all__ = ["BackStyle", "render_back"]

PATTERNS = ("lattice", "emblem", "dots", "stripes", "rook")


@dataclass(frozen=True, slots=True, kw_only=True)
class BackStyle:
    """`pattern` is one of `PATTERNS`; `colour` the ink on a white margin."""

    pattern: str
    colour: Colour
    margin: float = 10.0

    def __post_init__(self) -> None:
        if self.pattern not in PATTERNS:
            raise ValueError(f"unknown back pattern {self.pattern!r}")


def render_back(style: BackStyle, corner_radius: float) -> npt.NDArray[np.uint8]:
    """The back as (FACE_H, FACE_W, 4) uint8 RGBA with rounded corners."""
    s = SUPERSAMPLE
    w, h = FACE_W * s, FACE_H * s
    img = Image.new("RGB", (w, h), (250, 250, 248))
    draw = ImageDraw.Draw(img)
    m = int(style.margin * s)
    inner = (m, m, w - m, h - m)
    light = tuple(int(c + (255 - c) * 0.55) for c in style.colour)
    if style.pattern == "lattice":
        draw.rectangle(inner, fill=style.colour)
        step = 16 * s
        for k in range(-h, w + h, step):
            draw.line((k, 0, k + h, h), fill=light, width=2 * s)
            draw.line((k, h, k + h, 0), fill=light, width=2 * s)
    elif style.pattern == "stripes":
        draw.rectangle(inner, fill=light)
        step = 12 * s
        for k in range(-h, w + h, step):
            draw.line((k, 0, k + h, h), fill=style.colour, width=5 * s)
    elif style.pattern == "dots":
        draw.rectangle(inner, fill=style.colour)
        step = 14 * s
        for y in range(m, h - m, step):
            for x in range(m + (step // 2 if (y // step) % 2 else 0), w - m, step):
                draw.ellipse((x - 3 * s, y - 3 * s, x + 3 * s, y + 3 * s), fill=light)
    else:  # emblem and rook: a solid field with a central medallion
        draw.rectangle(inner, fill=style.colour)
        cx, cy = w / 2, h / 2
        for r, c in ((80, light), (64, style.colour), (50, light)):
            draw.ellipse((cx - r * s, cy - r * s * 1.2, cx + r * s, cy + r * s * 1.2), fill=c)
        if style.pattern == "rook":
            draw.ellipse((cx - 26 * s, cy - 10 * s, cx + 30 * s, cy + 22 * s), fill=style.colour)
            draw.ellipse((cx - 36 * s, cy - 30 * s, cx - 8 * s, cy - 2 * s), fill=style.colour)
            draw.polygon(
                [
                    (cx - 36 * s, cy - 20 * s),
                    (cx - 52 * s, cy - 12 * s),
                    (cx - 34 * s, cy - 10 * s),
                ],
                fill=(230, 180, 30),
            )
    draw.rectangle(inner, outline=(250, 250, 248), width=2 * s)
    rgba = np.array(img.resize((FACE_W, FACE_H), Image.Resampling.BOX).convert("RGBA"))
    rgba[..., 3] = rounded_alpha(FACE_W, FACE_H, corner_radius)
    return rgba.astype(np.uint8)
