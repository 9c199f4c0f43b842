"""Finished games, player statistics, export (JSON, CSV) and import back (issue 17), on
SQLite and PostgreSQL; bad files answered with a clear 4xx."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path

from fastapi.testclient import TestClient

from shanghai.server.app import create_app
from shanghai.server.settings import Settings

GameMaker = Callable[..., int]


def finish(client: TestClient, game: int, hands: tuple[str, str, str]) -> None:
    """Every round scored with the same three hands (one empty: that player went out)."""
    number = client.get(f"/api/games/{game}").json()["current_round"]
    while number is not None:
        for seat, cards in enumerate(hands):
            answer = client.post(
                f"/api/games/{game}/rounds/{number}/hands", json={"player": seat, "cards": cards}
            )
            assert answer.status_code == 201, answer.text
        number = client.get(f"/api/games/{game}").json()["current_round"]


def test_finished_games_and_statistics(client: TestClient, make_game: GameMaker) -> None:
    first = make_game(name="Friday")
    finish(client, first, ("", "7h", "Kd"))  # Ann wins
    second = make_game(["bob", "Ann", "Dee"], name="Saturday")
    finish(client, second, ("2c", "", "Kd"))  # Ann (seat 1) wins again
    make_game(["Eve", "Flo", "Ann"])  # not finished: in no statistic
    games = client.get("/api/history/games").json()
    assert [(g["id"], g["name"], g["winners"]) for g in games] == [
        (second, "Saturday", ["Ann"]),
        (first, "Friday", ["Ann"]),
    ]
    rounds = games[0]["rounds"]
    assert games[1]["totals"] == [0, 5 * rounds, 10 * rounds]
    stats = {s["player"]: s for s in client.get("/api/history/players").json()}
    assert set(stats) == {"Ann", "bob", "Cy", "Dee"}  # Bob and bob are one player
    assert stats["Ann"] == {
        "player": "Ann",
        "games": 2,
        "wins": 2,
        "rounds": 2 * rounds,
        "average_round": 0.0,
        "best_round": 0,
    }
    bob = stats["bob"]
    assert (bob["games"], bob["wins"], bob["rounds"]) == (2, 0, 2 * rounds)
    assert (bob["average_round"], bob["best_round"]) == (12.5, 5)  # 7h: 5; 2c (wild): 20
    assert client.get("/api/history/players").json()[0]["player"] == "Ann"


def test_export_and_import_into_another_server(
    client: TestClient, make_game: GameMaker, tmp_path: Path
) -> None:
    game = make_game(name="=cmd")
    finish(client, game, ("", "7h 8h", "Kd"))
    client.post(f"/api/games/{game}/rounds/1/buys", json={"player": 2})
    open_game = make_game(["Eve", "Flo", "Gus"])
    client.post(f"/api/games/{open_game}/rounds/1/hands", json={"player": 0, "cards": "JK"})
    exported = client.get("/api/history/export.json")
    assert exported.status_code == 200
    assert exported.headers["content-disposition"].startswith("attachment;")
    archive = exported.json()
    assert (archive["format"], archive["version"], len(archive["games"])) == (
        "shanghai-games",
        1,
        2,
    )
    assert archive["games"][0]["rounds"][0]["buys"] == [0, 0, 1]

    table = exported.content
    sheet = client.get("/api/history/export.csv")
    rows = list(csv.reader(io.StringIO(sheet.text)))
    assert rows[0][:3] == ["game", "name", "variant"]
    assert rows[1][1] == "'=cmd"  # inert in a spreadsheet
    assert (
        sum(1 for r in rows[1:] if r[0] == str(game))
        == 3 * archive["games"][0]["rounds"][-1]["number"]
    )

    other = Settings(data_dir=tmp_path / "other", database_url=f"sqlite:///{tmp_path / 'other.db'}")
    with TestClient(create_app(other)) as second:
        files = {"file": ("games.json", table, "application/json")}
        answer = second.post("/api/history/import", files=files)
        assert answer.status_code == 201, answer.text
        assert answer.json()["skipped"] == 0
        new_game, new_open = answer.json()["imported"]
        copy, original = (
            c.get(f"/api/games/{g}/sheet").json() for c, g in ((second, new_game), (client, game))
        )
        # the same sheet, but for the marks of the round histories, which stay here
        assert original["rounds"][0]["edited"] and not copy["rounds"][0]["edited"]
        for sheet in (copy, original):
            del sheet["game_id"]
            for rnd in sheet["rounds"]:
                del rnd["edited"]
        assert copy == original
        assert second.get(f"/api/games/{new_game}/rounds/1").json()["buys"][2]["used"] == 1
        reopened = second.get(f"/api/games/{new_open}").json()
        assert (reopened["current_round"], reopened["players"]) == (1, ["Eve", "Flo", "Gus"])
        again = second.post("/api/history/import", files=files)
        assert again.json() == {"imported": [], "skipped": 2}


def test_bad_files_are_refused_in_words(client: TestClient, make_game: GameMaker) -> None:
    def send(content: bytes) -> tuple[int, str]:
        answer = client.post(
            "/api/history/import", files={"file": ("x.json", content, "application/json")}
        )
        return answer.status_code, answer.json()["detail"]

    assert send(b"\xff\xfe\x00bad") == (
        400,
        "the file is not text (UTF-8): choose the .json file exported",
    )
    status, detail = send(b"round,player\n1,Ann\n")
    assert status == 400 and detail.startswith("the file is not JSON (line 1, column 1")
    assert send(b'{"games": []}')[0] == 422
    status, detail = send(json.dumps({"format": "shanghai-games", "games": [{}]}).encode())
    assert status == 422 and detail.startswith("the file does not read as an export: games.0.")

    make_game()
    good = client.get("/api/history/export.json").json()
    entry = good["games"][0]
    entry["created_at"] = "2020-01-01T00:00:00Z"
    entry["rounds"] = [
        {"number": 1, "hands": [{"seat": 0, "cards": "7h", "hand_points": 9, "went_out": False}]}
    ]
    status, detail = send(json.dumps(good).encode())
    assert (status, detail) == (422, "game 1: round 1, Ann: 9 points for cards worth 5")
    entry["rounds"][0]["hands"][0].update(cards="7h 99z", hand_points=5)
    status, detail = send(json.dumps(good).encode())
    assert status == 422 and detail.startswith("game 1: ") and "99z" in detail
    entry["rounds"] = []
    entry["variant_toml"] = "not = [toml"
    status, detail = send(json.dumps(good).encode())
    assert status == 422 and detail.startswith("game 1: ")
    # nothing of a refused file is stored
    assert len(client.get("/api/games").json()) == 1
    assert client.post("/api/history/import").status_code == 422  # no file
