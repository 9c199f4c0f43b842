"""Adapting a taught deck's own locator from the API: the job runs a child process and
reads its JSON-lines progress, Stop terminates it, a failure says why, and a server
without the train extra says so. The child here is a stand-in Python script speaking
the same protocol as `shanghai deck locator --json-progress` (tests/locator_stand_in.py;
the real command's output is tested with the train extra)."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from locator_stand_in import stand_in_jobs
from taught_deck import taught_deck

from shanghai.server.deck_jobs import DeckJobs
from shanghai.server.locator_job import failure_message, parse_progress
from shanghai.server.settings import Settings
from shanghai.vision.deck_store import DeckStore, decks_dir
from shanghai.vision.pipeline import CardModels, models_installed

pytestmark = pytest.mark.skipif(not models_installed(), reason="card models not installed")


@pytest.fixture
def deck_app(app: FastAPI, settings: Settings) -> FastAPI:
    """The app with a deck `home` taught (its reading) in its data folder."""
    taught_deck(settings.data_dir, CardModels())
    assert decks_dir(settings.data_dir) == settings.data_dir / "decks"
    return app


def _use(app: FastAPI, jobs: DeckJobs) -> None:
    app.state.decks = dataclasses.replace(app.state.decks, jobs=jobs)


def _finished(client: TestClient, app: FastAPI, name: str) -> dict:  # type: ignore[type-arg]
    app.state.decks.jobs.wait(name, timeout=60)
    body: dict = client.get(f"/api/decks/{name}/adapt").json()  # type: ignore[type-arg]
    return body


def test_a_deck_gets_its_own_locator_from_the_page(
    client: TestClient, deck_app: FastAPI, settings: Settings
) -> None:
    _use(deck_app, stand_in_jobs("ok"))
    before = client.get("/api/decks/home").json()
    assert before["locator"] is False and before["locator_teachable"] is True
    started = client.post("/api/decks/home/locator", json={"minutes": 2})
    assert started.status_code == 202, started.text
    assert started.json()["kind"] == "locator" and started.json()["state"] == "running"
    done = _finished(client, deck_app, "home")
    assert done["state"] == "done", done
    assert done == {**done, "kind": "locator", "stage": "check", "done": 2, "total": 2}
    assert done["message"] == "deck home has its own locator and reader now"
    after = client.get("/api/decks/home").json()
    assert after["locator"] is True and after["adapting"]["state"] == "done"
    assert after["reader"] is True and before["reader"] is False
    deck = DeckStore(decks_dir(settings.data_dir)).get("home")
    assert deck.has_locator and deck.head().locator == deck.locator_path
    assert deck.has_reader and deck.head().own_reader == deck.reader_path


def test_progress_comes_from_the_child_and_stop_stops_it(
    client: TestClient, deck_app: FastAPI, settings: Settings
) -> None:
    _use(deck_app, stand_in_jobs("hang"))
    assert client.post("/api/decks/home/locator", json={"minutes": 1}).status_code == 202
    deadline = time.monotonic() + 30
    progress = client.get("/api/decks/home/adapt").json()
    while progress["stage"] != "train" and time.monotonic() < deadline:
        time.sleep(0.05)
        progress = client.get("/api/decks/home/adapt").json()
    assert progress == {**progress, "state": "running", "stage": "train", "done": 0, "total": 60}
    # one adaptation at a time, and the deck is not removed or re-taught meanwhile
    assert client.post("/api/decks/home/locator").status_code == 409
    busy = client.delete("/api/decks/home")
    assert busy.status_code == 409 and "being adapted" in busy.json()["detail"]
    assert client.post("/api/decks/home/reenrol").status_code == 409
    assert client.delete("/api/decks/home/adapt").status_code == 200
    ended = _finished(client, deck_app, "home")
    assert ended["state"] == "cancelled", ended
    assert "keeps the locator and reader it had" in ended["message"]
    deck = DeckStore(decks_dir(settings.data_dir)).get("home")
    assert not deck.has_locator and deck.adapted
    assert client.delete("/api/decks/home/adapt").status_code == 409  # nothing runs now


def test_a_failed_child_says_why(client: TestClient, deck_app: FastAPI) -> None:
    _use(deck_app, stand_in_jobs("fail"))
    assert client.post("/api/decks/home/locator").status_code == 202
    ended = _finished(client, deck_app, "home")
    assert ended["state"] == "failed"
    assert ended["message"] == "deck home: the scenes could not be drawn"
    assert client.get("/api/decks/home").json()["locator"] is False


def test_what_cannot_be_adapted_is_refused(client: TestClient, deck_app: FastAPI) -> None:
    # the real check: this process may or may not have the train extra
    real = client.get("/api/decks/home").json()
    missing = deck_app.state.decks.jobs.locator_missing()
    assert real["locator_teachable"] is (missing is None)
    _use(deck_app, DeckJobs(lambda name, minutes: ["false"], lambda: "needs the train extra"))
    assert client.get("/api/decks/home").json()["locator_teachable"] is False
    refused = client.post("/api/decks/home/locator")
    assert refused.status_code == 503 and "needs the train extra" in refused.json()["detail"]

    _use(deck_app, stand_in_jobs("ok"))
    assert client.post("/api/decks/nothere/locator").status_code == 404
    for minutes in (0.5, 121, "ten"):
        bad = client.post("/api/decks/home/locator", json={"minutes": minutes})
        assert bad.status_code == 422, bad.text
    # a deck being taught again adapts its reading first
    assert client.post("/api/decks/home/reenrol").status_code == 201
    assert client.get("/api/decks/home").json()["locator_teachable"] is False
    again = client.post("/api/decks/home/locator")
    assert again.status_code == 409 and "adapt its reading first" in again.json()["detail"]


def test_progress_lines_and_failure_messages() -> None:
    assert parse_progress('{"stage": "train", "done": 5, "total": 600}\n') == ("train", 5, 600)
    for noise in ("Epoch 1/3 ...", '{"stage": "train"}', "{not json", '{"done": 1}', ""):
        assert parse_progress(noise) is None
    assert failure_message(2, "shanghai: error: no deck named 'x'") == "no deck named 'x'"
    assert failure_message(-9, "") == "the locator's training stopped (exit -9)"
    assert failure_message(1, "MemoryError") == (
        "the locator's training stopped (exit 1): MemoryError"
    )


def test_the_cli_and_the_server_use_one_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child finds the server's decks through SHANGHAI_DATA_DIR."""
    from shanghai.vision.deck_store import default_data_dir

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("SHANGHAI_DATA_DIR", raising=False)
    assert default_data_dir() == tmp_path / "xdg" / "shanghai"
    monkeypatch.setenv("SHANGHAI_DATA_DIR", str(tmp_path / "server"))
    assert default_data_dir() == tmp_path / "server"
    assert Settings().data_dir == tmp_path / "server"
