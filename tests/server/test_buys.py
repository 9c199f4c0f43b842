"""Buys: recorded one by one per player and round, refused past the variant's limit."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient

GameMaker = Callable[..., int]


def test_buys_count_down_and_stop_at_the_limit(client: TestClient, make_game: GameMaker) -> None:
    game = make_game()
    for used in (1, 2, 3):
        response = client.post(f"/api/games/{game}/rounds/1/buys", json={"player": 1})
        assert response.status_code == 201
        assert response.json() | {"id": 0} == {
            "id": 0,
            "round": 1,
            "seat": 1,
            "player": "Bob",
            "used": used,
            "allowed": 3,
            "left": 3 - used,
        }
    before = client.get(f"/api/games/{game}/rounds/1").json()
    refused = client.post(f"/api/games/{game}/rounds/1/buys", json={"player": 1})
    assert refused.status_code == 409
    assert refused.json()["detail"] == "Bob has used all 3 buys allowed in round 1"
    after = client.get(f"/api/games/{game}/rounds/1").json()
    assert after == before
    assert [(b["player"], b["used"], b["left"]) for b in after["buys"]] == [
        ("Ann", 0, 3),
        ("Bob", 3, 0),
        ("Cy", 0, 3),
    ]


def test_take_back_a_buy(client: TestClient, make_game: GameMaker) -> None:
    game = make_game()
    client.post(f"/api/games/{game}/rounds/1/buys", json={"player": 0})
    assert client.delete(f"/api/games/{game}/rounds/1/buys?player=0").status_code == 204
    assert client.get(f"/api/games/{game}/rounds/1").json()["buys"][0]["used"] == 0
    none_left = client.delete(f"/api/games/{game}/rounds/1/buys?player=0")
    assert none_left.status_code == 404


def test_buys_only_in_the_round_being_played(client: TestClient, make_game: GameMaker) -> None:
    game = make_game()
    assert client.post(f"/api/games/{game}/rounds/2/buys", json={"player": 0}).status_code == 409
    assert client.post(f"/api/games/{game}/rounds/11/buys", json={"player": 0}).status_code == 422
    assert client.post(f"/api/games/{game}/rounds/1/buys", json={"player": 5}).status_code == 404
    assert client.post("/api/games/404/rounds/1/buys", json={"player": 0}).status_code == 404


def test_the_later_rounds_allow_more_buys(client: TestClient, make_game: GameMaker) -> None:
    game = make_game()
    for number in range(1, 9):
        for seat in range(3):
            cards = "" if seat == 0 else "4c"
            response = client.post(
                f"/api/games/{game}/rounds/{number}/hands", json={"player": seat, "cards": cards}
            )
            assert response.status_code == 201
    nine = client.get(f"/api/games/{game}/rounds/9").json()
    assert nine["buys_allowed"] == 4
    assert nine["buys"][0]["left"] == 4
