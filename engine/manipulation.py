"""A simple manipulation-rummy player: meld from hand, add to melds, rearrange.

Manipulation has no contracts and no discards: a player who can meld must, and one
who cannot draws until a drawn card can be played, plays it and ends the turn. The
rearranging here is deliberately simple but real:

- *add*: lay a card off on any meld;
- *split*: a card equal to one inside a long run splits it into two runs
  (3-4-5-6-7 with another 5 becomes 3-4-5 and 5-6-7);
- *borrow*: two hand cards take a spare card from the table (any card of a set
  longer than the minimum, an end card of a run longer than the minimum) to form a
  new meld.

Every play goes through `RoundState` (`meld_from_hand`, `lay_off`, `rearrange`), which
re-checks that each meld is legal at the end of the play.
"""

from __future__ import annotations

import itertools
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from .cards import Card
from .errors import IllegalMeldError
from .melds import Meld, check_meld, run_place_card
from .players import LayOffIndex
from .table import RoundEnd, RoundState
from .variants import MeldKind, Rules

__all__ = ["Borrow", "Split", "find_borrow", "find_hand_meld", "find_split", "play_turn"]


def find_hand_meld(hand: Sequence[Card], rules: Rules, include: Card | None = None) -> Meld | None:
    """The largest set or run among the natural cards of `hand` (containing `include`
    when given), or None."""
    naturals = [c for c in hand if not rules.is_wild(c)]
    best: Meld | None = None
    variant = rules.variant
    by_rank: dict[int, dict[object, Card]] = defaultdict(dict)
    for card in naturals:
        by_rank[card.rank].setdefault(card.suit, card)
    for rank, suits in by_rank.items():
        if include is not None and include.rank != rank:
            continue
        cards = (
            list(suits.values())
            if variant.set_distinct_suits
            else [c for c in naturals if c.rank == rank]
        )
        if include is not None and include not in cards:
            continue
        if variant.max_set is not None and len(cards) > variant.max_set:
            keep = [include] if include is not None else []
            cards = keep + [c for c in cards if c != include][: variant.max_set - len(keep)]
        best = _better(best, cards, rules, MeldKind.SET)
    by_suit: dict[object, dict[int, Card]] = defaultdict(dict)
    for card in naturals:
        for place in rules.run_positions(card):
            by_suit[card.suit].setdefault(place, card)
    for places in by_suit.values():
        for start in sorted(places):
            if start - 1 in places:
                continue
            run: list[Card] = []
            place = start
            while place in places and places[place] not in run:
                run.append(places[place])
                place += 1
            if include is None or include in run:
                best = _better(best, run, rules, MeldKind.RUN)
    return best


def _better(best: Meld | None, cards: list[Card], rules: Rules, kind: MeldKind) -> Meld | None:
    if best is not None and len(cards) <= best.size:
        return best
    least = rules.variant.min_set if kind is MeldKind.SET else rules.variant.min_run
    if len(cards) < least:
        return best  # too short to be a meld: what `check_meld` would say, sooner
    try:
        return check_meld(cards, rules, kind=kind, at_lay_down=False)
    except IllegalMeldError:
        return best


@dataclass(frozen=True, slots=True)
class Split:
    """Split run `index` at a copy of `card`: the two new runs, in table order."""

    index: int
    groups: tuple[tuple[Card, ...], tuple[Card, ...]]


def find_split(card: Card, melds: Sequence[Meld], rules: Rules) -> Split | None:
    least = rules.variant.min_run
    for index, meld in enumerate(melds):
        if meld.kind is not MeldKind.RUN or meld.suit is not card.suit or meld.wild_count:
            continue
        pairs = sorted(zip(meld.places, meld.cards, strict=True))
        for place in rules.run_positions(card):
            if run_place_card(card.suit, place) != card:
                continue
            if place - meld.low + 1 < least or meld.high - place + 1 < least:
                continue
            low = tuple(c for p, c in pairs if p <= place)
            high = (card, *(c for p, c in pairs if p > place))
            return Split(index, (low, high))
    return None


