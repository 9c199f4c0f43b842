"""Score sheets: `/api/games/{id}/sheet` (JSON), `.../sheet.csv`, `/games/{id}/print`."""

from __future__ import annotations

import csv
import io

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response

from ..changes import edited_rounds
from ..csv_cells import inert_cell
from ..deps import SessionDep, StateDep
from ..printable import PRINT_POLICY, printable_sheet
from ..schemas import SheetPublic, error_responses
from ..views.sheets import sheet_public

router = APIRouter(tags=["sheets"])
NOT_FOUND = error_responses(404)


@router.get("/api/games/{game_id}/sheet", response_model=SheetPublic, responses=NOT_FOUND)
def read_sheet(state: StateDep, session: SessionDep) -> SheetPublic:
    """Points per round and player, running totals, leaders and the result; each round
    corrected after it was scored is marked `edited` (its history: `.../changes`)."""
    return sheet_public(state, edited_rounds(session, state.game.id))


@router.get(
    "/api/games/{game_id}/sheet.csv",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}}}, **NOT_FOUND},
)
def read_sheet_csv(state: StateDep) -> Response:
    """One row per round: contract, each player's points, then each running total."""
    sheet = sheet_public(state)
    out = io.StringIO()
    writer = csv.writer(out)
    header = ["round", "contract", *sheet.players, *(f"total {p}" for p in sheet.players)]
    writer.writerow([inert_cell(cell) for cell in header])
    for rnd in sheet.rounds:
        points = ["" if p is None else p for p in rnd.points]
        totals = rnd.totals if rnd.totals else [""] * len(sheet.players)
        writer.writerow([rnd.number, inert_cell(rnd.contract or ""), *points, *totals])
    writer.writerow(["total", "", *sheet.totals, *sheet.totals])
    filename = f"shanghai-game-{sheet.game_id}.csv"
    return Response(
        out.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@router.get(
    "/games/{game_id}/print",
    response_class=HTMLResponse,
    responses=NOT_FOUND,
    tags=["pages"],
)
def print_sheet(state: StateDep) -> HTMLResponse:
    """The score sheet as a printable page, pre-filled with each round's contract."""
    return HTMLResponse(
        printable_sheet(sheet_public(state)), headers={"Content-Security-Policy": PRINT_POLICY}
    )
