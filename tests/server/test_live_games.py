"""A game's live table: a stream named for a game (`/api/live/ws?game=ID`) reads with the
game's rules, judges each seat's melds for the round in play, and shows its stable table
to every screen watching the game (`/api/live/watch?game=ID`); a second streaming device
takes over; a game that is not one is refused in words; closed sockets leave nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient
from mini_table import MiniTable
from starlette.websockets import WebSocketDisconnect

from shanghai.server.schemas import LiveUpdate, LiveWatchPublic
from shanghai.server.settings import Settings

GameMaker = Callable[..., int]
ScanSetter = Callable[..., list[tuple[int, int]]]

SETS = ["7h", "7s", "7c", "Qd", "Qs", "9c", "Kc", "2d"]
"""Round 1 (two sets of 3): a set of sevens, a 'set' of two queens and a nine; a king
and a two in hands."""


def lay_down() -> MiniTable:
    """Both melds side by side before the player nearest the camera's bottom edge, the
    king in front of them (that player's hand), the two across the table."""
    table = MiniTable(width=1600, height=1200)
    table.row(SETS[:3], 650, 1000, step=20)
    table.row(SETS[3:6], 950, 1000, step=20)
    table.card("Kc", 800, 1120)
    table.card("2d", 800, 150)
    return table


@pytest.fixture
def settings(tmp_path: Path, database_url: str, settings_dir: Path) -> Settings:
    """A state is stable as soon as it is read (no waiting on the clock)."""
    return Settings(
        data_dir=tmp_path / "data",
        database_url=database_url,
        variants_dir=settings_dir,
        live_hold_seconds=0.0,
    )


def picture() -> bytes:
    """A 160x120 table with a light card on it (the fake scanner reads its own table)."""
    image = np.full((120, 160, 3), 90, np.uint8)
    cv2.rectangle(image, (60, 30), (100, 90), (240, 240, 240), -1)
    ok, data = cv2.imencode(".jpg", image)
    assert ok
    return bytes(data.tobytes())


def frame(ws: Any) -> dict[str, Any]:
    ws.send_bytes(picture())
    answer: dict[str, Any] = ws.receive_json()
    return answer


def until(
    watcher: Any, wanted: Callable[[dict[str, Any]], bool]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The first message the watcher receives that is `wanted`, and those before it.

    A watcher is sent the game's newest state, not every state: a screen that has not
    taken one yet gets the next in its place (`LiveHub`), and a stream may start while
    a watcher is being set up. So the tests wait for the state they expect instead of
    counting messages; the newest state always arrives, so the wait ends."""
    skipped = []
    while not wanted(message := watcher.receive_json()):
        skipped.append(message)
    return message, skipped


def seat_with_melds(table: dict[str, Any]) -> dict[str, Any]:
    seats = [s for s in table["seats"] if s["melds"]]
    assert len(seats) == 1, table
    return seats[0]


def test_a_games_stream_judges_each_seats_melds_by_its_rules(
    client: TestClient, fake_scanner: ScanSetter, make_game: GameMaker
) -> None:
    game = make_game()
    fake_scanner(layout=lay_down())
    with client.websocket_connect(f"/api/live/ws?game={game}") as ws:
        first = frame(ws)
        again = frame(ws)
    table = first["table"]
    assert table["round"] == 1 and table["contract"] == "2 sets of 3"
    assert sorted(table["cards"]) == sorted(SETS)
    assert [s["player"] for s in table["seats"]] == ["Ann", "Bob", "Cy"]
    seat = seat_with_melds(table)
    assert seat["melds"] == [["7h", "7s", "7c"], ["Qd", "Qs", "9c"]]
    check = seat["check"]
    assert check["valid"] is False
    sevens, queens = check["melds"]
    assert sevens["valid"] is True and sevens["description"] == "set of 3 7s"
    assert queens["valid"] is False and queens["reasons"]  # said in words
    assert seat["player"] == "Ann" and seat["hand"] == ["Kc"]
    assert [s["hand"] for s in table["seats"][1:]] == [[], ["2d"]]
    assert table["outside"] == []
    assert again["table"] == table  # the same table: the same version, not redrawn
    assert table["version"] == 1


def test_without_a_game_the_stream_carries_no_table(
    client: TestClient, fake_scanner: ScanSetter
) -> None:
    fake_scanner(SETS, melds=((0, 1, 2),))
    with client.websocket_connect("/api/live/ws") as ws:
        answer = frame(ws)
    assert answer["table"] is None
    assert sorted(answer["stable_cards"]) == sorted(SETS)


def test_a_watcher_sees_the_table_another_connection_streams(
    client: TestClient, fake_scanner: ScanSetter, make_game: GameMaker
) -> None:
    game = make_game()
    other = make_game()
    fake_scanner(layout=lay_down())
    with client.websocket_connect(f"/api/live/watch?game={game}") as watcher:
        assert watcher.receive_json() == {
            "game_id": game,
            "streaming": False,
            "device": None,
            "table": None,
        }
        with client.websocket_connect(f"/api/live/ws?game={game}&device=Ann%27s%20phone") as ws:
            started, _ = until(watcher, lambda m: m["streaming"])
            streamed = frame(ws)
            seen, _ = until(watcher, lambda m: m["table"] is not None)
            frame(ws)  # the same table again: nothing new for the watcher
            with client.websocket_connect(f"/api/live/ws?game={other}") as elsewhere:
                frame(elsewhere)  # another game's stream: not this watcher's
            ws.send_text("stop")
            assert ws.receive_json() == {"stopped": True}
        ended, between = until(watcher, lambda m: not m["streaming"])
    assert between == []  # nothing for the same table again, nor for the other game
    assert started == {"game_id": game, "streaming": True, "device": "Ann's phone", "table": None}
    assert seen["streaming"] is True and seen["device"] == "Ann's phone"
    assert seen["table"] == streamed["table"]
    assert seat_with_melds(seen["table"])["check"]["melds"][0]["valid"] is True
    assert ended == {"game_id": game, "streaming": False, "device": None, "table": None}
    assert client.app.state.live_hub.games() == []  # type: ignore[attr-defined]


def test_a_second_streaming_device_takes_over(
    client: TestClient, fake_scanner: ScanSetter, make_game: GameMaker
) -> None:
    game = make_game()
    fake_scanner(SETS, melds=((0, 1, 2),))
    with (
        client.websocket_connect(f"/api/live/watch?game={game}") as watcher,
        client.websocket_connect(f"/api/live/ws?game={game}&device=Ann") as first,
    ):
        until(watcher, lambda m: m["device"] == "Ann")
        frame(first)
        until(watcher, lambda m: m["table"] is not None)
        with client.websocket_connect(f"/api/live/ws?game={game}&device=Bob") as second:
            assert until(watcher, lambda m: m["device"] == "Bob")[0] == {
                "game_id": game,
                "streaming": True,
                "device": "Bob",
                "table": None,
            }
            refused = frame(first)
            with pytest.raises(WebSocketDisconnect):
                first.receive_json()
            assert frame(second)["table"]["version"] == 1
            bob, _ = until(watcher, lambda m: m["table"] is not None)
            assert bob["device"] == "Bob"
    assert refused == {
        "error": "Bob now streams this game's table: this camera stopped",
        "status": 409,
        "taken_over": "Bob",
    }


@pytest.mark.parametrize(
    ("query", "status", "error"),
    [
        ("game=abc", 422, "game must be a game's number, not 'abc'"),
        ("game=0", 422, "game must be a game's number, not '0'"),
        ("game=999", 404, "game 999 not found"),
    ],
)
@pytest.mark.parametrize("path", ["/api/live/ws", "/api/live/watch"])
def test_a_game_that_is_not_one_is_refused_in_words(
    client: TestClient, path: str, query: str, status: int, error: str
) -> None:
    with client.websocket_connect(f"{path}?{query}") as ws:
        assert ws.receive_json() == {"error": error, "status": status}
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert closed.value.code == 1008
    assert client.app.state.live_hub.games() == []  # type: ignore[attr-defined]


def test_watching_needs_a_game(client: TestClient) -> None:
    with client.websocket_connect("/api/live/watch") as ws:
        assert ws.receive_json()["status"] == 422
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert closed.value.code == 1008


def test_closed_sockets_leave_nothing_behind(
    client: TestClient, fake_scanner: ScanSetter, make_game: GameMaker
) -> None:
    """A stream and a watcher that just go away (no `stop`): the game is forgotten, and
    a new watcher hears that nobody streams."""
    game = make_game()
    fake_scanner(SETS, melds=((0, 1, 2),))
    hub = client.app.state.live_hub  # type: ignore[attr-defined]
    with client.websocket_connect(f"/api/live/ws?game={game}&device=Ann") as ws:
        frame(ws)
        with client.websocket_connect(f"/api/live/watch?game={game}") as watcher:
            now = watcher.receive_json()
            assert now["device"] == "Ann" and now["table"] is not None
        assert hub.games() == [game]  # still streamed
    with client.websocket_connect(f"/api/live/watch?game={game}") as watcher:
        assert watcher.receive_json()["streaming"] is False
    assert hub.games() == []


def finish(client: TestClient, game: int) -> None:
    """Every round scored (Ann goes out each time): the game is over."""
    number = client.get(f"/api/games/{game}").json()["current_round"]
    while number is not None:
        for seat, cards in enumerate(("", "7h", "Kd")):
            answer = client.post(
                f"/api/games/{game}/rounds/{number}/hands", json={"player": seat, "cards": cards}
            )
            assert answer.status_code == 201, answer.text
        number = client.get(f"/api/games/{game}").json()["current_round"]


def test_a_finished_games_stream_shows_the_table_without_verdicts(
    client: TestClient, fake_scanner: ScanSetter, make_game: GameMaker
) -> None:
    """No round in play: no contract and no seat's `check`, and the rest of the table
    (players, melds, hands) as the page draws it, for the streaming page and watchers."""
    game = make_game()
    finish(client, game)
    fake_scanner(layout=lay_down())
    with client.websocket_connect(f"/api/live/watch?game={game}") as watcher:
        assert watcher.receive_json()["table"] is None
        with client.websocket_connect(f"/api/live/ws?game={game}&device=Ann") as ws:
            until(watcher, lambda m: m["streaming"])
            answer = frame(ws)
            seen, _ = until(watcher, lambda m: m["table"] is not None)
    LiveUpdate.model_validate(answer)
    LiveWatchPublic.model_validate(seen)
    table = answer["table"]
    assert (table["round"], table["contract"], table["version"]) == (None, None, 1)
    assert sorted(table["cards"]) == sorted(SETS)
    assert [s["player"] for s in table["seats"]] == ["Ann", "Bob", "Cy"]
    assert [s["check"] for s in table["seats"]] == [None, None, None]
    seat = seat_with_melds(table)
    assert seat["melds"] == [["7h", "7s", "7c"], ["Qd", "Qs", "9c"]] and seat["hand"] == ["Kc"]
    assert seen["table"] == table


def test_a_watching_screen_gets_the_picture_the_steady_table_was_read_from(
    client: TestClient, fake_scanner: ScanSetter, make_game: GameMaker
) -> None:
    game = make_game()
    fake_scanner(layout=lay_down())
    url = f"/api/live/picture.jpg?game={game}"
    assert client.get(url).status_code == 404  # nobody streams the game
    with client.websocket_connect(f"/api/live/ws?game={game}&device=cam") as ws:
        assert frame(ws)["table"] is not None
        answer = client.get(url)
        assert answer.status_code == 200, answer.text
        assert answer.headers["content-type"] == "image/jpeg"
        shown = cv2.imdecode(np.frombuffer(answer.content, np.uint8), cv2.IMREAD_COLOR)
        assert shown is not None and shown.shape == (120, 160, 3)  # never enlarged
        ws.send_text("stop")
        assert ws.receive_json() == {"stopped": True}
    assert client.get(url).status_code == 404  # the stream ended: its picture went with it
    assert client.get("/api/live/picture.jpg?game=x").status_code == 422
    assert client.get("/api/live/picture.jpg?game=999999").status_code == 404
