"""Draw the page's PNG icons (home screen, install prompt) with Pillow: the same picture
as `server/static/icon.svg`, two white cards on the felt with a spade, drawn here in
code at 4x and scaled down (antialiasing). Run after changing the picture:

    .venv/bin/python tools/make_icons.py

and commit the PNGs it writes into server/static/ (a test checks they are there, in the
sizes the manifest names).
"""

from __future__ import annotations

import math
from pathlib import Path

from PIL import Image, ImageDraw

STATIC = Path(__file__).resolve().parents[1] / "server" / "static"
FELT = (31, 81, 48, 255)
PAPER = (255, 255, 255, 255)
EDGE = (13, 42, 23, 255)
INK = (23, 32, 26, 255)
SIZES = {
    "icon-192.png": (192, False),
    "icon-512.png": (512, False),
    "icon-maskable-512.png": (512, True),
}
"""File name: (pixels, maskable). A maskable icon keeps its picture inside the middle 80%
(the safe zone a launcher may crop to a circle) on a full-bleed felt."""


def _card(size: int, box: tuple[float, float, float, float], degrees: float) -> Image.Image:
    """A white card with a dark edge, rotated about its centre, on a clear layer."""
    layer = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    x0, y0, x1, y1 = box
    ImageDraw.Draw(layer).rounded_rectangle(
        box, radius=(x1 - x0) / 8, fill=PAPER, outline=EDGE, width=max(1, round(size / 42))
    )
    return layer.rotate(
        -degrees, resample=Image.Resampling.BICUBIC, center=((x0 + x1) / 2, (y0 + y1) / 2)
    )


def _spade(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    """A spade: an upside-down heart of two circles and a triangle, with a foot."""
    lobe = r * 0.52
    for side in (-1, 1):
        x = cx + side * r * 0.5
        draw.ellipse((x - lobe, cy + r * 0.15 - lobe, x + lobe, cy + r * 0.15 + lobe), fill=INK)
    top = cy - r * 1.05
    draw.polygon([(cx, top), (cx - r * 1.0, cy + r * 0.1), (cx + r * 1.0, cy + r * 0.1)], fill=INK)
    draw.polygon(
        [(cx, cy + r * 0.2), (cx - r * 0.45, cy + r * 1.05), (cx + r * 0.45, cy + r * 1.05)],
        fill=INK,
    )


def draw_icon(pixels: int, *, maskable: bool = False) -> Image.Image:
    """The icon at `pixels` square."""
    scale = 4
    size = pixels * scale
    unit = size / 64 * (0.8 if maskable else 1.0)
    offset = (size - 64 * unit) / 2
    icon = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(icon)
    if maskable:
        draw.rectangle((0, 0, size, size), fill=FELT)
    else:
        draw.rounded_rectangle((0, 0, size - 1, size - 1), radius=12 * unit, fill=FELT)

    def at(x: float, y: float) -> tuple[float, float]:
        return offset + x * unit, offset + y * unit

    for (x, y), degrees in (((14, 9), -10.0), ((20, 12), 8.0)):
        x0, y0 = at(x, y)
        x1, y1 = at(x + 32, y + 44)
        icon = Image.alpha_composite(icon, _card(size, (x0, y0, x1, y1), degrees))
    cx, cy = at(36, 34)
    _spade(ImageDraw.Draw(icon), cx, cy, 11 * unit)
    assert math.isclose(icon.width, size)
    return icon.resize((pixels, pixels), Image.Resampling.LANCZOS)


def main() -> None:
    for name, (pixels, maskable) in SIZES.items():
        draw_icon(pixels, maskable=maskable).save(STATIC / name, optimize=True)
        print(f"wrote {STATIC / name}")


if __name__ == "__main__":
    main()
