"""Games: created with a variant (built-in, house-rule by name, or uploaded file), players
in seat order, rounds following the variant; clear 4xx answers for bad input."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fastapi.testclient import TestClient

GameMaker = Callable[..., int]

HOUSE_RULES = """
extends = "shanghai"
name = "grandmas"
title = "Grandma's Shanghai"

[scoring]
wild = 25

[[rounds]]
contract = "2 sets of 3"
[[rounds]]
contract = "2 runs of 4"
buys = 1
"""


def test_create_and_read_a_game(client: TestClient) -> None:
    response = client.post(
        "/api/games",
        json={"name": "Friday", "variant": "shanghai", "players": ["Ann", " Bob ", "Cy"]},
    )
    assert response.status_code == 201
    game = response.json()
    assert game["players"] == ["Ann", "Bob", "Cy"]
    assert [p["seat"] for p in game["player_list"]] == [0, 1, 2]
    assert game["variant_title"] == "Shanghai Rummy"
    assert game["variant_origin"] == "built-in"
    assert game["current_round"] == 1
    assert len(game["rounds"]) == 10
    assert game["rounds"][0] == {
        "number": 1,
        "contract": "2 sets of 3",
        "cards_dealt": 11,
        "buys_allowed": 3,
    }
    assert game["rounds"][9]["buys_allowed"] == 4
    again = client.get(f"/api/games/{game['id']}").json()
    assert again["name"] == "Friday"
    assert again["rounds"] == game["rounds"]
    listed = client.get("/api/games").json()
    assert [g["id"] for g in listed] == [game["id"]]


def test_deal_size_follows_the_player_count(client: TestClient) -> None:
    response = client.post(
        "/api/games", json={"variant": "rook", "players": ["A", "B", "C", "D", "E", "F"]}
    )
    assert response.status_code == 201
    rook = client.get("/api/variants/rook").json()
    deals = rook["round_rules"][0]["deal"]
    six = next(d["cards"] for d in deals if d["min_players"] <= 6 <= d["max_players"])
    assert response.json()["rounds"][0]["cards_dealt"] == six


def test_uploaded_house_rules_are_snapshotted(client: TestClient) -> None:
    response = client.post(
        "/api/games", json={"variant_toml": HOUSE_RULES, "players": ["Ann", "Bob", "Cy"]}
    )
    assert response.status_code == 201, response.text
    game = response.json()
    assert game["variant_name"] == "grandmas"
    assert game["variant_origin"] == "uploaded"
    assert [r["contract"] for r in game["rounds"]] == ["2 sets of 3", "2 runs of 4"]
    points = client.post(f"/api/games/{game['id']}/points", json={"cards": "JK 7h"}).json()
    assert points["points"] == 30  # house rule: a joker costs 25


def test_house_rule_file_by_name_survives_edits(
    client: TestClient, settings_dir: Path, make_game: GameMaker
) -> None:
    (settings_dir / "grandmas.toml").write_text(HOUSE_RULES)
    game = client.post(
        "/api/games", json={"variant": "grandmas", "players": ["Ann", "Bob", "Cy"]}
    ).json()
    assert game["variant_origin"] == "house-rule"
    (settings_dir / "grandmas.toml").write_text(HOUSE_RULES.replace("wild = 25", "wild = 99"))
    points = client.post(f"/api/games/{game['id']}/points", json={"cards": "JK"}).json()
    assert points["points"] == 25
    names = [v["name"] for v in client.get("/api/variants").json()]
    assert names[:5] == ["shanghai", "rook", "shafer", "manipulation", "family"]
    assert "grandmas" in names


def test_target_score_only_where_the_variant_has_one(client: TestClient) -> None:
    players = ["Ann", "Bob", "Cy"]
    manip = client.post(
        "/api/games", json={"variant": "manipulation", "players": players, "target_score": 50}
    )
    assert manip.status_code == 201
    assert manip.json()["target_score"] == 50
    default = client.post("/api/games", json={"variant": "manipulation", "players": players})
    assert default.json()["target_score"] is not None
    refused = client.post(
        "/api/games", json={"variant": "shanghai", "players": players, "target_score": 50}
    )
    assert refused.status_code == 422
    assert "no target score" in refused.json()["detail"]


def test_bad_game_requests_are_4xx_and_store_nothing(client: TestClient) -> None:
    cases = [
        ({"variant": "snap", "players": ["A", "B", "C"]}, "unknown variant"),
        ({"variant": "../../etc/passwd", "players": ["A", "B", "C"]}, "unknown variant"),
        ({"variant": "/tmp/x.toml", "players": ["A", "B", "C"]}, "unknown variant"),
        ({"variant": "shanghai", "players": ["A", "B"]}, "3-8 players"),
        ({"variant": "shanghai", "players": ["A", "a", "B"]}, "different"),
        ({"variant": "shanghai", "players": ["A", "", "B"]}, "name"),
        ({"variant_toml": "name = ", "players": ["A", "B", "C"]}, "TOML"),
        ({"variant_toml": 'name = "x"', "players": ["A", "B", "C"]}, "missing"),
        ({"players": ["A", "B", "C"]}, "either"),
        ({"variant": "shanghai", "variant_toml": "x", "players": ["A", "B", "C"]}, "either"),
    ]
    for body, words in cases:
        response = client.post("/api/games", json=body)
        assert response.status_code == 422, (body, response.text)
        assert words in str(response.json()["detail"]), (body, response.json())
    assert client.post("/api/games", content=b"{not json").status_code == 422
    assert client.get("/api/games").json() == []


def test_unknown_game_is_404(client: TestClient) -> None:
    for path in ("/api/games/999", "/api/games/999/sheet", "/api/games/999/rounds/1"):
        response = client.get(path)
        assert response.status_code == 404
        assert response.json() == {"detail": "game 999 not found"}
    assert client.get("/api/games/0").status_code == 422
    assert client.get("/api/games/abc").status_code == 422
    assert client.get("/api/variants/snap").status_code == 422


def test_points_preview(client: TestClient, make_game: GameMaker) -> None:
    game = make_game()
    response = client.post(f"/api/games/{game}/points", json={"cards": "7h 10s Ah JK"})
    assert response.json() == {
        "cards": ["7h", "10s", "Ah", "JK"],
        "per_card": [5, 10, 20, 50],
        "points": 85,
    }
    bad = client.post(f"/api/games/{game}/points", json={"cards": "7h 5R"})
    assert bad.status_code == 422
    assert "5R not in play" in bad.json()["detail"]
    assert client.post(f"/api/games/{game}/points", json={"cards": "zz"}).status_code == 422


def test_openapi_docs_are_served(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    assert "/api/games/{game_id}/rounds/{number}/hands" in schema["paths"]
    assert client.get("/docs").status_code == 200
