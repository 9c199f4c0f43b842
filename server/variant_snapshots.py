"""Variant snapshots: the TOML text of a game's variant, found by name and read.

A game stores the TOML text of its variant when it is created (`Game.variant_toml`):
built-in variants as shipped then, house-rule files as they read then. The game is
always rebuilt from that snapshot, so editing a house-rule file (or upgrading the
built-in variants) never changes a game already under way. A house-rule file that
`extends` a built-in is stored as written and merged with the built-in when read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources
from pathlib import Path

from shanghai.engine import ShanghaiError, Variant
from shanghai.engine.variant_files import BUILTIN_VARIANTS, read_variant

from .errors import ApiError

__all__ = ["variant_from_toml", "variant_snapshot"]

_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,99}$")


@lru_cache(maxsize=128)
def variant_from_toml(text: str) -> Variant:
    """Parse a variant snapshot (cached: games are read far more often than created)."""
    return read_variant(text)


def variant_snapshot(name: str, search_dirs: Iterable[Path]) -> tuple[Variant, str, str]:
    """`(variant, toml_text, origin)` for a built-in or a house-rule variant by name.

    Names only: a path from a web request is never opened (house-rule files are found in
    the configured folders, or sent as text).
    """
    if not _NAME.match(name):
        raise ApiError(
            422, f"unknown variant {name!r}: give a variant name such as {BUILTIN_VARIANTS[0]!r}"
        )
    if name in BUILTIN_VARIANTS:
        resource = resources.files("shanghai.engine").joinpath("variants", f"{name}.toml")
        text = resource.read_text("utf-8")
        return variant_from_toml(text), text, "built-in"
    for folder in search_dirs:
        path = Path(folder) / f"{name}.toml"
        if path.is_file():
            try:
                text = path.read_text("utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise ApiError(422, f"cannot read house-rule file {path}: {exc}") from None
            try:
                return variant_from_toml(text), text, "house-rule"
            except ShanghaiError as exc:
                raise ApiError(422, f"{path}: {exc}") from None
    raise ApiError(
        422,
        f"unknown variant {name!r}; choose from {', '.join(BUILTIN_VARIANTS)} "
        "or send a house-rule file",
    )
