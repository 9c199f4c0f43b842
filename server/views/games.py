"""A game, its summary, a round's rules and the buys each player has used."""

from __future__ import annotations

from ..game_state import GameState
from ..schemas import GamePublic, GameSummary, PlayerBuys, PlayerPublic, RoundInfo

__all__ = ["game_public", "game_summary", "player_buys", "round_info"]


def round_info(state: GameState, number: int) -> RoundInfo:
    rule = state.variant.round(number)
    return RoundInfo(
        number=number,
        contract=str(rule.contract) if rule.contract else None,
        cards_dealt=rule.cards_dealt(state.rules.players),
        buys_allowed=rule.buys,
    )


def game_summary(state: GameState) -> GameSummary:
    game = state.game
    return GameSummary(
        id=game.id,
        name=game.name,
        variant_name=game.variant_name,
        variant_title=game.variant_title,
        players=[p.name for p in game.players],
        created_at=game.created_at,
        current_round=state.current_round,
        finished=state.record.is_finished,
    )


def game_public(state: GameState) -> GamePublic:
    game, record = state.game, state.record
    return GamePublic(
        **game_summary(state).model_dump(),
        variant_origin=game.variant_origin,
        target_score=record.target_score,
        deck=game.deck,
        player_list=[PlayerPublic(id=p.id, seat=p.seat, name=p.name) for p in game.players],
        rounds=[round_info(state, n) for n in range(1, state.scheduled_rounds + 1)],
        rounds_scored=len(record.rounds),
        totals=list(record.totals),
        leaders=list(record.leaders),
        winners=list(record.winners),
        loser=record.loser,
        family=state.variant.family.value,
        cards_in_play=[str(card) for card in state.rules.cards_in_play],
    )


def player_buys(state: GameState, number: int, used: dict[int, int]) -> list[PlayerBuys]:
    allowed = state.variant.round(number).buys
    return [
        PlayerBuys(
            seat=p.seat,
            player=p.name,
            used=used.get(p.id, 0),
            allowed=allowed,
            left=max(0, allowed - used.get(p.id, 0)),
        )
        for p in state.game.players
    ]
