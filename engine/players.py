"""Simple seeded players for contract variants: greedy about melding, random in doubt.

They are not meant to play well, only to play *legally* and *often enough to finish*:
they lay down as soon as the hand holds the contract, lay off every card that fits,
take back wilds where the variant lets them, and work towards the round's contract
with a plan (`plans.plan_contract`: the best partial sets and runs in the hand). Before
laying down they take or buy a card only when it shortens the plan, and throw away
cards outside it first (among those, the ones least close to a set or a run). Their
coin flips come from their own `random.Random`, so a round replays exactly from its
seed. All their moves go through `RoundState`'s actions, which enforce the rules; a
player never changes the state directly.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from . import layoffs
from .cards import Card, Suit
from .contracts import find_lay_down
from .errors import IllegalMeldError
from .melds import Meld
from .plans import ContractPlan, plan_contract
from .table import RoundState
from .variants import GoingOut, JokerSwap, MeldKind, Rules

__all__ = ["GreedyPlayer", "LayOffIndex", "fits_meld", "table_index", "usefulness"]

KEEP_WILD = 100.0
"""A wild's usefulness: high enough that it is never the card thrown away."""


def fits_meld(meld: Meld, card: Card, rules: Rules) -> Meld | None:
    """`meld` with `card` laid off, or None. A cheap test first: most cards plainly do
    not fit, and `lay_off` re-checks the whole meld."""
    if not rules.is_wild(card):
        if meld.kind is MeldKind.SET:
            variant = rules.variant
            if card.rank != meld.rank:
                return None
            if variant.max_set is not None and meld.size >= variant.max_set:
                return None
            if variant.set_distinct_suits and card in meld.cards:
                return None
        if meld.kind is MeldKind.RUN:
            if card.suit is not meld.suit:
                return None
            if not any(p in (meld.low - 1, meld.high + 1) for p in rules.run_positions(card)):
                return None
    try:
        return layoffs.lay_off(meld, card, rules)
    except IllegalMeldError:
        return None


class LayOffIndex:
    """Which table melds a card might extend, looked up by rank (sets) and by the places
    just past each end (runs) rather than by trying every meld. `first_fit` answers
    exactly as trying `fits_meld` on every meld in table order would."""

    def __init__(self, melds: Sequence[Meld], rules: Rules) -> None:
        self.melds = melds
        self.rules = rules
        self._sets: dict[int, list[int]] = {}
        self._runs: dict[tuple[Suit | None, int], list[int]] = {}
        for index, meld in enumerate(melds):
            if meld.kind is MeldKind.SET:
                self._sets.setdefault(meld.rank, []).append(index)
            else:
                for place in {meld.low - 1, meld.high + 1}:
                    self._runs.setdefault((meld.suit, place), []).append(index)

    def targets(self, card: Card) -> list[int]:
        """Indices, in table order, of the melds `card` might extend (all for a wild)."""
        if self.rules.is_wild(card):
            return list(range(len(self.melds)))
        found = self._sets.get(card.rank, [])
        for place in self.rules.run_positions(card):
            found = found + self._runs.get((card.suit, place), [])
        return sorted(set(found))

    def first_fit(self, card: Card) -> int | None:
        """The first meld in table order that `card` can be laid off on."""
        for index in self.targets(card):
            if fits_meld(self.melds[index], card, self.rules) is not None:
                return index
        return None


def table_index(state: RoundState) -> LayOffIndex:
    """The lay-off index of the melds on the table now."""
    return LayOffIndex([table_meld.meld for table_meld in state.melds], state.rules)


def usefulness(card: Card, hand: Sequence[Card], rules: Rules, round_number: int) -> float:
    """How much `card` helps towards the round's contract with the other cards of
    `hand`: 2 points for each card of its rank (sets), and for each other place of its
    suit within reach of a run as long as the contract's longest, up to 2 points by
    closeness (runs); weighted by what the contract asks for."""
    if rules.is_wild(card):
        return KEEP_WILD
    contract = rules.round(round_number).contract
    want_sets = contract is None or contract.count(MeldKind.SET) > 0
    runs = [] if contract is None else [s.size for s in contract.melds if s.kind is MeldKind.RUN]
    reach = max(runs, default=rules.variant.min_run if contract is None else 0)
    score = 0.0
    own = rules.run_positions(card)
    near: dict[int, int] = {}
    skipped_self = False
    for other in hand:
        if other == card and not skipped_self:
            skipped_self = True
            continue
        if rules.is_wild(other):
            continue
        if want_sets and other.rank == card.rank:
            score += 2.0
        if reach and other.suit is card.suit:
            for place in rules.run_positions(other):
                gap = min(abs(place - p) for p in own)
                if 1 <= gap < reach:
                    near[place] = gap
    score += sum(2.0 * (reach - gap) / (reach - 1) for gap in near.values())
    return score


