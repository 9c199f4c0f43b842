"""`/api/games/{id}/rounds/{n}/buys`: record each buy (in the round in play, or a
correction of a round played); refuse one past the round's limit."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response, status
from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError

from ..changes import record_change
from ..deps import RoundNumber, SessionDep, WriteStateDep
from ..errors import ApiError
from ..models import SQL_INT_MAX, Buy
from ..schemas import ROUND_ERRORS, Author, BuyCreate, BuyPublic

router = APIRouter(prefix="/api/games/{game_id}/rounds/{number}/buys", tags=["buys"])


def _slots(session: SessionDep, game_id: int, number: int, player_id: int) -> list[int]:
    return list(
        session.scalars(
            select(Buy.slot).where(
                Buy.game_id == game_id, Buy.round_number == number, Buy.player_id == player_id
            )
        )
    )


@router.post(
    "",
    response_model=BuyPublic,
    status_code=status.HTTP_201_CREATED,
    responses=ROUND_ERRORS,
)
def create_buy(
    number: RoundNumber, body: BuyCreate, state: WriteStateDep, session: SessionDep
) -> BuyPublic:
    """One buy by a player in a round played or in play (a buy of a round already
    scored is a correction, marked on the sheet); 409 past the variant's limit or in a
    round not played yet. Kept in the round's history (`by`: who, default `host`).

    Each buy takes the lowest free slot from 1 to the limit; the database holds one buy
    per slot, so of two buys sent at once for the last slot one is refused (409)."""
    state.check_round_played(number)
    player = state.player(body.player)
    allowed = state.variant.round(number).buys
    taken = _slots(session, state.game.id, number, player.id)
    free = [slot for slot in range(1, allowed + 1) if slot not in taken]
    if not free:
        raise ApiError(
            409,
            f"{player.name} has used all {allowed} buys allowed in round {number}"
            if allowed
            else f"no buys are allowed in round {number} of {state.variant.title}",
        )
    buy = Buy(game_id=state.game.id, round_number=number, player_id=player.id, slot=free[0])
    session.add(buy)
    record_change(
        session, state, number, player, "buy", before=None, after={"slot": buy.slot}, by=body.by
    )
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        raise ApiError(
            409, f"another buy by {player.name} was recorded at the same time; check and retry"
        ) from None
    used = len(taken) + 1
    return BuyPublic(
        id=buy.id,
        round=number,
        seat=player.seat,
        player=player.name,
        used=used,
        allowed=allowed,
        left=max(0, allowed - used),
    )


@router.delete("", status_code=status.HTTP_204_NO_CONTENT, responses=ROUND_ERRORS)
def delete_buy(
    number: RoundNumber,
    player: Annotated[
        int, Query(ge=0, le=SQL_INT_MAX, description="seat whose latest buy is taken back")
    ],
    state: WriteStateDep,
    session: SessionDep,
    by: Annotated[
        Author | None,
        Query(max_length=240, description="who takes it back, kept in the round's history"),
    ] = None,
) -> Response:
    """Take back a player's latest buy, recorded by mistake, in a round played or in
    play; kept in the round's history (`by`: who, default `host`).

    204 only when this request removed the buy: of two sent at once for the same buy,
    the second answers 409."""
    state.check_round_played(number)
    seated = state.player(player)
    latest = session.scalar(
        select(Buy.id)
        .where(Buy.game_id == state.game.id, Buy.round_number == number)
        .where(Buy.player_id == seated.id)
        .order_by(Buy.id.desc())
        .limit(1)
    )
    if latest is None:
        raise ApiError(404, f"{seated.name} has no buy to take back in round {number}")
    slot = session.scalar(select(Buy.slot).where(Buy.id == latest))
    removed = session.connection().execute(delete(Buy).where(Buy.id == latest))
    if removed.rowcount != 1:
        raise ApiError(
            409, f"{seated.name}'s latest buy was taken back at the same time by another request"
        )
    record_change(
        session, state, number, seated, "buy-back", before={"slot": slot}, after=None, by=by
    )
    session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)
