"""Typed errors. All derive from `ValueError` so callers may catch broadly, and each
message is written for a player at the table, not for a programmer."""

from __future__ import annotations

__all__ = [
    "CardParseError",
    "IllegalMeldError",
    "IllegalPlayError",
    "ShanghaiError",
    "VariantError",
]


class ShanghaiError(ValueError):
    """Base class of the engine's errors."""


class CardParseError(ShanghaiError):
    """A card or list of cards could not be read in the project's notation."""


class VariantError(ShanghaiError):
    """A variant (built in or from a house-rule file) is unknown or inconsistent."""


class IllegalMeldError(ShanghaiError):
    """A meld, lay-down, lay-off or joker swap breaks the variant's rules.

    `reasons` holds every problem found, each a complete sentence; `str()` joins them.
    """

    def __init__(self, reasons: str | list[str]) -> None:
        self.reasons: list[str] = [reasons] if isinstance(reasons, str) else list(reasons)
        super().__init__("; ".join(self.reasons))


class IllegalPlayError(ShanghaiError):
    """An action in a game (draw, buy, discard, going out) is not allowed now."""
