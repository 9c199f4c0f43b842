"""A player's plan for the round's contract: the partial melds a hand already holds.

`plan_contract` picks, greedily, one target per meld of the contract: for each run
(longest first) the suit and window of places that the hand covers best, for each set
the rank it holds most of, never using a card twice and keeping the variant's rules
between the melds of one lay-down (runs of one suit apart, set ranks distinct). The
plan says which natural cards it uses (`keep`) and how many cards it still lacks
(`short`, after the hand's wilds fill what the wild limits allow).

It is a heuristic for the simulated players, not a rule: `contracts.find_lay_down`
alone decides whether a hand can lay down. Players keep the planned cards, take and buy
cards that shorten the plan, and throw away cards outside it. Cards are handled by
their integer keys and runs by suit masks (a bit per run place), so a plan is cheap
enough to make several times a turn.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .cards import Card, Suit, card_key
from .variants import Contract, MeldKind, MeldSpec, Rules, RunSpacing

__all__ = ["ContractPlan", "plan_contract"]


@dataclass(frozen=True, slots=True)
class ContractPlan:
    keep: Counter[Card]
    """The natural cards the planned melds use."""
    missing: tuple[int, ...]
    """Per meld of the contract (runs first, then sets), the places it still lacks."""
    short: int
    """Cards the hand still needs: places the wilds in hand cannot fill."""


@dataclass(frozen=True, slots=True)
class _Window:
    suit: Suit
    low: int
    high: int


@dataclass(frozen=True, slots=True)
class _Faces:
    """What a plan needs to know of each card face in play, by card key."""

    wild: frozenset[int]
    suit: dict[int, Suit]
    rank: dict[int, int]
    places: dict[int, tuple[int, ...]]


_FACES: dict[int, tuple[Rules, _Faces]] = {}


def _faces(rules: Rules) -> _Faces:
    cached = _FACES.get(id(rules))
    if cached is None or cached[0] is not rules:
        if len(_FACES) > 64:
            _FACES.clear()
        cards = rules.in_play
        faces = _Faces(
            wild=frozenset(card_key(card) for card in cards if rules.is_wild(card)),
            suit={card_key(card): card.suit for card in cards},
            rank={card_key(card): card.rank for card in cards},
            places={card_key(card): rules.run_positions(card) for card in cards},
        )
        cached = (rules, faces)
        _FACES[id(rules)] = cached
    return cached[1]


class _Pool:
    """The natural cards not planned yet (by key): counts, and per suit a bit per run
    place with the card that takes it."""

    def __init__(self, count: dict[int, int], faces: _Faces) -> None:
        self.faces = faces
        self.count = count
        self.places: dict[Suit, dict[int, int]] = {}
        self.mask: dict[Suit, int] = {}
        for key in count:
            suit = faces.suit[key]
            places = self.places.setdefault(suit, {})
            mask = self.mask.get(suit, 0)
            for place in faces.places[key]:
                places[place] = key
                mask |= 1 << place
            self.mask[suit] = mask

    def take(self, key: int) -> None:
        self.count[key] -= 1
        if not self.count[key]:
            del self.count[key]
            suit = self.faces.suit[key]
            for place in self.faces.places[key]:
                del self.places[suit][place]
                self.mask[suit] &= ~(1 << place)


def plan_contract(hand: Sequence[Card], rules: Rules, contract: Contract) -> ContractPlan:
    """The greedy plan for `contract` from `hand` (see the module text)."""
    faces = _faces(rules)
    count = Counter(map(card_key, hand))
    wilds = 0
    for key in [key for key in count if key in faces.wild or key not in faces.suit]:
        copies = count.pop(key)  # a card not in play counts for nothing
        wilds += copies if key in faces.wild else 0
    pool = _Pool(count, faces)
    kept: Counter[int] = Counter()
    missing: list[int] = []
    needs: list[tuple[int, int]] = []  # per meld: (places short, wilds it may take)
    windows: list[_Window] = []
    runs = sorted((s for s in contract.melds if s.kind is MeldKind.RUN), key=lambda s: -s.size)
    for spec in runs:
        used = _best_window(pool, spec, windows, rules)
        missing.append(spec.size - len(used))
        needs.append((missing[-1], _wild_room(rules, spec, len(used))))
        for key in used:
            pool.take(key)
        kept.update(used)
    ranks: list[int] = []
    for spec in contract.melds:
        if spec.kind is not MeldKind.SET:
            continue
        used = _best_set(pool, spec, ranks, rules)
        missing.append(max(0, spec.size - len(used)))
        needs.append((missing[-1], _wild_room(rules, spec, len(used))))
        for key in used:
            pool.take(key)
        kept.update(used)
    # Places beyond a meld's wild room need naturals; the rest share the hand's wilds.
    naturals_short = sum(max(0, lacking - room) for lacking, room in needs)
    wild_fillable = sum(min(lacking, room) for lacking, room in needs)
    short = naturals_short + max(0, wild_fillable - wilds)
    card_of = {card_key(card): card for card in hand}
    keep = Counter({card_of[key]: n for key, n in kept.items()})
    return ContractPlan(keep, tuple(missing), short)


def _wild_room(rules: Rules, spec: MeldSpec, naturals: int) -> int:
    """Wilds a meld of `spec` may take at lay-down, given the naturals it has."""
    variant = rules.variant
    limit = variant.wild_limits_lay_down.limit(spec.size)
    room = spec.size - variant.min_naturals
    return max(0, min(room, spec.size - naturals if limit is None else limit))


def _spacing_allows(window: _Window, chosen: list[_Window], spacing: RunSpacing) -> bool:
    for other in chosen:
        if other.suit is not window.suit:
            continue
        touching = window.low == other.high + 1 or other.low == window.high + 1
        overlapping = window.low <= other.high and other.low <= window.high
        if spacing is RunSpacing.SEPARATED and (touching or overlapping):
            return False
        if spacing is RunSpacing.NOT_ADJACENT and touching:
            return False
    return True


def _best_window(pool: _Pool, spec: MeldSpec, chosen: list[_Window], rules: Rules) -> list[int]:
    """The cards (keys) of the window of `spec.size` places, any suit, that the pool
    covers best and where the variant's spacing lets it lie next to the runs `chosen`
    (the window is added to them); ties go to a window that starts a stretch of covered
    places, which leaves the rest of the stretch in one piece for another run."""
    bottom, top = rules.bottom_position, rules.top_position
    size = spec.size
    full = (1 << size) - 1
    spacing = rules.variant.run_spacing
    best: tuple[int, int] | None = None
    best_window: _Window | None = None
    for suit in sorted(pool.mask):
        mask = pool.mask[suit]
        for low in range(bottom, top - size + 2):
            cover = (mask & (full << low)).bit_count()
            if best is not None and cover < best[0]:
                continue
            high = low + size - 1
            if low == 1 and high >= 14 and mask >> 1 & mask >> 14 & 1:
                # One ace cannot sit at both ends; a second ace of the suit can.
                ace = pool.places[suit][1]
                cover -= ace == pool.places[suit][14] and pool.count[ace] < 2
            score = (cover, 1 - (mask >> (low - 1) & 1))
            if best is not None and score <= best:
                continue
            window = _Window(suit, low, high)
            if chosen and not _spacing_allows(window, chosen, spacing):
                continue
            best, best_window = score, window
    if best_window is None:
        return []
    chosen.append(best_window)
    places = pool.places[best_window.suit]
    used: list[int] = []
    for place in range(best_window.low, best_window.high + 1):
        key = places.get(place)
        if key is not None and used.count(key) < pool.count[key]:
            used.append(key)
    return used


def _best_set(pool: _Pool, spec: MeldSpec, chosen: list[int], rules: Rules) -> list[int]:
    """The cards (keys) of the rank the pool holds most of, for a set (distinct ranks
    and suits and the largest set where the variant asks for them); the rank is added
    to `chosen`."""
    variant = rules.variant
    rank_of = pool.faces.rank
    by_rank: dict[int, list[int]] = {}
    for key, count in pool.count.items():
        copies = 1 if variant.set_distinct_suits else count
        by_rank.setdefault(rank_of[key], []).extend([key] * copies)
    best: tuple[int, int] | None = None  # (cards, rank): the highest rank among equals
    for rank, keys in by_rank.items():
        if variant.distinct_set_ranks and rank in chosen:
            continue
        if best is None or (len(keys), rank) > best:
            best = (len(keys), rank)
    if best is None:
        return []
    chosen.append(best[1])
    keys = sorted(by_rank[best[1]])
    cap = spec.size if variant.lay_down_exact else variant.max_set
    return keys if cap is None else keys[:cap]
