"""Fonts for the code-drawn card faces, taken from PyPI font packages.

The fonts come from small PyPI packages (`font-roboto`, `font-source-serif-pro`,
`font-caladea`, `font-fjallaone`, `font-lato`, `font-source-sans-pro`, `font-manrope`,
`font-rhd`, `font-fredoka-one`, `font-amatic-sc`, `font-hanken-grotesk`,
`font-intuitive`) so that a fresh CI machine has them after `pip install`, with no
network at run time and no Debian package. Each is OFL-1.1 or Apache-2.0 (see
`THIRD_PARTY.md`).

`HELD_OUT_FONTS` are drawn by no training look of the standard deck: Caladea belongs to
the held-out look `code-caladea`; Hanken Grotesk (a plain grotesque) and Intuitive (a
playful hand-drawn face) are the unseen-validation looks' (`decks.unseen_val_looks`).

`SYSTEM_FONT_FILES` are more rank fonts for the randomised training looks, from Debian
font packages (`.ci/apt-packages.txt`; `make system-deps` installs them): the 17 PyPI
fonts are ten families, and on decks in fonts it never saw the reader read a J as a 3
with confidence (`scan_eval.py --split val-unseen`), so the reader needs more shapes of
every rank than PyPI has. Only data generation draws them; the runtime never does.

`TEACH_FONT_FILES` are Debian fonts that only the deck-teaching validation looks draw
(`decks.teach_val_looks`); they are held out like the unseen-validation fonts.
"""

from __future__ import annotations

import functools
import importlib.resources
from pathlib import Path

from PIL import ImageFont

from shanghai.engine.errors import ShanghaiError

__all__ = [
    "FONT_FILES",
    "HELD_OUT_FONTS",
    "PYPI_TRAINING_FONTS",
    "SYSTEM_FONT_FILES",
    "TEACH_FONT_FILES",
    "TRAINING_FONTS",
    "font",
    "font_family",
    "font_path",
    "ink_share",
    "require_system_fonts",
    "system_fonts_installed",
]

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

SYSTEM_FONT_FILES: dict[str, tuple[str, str, str]] = {
    # name -> (design family, Debian package, file under /usr/share/fonts)
    "nimbus-sans-bold": (
        "nimbus-sans",
        "fonts-urw-base35",
        "opentype/urw-base35/NimbusSans-Bold.otf",
    ),
    "nimbus-narrow-bold": (
        "nimbus-narrow",
        "fonts-urw-base35",
        "opentype/urw-base35/NimbusSansNarrow-Bold.otf",
    ),
    "nimbus-roman-bold": (
        "nimbus-roman",
        "fonts-urw-base35",
        "opentype/urw-base35/NimbusRoman-Bold.otf",
    ),
    "nimbus-mono-bold": (
        "nimbus-mono",
        "fonts-urw-base35",
        "opentype/urw-base35/NimbusMonoPS-Bold.otf",
    ),
    "c059-bold": ("c059", "fonts-urw-base35", "opentype/urw-base35/C059-Bold.otf"),
    "p052-bold": ("p052", "fonts-urw-base35", "opentype/urw-base35/P052-Bold.otf"),
    "bookman-demi": ("bookman", "fonts-urw-base35", "opentype/urw-base35/URWBookman-Demi.otf"),
    "gothic-demi": ("gothic", "fonts-urw-base35", "opentype/urw-base35/URWGothic-Demi.otf"),
    "go-bold": ("go", "fonts-go", "fonts-go/Go-Bold.ttf"),
    "cantarell-extrabold": (
        "cantarell",
        "fonts-cantarell",
        "opentype/cantarell/Cantarell-ExtraBold.otf",
    ),
    "comic-neue-bold": ("comic-neue", "fonts-comic-neue", "opentype/comic-neue/ComicNeue-Bold.otf"),
    "spartan-bold": (
        "league-spartan",
        "fonts-league-spartan",
        "opentype/league-spartan/LeagueSpartan-Bold.otf",
    ),
    "roboto-slab-bold": (
        "roboto-slab",
        "fonts-roboto-slab",
        "opentype/roboto/slab/RobotoSlab-Bold.otf",
    ),
    "accanthis-bold": ("accanthis", "fonts-adf-accanthis", "truetype/adf/AccanthisADFStd-Bold.otf"),
    "carlito-bold": ("carlito", "fonts-crosextra-carlito", "truetype/crosextra/Carlito-Bold.ttf"),
    "dejavu-sans-bold": ("dejavu-sans", "fonts-dejavu-core", "truetype/dejavu/DejaVuSans-Bold.ttf"),
    "dejavu-serif-bold": (
        "dejavu-serif",
        "fonts-dejavu-core",
        "truetype/dejavu/DejaVuSerif-Bold.ttf",
    ),
    "free-serif-bold": ("free-serif", "fonts-freefont-ttf", "truetype/freefont/FreeSerifBold.ttf"),
    "liberation-sans-bold": (
        "liberation-sans",
        "fonts-liberation2",
        "truetype/liberation2/LiberationSans-Bold.ttf",
    ),
    "open-sans-bold": ("open-sans", "fonts-open-sans", "truetype/open-sans/OpenSans-Bold.ttf"),
    "open-sans-condbold": (
        "open-sans-cond",
        "fonts-open-sans",
        "truetype/open-sans/OpenSans-CondBold.ttf",
    ),
    "libertine-bold": (
        "libertine",
        "fonts-linuxlibertine",
        "opentype/linux-libertine/LinLibertine_RB.otf",
    ),
}
SYSTEM_FONTS_DIR = Path("/usr/share/fonts")

