"""`/api/games/{id}/rounds/{n}/check`: is this lay-down the round's contract? From card
text ('|' between melds, as on the table) or from a photo of the lay-down."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from fastapi import APIRouter, File, UploadFile

from shanghai.engine import Card, LayDownReport, Rules, check_lay_down, find_lay_down

from .annotate import GREEN, GREY, RED, Colour, draw_cards, encode_jpeg
from .deps import ScannerDep, SettingsDep, StateDep
from .routes_rounds import RoundNumber, _in_range
from .routes_scans import IMAGE_ERRORS
from .rules import MAX_CARDS, ApiError, parse_groups
from .scan_service import read_and_scan
from .schemas import CheckPublic, CheckRequest
from .views import check_public

router = APIRouter(prefix="/api/games/{game_id}/rounds/{number}", tags=["disputes"])
MAX_SEARCH_CARDS = 24
"""Ungrouped cards beyond this must be grouped with '|' (the grouping search is exponential)."""


def judge(groups: list[list[Card]], rules: Rules, number: int) -> tuple[LayDownReport, bool]:
    """The engine's verdict, as the CLI gives it: one ungrouped list is grouped first."""
    contract = rules.round(number).contract
    grouped = len(groups) > 1 or contract is None
    if not grouped:
        if len(groups[0]) > MAX_SEARCH_CARDS:
            raise ApiError(422, f"{len(groups[0])} ungrouped cards: separate the melds with '|'")
        found = find_lay_down(groups[0], rules, number)
        if found is not None:
            groups = [list(m.cards) for m in found]
    report = check_lay_down(groups, rules, number)
    if not report.valid and len(groups) == 1 and contract and len(contract.melds) > 1:
        report = LayDownReport(
            number,
            report.contract,
            report.melds,
            (f"these cards cannot be grouped into {contract}",),
        )
    return report, grouped


@router.post("/check", response_model=CheckPublic, responses=IMAGE_ERRORS)
def check_text(number: RoundNumber, body: CheckRequest, state: StateDep) -> CheckPublic:
    """Each meld's verdict with reasons, for a lay-down typed as text."""
    _in_range(state, number)
    groups = parse_groups(body.cards, state.rules)
    report, grouped = judge(groups, state.rules, number)
    return check_public(report, state.rules, grouped)


def _colours(report: LayDownReport, names: Sequence[str], groups: list[list[int]]) -> list[Colour]:
    """A colour per detected card: its meld's verdict (green legal, red not)."""
    colours: list[Colour] = [GREY] * len(names)
    free = {i for group in groups for i in group}
    for verdict in report.melds:
        colour = GREEN if verdict.valid else RED
        for card in verdict.cards:
            match = next((i for i in sorted(free) if names[i] == str(card)), None)
            if match is not None:
                colours[match] = colour
                free.discard(match)
    return colours


@router.post("/check-image", response_model=CheckPublic, responses=IMAGE_ERRORS)
def check_image(
    number: RoundNumber,
    image: Annotated[UploadFile, File(description="photo of one player's lay-down")],
    state: StateDep,
    settings: SettingsDep,
    scanner: ScannerDep,
) -> CheckPublic:
    """Each meld's verdict for a photo of a lay-down, with the photo annotated: every
    card boxed green (legal meld), red (illegal) or grey (not part of a meld)."""
    _in_range(state, number)
    read = read_and_scan(image, settings, scanner)
    result = read.result
    names = [c.card for c in result.cards]
    index_groups = [list(m) for m in result.melds] or [list(range(len(names)))]
    index_groups = [g for g in index_groups if g]
    if not index_groups:
        raise ApiError(422, "no cards were recognised in the photo")
    if len(names) > MAX_CARDS:
        raise ApiError(422, f"{len(names)} cards recognised: photograph one lay-down at a time")
    text = " | ".join(" ".join(names[i] for i in group) for group in index_groups)
    groups = parse_groups(text, state.rules)
    report, grouped = judge(groups, state.rules, number)
    colours = _colours(report, names, index_groups)
    annotated = encode_jpeg(draw_cards(read.image.bgr, result.cards, colours))
    return check_public(report, state.rules, grouped, result.cards, annotated)


__all__ = ["judge", "router"]
