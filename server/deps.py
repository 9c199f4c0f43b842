"""Typed dependencies shared by the routers: settings, the session, the scanner, a
stored game loaded (404 when unknown) together with its engine state, and the path
parameters several routers take."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path
from sqlalchemy import select
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
