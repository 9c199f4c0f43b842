"""Typed dependencies shared by the routers: settings, the session, the scanner, a
stored game loaded (404 when unknown) together with its engine state, and the path
parameters several routers take."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path
from sqlalchemy import select, update
from sqlalchemy.orm import selectinload

from .db import SessionDep
from .errors import ApiError
from .game_state import GameState
from .models import SQL_INT_MAX, Game, Hand
from .scanning import ScannerDep
from .settings import SettingsDep

__all__ = [
    "GameDep",
    "RoundNumber",
    "ScannerDep",
    "SessionDep",
    "SettingsDep",
    "StateDep",
    "WriteGameDep",
    "WriteStateDep",
    "get_game",
    "get_state",
    "load_state",
]


def get_game(session: SessionDep, game_id: Annotated[int, Path(ge=1, le=SQL_INT_MAX)]) -> Game:
    game = session.scalars(
        select(Game).where(Game.id == game_id).options(selectinload(Game.players))
    ).one_or_none()
    if game is None:
        raise ApiError(404, f"game {game_id} not found")
    return game


GameDep = Annotated[Game, Depends(get_game)]


def get_game_for_write(
    session: SessionDep, game_id: Annotated[int, Path(ge=1, le=SQL_INT_MAX)]
) -> Game:
    """The game, locked for this request's transaction before anything of it is read.

    Every rule the routes check by reading first (the round in play, the buys left, the
    game not over) holds only if nothing changes the game between that read and the
    write. So a request that changes a game starts with a write to its row: PostgreSQL
    locks the row, SQLite takes its database write lock, and any other change of the
    game waits until this one commits; what is read next is what that one left."""
    locked = session.execute(update(Game).where(Game.id == game_id).values(id=Game.id))
    if locked.rowcount == 0:  # type: ignore[attr-defined]
        session.rollback()
        raise ApiError(404, f"game {game_id} not found")
    return get_game(session, game_id)


WriteGameDep = Annotated[Game, Depends(get_game_for_write)]
"""A game to change: every other change of it waits until this request's commit."""
RoundNumber = Annotated[int, Path(le=SQL_INT_MAX, description="round (deal) number, from 1")]


def load_state(session: SessionDep, game: Game) -> GameState:
    hands = session.scalars(
        select(Hand)
        .where(Hand.game_id == game.id)
        .order_by(Hand.round_number, Hand.id)
        .options(selectinload(Hand.corrections))
    ).all()
    return GameState.load(game, hands)


def get_state(session: SessionDep, game: GameDep) -> GameState:
    return load_state(session, game)


StateDep = Annotated[GameState, Depends(get_state)]


def get_state_for_write(session: SessionDep, game: WriteGameDep) -> GameState:
    return load_state(session, game)


WriteStateDep = Annotated[GameState, Depends(get_state_for_write)]
"""A game's state read under the game's write lock (`get_game_for_write`): the routes
that check a rule and then write take this one, so the check holds at the write."""
