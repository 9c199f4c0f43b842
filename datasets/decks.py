"""The registry of deck looks and the per-process cache of their rendered faces.

Looks drawn in code are always available. Looks from npm SVG decks join when
`shanghai data fetch-decks` has put them in the cache folder; without them the
generator still works (CI renders code looks only).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from shanghai.engine.cards import Card, DeckFamily

from .faces import CardFace, DeckLook
from .faces_rook import (
    ROOK_STYLES,
    TEACH_ROOK_STYLES,
    UNSEEN_ROOK_STYLES,
    CodeRookLook,
    randomised_rook_styles,
)
from .faces_standard import (
    STANDARD_STYLES,
    CodeStandardLook,
    randomised_styles,
    system_font_styles,
    unseen_styles,
)
from .faces_svg import npm_looks
from .fonts import system_fonts_installed

__all__ = [
    "DEFAULT_CACHE",
    "all_looks",
    "back_of",
    "code_looks",
    "face_of",
    "looks_for",
    "teach_val_looks",
    "unseen_val_looks",
]

DEFAULT_CACHE = Path("data/cache")
"""Where `fetch-decks` unpacks npm decks (relative to the working directory; git-ignored)."""

_FACES: dict[tuple[str, str], CardFace] = {}
_BACKS: dict[str, npt.NDArray[np.uint8]] = {}


@functools.cache
def code_looks() -> tuple[DeckLook, ...]:
    """Every look drawn in code (standard and Rook), in a fixed order; the randomised
    training looks come last, so adding them moved no earlier look. The looks drawn in
    Debian fonts (`DeckLook.system_fonts`) come last of all and only where those fonts
    are installed: the runtime does not need them (`generate` insists on them)."""
    standard = [CodeStandardLook(style) for style in STANDARD_STYLES]
    rook = [CodeRookLook(style) for style in ROOK_STYLES]
    randomised = [CodeStandardLook(style) for style in randomised_styles()]
    randomised_rook = [CodeRookLook(style) for style in randomised_rook_styles()]
    system: list[DeckLook] = []
    if system_fonts_installed():
        system += [CodeStandardLook(style) for style in system_font_styles()]
        system += [CodeRookLook(style) for style in randomised_rook_styles(system=True)]
    return (*standard, *rook, *randomised, *randomised_rook, *system)


@functools.cache
def unseen_val_looks() -> tuple[DeckLook, ...]:
    """The unseen-validation looks (`DeckLook.val_only`), standard and Rook. Kept out
    of `code_looks` and `all_looks`, which every training, validation and test scene
    draws from: only a caller that asks for the unseen-validation split adds them."""
    standard = [CodeStandardLook(style) for style in unseen_styles()]
    rook = [CodeRookLook(style) for style in UNSEEN_ROOK_STYLES]
    return (*standard, *rook)


@functools.cache
def teach_val_looks() -> tuple[DeckLook, ...]:
    """Validation looks for teaching a deck only (`faces_rook.TEACH_ROOK_STYLES`), in a
    Debian font (`fonts.TEACH_FONT_FILES`) that only they draw: no split's scenes draw
    them, only the teaching benchmark when its `--looks` names them."""
    return tuple(CodeRookLook(style) for style in TEACH_ROOK_STYLES)


@functools.cache
def all_looks(cache_dir: Path | None = None) -> tuple[DeckLook, ...]:
    """Code looks plus whatever npm looks are unpacked under `cache_dir`."""
    extra = npm_looks(cache_dir) if cache_dir is not None else ()
    return (*code_looks(), *extra)


def looks_for(
    looks: Sequence[DeckLook], family: DeckFamily, *, held_out: bool | None
) -> list[DeckLook]:
    """Looks of one family; `held_out=None` means both kinds, else only that kind."""
    return [
        look
        for look in looks
        if look.family is family and (held_out is None or look.held_out == held_out)
    ]


def face_of(look: DeckLook, card: Card) -> CardFace:
    """The cached face of `card` in `look` (rendered on first use in this process)."""
    key = (look.name, str(card))
    face = _FACES.get(key)
    if face is None:
        face = _FACES[key] = look.render_face(card)
    return face


def back_of(look: DeckLook) -> npt.NDArray[np.uint8]:
    """The cached back of `look`, (FACE_H, FACE_W, 4) RGBA."""
    back = _BACKS.get(look.name)
    if back is None:
        back = _BACKS[look.name] = look.render_back()
    return back
