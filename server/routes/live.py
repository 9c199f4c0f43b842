"""Live view: `/api/live/ws` takes frames from the browser's camera and answers each with
the cards read (boxes for the overlay, and the frame they belong to) and the stable
table state; `/api/live/camera...`
serves the server-side camera (`shanghai serve --camera 0` or a video file)."""

from __future__ import annotations

import json
import time

from fastapi import APIRouter, Response, WebSocket, WebSocketDisconnect
from fastapi.concurrency import run_in_threadpool
from fastapi.requests import HTTPConnection

from shanghai.vision.scan import ScanInputError

from ..deps import ScannerDep, SettingsDep
from ..errors import ApiError
from ..images import decode_upload
from ..live import CameraFeed, LiveSession
from ..scanning import ScannerUnavailableError
from ..schemas import CameraStatus, LiveUpdate, error_responses

router = APIRouter(prefix="/api/live", tags=["live"])
WS_TRY_AGAIN_LATER = 1013


@router.websocket("/ws")
async def live_socket(websocket: WebSocket, scanner: ScannerDep, settings: SettingsDep) -> None:
    """Send each frame as a binary message (JPEG/PNG/WebP), optionally after the text
    `{"frame": N}` naming it (ids count up from 1 otherwise); each answer is a JSON
    `LiveUpdate` whose `frame` is the frame its card boxes belong to: the frame just sent,
    or while the picture moves (a hand over the table), the earlier one the cards were
    read from. A frame like the last one scanned is not scanned again (`LiveSession`).
    `{"error", "status"}` answers a frame that cannot be used. Send the text `reset` to
    forget the table state, `stop` to end (answered `{"stopped": true}`, then closed).
    Closes with 1013 when recognition is unavailable."""
    await websocket.accept()
    session = LiveSession(scanner, settings.live_hold_seconds)
    frame = 0
    named: int | None = None
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            data = message.get("bytes")
            if data is None:
                text = (message.get("text") or "").strip()
                if text == "reset":
                    session = LiveSession(scanner, settings.live_hold_seconds)
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
            await websocket.send_text(json.dumps(update.model_dump(mode="json")))
    except WebSocketDisconnect:
        return


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
