"""Cards as the API takes them: a hand or a lay-down as text, read by the engine
(`shanghai.engine.lay_downs`) within the API's limit, and the corrections between the
cards a scan proposed and those confirmed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from shanghai.engine import Card, Rules, ShanghaiError, parse_hand, parse_lay_down

from .errors import ApiError

__all__ = ["MAX_CARDS", "card_diff", "read_hand", "read_lay_down"]

MAX_CARDS = 40
"""Most cards accepted in one text field (a hand or a lay-down); more is a typo."""


def read_hand(text: str, rules: Rules) -> list[Card]:
    """Cards of a hand, each in play (422 saying what is wrong)."""
    try:
        return parse_hand(text, rules, most=MAX_CARDS)
    except ShanghaiError as exc:
        raise ApiError(422, str(exc)) from None


def read_lay_down(text: str, rules: Rules) -> list[list[Card]]:
    """A lay-down: melds separated by '|' in table order (one group: ungrouped)."""
    try:
        return parse_lay_down(text, rules, most=MAX_CARDS)
    except ShanghaiError as exc:
        raise ApiError(422, str(exc)) from None


def card_diff(before: Sequence[str], after: Sequence[str]) -> list[dict[str, str]]:
    """Corrections from a proposal to the confirmed cards: each card removed or added
    (counted, so a second copy of a card from another deck is its own correction)."""
    old, new = Counter(before), Counter(after)
    out = [{"action": "removed", "card": c} for c in sorted((old - new).elements())]
    out += [{"action": "added", "card": c} for c in sorted((new - old).elements())]
    return out
