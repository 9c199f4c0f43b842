"""Complete, legal games of any variant between simple seeded players.

Used by the tests (thousands of games with `invariants.check_invariants` after every
action) and by the data generator, which renders round-end tables from
`RoundOutcome`s: the melds each seat has on the table and the cards left in hands.

A turn in a contract variant: the in-turn player may take the upcard; if not, the other
players in turn order may buy it (with the variant's penalty cards, limits and buy
discard); then the in-turn player draws from the stock, lays down, swaps wilds, lays
off and discards (or goes out). Manipulation turns are played by `manipulation`.

Turn cap: random players can stall (a contract such as a run of 10 may never come
together), so a round stops after `turn_cap(rules)` turns, default
`TURNS_PER_SEAT` (100) turns per seat. A capped round is scored on the hands as they
are, nobody going out, and reported with `capped=True` and `ending="turn-cap"`. A
round whose stock and discards are both exhausted ends the same way with
`ending="stock-out"` (manipulation, where there are no discards, reaches this).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from . import manipulation
from .cards import Card
from .dealing import deal_round
from .melds import Meld
from .players import GreedyPlayer
from .record import GameRecord
from .scoring import PlayerScore, score_round
from .table import Observer, RoundEnd, RoundState
from .variants import Rules, Variant

__all__ = [
    "MAX_ROUNDS",
    "TURNS_PER_SEAT",
    "GameLog",
    "RoundOutcome",
    "play_round",
    "simulate_game",
    "turn_cap",
]

TURNS_PER_SEAT = 100
MAX_ROUNDS = 60
"""Most rounds of a game whose rounds repeat until a target score (manipulation)."""


def turn_cap(rules: Rules) -> int:
    return TURNS_PER_SEAT * rules.players


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundOutcome:
    """A finished round: table, hands, scores and what happened on the way."""

    round_number: int
    dealer: int
    melds: tuple[tuple[Meld, ...], ...]
    """Per seat, the melds that seat laid down, as they lie at round end (with the cards
    others laid off on them)."""
    hands: tuple[tuple[Card, ...], ...]
    went_out: int | None
    scores: tuple[PlayerScore, ...]
    turns: int
    capped: bool
    ending: str
    blind: bool = False
    blind_used_wild: bool = False
    buys: int = 0
    lay_downs: int = 0
    lay_offs: int = 0
    swaps: int = 0
    rearranges: int = 0
    draws: int = 0
    discards_taken: int = 0
    reshuffles: int = 0
    reburied: int = 0


@dataclass(frozen=True, slots=True)
class GameLog:
    variant: Variant
    players: int
    rounds: tuple[RoundOutcome, ...]
    record: GameRecord

    @property
    def finished(self) -> bool:
        """False only when a repeating game hit `MAX_ROUNDS` before its target score."""
        return self.record.is_finished


def play_round(
    rules: Rules,
    round_number: int,
    seed: int,
    dealer: int = 0,
    *,
    observer: Observer | None = None,
    cap: int | None = None,
) -> RoundOutcome:
    """Deal and play one complete round; `observer` sees the state after every action."""
    rng = random.Random(seed)
    deal = deal_round(rules, round_number, rng, dealer)
    state = RoundState.from_deal(
        rules,
        round_number,
        deal,
        random.Random(rng.getrandbits(64)),
        dealer=dealer,
        observer=observer,
    )
    players = [
        GreedyPlayer(seat, random.Random(rng.getrandbits(64))) for seat in range(rules.players)
    ]
    limit = turn_cap(rules) if cap is None else cap
    seat = (dealer + 1) % rules.players
    while not state.over:
        if state.turn >= limit:
            state.end(RoundEnd.TURN_CAP)
            break
        state.start_turn(seat)
        if rules.variant.has_discards:
            _contract_turn(state, players, seat)
        else:
            manipulation.play_turn(state, seat, players[seat].rng)
        seat = (seat + 1) % rules.players
    return _outcome(state)


def _contract_turn(state: RoundState, players: list[GreedyPlayer], seat: int) -> None:
    player = players[seat]
    if state.upcard is not None and player.wants_upcard(state):
        state.take_discard(seat)
    else:
        _offer_buys(state, players, seat)
        if state.stock or len(state.discards) > 1:
            state.draw_stock(seat)
        elif state.discards:
            state.take_discard(seat)
        else:
            state.end(RoundEnd.STOCK_OUT)
            return
    player.play(state)
    if not state.over:
        state.discard(seat, player.choose_discard(state))


def _offer_buys(state: RoundState, players: list[GreedyPlayer], seat: int) -> None:
    """The upcard the in-turn player refused goes to the first player after them, in
    turn order, who wants it and may buy."""
    for offset in range(1, state.players):
        buyer = (seat + offset) % state.players
        if state.can_buy(buyer) and players[buyer].wants_buy(state):
            state.buy(buyer)
            while state.pending_buy_discards[buyer] > 0:
                state.buy_discard(buyer, players[buyer].choose_discard(state))
            return


def _outcome(state: RoundState) -> RoundOutcome:
    rules = state.rules
    hands = tuple(tuple(hand) for hand in state.hands)
    used_wild = any(rules.is_wild(card) for card in state.played_this_turn)
    scores = score_round(
        hands, rules, went_out=state.went_out, blind=state.blind, blind_used_wild=used_wild
    )
    counts = state.counts
    assert state.ended is not None
    return RoundOutcome(
        round_number=state.round_number,
        dealer=state.dealer,
        melds=tuple(tuple(state.table_melds(seat)) for seat in range(state.players)),
        hands=hands,
        went_out=state.went_out,
        scores=scores,
        turns=state.turn,
        capped=state.ended != RoundEnd.WENT_OUT,
        ending=state.ended,
        blind=state.blind,
        blind_used_wild=used_wild,
        buys=counts["buy"],
        lay_downs=counts["lay-down"] + counts["meld"],
        lay_offs=counts["lay-off"],
        swaps=counts["swap"],
        rearranges=counts["rearrange"],
        draws=counts["draw-stock"],
        discards_taken=counts["take-discard"],
        reshuffles=counts["reshuffles"],
        reburied=counts["reburied"],
    )


def simulate_game(
    variant: Variant, players: int, seed: int, *, observer: Observer | None = None
) -> GameLog:
    """Play every round of a game (repeating variants: until the target score is reached,
    at most `MAX_ROUNDS` rounds); the dealer passes left each round."""
    rules = variant.rules(players)
    record = GameRecord(variant=variant, players=tuple(f"P{i + 1}" for i in range(players)))
    rng = random.Random(seed)
    outcomes: list[RoundOutcome] = []
    number = 1
    while not record.is_finished and number <= MAX_ROUNDS:
        dealer = (number - 1) % players
        outcome = play_round(rules, number, rng.getrandbits(64), dealer, observer=observer)
        outcomes.append(outcome)
        record = record.record_round(outcome.scores)
        number += 1
    return GameLog(variant, players, tuple(outcomes), record)
