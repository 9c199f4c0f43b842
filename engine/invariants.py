"""Invariants of a round in play, checked from outside the state after every action.

`check_invariants` is what tests hand to the simulator as its observer: thousands of
simulated games then prove that no sequence of legal actions loses or duplicates a
card, leaves an illegal meld on the table, or breaks a limit. Cards are compared as
multisets (`Counter`), never sets, because several decks hold identical cards.

Every invariant is checked in full after every action; two things keep that cheap:
cards are counted by their small integer identity (`card_key`, counted in C rather
than through `Card.__hash__`), and a table meld that is the very `Meld` object already
found legal under the same `Rules` is not re-derived (both are immutable, so the
verdict cannot have changed; a replaced or rebuilt meld is a new object and is checked
again).
"""

from __future__ import annotations

from collections import Counter
from itertools import chain

from .cards import Card, card_key
from .errors import ShanghaiError
from .melds import Meld, check_meld
from .table import RoundEnd, RoundState
from .variants import Rules

__all__ = ["InvariantError", "check_invariants"]


class InvariantError(ShanghaiError, AssertionError):
    """The simulated round reached a state the rules never allow."""


def _fail(state: RoundState, message: str) -> InvariantError:
    return InvariantError(
        f"round {state.round_number}, turn {state.turn}, after {state.last_action!r}: {message}"
    )


def check_invariants(state: RoundState) -> None:
    """Raise `InvariantError` naming the first broken invariant of `state`."""
    _check_conservation(state)
    _check_hands(state)
    _check_melds(state)
    _check_buys(state)
    _check_ending(state)


def _check_conservation(state: RoundState) -> None:
    melds = (table_meld.meld.cards for table_meld in state.melds)
    everywhere = chain(state.stock, state.discards, *state.hands, *melds)
    held: Counter[int] = Counter(map(card_key, everywhere))
    shoe = state.shoe
    # Plain-dict equality runs in C; neither side holds zero counts, so it is the
    # multiset equality `Counter.__eq__` would compute.
    if not dict.__eq__(held, dict(zip(map(card_key, shoe), shoe.values(), strict=True))):
        _conservation_failure(state)
    in_play = _in_play_keys(state.rules)
    for key in held:
        if key not in in_play:
            card = next(c for c in _all_cards(state) if card_key(c) == key)
            raise _fail(state, f"{card} is not in play in this variant")


def _all_cards(state: RoundState) -> list[Card]:
    cards = [*state.stock, *state.discards]
    for hand in state.hands:
        cards.extend(hand)
    for table_meld in state.melds:
        cards.extend(table_meld.meld.cards)
    return cards


def _conservation_failure(state: RoundState) -> None:
    """Name the extra and lost cards (only on failure: counting `Card`s is slower)."""
    held = Counter(_all_cards(state))
    extra = held - state.shoe
    lost = state.shoe - held
    raise _fail(
        state,
        f"cards are not conserved: extra {sorted(extra.elements())}, "
        f"lost {sorted(lost.elements())}",
    )


_IN_PLAY: dict[int, tuple[Rules, frozenset[int]]] = {}


def _in_play_keys(rules: Rules) -> frozenset[int]:
    cached = _IN_PLAY.get(id(rules))
    if cached is None or cached[0] is not rules:
        if len(_IN_PLAY) > 64:
            _IN_PLAY.clear()
        cached = (rules, frozenset(card_key(card) for card in rules.in_play))
        _IN_PLAY[id(rules)] = cached
    return cached[1]


_LEGAL: dict[int, tuple[Meld, Rules]] = {}
"""Table melds found legal and in table order, by identity (holding the objects keeps
their ids from being reused)."""
_LEGAL_LIMIT = 4096


def _known_legal(meld: Meld, rules: Rules) -> bool:
    seen = _LEGAL.get(id(meld))
    return seen is not None and seen[0] is meld and seen[1] is rules


def _remember_legal(meld: Meld, rules: Rules) -> None:
    if len(_LEGAL) >= _LEGAL_LIMIT:
        _LEGAL.clear()
    _LEGAL[id(meld)] = (meld, rules)


def _check_hands(state: RoundState) -> None:
    for seat, hand in enumerate(state.hands):
        expected = state.dealt[seat] + state.received[seat] - state.given[seat]
        if len(hand) != expected:
            raise _fail(
                state,
                f"seat {seat} holds {len(hand)} cards; dealt {state.dealt[seat]} + received "
                f"{state.received[seat]} - given {state.given[seat]} = {expected}",
            )
        if not hand and state.went_out != seat:
            raise _fail(state, f"seat {seat} has no cards but did not go out")


def _check_melds(state: RoundState) -> None:
    rules = state.rules
    variant = rules.variant
    for index, table_meld in enumerate(state.melds):
        meld = table_meld.meld
        if not _known_legal(meld, rules):
            _check_table_meld(state, index, meld)
            _remember_legal(meld, rules)
        owner_laid = state.laid_down_turn[table_meld.owner]
        if owner_laid is None:
            raise _fail(state, f"seat {table_meld.owner} owns meld {index} without laying down")
        for addition in table_meld.additions:
            laid = state.laid_down_turn[addition.seat]
            if laid is None:
                raise _fail(state, f"seat {addition.seat} added to meld {index} before laying down")
            if laid > addition.turn or (not variant.lay_off_same_turn and laid == addition.turn):
                raise _fail(
                    state,
                    f"seat {addition.seat} added to meld {index} in turn {addition.turn}, "
                    f"having laid down in turn {laid}",
                )
    contract = rules.round(state.round_number).contract
    if contract is not None:
        for seat in range(state.players):
            owned = sum(1 for tm in state.melds if tm.owner == seat)
            want = len(contract.melds) if state.has_laid_down(seat) else 0
            if owned != want:
                raise _fail(state, f"seat {seat} owns {owned} melds; its contract gives {want}")


def _check_table_meld(state: RoundState, index: int, meld: Meld) -> None:
    try:
        again = check_meld(meld.cards, state.rules, kind=meld.kind, ordered=True, at_lay_down=False)
    except ShanghaiError as exc:
        raise _fail(state, f"table meld {index} ({meld}) is illegal: {exc}") from exc
    if again.cards != meld.cards:
        raise _fail(state, f"table meld {index} ({meld}) is not kept in table order")


def _check_buys(state: RoundState) -> None:
    variant = state.rules.variant
    limit = state.rules.round(state.round_number).buys
    per_seat = Counter(event.seat for event in state.buys)
    for seat, used in per_seat.items():
        if used > limit:
            raise _fail(state, f"seat {seat} bought {used} times; the limit is {limit}")
    if variant.buy_only_before_lay_down and any(e.buyer_had_laid_down for e in state.buys):
        raise _fail(state, "a player bought after laying down")
    if not variant.has_discards and (state.buys or state.discards):
        raise _fail(state, "this variant has no discard pile and no buys")


def _check_ending(state: RoundState) -> None:
    if state.went_out is not None:
        if state.ended != RoundEnd.WENT_OUT:
            raise _fail(state, "a player went out but the round did not end")
        if state.hands[state.went_out]:
            raise _fail(state, f"seat {state.went_out} went out holding cards")
    elif state.ended == RoundEnd.WENT_OUT:
        raise _fail(state, "the round ended by going out, but nobody went out")