class GreedyPlayer:
    """One seat's decisions in a contract variant."""

    def __init__(self, seat: int, rng: random.Random) -> None:
        self.seat = seat
        self.rng = rng
        self._last_plan: tuple[tuple[Card, ...], ContractPlan] | None = None
        """The plan for the hand as it was when last asked (most questions in a turn
        are about the same hand)."""

    # -- drawing and buying ----------------------------------------------------------

    def wants_upcard(self, state: RoundState) -> bool:
        card = state.upcard
        if card is None:
            return False
        if state.rules.is_wild(card):
            return True
        if state.has_laid_down(self.seat):
            return table_index(state).first_fit(card) is not None
        return self._shortens_plan(state, card)

    def wants_buy(self, state: RoundState) -> bool:
        card = state.upcard
        if card is None or len(state.hands[self.seat]) >= 18:
            return False
        if state.rules.is_wild(card):
            return True
        if state.has_laid_down(self.seat):
            fits = table_index(state).first_fit(card) is not None
            return fits and self.rng.random() < 0.3
        return self._shortens_plan(state, card) and self.rng.random() < 0.9

    def _plan(self, state: RoundState, extra: Card | None = None) -> ContractPlan | None:
        contract = state.rules.round(state.round_number).contract
        if contract is None:
            return None
        hand = state.hands[self.seat]
        if extra is not None:
            return plan_contract([*hand, extra], state.rules, contract)
        last = self._last_plan
        if last is not None and len(last[0]) == len(hand) and last[0] == tuple(hand):
            return last[1]
        plan = plan_contract(hand, state.rules, contract)
        self._last_plan = (tuple(hand), plan)
        return plan

    def _shortens_plan(self, state: RoundState, card: Card) -> bool:
        """Whether `card` brings the hand closer to the round's contract."""
        now, then = self._plan(state), self._plan(state, card)
        if now is None or then is None:
            return usefulness(card, state.hands[self.seat], state.rules, state.round_number) >= 2
        return then.short < now.short

    # -- melding ---------------------------------------------------------------------

    def play(self, state: RoundState) -> None:
        """Lay down if the hand holds the contract; then swap wilds and lay off."""
        if not state.has_laid_down(self.seat):
            self._try_lay_down(state)
        if state.over or not state.may_play_on_table(self.seat):
            return
        self._swap_wilds(state)
        self._lay_off_all(state)

    def _try_lay_down(self, state: RoundState) -> None:
        rules = state.rules
        hand = state.hands[self.seat]
        found = find_lay_down(hand, rules, state.round_number, use_all=False)
        if found is None:
            return
        left = len(hand) - sum(meld.size for meld in found)
        meld_only = rules.variant.going_out is GoingOut.MELD_ONLY
        if meld_only and left == 1 and not rules.variant.lay_off_same_turn:
            return  # the last card could not be discarded: wait for a better hand
        state.lay_down(self.seat, [meld.cards for meld in found])

    def _swap_wilds(self, state: RoundState) -> None:
        rules = state.rules
        policy = rules.variant.joker_swap
        if policy is JokerSwap.NONE:
            return
        for card in list(state.hands[self.seat]):
            if rules.is_wild(card) or state.over:
                continue
            for index, table_meld in enumerate(state.melds):
                if not table_meld.meld.wild_count:
                    continue
                if policy is JokerSwap.OWNER and table_meld.owner != self.seat:
                    continue
                try:
                    layoffs.swap_wild(
                        table_meld.meld, card, rules, is_owner=table_meld.owner == self.seat
                    )
                except IllegalMeldError:
                    continue
                state.swap_wild(self.seat, index, card)
                break

    def _lay_off_all(self, state: RoundState) -> None:
        """Lay off naturals first, wilds last, until nothing more fits. Where the last
        card may not be discarded, never lay off down to one card that cannot follow."""
        rules = state.rules
        meld_only = rules.variant.going_out is GoingOut.MELD_ONLY
        progress = True
        while progress and not state.over:
            progress = False
            hand = sorted(state.hands[self.seat], key=rules.is_wild)
            table = table_index(state)
            for card in hand:
                index = table.first_fit(card)
                if index is None:
                    continue
                if meld_only and len(hand) == 2 and not self._last_follows(state, card, index):
                    continue
                state.lay_off(self.seat, index, card)
                progress = True
                break

    def _last_follows(self, state: RoundState, card: Card, index: int) -> bool:
        """Whether, after laying `card` off on meld `index`, the other card fits too."""
        hand = list(state.hands[self.seat])
        hand.remove(card)
        grown = fits_meld(state.melds[index].meld, card, state.rules)
        melds = [tm.meld for tm in state.melds]
        assert grown is not None
        melds[index] = grown
        return any(fits_meld(meld, hand[0], state.rules) for meld in melds)

    # -- discarding ------------------------------------------------------------------

    def choose_discard(self, state: RoundState) -> Card:
        """The least useful card; among equals the costliest, then at random.

        Before laying down, a card outside the plan for the contract goes first."""
        rules = state.rules
        hand = state.hands[self.seat]
        laid = state.has_laid_down(self.seat)
        candidates: list[Card] = hand
        table = table_index(state) if laid else None
        if not laid:
            plan = self._plan(state)
            if plan is not None:
                spare = Counter(c for c in hand if not rules.is_wild(c)) - plan.keep
                candidates = list(spare.elements()) or hand

        def key(card: Card) -> tuple[float, int, float]:
            if laid:
                fits = table is not None and table.first_fit(card) is not None
                worth = KEEP_WILD if rules.is_wild(card) else (10.0 if fits else 0.0)
            else:
                worth = usefulness(card, hand, rules, state.round_number)
            return (worth, -rules.card_points(card), self.rng.random())

        return min(candidates, key=key)
