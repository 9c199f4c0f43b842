"""Live view: `/api/live/ws` takes frames from the browser's camera and answers each with
the cards read (boxes for the overlay) and the stable table state; `/api/live/camera...`
serves the server-side camera (`shanghai serve --camera 0` or a video file)."""

from __future__ import annotations

import functools
import json
import time

from fastapi import APIRouter, Response, WebSocket, WebSocketDisconnect
from fastapi.concurrency import run_in_threadpool
from fastapi.requests import HTTPConnection

from shanghai.vision.scan import ScanInputError
from shanghai.vision.snapshot import PhotoKind, TableSnapshot

from ..deps import ScannerDep, SettingsDep
from ..errors import ApiError
from ..images import decode_upload
from ..live import CameraFeed, live_update, new_tracker, observe
from ..scanning import ScannerUnavailableError
from ..schemas import CameraStatus, LiveUpdate, error_responses

router = APIRouter(prefix="/api/live", tags=["live"])
WS_TRY_AGAIN_LATER = 1013


@router.websocket("/ws")
async def live_socket(websocket: WebSocket, scanner: ScannerDep, settings: SettingsDep) -> None:
    """Send each frame as a binary message (JPEG/PNG/WebP); each answer is a JSON
    `LiveUpdate`, or `{"error", "status"}` for a frame that cannot be used. Send the text
    `reset` to forget the table state. Closes with 1013 when recognition is unavailable."""
    await websocket.accept()
    tracker = new_tracker(settings.live_hold_seconds)
    frame = 0
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            data = message.get("bytes")
            if data is None:
                if (message.get("text") or "").strip() == "reset":
                    tracker = new_tracker(settings.live_hold_seconds)
                    await websocket.send_json({"reset": True})
                else:
                    await websocket.send_json(
                        {"error": "send frames as binary messages, or 'reset'", "status": 400}
                    )
                continue
            try:
                image = await run_in_threadpool(
                    decode_upload,
                    data,
                    max_bytes=settings.max_upload_bytes,
                    max_pixels=settings.max_image_pixels,
                )
                result: TableSnapshot = await run_in_threadpool(
                    functools.partial(scanner.scan, image.bgr, kind=PhotoKind.TABLE)
                )
            except ScanInputError as exc:
                await websocket.send_json({"error": str(exc), "status": 422})
                continue
            except ApiError as exc:
                await websocket.send_json({"error": exc.detail, "status": exc.status})
                continue
            except ScannerUnavailableError as exc:
                await websocket.send_json({"error": str(exc), "status": 503})
                await websocket.close(code=WS_TRY_AGAIN_LATER, reason="recognition unavailable")
                return
            frame += 1
            state = observe(tracker, result, time.monotonic())
            update = live_update(frame, image.width, image.height, result, state)
            await websocket.send_text(json.dumps(update.model_dump(mode="json")))
    except WebSocketDisconnect:
        return


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
