"""Rules checked by reading and then writing hold when another request changes the game
between the two: one request is held just after its check, another is sent meanwhile,
and what both answered must describe an order in which the rules held.

Released-together races (test_races.py) hit this window only by chance; here it is
opened on purpose, on SQLite and on PostgreSQL."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from shanghai.server.game_state import GameState

GameMaker = Callable[..., int]
HOLD_S = 2.0
"""How long the first request stays held after its check when nothing releases it (a
correct server makes the second request wait for the first: nothing can release it)."""


@pytest.fixture
def racing(app: FastAPI, client: TestClient) -> Iterator[TestClient]:
    yield TestClient(app, raise_server_exceptions=False)


class Window:
    """Holds the first call of a `GameState` check, after it passed, until the request
    sent meanwhile has been answered (or `HOLD_S` passed)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, check: str) -> None:
        self.held = threading.Event()
        self.other_answered = threading.Event()
        self.calls = 0
        original = getattr(GameState, check)

        def held_check(state: GameState, *args: Any) -> Any:
            result = original(state, *args)
            self.calls += 1
            if self.calls == 1:
                self.held.set()
                self.other_answered.wait(HOLD_S)
            return result

        monkeypatch.setattr(GameState, check, held_check)

    def race(
        self, first: Callable[[], httpx.Response], second: Callable[[], httpx.Response]
    ) -> list[tuple[str, httpx.Response]]:
        """Send `first`, then `second` once `first` is held; the answers in the order
        they came."""
        answered: list[tuple[str, httpx.Response]] = []
        lock = threading.Lock()

        def send_first() -> None:
            response = first()
            with lock:
                answered.append(("first", response))

        thread = threading.Thread(target=send_first)
        thread.start()
        assert self.held.wait(30), "the first request never reached its check"
        response = second()
        with lock:
            answered.append(("second", response))
        self.other_answered.set()
        thread.join(30)
        assert not thread.is_alive()
        return answered


def test_two_players_are_not_renamed_to_one_name_at_once(
    racing: TestClient, make_game: GameMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = make_game()
    window = Window(monkeypatch, "player")
    answered = window.race(
        lambda: racing.patch(f"/api/games/{game}/players/0", json={"name": "Dee"}),
        lambda: racing.patch(f"/api/games/{game}/players/1", json={"name": "dee"}),
    )
    codes = sorted(r.status_code for _, r in answered)
    assert codes == [200, 409], [r.text for _, r in answered]
    names = [name.casefold() for name in racing.get(f"/api/games/{game}").json()["players"]]
    assert names.count("dee") == 1, names
