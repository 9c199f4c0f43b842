"""A game's taught deck in the export and back: the name travels, the deck does not; an
imported game whose deck is not on this server (or is one of another family) reads its
scans with the shipped models."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from shanghai.engine.cards import Card, DeckFamily
from shanghai.server.app import create_app
from shanghai.server.deck_jobs import get_game_scanner
from shanghai.server.models import Game
from shanghai.server.settings import Settings
from shanghai.vision.deck_head import fit_head
from shanghai.vision.deck_store import HEAD_FILE, DeckStore, decks_dir, write_deck_file
from shanghai.vision.pipeline import CardModels
from shanghai.vision.scan import PhotoScanner

GameMaker = Callable[..., int]


def store_deck(data_dir: Path, name: str, family: DeckFamily, reader: str) -> None:
    """An adapted deck of two cards, its head fitted on made-up features for `reader`."""
    cards = ["7h", "8s"] if family is DeckFamily.STANDARD else ["5R", "ROOK"]

    def build(folder: Path) -> None:
        write_deck_file(
            folder, name=name, family=family, cards=[Card.parse(c) for c in cards], photos=1
        )
        features = np.random.default_rng(0).normal(0, 1, (8, 16)).astype(np.float32)
        features[4:] += 3
        head = fit_head(features, [cards[0]] * 4 + [cards[1]] * 4, reader=reader)
        head.save(folder / HEAD_FILE)

    DeckStore(decks_dir(data_dir)).write(name, build)


def test_the_deck_name_is_exported_and_imported(
    client: TestClient, make_game: GameMaker, settings: Settings, tmp_path: Path
) -> None:
    store_deck(settings.data_dir, "home", DeckFamily.STANDARD, reader="r")
    with_deck = make_game(deck="home")
    without = make_game(["Eve", "Flo", "Gus"])
    archive = client.get("/api/history/export.json")
    assert [(g["id"], g["deck"]) for g in archive.json()["games"]] == [
        (with_deck, "home"),
        (without, None),
    ]
    other = Settings(data_dir=tmp_path / "other", database_url=f"sqlite:///{tmp_path / 'o.db'}")
    with TestClient(create_app(other)) as second:
        files = {"file": ("games.json", archive.content, "application/json")}
        answer = second.post("/api/history/import", files=files)
        assert answer.status_code == 201, answer.text
        first, plain = answer.json()["imported"]
        assert second.get(f"/api/games/{first}").json()["deck"] == "home"  # not taught here
        assert second.get(f"/api/games/{plain}").json()["deck"] is None
        assert second.get("/api/decks").json() == []  # the name only, no deck


def test_a_bad_deck_name_in_the_file_is_refused(client: TestClient, make_game: GameMaker) -> None:
    make_game()
    archive = client.get("/api/history/export.json").json()
    archive["games"][0]["deck"] = "../home"
    answer = client.post(
        "/api/history/import",
        files={"file": ("games.json", json.dumps(archive).encode(), "application/json")},
    )
    assert answer.status_code == 422
    assert answer.json()["detail"].startswith("the file does not read as an export: games.0.deck")


def _game_scanner(app: FastAPI, game_id: int) -> object:
    with app.state.database.sessions() as session:
        game = session.get(Game, game_id)
        assert game is not None
        return get_game_scanner(app.state.scanner, game, app.state.decks)


def test_an_imported_deck_not_here_reads_with_the_shipped_models(
    app: FastAPI, client: TestClient, make_game: GameMaker
) -> None:
    """The game's deck is looked up by name when it scans: none of that name here, or
    one of another family, and the scans read with the app's own scanner."""
    base = app.state.scanner
    if not isinstance(base, PhotoScanner) or not isinstance(base.models, CardModels):
        pytest.skip("card models not installed")
    reader = base.models.reader_fingerprint
    data_dir: Path = app.state.settings.data_dir
    store_deck(data_dir, "home", DeckFamily.STANDARD, reader)
    game = make_game(deck="home")
    taught = _game_scanner(app, game)
    assert isinstance(taught, PhotoScanner) and taught.name.endswith("+ deck home")

    DeckStore(decks_dir(data_dir)).remove("home")  # as on a server it was never taught on
    assert _game_scanner(app, game) is base
    store_deck(data_dir, "home", DeckFamily.ROOK, reader)  # the same name, other cards
    assert _game_scanner(app, game) is base
    body = {"variant": "rook", "players": ["A", "B"], "deck": "home"}
    rook = client.post("/api/games", json=body)
    assert rook.status_code == 201, rook.text
    read = _game_scanner(app, rook.json()["id"])
    assert isinstance(read, PhotoScanner) and read.name.endswith("+ deck home")
