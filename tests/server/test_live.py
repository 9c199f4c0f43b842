"""Live view: frames over the websocket give overlays (named by the frame they belong to)
and a stable table state, scanning only settled changes; stop ends it; the server-side
camera reads a video file; without a model both say so."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


def frame_jpeg(shade: int = 90) -> bytes:
    """A 160x120 picture: a light card-like patch on a table of `shade`."""
    image = np.full((120, 160, 3), shade, np.uint8)
    cv2.rectangle(image, (60, 30), (100, 90), (240, 240, 240), -1)
    ok, data = cv2.imencode(".jpg", image)
    assert ok
    return bytes(data.tobytes())


def client_for(tmp_path: Path, scanner: Sequenced, hold: float = 0.0) -> TestClient:
    settings = Settings(
        data_dir=tmp_path, database_url=f"sqlite:///{tmp_path / 'ws.db'}", live_hold_seconds=hold
    )
    return TestClient(create_app(settings, scanner=scanner))


def send(ws: Any, frame_id: int, picture: bytes) -> dict[str, Any]:
    ws.send_text(json.dumps({"frame": frame_id}))
    ws.send_bytes(picture)
    answer: dict[str, Any] = ws.receive_json()
    return answer


def test_websocket_scans_only_settled_changes_and_names_their_frame(tmp_path: Path) -> None:
    """The first picture is scanned at once, a change once it shows in two frames
    running; the same picture again is not scanned; each answer's boxes belong to the
    frame it names: the one sent, or while the picture moves, the one they were read
    from. A card swapped in the picture is followed."""
    scanner = Sequenced([["7h", "Kd"], ["Qh", "Kd"]])
    table, swapped = frame_jpeg(60), frame_jpeg(160)
    with client_for(tmp_path, scanner) as client, client.websocket_connect("/api/live/ws") as ws:
        first = send(ws, 101, table)
        answers = [send(ws, 101 + k, table) for k in range(1, 6)]
        moving = send(ws, 107, swapped)  # the picture changed: wait
        after = [send(ws, 108 + k, swapped) for k in range(5)]
    assert first["frame"] == 101 and [c["card"] for c in first["cards"]] == ["7h", "Kd"]
    assert first["stable_cards"] == ["7h", "Kd"]  # a still picture's read counts at once
    assert [a["frame"] for a in answers] == [102, 103, 104, 105, 106]  # still: same boxes
    assert [c["card"] for c in answers[0]["cards"]] == ["7h", "Kd"]
    assert answers[-1]["stable_cards"] == ["7h", "Kd"] and answers[-1]["stable"] is True
    assert moving["frame"] == 101  # the cards shown were read from frame 101
    assert moving["stable_cards"] == ["7h", "Kd"]
    assert after[0]["frame"] == 108 and [c["card"] for c in after[0]["cards"]] == ["Qh", "Kd"]
    assert after[-1]["stable_cards"] == ["Kd", "Qh"]  # the swapped card's label followed
    assert scanner.calls == 2  # eleven frames, two pictures


def test_websocket_frames_without_ids_count_up_and_stop_ends(tmp_path: Path) -> None:
    scanner = Sequenced([["7h"]])
    with client_for(tmp_path, scanner) as client, client.websocket_connect("/api/live/ws") as ws:
        updates = []
        for _ in range(3):
            ws.send_bytes(frame_jpeg())
            updates.append(ws.receive_json())
        ws.send_bytes(b"garbage")
        error = ws.receive_json()
        ws.send_text("hello")
        wrong_kind = ws.receive_json()
        ws.send_text('{"frame": -1}')
        bad_id = ws.receive_json()
        ws.send_text("reset")
        assert ws.receive_json() == {"reset": True}
        ws.send_bytes(frame_jpeg())
        after_reset = ws.receive_json()
        ws.send_text("stop")
        assert ws.receive_json() == {"stopped": True}
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert closed.value.code == 1000
    assert [u["frame"] for u in updates] == [1, 2, 3]
    assert updates[0]["width"] == 160 and updates[0]["height"] == 120
    assert [c["card"] for c in updates[0]["cards"]] == ["7h"]
    assert error == {
        "error": "not an image: send a JPEG, PNG, WebP or BMP photo of the cards",
        "status": 415,
        "frame": 4,
    }
    assert wrong_kind["status"] == 400 and bad_id["status"] == 400
    assert after_reset["frame"] == 5 and after_reset["stable_cards"] == ["7h"]
    assert scanner.calls == 2  # the still picture once, and again after the reset


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
    for _ in range(frames):
        image = np.full((120, 160, 3), 60, np.uint8)
        cv2.rectangle(image, (10, 10), (60, 90), (255, 255, 255), -1)  # a still table
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
        wait_for(lambda: client.get("/api/live/camera/state").json()["stable_cards"] != [])
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
