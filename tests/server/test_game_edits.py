"""Renaming a player and deleting a game, on SQLite and PostgreSQL: clear 404/409/422
answers, as the OpenAPI document says; a deleted game takes its hands, buys and scans
(the photos, the evidence) with it."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

GameMaker = Callable[..., int]
ScanSetter = Callable[..., list[tuple[int, int]]]


def test_rename_a_player(client: TestClient, make_game: GameMaker) -> None:
    game = make_game()
    assert (
        client.post(
            f"/api/games/{game}/rounds/1/hands", json={"player": 1, "cards": "7h"}
        ).status_code
        == 201
    )
    renamed = client.patch(f"/api/games/{game}/players/1", json={"name": "  Bobby   B "})
    assert renamed.status_code == 200, renamed.text
    assert renamed.json()["players"] == ["Ann", "Bobby B", "Cy"]
    # everything that names the player follows; the seat and the hand stay
    hand = client.get(f"/api/games/{game}/rounds/1").json()["hands"][0]
    assert (hand["player"], hand["seat"], hand["points"]) == ("Bobby B", 1, 5)
    assert "Bobby B" in client.get(f"/api/games/{game}/sheet.csv").text
    # a change of case of one's own name is a rename, not a clash
    assert client.patch(f"/api/games/{game}/players/0", json={"name": "ANN"}).status_code == 200


def test_rename_refusals(client: TestClient, make_game: GameMaker) -> None:
    game = make_game()
    taken = client.patch(f"/api/games/{game}/players/0", json={"name": "bob"})
    assert taken.status_code == 409
    assert taken.json()["detail"] == "Bob is already the name of the player in seat 1"
    seat = client.patch(f"/api/games/{game}/players/3", json={"name": "Dee"})
    assert seat.status_code == 404 and "seats 0-2" in seat.json()["detail"]
    assert client.patch("/api/games/999/players/0", json={"name": "Dee"}).status_code == 404
    for bad in ("", "   ", "x" * 61, "a\x07b"):
        answer = client.patch(f"/api/games/{game}/players/0", json={"name": bad})
        assert answer.status_code == 422, bad
    assert client.patch(f"/api/games/{game}/players/0", json={}).status_code == 422
    assert client.get(f"/api/games/{game}").json()["players"] == ["Ann", "Bob", "Cy"]


def test_delete_a_game_with_its_evidence(
    client: TestClient,
    make_game: GameMaker,
    photo: bytes,
    fake_scanner: ScanSetter,
    database_url: str,
) -> None:
    keep, game = make_game(), make_game(["Dee", "Eve", "Flo"])
    fake_scanner(["7h", "Kd"])
    scans = []
    for g in (keep, game):
        scan = client.post(
            f"/api/games/{g}/rounds/1/scans",
            data={"player": "0"},
            files={"image": ("a.jpg", photo, "image/jpeg")},
        ).json()
        scans.append(scan)
        confirmed = client.post(
            f"/api/games/{g}/rounds/1/hands",
            json={"player": 0, "cards": "7h Ks", "scan_id": scan["id"]},
        )
        assert confirmed.status_code == 201, confirmed.text
        assert client.post(f"/api/games/{g}/rounds/1/buys", json={"player": 1}).status_code == 201
    assert client.delete(f"/api/games/{game}").status_code == 204
    assert client.get(f"/api/games/{game}").status_code == 404
    assert client.get(scans[1]["image_url"]).status_code == 404
    assert [g["id"] for g in client.get("/api/games").json()] == [keep]
    again = client.delete(f"/api/games/{game}")
    assert again.status_code == 404 and again.json()["detail"] == f"game {game} not found"
    # nothing of the deleted game is left in any table; the other game is whole
    engine = create_engine(database_url)
    with engine.connect() as db:
        for table, column in (
            ("players", "game_id"),
            ("hands", "game_id"),
            ("buys", "game_id"),
            ("scans", "game_id"),
        ):
            left = db.execute(
                text(f"SELECT count(*) FROM {table} WHERE {column} = :g"), {"g": game}
            )
            kept = db.execute(
                text(f"SELECT count(*) FROM {table} WHERE {column} = :g"), {"g": keep}
            )
            assert (left.scalar_one(), kept.scalar_one() > 0) == (0, True), table
        assert db.execute(text("SELECT count(*) FROM hand_corrections")).scalar_one() == 2
    engine.dispose()
    assert client.get(scans[0]["image_url"]).content == photo


def test_openapi_documents_rename_and_delete(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    rename = paths["/api/games/{game_id}/players/{seat}"]["patch"]["responses"]
    assert {"200", "404", "409", "422"} <= set(rename)
    delete = paths["/api/games/{game_id}"]["delete"]["responses"]
    assert {"204", "404", "409", "422"} <= set(delete)
