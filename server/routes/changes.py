"""`/api/games/{id}/changes`, `/undo`, `/reopen`: a game's history of corrections (who
and when), undoing its last change, reopening a finished game."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from ..changes import reopen_game, undo_last
from ..deps import SessionDep, StateDep, WriteStateDep, load_state
from ..models import SQL_INT_MAX, RoundChange
from ..schemas import (
    ChangePublic,
    ChangeRequest,
    GamePublic,
    UndoPublic,
    UndoRequest,
    error_responses,
)
from ..views.changes import change_public
from ..views.games import game_public

router = APIRouter(prefix="/api/games/{game_id}", tags=["changes"])


@router.get("/changes", response_model=list[ChangePublic], responses=error_responses(404, 422))
def read_changes(
    state: StateDep,
    session: SessionDep,
    round_number: Annotated[
        int | None,
        Query(alias="round", ge=1, le=SQL_INT_MAX, description="only this round's history"),
    ] = None,
) -> list[ChangePublic]:
    """The game's history, oldest first: every hand entered or corrected, every buy and
    buy taken back, the game reopened; who made each change (a device's or player's
    name, or `host`) and when, and whether it was undone (by whom, when)."""
    query = (
        select(RoundChange)
        .where(RoundChange.game_id == state.game.id)
        .options(selectinload(RoundChange.player))
        .order_by(RoundChange.id)
    )
    if round_number is not None:
        query = query.where(RoundChange.round_number == round_number)
    return [change_public(c) for c in session.scalars(query)]


@router.post("/undo", response_model=UndoPublic, responses=error_responses(404, 409, 422))
def undo(state: WriteStateDep, session: SessionDep, body: UndoRequest | None = None) -> UndoPublic:
    """Undo the game's latest change not undone yet (a hand entered or corrected, a buy
    or its take-back, a reopening), in any round, finished game or not: the round is put
    back as that change found it, and the change is marked undone, by whom and when.
    Repeated, it walks further back. With `change` (the last change as the person saw
    it), only that change is undone. 409: nothing left to undo, the last change is another
    (changed meanwhile), or the round no longer allows it (e.g. the hand was entered
    again since)."""
    change = undo_last(session, state, body.by if body else None, body.change if body else None)
    return UndoPublic(
        undone=change_public(change), game=game_public(load_state(session, state.game))
    )


@router.post("/reopen", response_model=GamePublic, responses=error_responses(404, 409, 422))
def reopen(
    state: WriteStateDep, session: SessionDep, body: ChangeRequest | None = None
) -> GamePublic:
    """Reopen a finished game: the hand entered last in its last round is taken back
    (kept in the round's history, with its cards), so that round is being played again
    and can be finished anew; undo puts the hand back. 409 for a game not finished."""
    reopen_game(session, state, body.by if body else None)
    return game_public(load_state(session, state.game))
