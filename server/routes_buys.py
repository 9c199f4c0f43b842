"""`/api/games/{id}/rounds/{n}/buys`: record each buy; refuse one past the round's limit."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response, status
from sqlalchemy import func, select

from .deps import SessionDep, StateDep
from .models import SQL_INT_MAX, Buy, Player
from .routes_rounds import ERRORS, RoundNumber, _player
from .rules import ApiError
from .schemas import BuyCreate, BuyPublic

router = APIRouter(prefix="/api/games/{game_id}/rounds/{number}/buys", tags=["buys"])


def _count(session: SessionDep, game_id: int, number: int, player_id: int) -> int:
    return (
        session.scalar(
            select(func.count(Buy.id)).where(
                Buy.game_id == game_id, Buy.round_number == number, Buy.player_id == player_id
            )
        )
        or 0
    )


@router.post("", response_model=BuyPublic, status_code=status.HTTP_201_CREATED, responses=ERRORS)
def create_buy(
    number: RoundNumber, body: BuyCreate, state: StateDep, session: SessionDep
) -> BuyPublic:
    """One buy by a player in the round being played (409 past the variant's limit)."""
    state.check_round(number)
    player = _player(state, body.player)
    # Lock the player's row (PostgreSQL) so two buys sent at once cannot both pass the
    # limit; SQLite serialises writers anyway.
    session.execute(select(Player.id).where(Player.id == player.id).with_for_update())
    allowed = state.variant.round(number).buys
    used = _count(session, state.game.id, number, player.id)
    if used >= allowed:
        raise ApiError(
            409,
            f"{player.name} has used all {allowed} buys allowed in round {number}"
            if allowed
            else f"no buys are allowed in round {number} of {state.variant.title}",
        )
    buy = Buy(game_id=state.game.id, round_number=number, player_id=player.id)
    session.add(buy)
    session.commit()
    return BuyPublic(
        id=buy.id,
        round=number,
        seat=player.seat,
        player=player.name,
        used=used + 1,
        allowed=allowed,
        left=allowed - used - 1,
    )


@router.delete("", status_code=status.HTTP_204_NO_CONTENT, responses=ERRORS)
def delete_buy(
    number: RoundNumber,
    player: Annotated[
        int, Query(ge=0, le=SQL_INT_MAX, description="seat whose latest buy is taken back")
    ],
    state: StateDep,
    session: SessionDep,
) -> Response:
    """Take back a player's latest buy, recorded by mistake (round being played only)."""
    state.check_round(number)
    seated = _player(state, player)
    buy = session.scalars(
        select(Buy)
        .where(Buy.game_id == state.game.id, Buy.round_number == number)
        .where(Buy.player_id == seated.id)
        .order_by(Buy.id.desc())
        .limit(1)
    ).first()
    if buy is None:
        raise ApiError(404, f"{seated.name} has no buy to take back in round {number}")
    session.delete(buy)
    session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)
