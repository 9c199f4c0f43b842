"""Scoring hands round by round: totals, going out, corrections, and every refusal
(scoring twice, a round out of range or out of turn) leaving the stored data unchanged."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient

GameMaker = Callable[..., int]


def score(
    client: TestClient, game: int, number: int, seat: int, cards: str, **extra: object
) -> dict:  # type: ignore[type-arg]
    response = client.post(
        f"/api/games/{game}/rounds/{number}/hands", json={"player": seat, "cards": cards, **extra}
    )
    assert response.status_code == 201, response.text
    return dict(response.json())


def test_a_round_is_complete_when_every_player_is_scored(
    client: TestClient, make_game: GameMaker
) -> None:
    game = make_game()
    hand = score(client, game, 1, 0, "7h 10s JK")
    assert hand["points"] == 65
    assert hand["per_card"] == [5, 10, 50]
    assert hand["entry"] == "manual"
    partial = client.get(f"/api/games/{game}/rounds/1").json()
    assert partial["current"] is True
    assert partial["complete"] is False
    assert client.get(f"/api/games/{game}").json()["current_round"] == 1
    out = score(client, game, 1, 1, "")
    assert out["went_out"] is True
    assert out["points"] == 0
    score(client, game, 1, 2, "Ah 2c")
    state = client.get(f"/api/games/{game}").json()
    assert state["current_round"] == 2
    assert state["rounds_scored"] == 1
    assert state["totals"] == [65, 0, 40]
    assert state["leaders"] == ["Bob"]
    assert client.get(f"/api/games/{game}/rounds/1").json()["complete"] is True


def test_blind_bonus_lowers_the_score(client: TestClient, make_game: GameMaker) -> None:
    game = make_game()
    assert score(client, game, 1, 0, "", blind=True)["points"] == -25
    assert score(client, game, 1, 1, "4c")["points"] == 5
    game2 = make_game()
    assert score(client, game2, 1, 0, "", blind=True, used_wild=False)["points"] == -50
    refused = client.post(
        f"/api/games/{game2}/rounds/1/hands", json={"player": 1, "cards": "4c", "blind": True}
    )
    assert refused.status_code == 422
    assert "went out" in refused.json()["detail"]


def test_scoring_twice_is_409_and_changes_nothing(client: TestClient, make_game: GameMaker) -> None:
    game = make_game()
    score(client, game, 1, 0, "7h")
    before = client.get(f"/api/games/{game}/sheet").json()
    again = client.post(f"/api/games/{game}/rounds/1/hands", json={"player": 0, "cards": "Kd Kh"})
    assert again.status_code == 409
    assert again.json()["detail"] == "Ann's hand in round 1 is already scored; correct it instead"
    assert client.get(f"/api/games/{game}/sheet").json() == before
    for seat in (1, 2):
        score(client, game, 1, seat, "5c")
    late = client.post(f"/api/games/{game}/rounds/1/hands", json={"player": 1, "cards": "5c"})
    assert late.status_code == 409
    assert late.json()["detail"] == "round 1 is already scored"


def test_only_one_player_goes_out(client: TestClient, make_game: GameMaker) -> None:
    game = make_game()
    score(client, game, 1, 0, "")
    second = client.post(f"/api/games/{game}/rounds/1/hands", json={"player": 1, "cards": ""})
    assert second.status_code == 409
    assert "only one" in second.json()["detail"]
    assert len(client.get(f"/api/games/{game}/rounds/1").json()["hands"]) == 1


def test_rounds_out_of_range_or_out_of_turn(client: TestClient, make_game: GameMaker) -> None:
    game = make_game()
    for number in (0, 11, 99):
        response = client.post(
            f"/api/games/{game}/rounds/{number}/hands", json={"player": 0, "cards": "7h"}
        )
        assert response.status_code == 422, number
        assert "out of range" in response.json()["detail"]
    ahead = client.post(f"/api/games/{game}/rounds/2/hands", json={"player": 0, "cards": "7h"})
    assert ahead.status_code == 409
    assert ahead.json()["detail"] == "round 2 cannot be played before round 1 ends"
    assert client.get(f"/api/games/{game}/rounds/11").status_code == 422
    assert client.get(f"/api/games/{game}/rounds/-1").status_code == 422


def test_bad_hands_are_422_or_404(client: TestClient, make_game: GameMaker) -> None:
    game = make_game()
    cases = [
        ({"player": 0, "cards": "7x"}, 422, "unknown card"),
        ({"player": 0, "cards": "5R"}, 422, "not in play"),
        ({"player": 0, "cards": "7h | 8h"}, 422, "'|'"),
        ({"player": 0, "cards": " ".join(["7h"] * 41)}, 422, "more than"),
        ({"player": 0, "cards": "7h" * 300}, 422, "at most"),
        ({"player": 3, "cards": "7h"}, 404, "no player in seat 3"),
        ({"player": -1, "cards": "7h"}, 422, "greater than"),
        ({"player": "Ann", "cards": "7h"}, 422, "integer"),
        ({"cards": "7h"}, 422, "Field required"),
    ]
    for body, code, words in cases:
        response = client.post(f"/api/games/{game}/rounds/1/hands", json=body)
        assert response.status_code == code, (body, response.text)
        assert words in str(response.json()["detail"]), (body, response.json())
    assert client.get(f"/api/games/{game}/rounds/1").json()["hands"] == []
    missing = client.post("/api/games/77/rounds/1/hands", json={"player": 0, "cards": "7h"})
    assert missing.status_code == 404


def test_correcting_a_stored_hand_keeps_the_correction(
    client: TestClient, make_game: GameMaker
) -> None:
    game = make_game()
    score(client, game, 1, 0, "7h 7d")
    fixed = client.put(f"/api/games/{game}/rounds/1/hands/0", json={"cards": "7h 7c Ks"})
    assert fixed.status_code == 200
    body = fixed.json()
    assert body["points"] == 20
    assert body["corrections"] == [
        {"action": "removed", "card": "7d"},
        {"action": "added", "card": "7c"},
        {"action": "added", "card": "Ks"},
    ]
    assert (
        client.put(f"/api/games/{game}/rounds/1/hands/1", json={"cards": "7h"}).status_code == 404
    )
    assert (
        client.put(f"/api/games/{game}/rounds/1/hands/0", json={"cards": "7q"}).status_code == 422
    )


def test_a_whole_game_ends_with_a_winner(client: TestClient, make_game: GameMaker) -> None:
    game = make_game()
    for number in range(1, 11):
        score(client, game, number, 0, "")
        score(client, game, number, 1, "3c")
        score(client, game, number, 2, "Kd")
    state = client.get(f"/api/games/{game}").json()
    assert state["finished"] is True
    assert state["current_round"] is None
    assert state["totals"] == [0, 50, 100]
    assert state["winners"] == ["Ann"]
    over = client.post(f"/api/games/{game}/rounds/10/hands", json={"player": 0, "cards": ""})
    assert over.status_code == 409
    assert "over" in over.json()["detail"]


def test_a_target_score_game_ends_when_someone_reaches_it(
    client: TestClient, make_game: GameMaker
) -> None:
    game = client.post(
        "/api/games",
        json={"variant": "manipulation", "players": ["Ann", "Bob", "Cy"], "target_score": 30},
    ).json()["id"]
    for number in range(1, 4):  # one point per card left in manipulation rummy
        score(client, game, number, 0, "")
        score(client, game, number, 1, " ".join(["Kd"] * 10))
        score(client, game, number, 2, "3c")
    state = client.get(f"/api/games/{game}").json()
    assert state["totals"] == [0, 30, 3]
    assert state["finished"] is True
    assert state["loser"] == "Bob"
    assert state["winners"] == ["Ann"]
