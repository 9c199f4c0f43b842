"""Live view: frames over the websocket give overlays and a stable table state; the
server-side camera reads a video file; without a model both say so."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from shanghai.engine.cards import Card
from shanghai.server.app import create_app
from shanghai.server.scanning import UnavailableScanner
from shanghai.server.settings import Settings
from shanghai.vision.snapshot import SeenCard, TableSnapshot


class Sequenced:
    """Reads the given card lists in turn, one per frame (then repeats the last)."""

    def __init__(self, frames: list[list[str]]) -> None:
        self.frames = frames
        self.calls = 0

    @property
    def name(self) -> str:
        return "sequenced"

    def scan(self, image: np.ndarray, **_: object) -> TableSnapshot:  # type: ignore[type-arg]
        cards = self.frames[min(self.calls, len(self.frames) - 1)]
        self.calls += 1
        seen = tuple(
            SeenCard(Card.parse(c), 0.8, (5.0 * i, 5.0, 5.0 * i + 20, 40.0))
            for i, c in enumerate(cards)
        )
        return TableSnapshot(image.shape[1], image.shape[0], seen, ())


def frame_jpeg() -> bytes:
    ok, data = cv2.imencode(".jpg", np.full((120, 160, 3), 90, np.uint8))
    assert ok
    return bytes(data.tobytes())


def test_websocket_frames_get_cards_and_a_stable_state(tmp_path: Path) -> None:
    """Cards count once seen in 3 of 5 frames, a card missed in one frame stays, and
    the state turns stable once it has held for `live_hold_seconds`."""
    settings = Settings(
        data_dir=tmp_path, database_url=f"sqlite:///{tmp_path / 'ws.db'}", live_hold_seconds=0.2
    )
    scanner = Sequenced([["7h", "Kd"]] * 3 + [["7h"]] + [["7h", "Kd"]] * 6)
    with (
        TestClient(create_app(settings, scanner=scanner)) as client,
        client.websocket_connect("/api/live/ws") as ws,
    ):
        updates = []
        for index in range(10):
            if index == 9:
                time.sleep(0.3)  # the unchanged state now outlasts the hold time
            ws.send_bytes(frame_jpeg())
            updates.append(ws.receive_json())
        ws.send_bytes(b"garbage")
        error = ws.receive_json()
        ws.send_text("hello")
        wrong_kind = ws.receive_json()
        ws.send_text("reset")
        assert ws.receive_json() == {"reset": True}
        ws.send_bytes(frame_jpeg())
        after_reset = ws.receive_json()
    assert [u["frame"] for u in updates] == list(range(1, 11))
    assert updates[0]["width"] == 160 and updates[0]["height"] == 120
    assert [c["card"] for c in updates[0]["cards"]] == ["7h", "Kd"]
    assert updates[0]["stable_cards"] == []  # seen once: not yet on the table
    assert updates[2]["stable_cards"] == ["7h", "Kd"]
    assert updates[3]["stable_cards"] == ["7h", "Kd"]  # the missed Kd did not drop out
    assert updates[8]["stable"] is False
    assert updates[-1]["stable"] is True and updates[-1]["stability"] == 1.0
    assert after_reset["stable_cards"] == []
    assert error == {
        "error": "not an image: send a JPEG, PNG, WebP or BMP photo of the cards",
        "status": 415,
    }
    assert wrong_kind["status"] == 400


def test_websocket_without_a_model_says_so(sqlite_client: TestClient) -> None:
    with sqlite_client.websocket_connect("/api/live/ws") as ws:
        ws.send_bytes(frame_jpeg())
        message = ws.receive_json()
        assert message["status"] == 503
        assert "not installed" in message["error"]
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert closed.value.code == 1013


def write_video(path: Path, frames: int = 12) -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, (160, 120))
    assert writer.isOpened()
    for i in range(frames):
        image = np.full((120, 160, 3), 60, np.uint8)
        cv2.rectangle(image, (10 + i, 10), (60 + i, 90), (255, 255, 255), -1)
        writer.write(image)
    writer.release()


def wait_for(check: Callable[[], bool], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


def test_server_camera_reads_a_video_file(tmp_path: Path) -> None:
    video = tmp_path / "table.avi"
    write_video(video)
    settings = Settings(
        data_dir=tmp_path,
        database_url=f"sqlite:///{tmp_path / 'cam.db'}",
        camera=str(video),
        live_fps=50,
    )
    scanner = Sequenced([["Qs", "Qh", "Qd"]])
    with TestClient(create_app(settings, scanner=scanner)) as client:
        wait_for(lambda: client.get("/api/live/camera").json()["frames"] >= 10)
        status = client.get("/api/live/camera").json()
        assert status["running"] is True
        assert status["error"] is None and status["recognition"] is None
        state = client.get("/api/live/camera/state").json()
        assert state["stable_cards"] == ["Qd", "Qh", "Qs"]
        assert state["width"] == 160
        frame = client.get("/api/live/camera/frame.jpg")
        assert frame.headers["content-type"] == "image/jpeg"
        assert cv2.imdecode(np.frombuffer(frame.content, np.uint8), 1).shape == (120, 160, 3)


def test_server_camera_without_a_model_still_shows_frames(tmp_path: Path) -> None:
    video = tmp_path / "table.avi"
    write_video(video, frames=3)
    settings = Settings(
        data_dir=tmp_path, database_url=f"sqlite:///{tmp_path / 'c.db'}", camera=str(video)
    )
    with TestClient(create_app(settings, scanner=UnavailableScanner())) as client:
        wait_for(lambda: client.get("/api/live/camera").json()["frames"] >= 1)
        status = client.get("/api/live/camera").json()
        assert "not installed" in status["recognition"]
        assert client.get("/api/live/camera/frame.jpg").status_code == 200


def test_missing_camera_is_reported(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path,
        database_url=f"sqlite:///{tmp_path / 'c.db'}",
        camera=str(tmp_path / "nope.mp4"),
    )
    with TestClient(create_app(settings)) as client:
        wait_for(lambda: client.get("/api/live/camera").json()["error"] is not None)
        assert "could not be opened" in client.get("/api/live/camera").json()["error"]
        assert client.get("/api/live/camera/frame.jpg").status_code == 503


def test_no_camera_configured(sqlite_client: TestClient) -> None:
    assert sqlite_client.get("/api/live/camera").json()["source"] is None
    assert sqlite_client.get("/api/live/camera/state").status_code == 404
