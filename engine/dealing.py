"""Shuffling, dealing, the upcard and reshuffling the discards into a new stock.

Piles are lists whose *end* is the top: `stock[-1]` is the next card drawn and
`discards[-1]` is the upcard. Randomness always comes from a `random.Random` the caller
seeds, so a simulated round can be replayed exactly from its seed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from .cards import Card
from .errors import IllegalPlayError
from .variants import Rules, build_shoe

__all__ = ["Deal", "batch_sizes", "deal_round", "reshuffle", "shuffled_shoe", "turn_upcard"]


@dataclass(frozen=True, slots=True)
class Deal:
    """The table right after the deal: hands by seat, the stock, the discard pile.

    `reburied` counts wild upcards put back into the stock (Rook) before a natural card
    was turned.
    """

    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    discards: tuple[Card, ...]
    reburied: int = 0

    @property
    def cards(self) -> list[Card]:
        """Every card of the deal, wherever it lies (for conservation checks)."""
        return [card for hand in self.hands for card in hand] + [*self.stock, *self.discards]


def shuffled_shoe(rules: Rules, rng: random.Random) -> list[Card]:
    """All the cards in play for `rules`, shuffled."""
    shoe = build_shoe(rules.variant.family, rules.setup)
    rng.shuffle(shoe)
    return shoe


def batch_sizes(total: int, batches: Sequence[int]) -> list[int]:
    """How many cards each pass round the table gives a player.

    The variant's batches (manipulation: 3, 3, 3, 1) are used while they fit; a batch
    that would overshoot the deal size is cut short, and cards still owed after the
    listed batches are dealt one at a time. Without batches: one card per pass.
    """
    out: list[int] = []
    for size in batches:
        if sum(out) >= total:
            break
        out.append(min(size, total - sum(out)))
    out.extend([1] * (total - sum(out)))
    return [size for size in out if size > 0]


def turn_upcard(stock: list[Card], discards: list[Card], rules: Rules, rng: random.Random) -> int:
    """Turn the top of the stock face up; return how many wilds were reburied.

    Where the variant says so (Rook), a wild turned up goes back into the stock at a
    random place below the top and the next card is turned. If only wilds remain the
    last one turned stays up, so this always ends.
    """
    reburied = 0
    while stock:
        card = stock.pop()
        if (
            rules.variant.wild_upcard_reburied
            and rules.is_wild(card)
            and any(not rules.is_wild(c) for c in stock)
        ):
            stock.insert(rng.randrange(len(stock)), card)
            reburied += 1
            continue
        discards.append(card)
        break
    return reburied


def deal_round(rules: Rules, round_number: int, rng: random.Random, dealer: int = 0) -> Deal:
    """Shuffle and deal round `round_number`: starting at the dealer's left, in the
    variant's batches, then turn the first upcard where the variant has discards."""
    players = rules.players
    if not 0 <= dealer < players:
        raise IllegalPlayError(f"seat {dealer} is not at a table of {players}")
    size = rules.round(round_number).cards_dealt(players)
    stock = shuffled_shoe(rules, rng)
    if size * players >= len(stock) + (0 if rules.variant.has_discards else 1):
        raise IllegalPlayError(f"{players} hands of {size} do not fit a {len(stock)}-card shoe")
    hands: list[list[Card]] = [[] for _ in range(players)]
    for batch in batch_sizes(size, rules.variant.deal_batches):
        for offset in range(1, players + 1):
            seat = (dealer + offset) % players
            for _ in range(batch):
                hands[seat].append(stock.pop())
    discards: list[Card] = []
    reburied = 0
    if rules.variant.has_discards:
        reburied = turn_upcard(stock, discards, rules, rng)
    return Deal(tuple(tuple(h) for h in hands), tuple(stock), tuple(discards), reburied)


def reshuffle(stock: list[Card], discards: list[Card], rng: random.Random) -> int:
    """Shuffle the discard pile, all but its top card, into a new stock (in place).

    Called when the stock runs out; returns how many cards moved (0 when the pile
    holds only the upcard, and then the stock stays empty).
    """
    if stock:
        raise IllegalPlayError("the stock is not empty; there is nothing to reshuffle")
    moved = discards[:-1]
    del discards[:-1]
    rng.shuffle(moved)
    stock.extend(moved)
    return len(moved)
