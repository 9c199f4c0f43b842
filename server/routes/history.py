"""`/api/history`: the finished games with their winners, each player's statistics, and
every game exported (JSON to import back, CSV to read) and imported back."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from fastapi import APIRouter, File, Response, UploadFile, status

from ..archive import (
    Archive,
    all_states,
    archive_csv,
    export_archive,
    import_archive,
    read_archive,
)
from ..csv_cells import inert_cell
from ..deps import SessionDep, SettingsDep
from ..errors import ApiError
from ..schemas import FinishedGamePublic, ImportPublic, PlayerStatsPublic, error_responses
from ..views.records import finished_games, player_stats

router = APIRouter(prefix="/api/history", tags=["history"])


def _stamp() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%d")


@router.get("/games", response_model=list[FinishedGamePublic])
def read_finished_games(session: SessionDep) -> list[FinishedGamePublic]:
    """The finished games, newest first: players, totals and winners."""
    return finished_games(all_states(session))


@router.get("/players", response_model=list[PlayerStatsPublic])
def read_player_stats(session: SessionDep) -> list[PlayerStatsPublic]:
    """Each player's games, wins, average round score and best (lowest) round over the
    finished games; a player is a name (case aside). Most wins first."""
    return player_stats(all_states(session))


@router.get("/export.json", response_model=Archive)
def export_json(session: SessionDep) -> Response:
    """Every game (finished or not) with its rules, players, hands and buys per round,
    as a file to keep or to import into another table's server (photos and round
    histories stay here)."""
    archive = export_archive(session)
    return Response(
        archive.model_dump_json(indent=1),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="shanghai-games-{_stamp()}.json"'},
    )


@router.get("/export.csv", response_class=Response, responses={200: {"content": {"text/csv": {}}}})
def export_csv(session: SessionDep) -> Response:
    """Every hand of every game, a row each: game, name, variant, start, finished, round,
    seat, player, cards, points, went out, blind, buys. For a spreadsheet (text cells
    that could start a formula are quoted); to import back, use the JSON."""
    return Response(
        archive_csv(export_archive(session), inert_cell),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="shanghai-games-{_stamp()}.csv"'},
    )


@router.post(
    "/import",
    response_model=ImportPublic,
    status_code=status.HTTP_201_CREATED,
    responses=error_responses(400, 413, 422),
)
def import_json(
    file: Annotated[UploadFile, File(description="a file from GET /api/history/export.json")],
    session: SessionDep,
    settings: SettingsDep,
) -> ImportPublic:
    """Import the games of an exported JSON file, all or none: 400 a file that is not
    JSON, 413 one too large, 422 JSON that is not an export or a game that does not
    hold (its rules, players, a hand's cards or points; the answer names the game and
    round). Games already here (the same start, variant and players) are skipped."""
    data = file.file.read(settings.max_upload_bytes + 1)
    if len(data) > settings.max_upload_bytes:
        raise ApiError(413, "the file is larger than the server takes (max_upload_bytes)")
    archive = read_archive(data)
    ids, skipped = import_archive(session, archive)
    return ImportPublic(imported=ids, skipped=skipped)
