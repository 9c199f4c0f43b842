"""`/api/games`: create a game (variant snapshot, players in seat order), read it, list,
rename it, delete it with everything it holds."""

from __future__ import annotations

from fastapi import APIRouter, Response, status
from sqlalchemy import delete, select
from sqlalchemy.orm import selectinload

from shanghai.engine import GameRecord, ShanghaiError, score_hand
from shanghai.engine.cards import DeckFamily
from shanghai.vision.deck_store import DeckError

from ..card_input import read_hand
from ..deck_jobs import DecksDep, TeachDecks
from ..deps import GameDep, SessionDep, SettingsDep, StateDep, WriteStateDep, load_state
from ..errors import ApiError
from ..models import VARIANT_NAME_LENGTH, VARIANT_TITLE_LENGTH, Game, Player
from ..schemas import (
    GameCreate,
    GamePublic,
    GameRename,
    GameSummary,
    PointsPublic,
    PointsRequest,
    error_responses,
)
from ..variant_snapshots import variant_from_toml, variant_snapshot
from ..views.games import game_public, game_summary

router = APIRouter(prefix="/api/games", tags=["games"])
NOT_FOUND = error_responses(404)


@router.post(
    "",
    response_model=GamePublic,
    status_code=status.HTTP_201_CREATED,
    responses=error_responses(422),
)
def create_game(
    body: GameCreate, session: SessionDep, settings: SettingsDep, decks: DecksDep
) -> GamePublic:
    if body.variant_toml is not None:
        try:
            variant = variant_from_toml(body.variant_toml)
        except ShanghaiError as exc:
            raise ApiError(422, f"house-rule file: {exc}") from None
        text, origin = body.variant_toml, "uploaded"
    else:
        assert body.variant is not None
        variant, text, origin = variant_snapshot(body.variant, settings.variant_search_dirs)
    for what, value, most in (
        ("name", variant.name, VARIANT_NAME_LENGTH),
        ("title", variant.title, VARIANT_TITLE_LENGTH),
    ):
        if len(value) > most:
            raise ApiError(
                422,
                f"house-rule file: the variant's {what} is {len(value)} characters; at most {most}",
            )
    if body.target_score is not None and variant.target_score is None:
        raise ApiError(
            422, f"{variant.title} is played over a fixed number of rounds: no target score"
        )
    try:
        GameRecord(variant=variant, players=tuple(body.players), target_score=body.target_score)
    except ShanghaiError as exc:
        raise ApiError(422, str(exc)) from None
    deck = _game_deck(body.deck, variant.family, decks) if body.deck else None
    game = Game(
        name=body.name.strip(),
        deck=deck,
        variant_name=variant.name,
        variant_title=variant.title,
        variant_origin=origin,
        variant_toml=text,
        target_score=body.target_score or variant.target_score,
        players=[Player(seat=seat, name=name) for seat, name in enumerate(body.players)],
    )
    session.add(game)
    session.commit()
    return game_public(load_state(session, game))


def _game_deck(name: str, family: DeckFamily, decks: TeachDecks) -> str:
    """A stored, adapted deck of the variant's family (422 otherwise, saying why)."""
    try:
        deck = decks.store.get(name)
    except DeckError as exc:
        raise ApiError(422, f"deck: {exc}") from None
    if deck.family is not family:
        raise ApiError(
            422, f"deck {name} is a {deck.family} deck; this variant is played with {family} cards"
        )
    if not deck.adapted:
        raise ApiError(422, f"deck {name} is not adapted yet: adapt it first")
    return deck.name


@router.get("", response_model=list[GameSummary])
def read_games(session: SessionDep) -> list[GameSummary]:
    """Every game, newest first."""
    games = session.scalars(
        select(Game).options(selectinload(Game.players)).order_by(Game.id.desc())
    ).all()
    return [game_summary(load_state(session, g)) for g in games]


@router.get("/{game_id}", response_model=GamePublic, responses=NOT_FOUND)
def read_game(state: StateDep) -> GamePublic:
    return game_public(state)


@router.patch("/{game_id}", response_model=GamePublic, responses=error_responses(404, 422))
def rename_game(body: GameRename, state: WriteStateDep, session: SessionDep) -> GamePublic:
    """Give the game a new name (spaces trimmed; empty: no name, the page then says
    'Game N'). 404 an unknown game, 422 a name too long. Answers the game as it reads."""
    state.game.name = " ".join(body.name.split())
    session.commit()
    return game_public(load_state(session, state.game))


@router.delete(
    "/{game_id}", status_code=status.HTTP_204_NO_CONTENT, responses=error_responses(404, 409)
)
def delete_game(game: GameDep, session: SessionDep) -> Response:
    """Delete a game for good: its players, hands and their corrections, buys, and its
    scans with their photos (the evidence). 404 an unknown game; 409 when another request
    deleted it at the same time (204 only for the request that removed it)."""
    removed = session.connection().execute(delete(Game).where(Game.id == game.id))
    if removed.rowcount != 1:
        raise ApiError(409, f"game {game.id} was deleted at the same time by another request")
    session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post(
    "/{game_id}/points",
    response_model=PointsPublic,
    responses=error_responses(404, 422),
)
def count_points(body: PointsRequest, state: StateDep) -> PointsPublic:
    """What a hand would score in this game (nothing is stored)."""
    cards = read_hand(body.cards, state.rules)
    hand = score_hand(cards, state.rules)
    return PointsPublic(
        cards=[str(c) for c in cards], per_card=list(hand.per_card), points=hand.points
    )
