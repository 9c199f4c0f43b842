"""Live view: `/api/live/ws` takes frames from the browser's camera and answers each with
the cards read (boxes for the overlay, and the frame they belong to) and the stable
table state; with `?game=ID` the stream is that game's camera, its stable table judged
by the game's rules and shown to every screen watching the game (`/api/live/watch`,
through `live_hub.LiveHub`); `/api/live/camera...` serves the server-side camera
(`shanghai serve --camera 0` or a video file); `/api/live/picture.jpg?game=ID` is the
frame the game's steady table was read from, boxed, for the watching screens."""

from __future__ import annotations

import asyncio
import json
import time
import unicodedata

from fastapi import APIRouter, Response, WebSocket, WebSocketDisconnect
from fastapi.concurrency import run_in_threadpool
from fastapi.requests import HTTPConnection

from shanghai.vision.arrays import Frame
from shanghai.vision.images import encode_jpeg
from shanghai.vision.overlay import SnapshotOverlay
from shanghai.vision.scan import ScanInputError
from shanghai.vision.snapshot import TableSnapshot

from ..deck_jobs import TeachDecks
from ..deps import ScannerDep, SettingsDep, get_game, load_state
from ..errors import ApiError
from ..images import decode_upload
from ..live import CameraFeed, LiveGame, LiveSession
from ..live_hub import GameFullError, LiveHub, Stream
from ..models import SQL_INT_MAX
from ..scanning import CardScanner, ScannerUnavailableError
from ..schemas import CameraStatus, LiveUpdate, error_responses
from ..settings import Settings

router = APIRouter(prefix="/api/live", tags=["live"])
WS_POLICY_VIOLATION = 1008
WS_TRY_AGAIN_LATER = 1013
DEVICE_NAME_LENGTH = 40
PICTURE_SIDE = 480
"""Long side of the picture a watching screen gets of the steady table (a phone's width;
about 30 kB)."""
PICTURE_OVERLAY = SnapshotOverlay(outlines=False, max_side=PICTURE_SIDE)
UNNAMED_DEVICE = "another device"


@router.websocket("/ws")
async def live_socket(
    websocket: WebSocket,
    scanner: ScannerDep,
    settings: SettingsDep,
    game: str | None = None,
    device: str | None = None,
) -> None:
    """Send each frame as a binary message (JPEG/PNG/WebP), optionally after the text
    `{"frame": N}` naming it (ids count up from 1 otherwise); each answer is a JSON
    `LiveUpdate` whose `frame` is the frame its card boxes belong to: the frame just sent,
    or while the picture moves (a hand over the table), the earlier one the cards were
    read from. A frame like the last one scanned is not scanned again (`LiveSession`).
    `{"error", "status"}` answers a frame that cannot be used. Send the text `reset` to
    forget the table state, `stop` to end (answered `{"stopped": true}`, then closed).
    Closes with 1013 when recognition is unavailable.

    `?game=ID` (and `&device=NAME`, the page's "This device is"): frames are read with
    the game's rules (and deck) and a seat per player, each answer carries the latest
    stable `table` (each seat's melds judged as a lay-down for the round in play), and
    every screen watching the game (`/api/live/watch?game=ID`) sees it. A game that is
    not one is answered `{"error", "status": 404 or 422}` and closed (1008). A second
    device streaming the same game takes over: this one's next frame is answered
    `{"error", "status": 409, "taken_over": NAME}` and the socket closed (1000)."""
    await websocket.accept()
    live_game: LiveGame | None = None
    if game is not None:
        try:
            found, deck = await run_in_threadpool(_live_game, websocket, game)
        except ApiError as exc:
            await _refuse(websocket, exc)
            return
        live_game = found
        decks: TeachDecks = websocket.app.state.decks
        family = found.rules.variant.family
        scanner = await run_in_threadpool(decks.scanners.for_deck, scanner, deck, family)
    hub = live_hub(websocket)
    stream = None
    if live_game is not None:
        stream = hub.start_stream(live_game.game_id, device_name(device))
    try:
        await _stream(websocket, scanner, settings, live_game, stream, hub)
    finally:
        if stream is not None:
            hub.end_stream(stream)


