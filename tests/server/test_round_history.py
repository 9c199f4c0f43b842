"""Correcting with a history (issue 17), on SQLite and PostgreSQL: a past round's hands
and buys corrected (a finished game's too), each change kept with who and when, the last
change undone (walking back), a finished game reopened; the sheet marks edited rounds."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from shanghai.server import changes

GameMaker = Callable[..., int]


def finish(client: TestClient, game: int) -> None:
    """Play every round: Ann goes out, Bob keeps 7h (5 points), Cy keeps Kd (10)."""
    number = client.get(f"/api/games/{game}").json()["current_round"]
    while number is not None:
        for seat, cards in ((0, ""), (1, "7h"), (2, "Kd")):
            answer = client.post(
                f"/api/games/{game}/rounds/{number}/hands", json={"player": seat, "cards": cards}
            )
            assert answer.status_code == 201, answer.text
        number = client.get(f"/api/games/{game}").json()["current_round"]


def test_correct_a_finished_game_with_its_history(client: TestClient, make_game: GameMaker) -> None:
    game = make_game()
    finish(client, game)
    assert client.get(f"/api/games/{game}").json()["winners"] == ["Ann"]
    fixed = client.put(
        f"/api/games/{game}/rounds/2/hands/1", json={"cards": "7h 9c", "by": "Cy's phone"}
    )
    assert fixed.status_code == 200, fixed.text
    assert fixed.json()["points"] == 10
    assert fixed.json()["corrections"] == [{"action": "added", "card": "9c"}]
    history = client.get(f"/api/games/{game}/changes", params={"round": 2}).json()
    assert [c["kind"] for c in history] == ["entered", "entered", "entered", "corrected"]
    last = history[-1]
    assert (last["player"], last["by"], last["correction"]) == ("Bob", "Cy's phone", True)
    assert last["before"]["cards"] == ["7h"] and last["after"]["cards"] == ["7h", "9c"]
    assert last["summary"] == "Bob's hand corrected: 7h (5 pts) → 7h 9c (10 pts)"
    assert [c["by"] for c in history[:3]] == ["host"] * 3
    assert not any(c["correction"] for c in history[:3])
    sheet = client.get(f"/api/games/{game}/sheet").json()
    rounds = len(sheet["rounds"])
    assert [r["edited"] for r in sheet["rounds"]] == [False, True] + [False] * (rounds - 2)
    assert sheet["totals"][1] == 5 * rounds + 5
    # a buy recorded after the round was scored is a correction too
    bought = client.post(f"/api/games/{game}/rounds/3/buys", json={"player": 2, "by": "Ann"})
    assert bought.status_code == 201, bought.text
    assert client.get(f"/api/games/{game}/sheet").json()["rounds"][2]["edited"] is True
    assert client.get(f"/api/games/{game}/rounds/3").json()["buys"][2]["used"] == 1


def test_undo_walks_back(client: TestClient, make_game: GameMaker) -> None:
    game = make_game()
    nothing = client.post(f"/api/games/{game}/undo")
    assert nothing.status_code == 409
    assert nothing.json()["detail"].startswith("nothing to undo")
    client.post(f"/api/games/{game}/rounds/1/hands", json={"player": 0, "cards": "7h"})
    client.post(f"/api/games/{game}/rounds/1/buys", json={"player": 1})
    client.delete(f"/api/games/{game}/rounds/1/buys", params={"player": 1, "by": "Bob"})
    client.put(f"/api/games/{game}/rounds/1/hands/0", json={"cards": "7h Kd"})

    changes = client.get(f"/api/games/{game}/changes").json()
    # undo says which change it means: another one (the game changed since) is refused
    stale = client.post(f"/api/games/{game}/undo", json={"change": changes[-2]["id"]})
    assert stale.status_code == 409
    assert stale.json()["detail"].startswith("the last change is no longer the one shown")
    undone = client.post(f"/api/games/{game}/undo", json={"by": "Ann", "change": changes[-1]["id"]})
    assert undone.status_code == 200, undone.text
    body = undone.json()
    assert body["undone"]["kind"] == "corrected" and body["undone"]["undone_by"] == "Ann"
    hand = client.get(f"/api/games/{game}/rounds/1").json()["hands"][0]
    assert (hand["cards"], hand["points"]) == (["7h"], 5)
    assert hand["corrections"] == [
        {"action": "added", "card": "Kd"},
        {"action": "removed", "card": "Kd"},
    ]
    # the buy taken back comes back, then goes again
    assert client.post(f"/api/games/{game}/undo").json()["undone"]["kind"] == "buy-back"
    assert client.get(f"/api/games/{game}/rounds/1").json()["buys"][1]["used"] == 1
    assert client.post(f"/api/games/{game}/undo").json()["undone"]["kind"] == "buy"
    assert client.get(f"/api/games/{game}/rounds/1").json()["buys"][1]["used"] == 0
    # the hand entered is taken back: the seat can be entered again
    assert client.post(f"/api/games/{game}/undo").json()["undone"]["kind"] == "entered"
    assert client.get(f"/api/games/{game}/rounds/1").json()["hands"] == []
    assert client.post(f"/api/games/{game}/undo").status_code == 409
    history = client.get(f"/api/games/{game}/changes").json()
    assert all(c["undone_at"] is not None for c in history)
    assert client.get(f"/api/games/{game}/sheet").json()["rounds"][0]["edited"] is True


def test_reopen_a_finished_game(client: TestClient, make_game: GameMaker) -> None:
    game = make_game()
    assert client.post(f"/api/games/{game}/reopen").status_code == 409
    finish(client, game)
    last = len(client.get(f"/api/games/{game}").json()["rounds"])
    client.put(f"/api/games/{game}/rounds/{last}/hands/2", json={"cards": "Kd Qd"})
    reopened = client.post(f"/api/games/{game}/reopen", json={"by": "Bob"})
    assert reopened.status_code == 200, reopened.text
    state = reopened.json()
    assert (state["finished"], state["current_round"]) == (False, last)
    assert [h["seat"] for h in client.get(f"/api/games/{game}/rounds/{last}").json()["hands"]] == [
        0,
        1,
    ]
    change = client.get(f"/api/games/{game}/changes", params={"round": last}).json()[-1]
    assert change["kind"] == "reopened" and change["by"] == "Bob"
    assert change["before"]["cards"] == ["Kd", "Qd"]
    assert change["summary"] == "Game reopened: Cy's hand taken back (Kd Qd (20 pts))"
    # undo puts the hand back with its corrections; the game is over again
    assert client.post(f"/api/games/{game}/undo").json()["game"]["finished"] is True
    hand = client.get(f"/api/games/{game}/rounds/{last}").json()["hands"][2]
    assert hand["cards"] == ["Kd", "Qd"]
    assert [c["card"] for c in hand["corrections"]] == ["Qd"]
    # reopened, then entered anew
    client.post(f"/api/games/{game}/reopen")
    entered = client.post(
        f"/api/games/{game}/rounds/{last}/hands", json={"player": 2, "cards": "2c"}
    )
    assert entered.status_code == 201
    assert client.get(f"/api/games/{game}").json()["finished"] is True


def test_refusals(client: TestClient, make_game: GameMaker) -> None:
    game = make_game()
    ahead = client.post(f"/api/games/{game}/rounds/2/buys", json={"player": 0})
    assert ahead.status_code == 409
    assert ahead.json()["detail"] == "round 2 cannot be played before round 1 ends"
    for bad in ("", "x" * 61, "a\x07b"):
        answer = client.post(f"/api/games/{game}/rounds/1/buys", json={"player": 0, "by": bad})
        assert answer.status_code == 422, bad
    assert client.post("/api/games/999/undo").status_code == 404
    assert client.post("/api/games/999/reopen").status_code == 404
    assert client.get("/api/games/999/changes").status_code == 404
    assert client.get(f"/api/games/{game}/changes", params={"round": 0}).status_code == 422


def test_rename_a_game(client: TestClient, make_game: GameMaker) -> None:
    game = make_game()
    renamed = client.patch(f"/api/games/{game}", json={"name": "  Saturday   at Gran's "})
    assert renamed.status_code == 200, renamed.text
    assert renamed.json()["name"] == "Saturday at Gran's"
    assert client.get(f"/api/games/{game}/sheet").json()["name"] == "Saturday at Gran's"
    assert client.patch(f"/api/games/{game}", json={"name": ""}).json()["name"] == ""
    assert client.patch(f"/api/games/{game}", json={"name": "x" * 101}).status_code == 422
    assert client.patch(f"/api/games/{game}", json={}).status_code == 422
    assert client.patch("/api/games/999", json={"name": "a"}).status_code == 404


def test_two_undos_of_one_change_at_once(
    app: FastAPI, client: TestClient, make_game: GameMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two devices undo the change they both saw: the first is held while it reverts it,
    the second is sent meanwhile; one undoes it, the other is told the game changed."""
    game = make_game()
    client.post(f"/api/games/{game}/rounds/1/hands", json={"player": 0, "cards": "7h"})
    client.put(f"/api/games/{game}/rounds/1/hands/0", json={"cards": "7h Kd"})
    seen = client.get(f"/api/games/{game}/changes").json()[-1]["id"]
    held, released = threading.Event(), threading.Event()
    revert = changes._revert

    def held_revert(*args: Any) -> None:
        revert(*args)
        if not held.is_set():
            held.set()
            released.wait(2.0)  # a correct server makes the second wait: nothing releases

    monkeypatch.setattr(changes, "_revert", held_revert)
    racing = TestClient(app, raise_server_exceptions=False)
    answers: list[httpx.Response] = []
    undo = f"/api/games/{game}/undo"
    first = threading.Thread(
        target=lambda: answers.append(racing.post(undo, json={"change": seen}))
    )
    first.start()
    assert held.wait(30)
    answers.append(racing.post(undo, json={"change": seen}))
    released.set()
    first.join(30)
    assert sorted(a.status_code for a in answers) == [200, 409], [a.text for a in answers]
    history = client.get(f"/api/games/{game}/changes").json()
    assert [c["undone_at"] is not None for c in history] == [False, True]
    assert client.get(f"/api/games/{game}/rounds/1").json()["hands"][0]["cards"] == ["7h"]
