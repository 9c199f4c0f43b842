"""Playing onto melds already on the table: lay-offs (hits) and joker swaps.

Lay-offs grow a meld at either end of a run or onto a set; the grown meld must still be
legal under the variant's "later" wild limits. A joker swap puts the natural card a wild
stands for into the meld and frees the wild — only where the variant allows it and only
for the players it names (anyone who has laid down, or the meld's owner).
"""

from __future__ import annotations

import enum

from .cards import Card
from .errors import IllegalMeldError
from .melds import Meld, check_meld, run_place_card
from .variants import JokerSwap, MeldKind, Rules

__all__ = ["End", "can_lay_off", "lay_off", "lay_off_ends", "swap_wild"]


class End(enum.StrEnum):
    LOW = "low"
    HIGH = "high"


def lay_off(meld: Meld, card: Card, rules: Rules, *, end: End | None = None) -> Meld:
    """Return `meld` with `card` added, or raise `IllegalMeldError` saying why not.

    For a run, a natural card goes to the end where it fits; a wild goes to `end`
    (default: the high end while there is room, else the low end).
    """
    if meld.kind is MeldKind.SET:
        return check_meld([*meld.cards, card], rules, kind=MeldKind.SET, at_lay_down=False)
    ends = lay_off_ends(meld, card, rules)
    if end is not None:
        if end not in ends:
            raise IllegalMeldError(f"{card} cannot go at the {end} end of {meld}")
        ends = [end]
    if not ends:
        raise IllegalMeldError(_why_not_run(meld, card, rules))
    return check_meld(
        _grow(meld, card, ends[0]), rules, kind=MeldKind.RUN, ordered=True, at_lay_down=False
    )


def _grow(meld: Meld, card: Card, end: End) -> list[Card]:
    """The run's cards in table order with `card` added at `end` (runs may be laid
    high to low; table order is kept)."""
    low_first = meld.places[0] <= meld.places[-1]
    at_front = low_first == (end is End.LOW)
    return [card, *meld.cards] if at_front else [*meld.cards, card]


def lay_off_ends(meld: Meld, card: Card, rules: Rules) -> list[End]:
    """The ends of a run where `card` may be laid off (high end first)."""
    if meld.kind is not MeldKind.RUN:
        return []
    assert meld.suit is not None
    out: list[End] = []
    targets = {End.HIGH: meld.high + 1, End.LOW: meld.low - 1}
    for end, place in targets.items():
        if not rules.bottom_position <= place <= rules.top_position:
            continue
        if rules.is_wild(card) or card == run_place_card(meld.suit, place):
            try:
                check_meld(
                    _grow(meld, card, end),
                    rules,
                    kind=MeldKind.RUN,
                    ordered=True,
                    at_lay_down=False,
                )
            except IllegalMeldError:
                continue
            out.append(end)
    return out


def _why_not_run(meld: Meld, card: Card, rules: Rules) -> str:
    assert meld.suit is not None
    if rules.is_wild(card):
        return f"no room for another wild on {meld} under this variant's limits"
    if card.suit is not meld.suit:
        return f"{card.name} is not {meld.suit.long_name}"
    return f"{card.name} does not extend the run {meld} at either end"


def can_lay_off(meld: Meld, card: Card, rules: Rules) -> bool:
    try:
        lay_off(meld, card, rules)
    except IllegalMeldError:
        return False
    return True


def swap_wild(meld: Meld, card: Card, rules: Rules, *, is_owner: bool = True) -> tuple[Meld, Card]:
    """Replace a wild in `meld` with the natural `card` it stands for.

    Returns the new meld and the freed wild. Raises `IllegalMeldError` where the variant
    forbids swaps, the player may not swap on this meld, or no wild stands for `card`.
    """
    policy = rules.variant.joker_swap
    if policy is JokerSwap.NONE:
        raise IllegalMeldError(f"in {rules.variant.title} a wild can never be exchanged")
    if policy is JokerSwap.OWNER and not is_owner:
        raise IllegalMeldError("only the player who laid the meld down may take its wild back")
    if rules.is_wild(card):
        raise IllegalMeldError("swap a wild for a natural card, not for another wild")
    for index, is_wild in enumerate(meld.wild):
        if not is_wild:
            continue
        if meld.kind is MeldKind.SET:
            fits = card.rank == meld.rank
        else:
            assert meld.suit is not None
            fits = card == run_place_card(meld.suit, meld.places[index])
        if not fits:
            continue
        cards = list(meld.cards)
        freed = cards[index]
        cards[index] = card
        ordered = meld.kind is MeldKind.RUN
        try:
            new = check_meld(cards, rules, kind=meld.kind, ordered=ordered, at_lay_down=False)
        except IllegalMeldError:
            continue
        return new, freed
    raise IllegalMeldError(f"no wild in {meld} stands for {card.name}")
