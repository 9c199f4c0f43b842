"""The score sheet: points per round and player, running totals, the result."""

from __future__ import annotations

from collections.abc import Collection

from ..game_state import GameState
from ..schemas import SheetPublic, SheetRound
from .games import round_info

__all__ = ["sheet_public"]


def sheet_public(state: GameState, edited: Collection[int] = ()) -> SheetPublic:
    """The sheet; `edited`: the rounds corrected after they were scored (marked)."""
    record, players = state.record, state.game.players
    rounds: list[SheetRound] = []
    running = record.running_totals
    for number in range(1, state.scheduled_rounds + 1):
        info = round_info(state, number)
        hands = state.hands_in(number)
        complete = number <= len(record.rounds)
        went_out = next((seat for seat, h in hands.items() if h.went_out), None)
        rounds.append(
            SheetRound(
                number=number,
                contract=info.contract,
                cards_dealt=info.cards_dealt,
                points=[hands[p.seat].points if p.seat in hands else None for p in players],
                totals=list(running[number - 1]) if complete else None,
                went_out=went_out,
                complete=complete,
                edited=number in edited,
            )
        )
    return SheetPublic(
        game_id=state.game.id,
        name=state.game.name,
        variant_title=state.game.variant_title,
        players=[p.name for p in players],
        rounds=rounds,
        totals=list(record.totals),
        leaders=list(record.leaders),
        winners=list(record.winners),
        loser=record.loser,
        finished=record.is_finished,
        target_score=record.target_score,
    )