async def _stream(
    websocket: WebSocket,
    scanner: CardScanner,
    settings: Settings,
    game: LiveGame | None,
    stream: Stream | None,
    hub: LiveHub,
) -> None:
    session = LiveSession(scanner, settings.live_hold_seconds, game=game)
    frame = 0
    named: int | None = None
    published = 0
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            data = message.get("bytes")
            if data is None:
                text = (message.get("text") or "").strip()
                if text == "reset":
                    session = LiveSession(scanner, settings.live_hold_seconds, game=game)
                    published = 0
                    await websocket.send_json({"reset": True})
                elif text == "stop":
                    await websocket.send_json({"stopped": True})
                    await websocket.close(code=1000, reason="stopped")
                    return
                elif (frame_id := _frame_id(text)) is not None:
                    named = frame_id
                else:
                    await websocket.send_json(
                        {
                            "error": 'send frames as binary messages, {"frame": N}, '
                            "'reset' or 'stop'",
                            "status": 400,
                        }
                    )
                continue
            if stream is not None and stream.taken_over_by is not None:
                await websocket.send_json(
                    {
                        "error": f"{stream.taken_over_by} now streams this game's table: "
                        "this camera stopped",
                        "status": 409,
                        "taken_over": stream.taken_over_by,
                    }
                )
                await websocket.close(code=1000, reason="taken over")
                return
            frame = named if named is not None else frame + 1
            named = None
            try:
                image = await run_in_threadpool(
                    decode_upload,
                    data,
                    max_bytes=settings.max_upload_bytes,
                    max_pixels=settings.max_image_pixels,
                )
                update = await run_in_threadpool(session.update, image.bgr, frame, time.monotonic())
            except ScanInputError as exc:
                await websocket.send_json({"error": str(exc), "status": 422, "frame": frame})
                continue
            except ApiError as exc:
                await websocket.send_json(
                    {"error": exc.detail, "status": exc.status, "frame": frame}
                )
                continue
            except ScannerUnavailableError as exc:
                await websocket.send_json({"error": str(exc), "status": 503})
                await websocket.close(code=WS_TRY_AGAIN_LATER, reason="recognition unavailable")
                return
            table = update.table
            if stream is not None and table is not None and table.version != published:
                published = table.version
                shown = session.table.last
                picture = None
                if shown is not None:
                    picture = await run_in_threadpool(_picture, image.bgr, shown)
                hub.publish(stream, table, picture)
            await websocket.send_text(json.dumps(update.model_dump(mode="json")))
    except WebSocketDisconnect:
        return


@router.websocket("/watch")
async def watch_socket(websocket: WebSocket, game: str | None = None) -> None:
    """A screen watching a game's live table (`?game=ID`): a JSON `LiveWatchPublic` at
    once (whether a device streams the game, which, and its latest stable table), then
    one at each change: a device starts or stops streaming, or its stable table changes.
    Nothing to send but the text `stop`. A game that is not one: `{"error", "status"}`
    and closed (1008); too many screens on one game: closed (1013)."""
    await websocket.accept()
    if game is None:
        await _refuse(websocket, ApiError(422, "say which game: /api/live/watch?game=ID"))
        return
    try:
        live_game, _deck = await run_in_threadpool(_live_game, websocket, game)
    except ApiError as exc:
        await _refuse(websocket, exc)
        return
    hub = live_hub(websocket)
    try:
        queue = hub.watch(live_game.game_id)
    except GameFullError as exc:
        await websocket.send_json({"error": str(exc), "status": 429})
        await websocket.close(code=WS_TRY_AGAIN_LATER, reason="too many screens")
        return

    async def forward() -> None:
        try:
            while True:
                state = await queue.get()
                await websocket.send_text(json.dumps(state.model_dump(mode="json")))
        except (WebSocketDisconnect, RuntimeError):
            return  # the screen went away: the receiving side ends the watch

    sender = asyncio.create_task(forward())
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            if (message.get("text") or "").strip() == "stop":
                sender.cancel()
                await websocket.close(code=1000, reason="stopped")
                return
    except WebSocketDisconnect:
        return
    finally:
        sender.cancel()
        hub.unwatch(live_game.game_id, queue)


