"""Vector drawing helpers shared by the code-drawn faces: suit pips, text, paper.

Faces are drawn at `SUPERSAMPLE` times their final size and shrunk with a box filter,
because Pillow draws polygons without anti-aliasing; the shrink gives the soft edges a
printed card has in a photo.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFont

from shanghai.engine.cards import Suit
from shanghai.vision.arrays import Box

__all__ = [
    "SUPERSAMPLE",
    "Box",
    "Colour",
    "draw_suit",
    "draw_text",
    "jitter_colour",
    "rounded_alpha",
    "union_box",
]

SUPERSAMPLE = 2
Colour = tuple[int, int, int]
"""An axis-aligned box `(x0, y0, x1, y1)` in pixels."""


def _heart(cx: float, cy: float, size: float, flip: bool) -> list[tuple[float, float]]:
    """Polygon of a heart (or, flipped, a spade's body) `size` pixels tall."""
    points = []
    for i in range(64):
        t = 2 * math.pi * i / 64
        x = 16 * math.sin(t) ** 3
        y = -(13 * math.cos(t) - 5 * math.cos(2 * t) - 2 * math.cos(3 * t) - math.cos(4 * t))
        if flip:
            y = -y
        points.append((cx + x * size / 32.0, cy + (y + (-0.8 if flip else 0.8)) * size / 30.0))
    return points


def _stem(cx: float, cy: float, size: float) -> list[tuple[float, float]]:
    top, bottom = cy + 0.05 * size, cy + 0.5 * size
    return [
        (cx - 0.06 * size, top),
        (cx + 0.06 * size, top),
        (cx + 0.2 * size, bottom),
        (cx - 0.2 * size, bottom),
    ]


def draw_suit(
    draw: ImageDraw.ImageDraw,
    suit: Suit,
    cx: float,
    cy: float,
    size: float,
    colour: Colour,
    *,
    rotate180: bool = False,
    slim: float = 1.0,
) -> Box:
    """Draw one suit pip centred at (cx, cy), `size` pixels tall; returns its box.

    `slim` < 1 narrows the pip (decks differ in how fat their pips are); `rotate180`
    draws it upside down, as the lower half of a card shows it.
    """
    shapes: list[list[tuple[float, float]]] = []
    ellipses: list[Box] = []
    sign = -1.0 if rotate180 else 1.0
    if suit is Suit.HEARTS:
        shapes.append(_heart(0, 0, size, flip=False))
    elif suit is Suit.DIAMONDS:
        half_w = 0.36 * size
        shapes.append([(0, -size / 2), (half_w, 0), (0, size / 2), (-half_w, 0)])
    elif suit is Suit.SPADES:
        shapes.append(_heart(0, -0.1 * size, size * 0.82, flip=True))
        shapes.append(_stem(0, 0, size))
    else:  # clubs
        r = 0.21 * size
        ellipses += [(-r, -0.5 * size, r, -0.5 * size + 2 * r)]
        ellipses += [(-0.45 * size, -0.14 * size, -0.45 * size + 2 * r, -0.14 * size + 2 * r)]
        ellipses += [(0.45 * size - 2 * r, -0.14 * size, 0.45 * size, -0.14 * size + 2 * r)]
        shapes.append([(0, -0.2 * size), (0.12 * size, 0.05 * size), (-0.12 * size, 0.05 * size)])
        shapes.append(_stem(0, 0, size))

    def place(x: float, y: float) -> tuple[float, float]:
        return (cx + sign * x * slim, cy + sign * y)

    xs: list[float] = []
    ys: list[float] = []
    for shape in shapes:
        pts = [place(x, y) for x, y in shape]
        draw.polygon(pts, fill=colour)
        xs += [p[0] for p in pts]
        ys += [p[1] for p in pts]
    for x0, y0, x1, y1 in ellipses:
        (ax, ay), (bx, by) = place(x0, y0), place(x1, y1)
        box = (min(ax, bx), min(ay, by), max(ax, bx), max(ay, by))
        draw.ellipse(box, fill=colour)
        xs += [box[0], box[2]]
        ys += [box[1], box[3]]
    return (min(xs), min(ys), max(xs), max(ys))


def draw_text(
    draw: ImageDraw.ImageDraw,
    text: str,
    x: float,
    y: float,
    font: ImageFont.FreeTypeFont,
    colour: Colour,
    *,
    anchor: str = "mt",
    squeeze: float = 1.0,
) -> Box:
    """Draw text anchored at (x, y) (Pillow anchor codes); returns the ink box.

    `squeeze` < 1 draws the text narrower (for "10" in narrow corner indices) by
    rendering it on its own layer and resizing it horizontally.
    """
    if squeeze >= 0.999:
        draw.text((x, y), text, font=font, fill=colour, anchor=anchor)
        return draw.textbbox((x, y), text, font=font, anchor=anchor)
    left, top, right, bottom = font.getbbox(text, anchor="lt")
    layer = Image.new("L", (int(right) + 2, int(bottom) + 2), 0)
    ImageDraw.Draw(layer).text((0, 0), text, font=font, fill=255, anchor="lt")
    layer = layer.crop((int(left), int(top), int(right) + 1, int(bottom) + 1))
    width = max(1, round(layer.width * squeeze))
    layer = layer.resize((width, layer.height), Image.Resampling.LANCZOS)
    ox = {"l": x, "m": x - width / 2, "r": x - width}[anchor[0]]
    oy = {"t": y, "m": y - layer.height / 2, "b": y - layer.height}.get(anchor[1], y)
    solid = Image.new("RGB", layer.size, colour)
    image = draw._image
    image.paste(solid, (round(ox), round(oy)), layer)
    return (round(ox), round(oy), round(ox) + width, round(oy) + layer.height)


def rounded_alpha(width: int, height: int, radius: float) -> npt.NDArray[np.uint8]:
    """Alpha (height, width) of a card with rounded corners, anti-aliased."""
    big = Image.new("L", (width * 4, height * 4), 0)
    ImageDraw.Draw(big).rounded_rectangle(
        (0, 0, width * 4 - 1, height * 4 - 1), radius=int(radius * 4), fill=255
    )
    return np.asarray(big.resize((width, height), Image.Resampling.BOX), dtype=np.uint8)


def union_box(*boxes: Box) -> Box:
    """Smallest box holding all `boxes`."""
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def jitter_colour(rng: np.random.Generator, colour: Colour, amount: float) -> Colour:
    """`colour` with each channel moved by a normal draw of spread `amount` (0-255)."""
    r, g, b = (int(np.clip(c + rng.normal(0, amount), 0, 255)) for c in colour)
    return (r, g, b)
