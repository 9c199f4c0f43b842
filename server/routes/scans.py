"""`/api/games/{id}/rounds/{n}/scans` and `/api/scans/{id}`: a photo (or live frame) of
a player's cards at round end, read by the scanner and kept as evidence.

The evidence is read back only with the scan's token (`?token=`, in the `image_url` and
`annotated_url` a scan answers with; server/evidence.py): a wrong or missing token is a
404, as an unknown scan is."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, File, Form, Path, Query, Response, UploadFile, status

from shanghai.vision.snapshot import PhotoKind

from ..deck_jobs import GameScannerDep
from ..deps import RoundNumber, SessionDep, SettingsDep, StateDep, load_state
from ..errors import ApiError
from ..evidence import EvidenceKey, EvidenceKeyDep
from ..models import SQL_INT_MAX, Game, Scan
from ..scan_service import overlay, read_and_scan
from ..schemas import IMAGE_ERRORS, ROUND_ERRORS, ScanPublic, error_responses
from ..views.scans import scan_public

router = APIRouter(tags=["scans"])


@router.post(
    "/api/games/{game_id}/rounds/{number}/scans",
    response_model=ScanPublic,
    status_code=status.HTTP_201_CREATED,
    responses=IMAGE_ERRORS,
)
def create_scan(
    number: RoundNumber,
    image: Annotated[UploadFile, File(description="JPEG, PNG, WebP or BMP photo")],
    player: Annotated[int, Form(ge=0, le=SQL_INT_MAX, description="seat number, from 0")],
    state: StateDep,
    session: SessionDep,
    settings: SettingsDep,
    scanner: GameScannerDep,
    evidence: EvidenceKeyDep,
    source: Annotated[Literal["upload", "live"], Form()] = "upload",
    photo: Annotated[
        Literal["hand", "table"],
        Form(description="hand: one player's cards; table: the whole table, a hand per seat"),
    ] = "hand",
) -> ScanPublic:
    """Read the cards left in a player's hand: every card read in the photo is proposed,
    with `warnings` saying what could not be read. A whole-table photo (`photo=table`)
    gives a hand per seat (`seats`, sectors from the bottom of the photo, clockwise);
    the person picks whose (`scan_seat` when confirming). The player confirms or
    corrects the cards by scoring the hand with this `scan_id`."""
    state.check_round(number)
    seated = state.player(player)
    kind = PhotoKind.TABLE if photo == "table" else PhotoKind.HAND
    seats = len(state.game.players) if kind is PhotoKind.TABLE else 1
    read = read_and_scan(image, settings, scanner, rules=state.rules, kind=kind, seats=seats)
    snapshot = read.snapshot
    seat_of = {i: seat.seat for seat in snapshot.seats for i in seat.hand}
    scan = Scan(
        game_id=state.game.id,
        round_number=number,
        player_id=seated.id,
        source=source,
        image=read.image.data,
        image_type=read.image.media_type,
        width=read.image.width,
        height=read.image.height,
        detections=[
            {
                "card": str(c.card),
                "confidence": round(float(c.confidence), 4),
                "xyxy": [round(float(v), 1) for v in c.xyxy],
                "hand": i in seat_of,
                "seat": seat_of.get(i),
                "sure": c.sure,
            }
            for i, c in enumerate(snapshot.cards)
        ],
        warnings=[w.to_json() for w in snapshot.warnings],
        photo=photo,
        annotated_jpeg=overlay(read),
        scanner=scanner.name[:200],
    )
    session.add(scan)
    session.commit()
    return scan_public(scan, state.game, state.rules, evidence)


ScanId = Annotated[int, Path(ge=1, le=SQL_INT_MAX)]
EvidenceToken = Annotated[
    str | None,
    Query(description="the scan's token, as in its image_url"),
]


def _scan(session: SessionDep, evidence: EvidenceKey, scan_id: int, token: str | None) -> Scan:
    """The scan, when `token` is its token (the same 404 otherwise: ids cannot be
    probed)."""
    scan = session.get(Scan, scan_id) if evidence.verify(scan_id, token) else None
    if scan is None:
        raise ApiError(404, f"scan {scan_id} not found")
    return scan


@router.get("/api/scans/{scan_id}", response_model=ScanPublic, responses=ROUND_ERRORS)
def read_scan(
    scan_id: ScanId, session: SessionDep, evidence: EvidenceKeyDep, token: EvidenceToken = None
) -> ScanPublic:
    """A scan read back: what was read, proposed and warned (with the token of its
    `image_url`)."""
    scan = _scan(session, evidence, scan_id, token)
    game = session.get(Game, scan.game_id)
    assert game is not None
    state = load_state(session, game)
    return scan_public(scan, game, state.rules, evidence)


@router.get(
    "/api/scans/{scan_id}/image",
    response_class=Response,
    responses={200: {"content": {"image/jpeg": {}}}, **error_responses(404)},
)
def read_scan_image(
    scan_id: ScanId, session: SessionDep, evidence: EvidenceKeyDep, token: EvidenceToken = None
) -> Response:
    """The photo as it was uploaded (evidence)."""
    scan = _scan(session, evidence, scan_id, token)
    return Response(scan.image, media_type=scan.image_type)


@router.get(
    "/api/scans/{scan_id}/annotated.jpg",
    response_class=Response,
    responses={200: {"content": {"image/jpeg": {}}}, **error_responses(404)},
)
def read_scan_annotated(
    scan_id: ScanId, session: SessionDep, evidence: EvidenceKeyDep, token: EvidenceToken = None
) -> Response:
    """The photo with each card read boxed and named."""
    scan = _scan(session, evidence, scan_id, token)
    return Response(scan.annotated_jpeg, media_type="image/jpeg")
