"""`/api/games/{game_id}/players`: rename a player (a typo at the start, a nickname);
seats, hands and scores stay as they are."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from ..deps import SessionDep, WriteStateDep, load_state
from ..errors import ApiError
from ..models import SQL_INT_MAX
from ..schemas import GamePublic, PlayerRename, error_responses
from ..views.games import game_public

router = APIRouter(prefix="/api/games/{game_id}/players", tags=["games"])
Seat = Annotated[int, Path(ge=0, le=SQL_INT_MAX, description="the player's seat, from 0")]


@router.patch(
    "/{seat}",
    response_model=GamePublic,
    responses=error_responses(404, 409, 422),
)
def rename_player(
    seat: Seat, body: PlayerRename, state: WriteStateDep, session: SessionDep
) -> GamePublic:
    """Give the player in `seat` a new name: 404 no such game or seat, 409 a name another
    player of this game has (in any case), 422 an empty or too long name. The game is
    answered as it now reads."""
    player = state.player(seat)
    for other in state.game.players:
        if other.seat != seat and other.name.casefold() == body.name.casefold():
            raise ApiError(
                409, f"{other.name} is already the name of the player in seat {other.seat}"
            )
    player.name = body.name
    session.commit()
    return game_public(load_state(session, state.game))
