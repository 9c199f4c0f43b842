"""Every game exported and imported back: the file format (`Archive`, JSON), the export
(also as CSV, a row per hand) and the import, which checks each game as the API would
have (its house rules, its players, each hand's cards and points) before storing any.

A game's photos and its round histories stay on the server that has them; an import
brings back the games, their hands and their buys, and the name of the taught deck a
game's scans read with. Taught decks themselves are not in the file: an imported game
whose deck is not on this server (or is one of another family) keeps the name, and its
scans read with the shipped models (`deck_jobs.DeckScanners.for_deck`) until a deck of
that name is taught here."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from collections.abc import Callable, Sequence
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, Field, ValidationError
from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from shanghai.engine import GameRecord, ShanghaiError, format_cards, score_hand

from .card_input import read_hand
from .errors import ApiError
from .game_state import GameState
from .models import GAME_NAME_LENGTH, SQL_INT_MAX, Buy, Game, Hand, Player
from .schemas import DeckName, Text, player_name
from .variant_snapshots import variant_from_toml

__all__ = [
    "FORMAT",
    "Archive",
    "ArchiveGame",
    "all_states",
    "archive_csv",
    "export_archive",
    "import_archive",
    "read_archive",
]

FORMAT: Literal["shanghai-games"] = "shanghai-games"
Points = Annotated[int, Field(ge=-100_000, le=100_000)]


class ArchiveHand(BaseModel):
    seat: int = Field(ge=0, le=19)
    cards: Text = Field(max_length=400, description="the cards left, e.g. '7h 10s JK'")
    hand_points: Points
    bonus: Points = 0
    went_out: bool
    blind: bool = False


class ArchiveRound(BaseModel):
    number: int = Field(ge=1, le=SQL_INT_MAX)
    contract: str | None = Field(default=None, description="for reading only")
    hands: list[ArchiveHand] = Field(max_length=20)
    buys: list[int] = Field(
        default_factory=list, max_length=20, description="buys per seat, in seat order"
    )


class ArchiveGame(BaseModel):
    id: int | None = Field(default=None, description="the game's id where it was exported")
    name: Text = Field(default="", max_length=GAME_NAME_LENGTH)
    variant_name: str = Field(default="", max_length=100, description="for reading only")
    variant_title: str = Field(default="", max_length=200, description="for reading only")
    variant_origin: Literal["built-in", "house-rule", "uploaded", "imported"] = "imported"
    variant_toml: Text = Field(max_length=100_000, description="the rules the game was played by")
    target_score: int | None = Field(default=None, ge=1, le=100_000)
    deck: DeckName | None = Field(
        default=None,
        description="the taught deck its scans read with (None: the shipped reading); "
        "imported as a name only",
    )
    created_at: dt.datetime
    players: list[Annotated[Text, AfterValidator(player_name)]] = Field(min_length=1, max_length=20)
    finished: bool = Field(default=False, description="for reading only")
    totals: list[int] = Field(default_factory=list, description="for reading only")
    winners: list[str] = Field(default_factory=list, description="for reading only")
    rounds: list[ArchiveRound] = Field(default_factory=list, max_length=1000)


class Archive(BaseModel):
    """`GET /api/history/export.json`, and what `POST /api/history/import` takes back."""

    format: Literal["shanghai-games"] = FORMAT
    version: Literal[1] = 1
    exported_at: dt.datetime | None = None
    games: list[ArchiveGame] = Field(max_length=10_000)


# --- export -----------------------------------------------------------------------------


def all_states(session: Session) -> list[GameState]:
    """Every stored game seen through the engine, oldest first."""
    games = session.scalars(
        select(Game).options(selectinload(Game.players)).order_by(Game.id)
    ).all()
    hands = session.scalars(select(Hand).order_by(Hand.round_number, Hand.id)).all()
    by_game: dict[int, list[Hand]] = {}
    for hand in hands:
        by_game.setdefault(hand.game_id, []).append(hand)
    return [GameState.load(g, by_game.get(g.id, [])) for g in games]


def _buys(session: Session) -> dict[tuple[int, int, int], int]:
    """Buys per (game, round, player id)."""
    counts: dict[tuple[int, int, int], int] = {}
    for game_id, number, player_id in session.execute(
        select(Buy.game_id, Buy.round_number, Buy.player_id)
    ):
        key = (game_id, number, player_id)
        counts[key] = counts.get(key, 0) + 1
    return counts


def export_archive(session: Session) -> Archive:
    """Every game, oldest first, with its hands and buys per round."""
    buys = _buys(session)
    out: list[ArchiveGame] = []
    for state in all_states(session):
        game, players = state.game, state.game.players
        numbers = sorted(
            {h.round_number for h in state.hands} | {n for (g, n, _) in buys if g == game.id}
        )
        rounds = []
        for number in numbers:
            hands = state.hands_in(number)
            rule = state.variant.round(number) if number <= state.scheduled_rounds else None
            rounds.append(
                ArchiveRound(
                    number=number,
                    contract=str(rule.contract) if rule and rule.contract else None,
                    hands=[
                        ArchiveHand(
                            seat=seat,
                            cards=h.cards,
                            hand_points=h.hand_points,
                            bonus=h.bonus,
                            went_out=h.went_out,
                            blind=h.blind,
                        )
                        for seat, h in sorted(hands.items())
                    ],
                    buys=[buys.get((game.id, number, p.id), 0) for p in players],
                )
            )
        out.append(
            ArchiveGame(
                id=game.id,
                name=game.name,
                variant_name=game.variant_name,
                variant_title=game.variant_title,
                variant_origin=game.variant_origin,  # type: ignore[arg-type]
                variant_toml=game.variant_toml,
                target_score=game.target_score,
                deck=game.deck,
                created_at=game.created_at,
                players=[p.name for p in players],
                finished=state.record.is_finished,
                totals=list(state.record.totals),
                winners=list(state.record.winners),
                rounds=rounds,
            )
        )
    return Archive(exported_at=dt.datetime.now(dt.UTC), games=out)


CSV_HEADER = (
    "game",
    "name",
    "variant",
    "started",
    "finished",
    "round",
    "seat",
    "player",
    "cards",
    "points",
    "went_out",
    "blind",
    "buys",
)


def archive_csv(archive: Archive, cell: Callable[[str], str]) -> str:
    """A row per hand (`CSV_HEADER`); text cells through `cell` (made inert: a
    spreadsheet shows them as text, never as a formula)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_HEADER)
    for game in archive.games:
        for rnd in game.rounds:
            for hand in rnd.hands:
                writer.writerow(
                    [
                        game.id,
                        cell(game.name),
                        cell(game.variant_title),
                        game.created_at.isoformat(),
                        "yes" if game.finished else "no",
                        rnd.number,
                        hand.seat,
                        cell(game.players[hand.seat]),
                        hand.cards,
                        hand.hand_points + hand.bonus,
                        "yes" if hand.went_out else "no",
                        "yes" if hand.blind else "no",
                        rnd.buys[hand.seat] if hand.seat < len(rnd.buys) else 0,
                    ]
                )
    return out.getvalue()


