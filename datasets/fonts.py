"""Fonts for the code-drawn card faces, taken from PyPI font packages.

The fonts come from small PyPI packages (`font-roboto`, `font-source-serif-pro`,
`font-caladea`, `font-fjallaone`, `font-lato`, `font-source-sans-pro`, `font-manrope`,
`font-rhd`, `font-fredoka-one`, `font-amatic-sc`, `font-hanken-grotesk`,
`font-intuitive`) so that a fresh CI machine has them after `pip install`, with no
network at run time and no Debian package. Each is OFL-1.1 or Apache-2.0 (see
`THIRD_PARTY.md`).

`HELD_OUT_FONTS` are drawn by no training look of the standard deck: Caladea belongs to
the held-out look `code-caladea`; Hanken Grotesk (a plain grotesque) and Intuitive (a
playful hand-drawn face) are kept back for held-out looks to come.
"""

from __future__ import annotations

import functools
import importlib.resources
from pathlib import Path

from PIL import ImageFont

from shanghai.engine.errors import ShanghaiError

__all__ = ["FONT_FILES", "HELD_OUT_FONTS", "TRAINING_FONTS", "font", "font_path"]

FONT_FILES: dict[str, tuple[str, str]] = {
    # name used by the looks -> (python package, file inside its `files/` folder)
    "roboto-bold": ("font_roboto", "Roboto-Bold.ttf"),
    "roboto-black": ("font_roboto", "Roboto-Black.ttf"),
    "roboto-medium": ("font_roboto", "Roboto-Medium.ttf"),
    "serif-bold": ("font_source_serif_pro", "SourceSerifPro-Bold.ttf"),
    "serif-semibold": ("font_source_serif_pro", "SourceSerifPro-Semibold.ttf"),
    "caladea-bold": ("font_caladea", "Caladea-Bold.ttf"),
    "caladea-regular": ("font_caladea", "Caladea-Regular.ttf"),
    "fjalla": ("font_fjallaone", "FjallaOne-Regular.ttf"),
    "lato-black": ("font_lato", "Lato-Black.ttf"),
    "lato-bold": ("font_lato", "Lato-Bold.ttf"),
    "sans-black": ("font_source_sans_pro", "SourceSansPro-Black.ttf"),
    "sans-bold": ("font_source_sans_pro", "SourceSansPro-Bold.ttf"),
    "sans-semibold": ("font_source_sans_pro", "SourceSansPro-Semibold.ttf"),
    "manrope-extrabold": ("font_manrope", "Manrope-ExtraBold.ttf"),
    "manrope-bold": ("font_manrope", "Manrope-Bold.ttf"),
    "redhat-black": ("font_rhd", "RedHatDisplay-Black.ttf"),
    "redhat-bold": ("font_rhd", "RedHatDisplay-Bold.ttf"),
    "fredoka": ("font_fredoka_one", "FredokaOne-Regular.ttf"),
    "amatic-bold": ("font_amatic_sc", "AmaticSC-Bold.ttf"),
    "hanken-bold": ("font_hanken_grotesk", "HankenGrotesk-Bold.otf"),
    "intuitive": ("font_intuitive", "Intuitive.ttf"),
}

HELD_OUT_FONTS: frozenset[str] = frozenset(
    {"caladea-bold", "caladea-regular", "hanken-bold", "intuitive"}
)
"""Fonts no training look of the standard deck uses (see the module docstring)."""
TRAINING_FONTS: tuple[str, ...] = tuple(n for n in FONT_FILES if n not in HELD_OUT_FONTS)
"""The fonts a randomised training look may draw its ranks in, in `FONT_FILES` order."""


class MissingFontError(ShanghaiError):
    """A font package the card renderer needs is not installed."""


def font_path(name: str) -> Path:
    """Path of one bundled font file; raises with the package to install if absent."""
    package, filename = FONT_FILES[name]
    try:
        path = Path(str(importlib.resources.files(package) / "files" / filename))
    except ModuleNotFoundError as exc:
        pip_name = package.replace("_", "-")
        raise MissingFontError(
            f"font package {pip_name!r} is missing: pip install {pip_name}"
        ) from exc
    if not path.is_file():
        raise MissingFontError(f"font file {filename} not found in package {package}")
    return path


@functools.lru_cache(maxsize=256)
def font(name: str, size: int) -> ImageFont.FreeTypeFont:
    """A Pillow font object, cached per (name, pixel size)."""
    return ImageFont.truetype(str(font_path(name)), size)