TEACH_FONT_FILES: dict[str, tuple[str, str, str]] = {
    # name -> (design family, Debian package, file under /usr/share/fonts)
    "bebas-bold": ("bebas-neue", "fonts-bebas-neue", "opentype/bebas-neue/BebasNeue-Bold.otf"),
}
"""Debian fonts of the deck-teaching validation looks only (`decks.teach_val_looks`): no
training, validation or test scene draws them, and `system_fonts_installed` does not ask
for them (only the teaching benchmark renders them)."""

HELD_OUT_FONTS: frozenset[str] = frozenset(
    {"caladea-bold", "caladea-regular", "hanken-bold", "intuitive", *TEACH_FONT_FILES}
)
"""Fonts no training look of the standard deck uses (see the module docstring)."""
PYPI_TRAINING_FONTS: tuple[str, ...] = tuple(n for n in FONT_FILES if n not in HELD_OUT_FONTS)
"""The PyPI fonts a randomised training look may draw its ranks in, in `FONT_FILES` order."""
TRAINING_FONTS: tuple[str, ...] = (*PYPI_TRAINING_FONTS, *SYSTEM_FONT_FILES)
"""Every font a randomised training look may draw its ranks in: the PyPI ones, then the
Debian ones."""


def _missing_system_packages() -> list[str]:
    """The Debian packages of the training fonts not installed, sorted."""
    return sorted(
        {
            debian
            for _, debian, relative in SYSTEM_FONT_FILES.values()
            if not (SYSTEM_FONTS_DIR / relative).is_file()
        }
    )


def system_fonts_installed() -> bool:
    """Whether every Debian training font is installed (`make system-deps`)."""
    return not _missing_system_packages()


def require_system_fonts() -> None:
    """Raise, naming the Debian packages to install, unless every one is installed:
    training data drawn without them would silently lack two thirds of the rank fonts."""
    missing = _missing_system_packages()
    if missing:
        raise MissingFontError(
            f"training fonts missing: apt-get install {' '.join(missing)} (or: make system-deps)"
        )


def font_family(name: str) -> str:
    """The design family of a font (its PyPI package, or its Debian design name): the
    randomised looks take the families in turn, so a family of many weights is not
    favoured."""
    system = SYSTEM_FONT_FILES.get(name) or TEACH_FONT_FILES.get(name)
    return system[0] if system is not None else FONT_FILES[name][0]


class MissingFontError(ShanghaiError):
    """A font package the card renderer needs is not installed."""


def font_path(name: str) -> Path:
    """Path of one bundled font file; raises with the package to install if absent."""
    system = SYSTEM_FONT_FILES.get(name) or TEACH_FONT_FILES.get(name)
    if system is not None:
        _, debian, relative = system
        path = SYSTEM_FONTS_DIR / relative
        if not path.is_file():
            raise MissingFontError(
                f"font {path} is missing: apt-get install {debian} (or: make system-deps)"
            )
        return path
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


def ink_share(name: str, text: str) -> tuple[float, float]:
    """Ink width and height of `text` in font `name` at 100 px, as shares of the font
    size: what sizes an index from the font's own glyphs."""
    left, top, right, bottom = font(name, 100).getbbox(text, anchor="lt")
    return (right - left) / 100, (bottom - top) / 100