def live_hub(connection: HTTPConnection) -> LiveHub:
    hub: LiveHub = connection.app.state.live_hub
    return hub


def device_name(device: str | None) -> str:
    """The streaming device's name as shown to the other screens: spaces collapsed, no
    control characters, at most `DEVICE_NAME_LENGTH` characters; `another device` when
    none is given."""
    text = "".join(c for c in (device or "") if unicodedata.category(c)[0] != "C")
    cleaned = " ".join(text.split())[:DEVICE_NAME_LENGTH].strip()
    return cleaned or UNNAMED_DEVICE


def _live_game(connection: HTTPConnection, text: str) -> tuple[LiveGame, str | None]:
    """The game `?game=` names, with its rules, players and round in play, and its deck;
    `ApiError` 422 for a value that is no game number, 404 for an unknown game."""
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= SQL_INT_MAX:
        raise ApiError(422, f"game must be a game's number, not {text[:20]!r}")
    with connection.app.state.database.sessions() as session:
        game = get_game(session, int(text))
        state = load_state(session, game)
        players = tuple(p.name for p in sorted(game.players, key=lambda p: p.seat))
        return LiveGame(game.id, state.rules, players, state.current_round), game.deck


async def _refuse(websocket: WebSocket, exc: ApiError) -> None:
    await websocket.send_json({"error": exc.detail, "status": exc.status})
    await websocket.close(code=WS_POLICY_VIOLATION, reason="no such game")


def _frame_id(text: str) -> int | None:
    """N of a `{"frame": N}` message (a whole number from 0 up), else None."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or set(data) != {"frame"}:
        return None
    value = data["frame"]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**53:
        return None
    return value


def _camera(connection: HTTPConnection) -> CameraFeed:
    camera: CameraFeed | None = connection.app.state.camera
    if camera is None:
        raise ApiError(404, "no server-side camera: start the server with --camera 0 or a file")
    return camera


@router.get(
    "/picture.jpg",
    response_class=Response,
    responses={200: {"content": {"image/jpeg": {}}}, **error_responses(404, 422)},
)
def read_picture(connection: HTTPConnection, game: str) -> Response:
    """The frame a game's steady table was read from, its cards boxed, at most
    `PICTURE_SIDE` pixels: what a watching screen shows beside the table (fetch it again
    when the table's `version` changes). 404 while no device streams the game or before
    its first steady table."""
    live_game, _deck = _live_game(connection, game)
    picture = live_hub(connection).picture(live_game.game_id)
    if picture is None:
        raise ApiError(404, "no steady table from a camera for this game yet")
    return Response(picture, media_type="image/jpeg", headers={"Cache-Control": "no-store"})


def _picture(frame: Frame, snapshot: TableSnapshot) -> bytes:
    return encode_jpeg(PICTURE_OVERLAY.annotate(frame, snapshot))


@router.get("/camera", response_model=CameraStatus)
def read_camera(connection: HTTPConnection) -> CameraStatus:
    """Whether a server-side camera runs, and whether cards can be read from it."""
    camera: CameraFeed | None = connection.app.state.camera
    if camera is None:
        return CameraStatus(source=None, running=False, frames=0, error=None, recognition=None)
    return camera.status()


@router.get(
    "/camera/frame.jpg",
    response_class=Response,
    responses={200: {"content": {"image/jpeg": {}}}, **error_responses(404, 503)},
)
def read_camera_frame(connection: HTTPConnection) -> Response:
    """The latest camera frame with the cards read boxed (poll it for a live view)."""
    jpeg, _update = _camera(connection).latest()
    if jpeg is None:
        raise ApiError(503, "the camera has not produced a frame yet")
    return Response(jpeg, media_type="image/jpeg", headers={"Cache-Control": "no-store"})


@router.get(
    "/camera/state",
    response_model=LiveUpdate,
    responses=error_responses(404, 503),
)
def read_camera_state(connection: HTTPConnection) -> LiveUpdate:
    """The cards read in the latest camera frame and the stable table state."""
    _jpeg, update = _camera(connection).latest()
    if update is None:
        raise ApiError(503, "the camera has not produced a frame yet")
    return update
