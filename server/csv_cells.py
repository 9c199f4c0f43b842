"""CSV cells a spreadsheet cannot run: the score sheet's CSV and the games' export both
write names people typed, and a name beginning with `=` would be a formula."""

from __future__ import annotations

__all__ = ["FORMULA_START", "inert_cell"]

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def inert_cell(text: str) -> str:
    """A text cell a spreadsheet shows as text: one that could start a formula (`=`,
    `+`, `-`, `@`, a tab or a carriage return) gets a leading `'`. Numbers are written
    as numbers (a negative score stays a number)."""
    return f"'{text}" if text.startswith(FORMULA_START) else text
