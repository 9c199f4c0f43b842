"""`/api/games/{id}/rounds/{n}/check`: is this lay-down the round's contract? From card
text ('|' between melds, as on the table) or from a photo of the lay-down."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, UploadFile

from shanghai.engine import LayDownReport, ShanghaiError, judge_lay_down
from shanghai.vision.overlay import GREEN, GREY, RED, Colour
from shanghai.vision.snapshot import PhotoKind, TableSnapshot

from ..card_input import read_lay_down
from ..deck_jobs import GameScannerDep
from ..deps import RoundNumber, SettingsDep, StateDep
from ..errors import ApiError
from ..scan_service import overlay, read_and_scan
from ..schemas import IMAGE_ERRORS, CheckPublic, CheckRequest
from ..views.checks import check_public

router = APIRouter(prefix="/api/games/{game_id}/rounds/{number}", tags=["disputes"])
MAX_SEARCH_CARDS = 24
"""Ungrouped cards beyond this must be grouped with '|' (the grouping search is exponential)."""


@router.post("/check", response_model=CheckPublic, responses=IMAGE_ERRORS)
def check_text(number: RoundNumber, body: CheckRequest, state: StateDep) -> CheckPublic:
    """Each meld's verdict with reasons, for a lay-down typed as text."""
    state.check_round_exists(number)
    groups = read_lay_down(body.cards, state.rules)
    try:
        report, grouped = judge_lay_down(
            groups, state.rules, number, most_ungrouped=MAX_SEARCH_CARDS
        )
    except ShanghaiError as exc:
        raise ApiError(422, str(exc)) from None
    return check_public(report, state.rules, grouped)


def _colours(photo: TableSnapshot, report: LayDownReport) -> list[Colour]:
    """A colour per card read: its meld's verdict (green legal, red not), grey loose."""
    colours: list[Colour] = [GREY] * len(photo.cards)
    melds = [meld for seat in photo.seats for meld in seat.melds]
    for positions, verdict in zip(melds, report.melds, strict=False):
        for i in positions:
            colours[i] = GREEN if verdict.valid else RED
    return colours


@router.post("/check-image", response_model=CheckPublic, responses=IMAGE_ERRORS)
def check_image(
    number: RoundNumber,
    image: Annotated[UploadFile, File(description="photo of one player's lay-down")],
    state: StateDep,
    settings: SettingsDep,
    scanner: GameScannerDep,
) -> CheckPublic:
    """Each meld's verdict for a photo of a lay-down, as `shanghai check PHOTO` gives it:
    rows and fans of overlapping cards are melds in table order, a card on its own is
    `loose`; `text` holds the melds as lay-down text to edit and check again. The photo
    comes back annotated: every card boxed green (legal meld), red (illegal) or grey
    (not part of a meld), unsure reads and unread cards orange."""
    state.check_round_exists(number)
    read = read_and_scan(image, settings, scanner, rules=state.rules, kind=PhotoKind.LAY_DOWN)
    photo = read.snapshot
    report = photo.lay_down(photo.seats[0], number)
    annotated = overlay(read, _colours(photo, report))
    return check_public(report, state.rules, True, photo, annotated)


__all__ = ["router"]
