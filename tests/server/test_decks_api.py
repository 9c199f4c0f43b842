"""Teaching a deck through the API with the real models on small generated photos:
start a deck, upload photos, confirm and correct the names, adapt in the background,
start a game that reads with it; and every kind of bad input, storing nothing."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from shanghai.datasets.deck_photos import enrolment_photos
from shanghai.datasets.decks import code_looks
from shanghai.engine.cards import Card
from shanghai.server import deck_jobs
from shanghai.server.settings import Settings
from shanghai.vision.deck_store import DeckStore, decks_dir
from shanghai.vision.model_files import DETECTOR_FILE, default_models_dir
from shanghai.vision.pipeline import models_installed

pytestmark = pytest.mark.skipif(not models_installed(), reason="card models not installed")

CARDS = ["7h", "8s", "Kd", "JK", "Ac", "10h"]


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    """Two photos of three cards each lying apart (CARDS in order)."""
    look = next(look for look in code_looks() if look.name == "code-classic")
    folder = tmp_path_factory.mktemp("deck-photos")
    enrolment_photos(
        look,
        folder,
        np.random.default_rng(4),
        cards=[Card.parse(c) for c in CARDS],
        per_photo=3,
        size=(1024, 768),
    )
    return [(folder / f"enrol0{n}.jpg").read_bytes() for n in range(2)]


@pytest.fixture
def settings(tmp_path: Path, database_url: str, settings_dir: Path) -> Settings:
    """Few augmented views per crop: the adaptation stays quick."""
    return Settings(
        data_dir=tmp_path / "data",
        database_url=database_url,
        variants_dir=settings_dir,
        deck_views=2,
    )


def _upload(client: TestClient, name: str, image: bytes) -> dict:  # type: ignore[type-arg]
    response = client.post(
        f"/api/decks/{name}/photos", files={"image": ("cards.jpg", image, "image/jpeg")}
    )
    assert response.status_code == 201, response.text
    body: dict = response.json()  # type: ignore[type-arg]
    return body


def _adapted(client: TestClient, app: FastAPI, name: str) -> dict:  # type: ignore[type-arg]
    response = client.post(f"/api/decks/{name}/adapt")
    assert response.status_code == 202, response.text
    assert response.json()["state"] == "running"
    app.state.decks.jobs.wait(name)
    progress = client.get(f"/api/decks/{name}/adapt").json()
    assert progress["state"] == "done", progress
    body: dict = progress  # type: ignore[type-arg]
    return body


def test_teach_adapt_play_and_remove(
    client: TestClient, app: FastAPI, photos: list[bytes], settings: Settings
) -> None:
    assert client.get("/api/decks").json() == []
    created = client.post("/api/decks", json={"name": "home", "family": "standard"})
    assert created.status_code == 201, created.text
    assert created.json()["draft"] == [] and len(created.json()["missing"]) == 53

    first = _upload(client, "home", photos[0])
    assert sorted(c["proposal"] for c in first["found"]) == sorted(CARDS[:3])
    assert all(c["card"] == c["proposal"] for c in first["found"])
    face = client.get(first["found"][0]["face_url"])
    assert face.status_code == 200 and face.headers["content-type"] == "image/jpeg"
    assert face.content[:2] == b"\xff\xd8"
    assert len(first["deck"]["missing"]) == 50 and "JK" in first["deck"]["missing"]

    # Correct a name, then put it back (the person's say is what is taught).
    card = first["found"][0]
    renamed = client.patch(f"/api/decks/home/cards/{card['id']}", json={"card": "2c"})
    assert renamed.status_code == 200 and renamed.json()["card"] == "2c"
    missing = client.get("/api/decks/home").json()["missing"]
    assert card["proposal"] in missing and "2c" not in missing
    back = client.patch(f"/api/decks/home/cards/{card['id']}", json={"card": card["proposal"]})
    assert back.json()["card"] == card["proposal"]

    second = _upload(client, "home", photos[1])
    assert sorted(c["proposal"] for c in second["found"]) == sorted(CARDS[3:])
    assert "JK" not in second["deck"]["missing"]
    assert all(c["photo"] == 2 for c in second["found"])

    done = _adapted(client, app, "home")
    assert done["message"] == "deck home is ready: 6 cards taught"
    listed = client.get("/api/decks").json()
    assert [d["name"] for d in listed] == ["home"]
    deck = listed[0]
    assert deck["stored"] and deck["adapted"] and deck["draft"] is None
    assert deck["locator"] is False
    assert sorted(deck["cards"]) == sorted(CARDS) and len(deck["missing"]) == 47
    stored = DeckStore(decks_dir(settings.data_dir)).get("home")
    assert stored.adapted and all(stored.crop_paths(c) for c in stored.cards)
    # The page's cards measure the deck's corner span as `shanghai deck enroll` does.
    assert stored.corner_span is not None and 4 < stored.corner_span < 12
    # ... and keep what the face check makes of each card's face, as it does.
    assert sorted(stored.face_kinds) == sorted(CARDS)
    # its own locator, as `shanghai deck locator` leaves it (any valid locator file here)
    shutil.copyfile(default_models_dir() / DETECTOR_FILE, stored.locator_path)
    assert client.get("/api/decks/home").json()["locator"] is True

    # A game picks the deck (of its variant's family); its scans read with it.
    rook = client.post(
        "/api/games", json={"variant": "rook", "players": ["Ann", "Bob"], "deck": "home"}
    )
    assert rook.status_code == 422
    assert "home is a standard deck; this variant is played with rook cards" in _detail(rook)
    game = client.post(
        "/api/games", json={"variant": "shanghai", "players": ["Ann", "Bob", "Cy"], "deck": "home"}
    )
    assert game.status_code == 201, game.text
    assert game.json()["deck"] == "home"
    game_id = game.json()["id"]
    scan = client.post(
        f"/api/games/{game_id}/rounds/1/scans",
        data={"player": "0"},
        files={"image": ("hand.jpg", photos[0], "image/jpeg")},
    )
    assert scan.status_code == 201, scan.text
    assert scan.json()["scanner"].endswith("+ deck home")
    read = {c["card"] for c in scan.json()["cards"]}
    assert read == set(CARDS[:3])
    assert client.get(f"/api/games/{game_id}").json()["deck"] == "home"

    # Teach it again: the stored cards come back as a draft; the deck stays until adapted.
    again = client.post("/api/decks/home/reenrol")
    assert again.status_code == 201, again.text
    draft = again.json()["draft"]
    assert sorted(c["card"] for c in draft) == sorted(CARDS)
    assert client.get(draft[0]["face_url"]).status_code == 200
    assert client.delete(f"/api/decks/home/cards/{draft[0]['id']}").status_code == 204
    _adapted(client, app, "home")
    assert len(client.get("/api/decks/home").json()["cards"]) == 5
    # The cards kept stand for the span they were measured with.
    kept = DeckStore(decks_dir(settings.data_dir)).get("home")
    assert kept.corner_span == pytest.approx(stored.corner_span, abs=1e-3)
    assert kept.face_kinds and all(
        np.allclose(rows, stored.face_kinds[card], atol=1e-3)
        for card, rows in kept.face_kinds.items()
    )

    assert client.delete("/api/decks/home").status_code == 204
    assert client.get("/api/decks").json() == []
    assert client.get("/api/decks/home").status_code == 404
    # The game reads on with the shipped models.
    rescan = client.post(
        f"/api/games/{game_id}/rounds/1/scans",
        data={"player": "1"},
        files={"image": ("hand.jpg", photos[0], "image/jpeg")},
    )
    assert rescan.status_code == 201 and "deck" not in rescan.json()["scanner"]


def _detail(response: object) -> str:
    detail = response.json()["detail"]  # type: ignore[attr-defined]
    return detail if isinstance(detail, str) else str(detail)


def test_bad_input_is_refused_and_stores_nothing(
    client: TestClient, photos: list[bytes], photo: bytes, settings: Settings
) -> None:
    assert (
        client.post("/api/decks", json={"name": "no good", "family": "standard"}).status_code == 422
    )
    assert client.post("/api/decks", json={"name": "x", "family": "uno"}).status_code == 422
    assert client.get("/api/decks/..").status_code in (404, 422)
    unknown = client.post(
        "/api/decks/nope/photos", files={"image": ("a.jpg", photos[0], "image/jpeg")}
    )
    assert unknown.status_code == 404 and "nope" in _detail(unknown)
    assert client.post("/api/decks/nope/adapt").status_code == 404

    assert client.post("/api/decks", json={"name": "home"}).status_code == 201
    again = client.post("/api/decks", json={"name": "home"})
    assert again.status_code == 409 and "already being taught" in _detail(again)
    blank = client.post("/api/decks/home/photos", files={"image": ("a.jpg", photo, "image/jpeg")})
    assert blank.status_code == 422 and "no card found" in _detail(blank)
    text = client.post("/api/decks/home/photos", files={"image": ("a.jpg", b"hello", "image/jpeg")})
    assert text.status_code == 415
    assert client.post("/api/decks/home/adapt").status_code == 422  # no cards yet

    first = _upload(client, "home", photos[0])["found"]
    twice = _upload(client, "home", photos[0])["found"]  # the same cards again
    assert all(c["card"] is None and "already is" in c["note"] for c in twice)
    not_named = client.post("/api/decks/home/adapt")
    assert not_named.status_code == 422 and "name or drop" in _detail(not_named)
    same = client.patch(f"/api/decks/home/cards/{twice[0]['id']}", json={"card": first[1]["card"]})
    assert same.status_code == 409 and "cannot be enrolled twice" in _detail(same)
    rook = client.patch(f"/api/decks/home/cards/{twice[0]['id']}", json={"card": "5B"})
    assert rook.status_code == 422 and "not a card of a standard deck" in _detail(rook)
    nonsense = client.patch(f"/api/decks/home/cards/{twice[0]['id']}", json={"card": "Zz"})
    assert nonsense.status_code == 422
    assert client.patch("/api/decks/home/cards/999", json={"card": "2c"}).status_code == 404
    assert client.delete("/api/decks/home/cards/999").status_code == 404

    # Nothing is stored before adapting, and a game cannot pick a deck being taught.
    assert DeckStore(decks_dir(settings.data_dir)).names() == []
    game = client.post(
        "/api/games", json={"variant": "shanghai", "players": ["Ann", "Bob", "Cy"], "deck": "home"}
    )
    assert game.status_code == 422 and "no deck named 'home'" in _detail(game)
    bad = client.post(
        "/api/games", json={"variant": "shanghai", "players": ["Ann", "Bob", "Cy"], "deck": "a b"}
    )
    assert bad.status_code == 422
    assert client.delete("/api/decks/home").status_code == 204
    assert client.delete("/api/decks/home").status_code == 404


def test_an_interrupted_adaptation_stores_nothing(
    client: TestClient,
    app: FastAPI,
    photos: list[bytes],
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reported = threading.Event()
    go_on = threading.Event()
    real = deck_jobs.store_enrolled

    def held(*args: object, progress: Callable[[str, int, int], None], **kw: object) -> object:
        def report(stage: str, done: int, total: int) -> None:
            reported.set()
            go_on.wait(30)
            progress(stage, done, total)

        return real(*args, progress=report, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(deck_jobs, "store_enrolled", held)
    assert client.post("/api/decks", json={"name": "home"}).status_code == 201
    _upload(client, "home", photos[0])
    assert client.post("/api/decks/home/adapt").status_code == 202
    assert reported.wait(60)
    busy = client.post(
        "/api/decks/home/photos", files={"image": ("a.jpg", photos[1], "image/jpeg")}
    )
    assert busy.status_code == 409 and "being adapted" in _detail(busy)
    assert client.post("/api/decks/home/adapt").status_code == 409
    stopped = client.delete("/api/decks/home/adapt")
    assert stopped.status_code == 200
    go_on.set()
    app.state.decks.jobs.wait("home")
    progress = client.get("/api/decks/home/adapt").json()
    assert progress["state"] == "cancelled" and "nothing was stored" in progress["message"]
    root = decks_dir(settings.data_dir)
    assert DeckStore(root).names() == [] and not any(root.iterdir())
    deck = client.get("/api/decks/home").json()
    assert not deck["stored"] and len(deck["draft"]) == 3  # the draft is kept