# --- import -----------------------------------------------------------------------------


def read_archive(data: bytes) -> Archive:
    """The file's games: 400 for a file that is not JSON text, 422 for JSON that is not
    an export of this app (saying where)."""
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ApiError(
            400, "the file is not text (UTF-8): choose the .json file exported"
        ) from None
    except json.JSONDecodeError as exc:
        raise ApiError(
            400, f"the file is not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ApiError(
            422, f'the file is JSON but not an export of this app (no "format": "{FORMAT}")'
        )
    try:
        return Archive.model_validate(document)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        count = exc.error_count()
        more = f" (and {count - 1} more problem{'s' if count > 2 else ''})" if count > 1 else ""
        raise ApiError(
            422, f"the file does not read as an export: {where}: {first['msg']}{more}"
        ) from None


def _key(created_at: dt.datetime, variant: str, players: Sequence[str]) -> tuple[str, ...]:
    return (created_at.astimezone(dt.UTC).isoformat(), variant, *(p.casefold() for p in players))


def _game(number: int, entry: ArchiveGame) -> tuple[Game, list[Hand], list[Buy]]:
    """One game of the file as rows, checked as the API would have (422 naming it)."""
    title = f"game {number}" + (f" ({entry.name})" if entry.name else "")
    try:
        variant = variant_from_toml(entry.variant_toml)
        names = tuple(entry.players)
        if len({n.casefold() for n in names}) != len(names):
            raise ApiError(422, "player names must be different")
        GameRecord(variant=variant, players=names, target_score=entry.target_score)
        rules = variant.rules(len(names))
        players = [Player(seat=seat, name=name) for seat, name in enumerate(names)]
        game = Game(
            name=" ".join(entry.name.split()),
            variant_name=variant.name,
            variant_title=variant.title,
            variant_origin=entry.variant_origin,
            variant_toml=entry.variant_toml,
            target_score=entry.target_score or variant.target_score,
            deck=entry.deck,
            created_at=entry.created_at
            if entry.created_at.tzinfo
            else entry.created_at.replace(tzinfo=dt.UTC),
            players=players,
        )
        hands: list[Hand] = []
        buys: list[Buy] = []
        scored = sorted(r.number for r in entry.rounds if r.hands)
        if scored != list(range(1, len(scored) + 1)):
            raise ApiError(422, "the rounds with hands must be 1, 2, 3, ... without a gap")
        for rnd in entry.rounds:
            variant.verify_round(rnd.number)
            if rnd.number < max(scored, default=0) and len(rnd.hands) != len(names):
                raise ApiError(422, f"round {rnd.number}: a hand is missing before a later round")
            seats = [h.seat for h in rnd.hands]
            if len(set(seats)) != len(seats) or any(s >= len(names) for s in seats):
                raise ApiError(422, f"round {rnd.number}: each hand needs its own player's seat")
            if sum(h.went_out for h in rnd.hands) > 1:
                raise ApiError(422, f"round {rnd.number}: only one player can go out")
            for hand in rnd.hands:
                cards = read_hand(hand.cards, rules)
                worth = score_hand(cards, rules).points
                who = f"round {rnd.number}, {names[hand.seat]}"
                if hand.hand_points != worth:
                    raise ApiError(422, f"{who}: {hand.hand_points} points for cards worth {worth}")
                if hand.went_out == bool(cards):
                    raise ApiError(422, f"{who}: went_out must say whether no cards were left")
                hands.append(
                    Hand(
                        round_number=rnd.number,
                        cards=format_cards(cards),
                        hand_points=hand.hand_points,
                        bonus=hand.bonus,
                        went_out=hand.went_out,
                        blind=hand.blind,
                        player_id=-1 - hand.seat,  # the seat, until the players have ids
                    )
                )
            allowed = variant.round(rnd.number).buys
            if len(rnd.buys) > len(names) or any(not 0 <= b <= allowed for b in rnd.buys):
                raise ApiError(
                    422, f"round {rnd.number}: buys per seat must be 0 to {allowed}, one per seat"
                )
            for seat, count in enumerate(rnd.buys):
                buys += [
                    Buy(round_number=rnd.number, player_id=-1 - seat, slot=slot)
                    for slot in range(1, count + 1)
                ]
        return game, hands, buys
    except ShanghaiError as exc:
        raise ApiError(422, f"{title}: {exc}") from None
    except ApiError as exc:
        raise ApiError(exc.status, f"{title}: {exc.detail}") from None


def import_archive(session: Session, archive: Archive) -> tuple[list[int], int]:
    """Store the file's games (all or none): the new ids, and how many were skipped as
    already here (the same start time, variant and players)."""
    here = {
        _key(g.created_at, g.variant_name, [p.name for p in g.players])
        for g in session.scalars(select(Game).options(selectinload(Game.players)))
    }
    imported: list[Game] = []
    skipped = 0
    for number, entry in enumerate(archive.games, start=1):
        game, hands, buys = _game(number, entry)
        key = _key(game.created_at, game.variant_name, [p.name for p in game.players])
        if key in here:
            skipped += 1
            continue
        here.add(key)
        session.add(game)
        session.flush()
        seat_ids = {-1 - p.seat: p.id for p in game.players}
        for hand in hands:
            hand.game_id, hand.player_id = game.id, seat_ids[hand.player_id]
        for buy in buys:
            buy.game_id, buy.player_id = game.id, seat_ids[buy.player_id]
        session.add_all([*hands, *buys])
        session.flush()
        try:
            GameState.load(game, hands)
        except ShanghaiError as exc:
            session.rollback()
            raise ApiError(422, f"game {number}: {exc}") from None
        imported.append(game)
    session.commit()
    return [g.id for g in imported], skipped