@dataclass(frozen=True, slots=True)
class Borrow:
    """Take `card` from meld `index` and meld it with `pair` from the hand."""

    index: int
    card: Card
    pair: tuple[Card, Card]
    rest: tuple[Card, ...]
    new: tuple[Card, ...]


def _spares(melds: Sequence[Meld], rules: Rules) -> list[tuple[int, Card, tuple[Card, ...]]]:
    """Cards a meld can give up and stay legal: (meld index, card, what is left)."""
    variant = rules.variant
    out = []
    for index, meld in enumerate(melds):
        least = variant.min_set if meld.kind is MeldKind.SET else variant.min_run
        if meld.size <= least:
            continue
        ends = range(meld.size) if meld.kind is MeldKind.SET else (0, meld.size - 1)
        for position in ends:
            if meld.wild[position]:
                continue
            rest = meld.cards[:position] + meld.cards[position + 1 :]
            out.append((index, meld.cards[position], rest))
    return out


def _could_meld(a: Card, b: Card, c: Card, rules: Rules) -> bool:
    """Cheap necessary test before `check_meld`: one rank, or one suit within 3 places."""
    if a.rank == b.rank == c.rank:
        return True
    if not a.suit is b.suit is c.suit:
        return False
    return any(
        max(p, q, r) - min(p, q, r) == 2 and len({p, q, r}) == 3
        for p in rules.run_positions(a)
        for q in rules.run_positions(b)
        for r in rules.run_positions(c)
    )


def find_borrow(
    hand: Sequence[Card], melds: Sequence[Meld], rules: Rules, include: Card | None = None
) -> Borrow | None:
    naturals = sorted(c for c in hand if not rules.is_wild(c))
    spares = _spares(melds, rules)
    if not spares:
        return None
    for a, b in itertools.combinations(naturals, 2):
        if include is not None and include not in (a, b):
            continue
        if a.rank != b.rank and a.suit is not b.suit:
            continue
        for index, card, rest in spares:
            if not _could_meld(a, b, card, rules):
                continue
            try:
                new = check_meld([a, b, card], rules, at_lay_down=False)
                rest_meld = check_meld(
                    rest, rules, kind=melds[index].kind, ordered=True, at_lay_down=False
                )
            except IllegalMeldError:
                continue
            return Borrow(index, card, (a, b), rest_meld.cards, new.cards)
    return None


def _play_one(state: RoundState, seat: int, include: Card | None, rng: random.Random) -> bool:
    """Make one play (with `include` in it when given); False when none is found."""
    rules = state.rules
    hand = state.hands[seat]
    meld = find_hand_meld(hand, rules, include)
    if meld is not None:
        state.meld_from_hand(seat, meld.cards)
        return True
    table = [tm.meld for tm in state.melds]
    targets = LayOffIndex(table, rules)
    candidates = [include] if include is not None else rng.sample(hand, len(hand))
    for card in candidates:
        index = targets.first_fit(card)
        if index is not None:
            state.lay_off(seat, index, card)
            state.counts["manip-add"] += 1
            return True
        split = find_split(card, table, rules)
        if split is not None:
            state.rearrange(seat, [split.index], split.groups, [card])
            state.counts["manip-split"] += 1
            return True
    borrow = find_borrow(hand, table, rules, include)
    if borrow is not None:
        state.rearrange(seat, [borrow.index], [borrow.rest, borrow.new], list(borrow.pair))
        state.counts["manip-borrow"] += 1
        return True
    return False


def play_turn(state: RoundState, seat: int, rng: random.Random) -> None:
    """One manipulation turn: meld everything possible, else draw until a card plays."""
    played = 0
    while not state.over and _play_one(state, seat, None, rng):
        played += 1
    if state.over:
        return
    if not played:
        while True:
            if not state.stock:
                state.end(RoundEnd.STOCK_OUT)
                return
            card = state.draw_stock(seat)
            if _play_one(state, seat, card, rng):
                break
        if state.over:
            return
    state.end_turn(seat)
