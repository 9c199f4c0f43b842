"""The table code: listening beyond localhost, the page, the API and the websocket need
it (a header, `?code=`, or the cookie the join link leaves); the machine itself does
not, and its page shows the join URL as a QR code; `shanghai serve` prints both."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest
import resvg_py
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import ValidationError
from starlette.websockets import WebSocketDisconnect

from shanghai.cli import serve_command
from shanghai.cli.errors import UsageError
from shanghai.server.app import create_app
from shanghai.server.lan import lan_address
from shanghai.server.scanning import UnavailableScanner
from shanghai.server.settings import Settings
from shanghai.server.table_code import ALPHABET, MAX_WRONG, GuessLimiter, cookie_name

CODE = "ABCD2345"
LOCAL = ("127.0.0.1", 40000)
PHONE = ("192.0.2.77", 40000)
COOKIE = cookie_name(80)
"""The code's cookie of the test server (http://testserver, port 80)."""


def open_app(tmp_path: Path, **settings: object) -> FastAPI:
    """The app listening on every interface (a SQLite file: the database plays no part)."""
    values: dict[str, object] = {
        "data_dir": tmp_path,
        "database_url": f"sqlite:///{tmp_path / 'code.db'}",
        "host": "0.0.0.0",
        "table_code": CODE,
        **settings,
    }
    return create_app(Settings.model_validate(values), scanner=UnavailableScanner())


@pytest.fixture
def app(tmp_path: Path) -> FastAPI:
    return open_app(tmp_path)


@pytest.fixture
def phone(app: FastAPI) -> Iterator[TestClient]:
    """A client on another machine of the network, not following redirects."""
    with TestClient(app, client=PHONE, follow_redirects=False) as client:
        yield client


def expected_join_url(code: str = CODE, port: int = 8000) -> str:
    import socket

    return f"http://{lan_address() or socket.gethostname()}:{port}/?code={code}"


def decode_qr(bgr: np.ndarray) -> str:  # type: ignore[type-arg]
    text, _points, _ = cv2.QRCodeDetector().detectAndDecode(bgr)
    return str(text)


def test_the_api_needs_the_code(phone: TestClient) -> None:
    refused = phone.get("/api/games")
    assert refused.status_code == 401
    assert refused.headers["content-type"] == "application/json"
    assert "table needs its code" in refused.json()["detail"]
    assert refused.headers["www-authenticate"] == "X-Table-Code"
    assert (
        phone.post("/api/games", json={"variant": "shanghai", "players": ["A"]}).status_code == 401
    )
    assert phone.get("/openapi.json").status_code == 401

    assert phone.get("/api/games", headers={"X-Table-Code": CODE}).status_code == 200
    assert phone.get("/api/games", headers={"X-Table-Code": "abcd-2345"}).status_code == 200
    assert phone.get(f"/api/games?code={CODE}").status_code == 200
    phone.cookies.set(COOKIE, CODE)
    assert phone.get("/api/games").status_code == 200
    made = phone.post("/api/games", json={"variant": "shanghai", "players": ["Ann", "Bob", "Cy"]})
    assert made.status_code == 201


def test_a_wrong_code_is_refused(phone: TestClient) -> None:
    for response in (
        phone.get("/api/games", headers={"X-Table-Code": "ABCD2346"}),
        phone.get("/api/games?code=ABCD2346"),
        phone.get("/api/games", headers={"X-Table-Code": "x" * 500}),
    ):
        assert response.status_code == 401
        assert response.json() == {"detail": "wrong table code"}
    page = phone.get("/?code=WRONG123")
    assert page.status_code == 401
    assert 'id="table-code-form"' in page.text
    assert "not the table code" in page.text
    assert "set-cookie" not in page.headers
    # A cookie from an earlier code (the server restarted with a new one) is dropped.
    phone.cookies.set(COOKIE, "OLDCODE99")
    stale = phone.get("/")
    assert stale.status_code == 401
    assert "has changed" in stale.text
    assert f'{COOKIE}=""' in stale.headers["set-cookie"]


def test_the_join_link_leaves_a_cookie_and_a_clean_url(phone: TestClient) -> None:
    joined = phone.get(f"/?code={CODE.lower()}")
    assert joined.status_code == 303
    assert joined.headers["location"] == "/"
    cookie = joined.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}={CODE};")
    assert "HttpOnly" in cookie
    assert "SameSite=strict" in cookie
    assert "Path=/" in cookie
    page = phone.get("/")
    assert page.status_code == 200
    assert '<script src="/static/app.js">' in page.text
    assert phone.get("/api/games").status_code == 200
    # Other query parameters stay; the redirect never leaves the site.
    deeper = phone.get(f"/games/1/print?code={CODE}&x=1")
    assert deeper.headers["location"] == "/games/1/print?x=1"
    offsite = phone.get(f"http://testserver//evil.example/?code={CODE}")
    assert offsite.headers["location"] == "/evil.example/"


def test_without_a_code_the_page_asks_for_it(phone: TestClient) -> None:
    page = phone.get("/")
    assert page.status_code == 401
    assert page.headers["content-type"].startswith("text/html")
    assert page.headers["cache-control"] == "no-store"
    assert 'name="code"' in page.text
    assert 'action="/"' in page.text
    assert "<script" not in page.text and "style=" not in page.text  # the strict CSP
    assert "script-src 'self'" in page.headers["content-security-policy"]
    # Its style sheet (and the rest of the page's static files) needs no code.
    assert phone.get("/static/style.css").status_code == 200
    print_page = phone.get("/games/1/print")
    assert print_page.status_code == 401
    assert 'action="/games/1/print"' in print_page.text


def test_the_websocket_needs_the_code(app: FastAPI) -> None:
    with TestClient(app, client=PHONE) as phone:
        with (
            pytest.raises(WebSocketDisconnect) as refused,
            phone.websocket_connect("/api/live/ws") as socket,
        ):
            socket.send_text("reset")
            socket.receive_json()  # only if the socket opened
        assert refused.value.code == 1008
        with phone.websocket_connect("/api/live/ws", headers={"X-Table-Code": CODE}) as socket:
            socket.send_text("reset")
            assert socket.receive_json() == {"reset": True}


def test_watching_a_game_live_needs_the_code(app: FastAPI) -> None:
    """`/api/live/watch`: a phone without the code (or with a wrong one) is closed before
    it hears anything; with it (`?code=` or the cookie), it receives the game's live
    state, and hears a stream start. (One client: a second `TestClient` would run the
    app on another event loop, which the live hub's queues do not span.)"""
    with TestClient(app, client=PHONE) as phone:
        body = {"variant": "shanghai", "players": ["A", "B", "C"]}
        made = phone.post("/api/games", json=body, headers={"X-Table-Code": CODE})
        game = made.json()["id"]
        for query in ("", "&code=ABCD2346"):
            with (
                pytest.raises(WebSocketDisconnect) as refused,
                phone.websocket_connect(f"/api/live/watch?game={game}{query}") as watcher,
            ):
                watcher.receive_json()  # only if the socket opened
            assert refused.value.code == 1008
        idle = {"game_id": game, "streaming": False, "device": None, "table": None}
        with phone.websocket_connect(f"/api/live/watch?game={game}&code={CODE}") as watcher:
            assert watcher.receive_json() == idle
        phone.cookies.set(COOKIE, CODE)
        with phone.websocket_connect(f"/api/live/watch?game={game}") as watcher:
            assert watcher.receive_json() == idle
            with phone.websocket_connect(f"/api/live/ws?game={game}&device=Host"):
                assert watcher.receive_json() == {**idle, "streaming": True, "device": "Host"}


def test_the_machine_itself_needs_no_code_and_sees_the_join_qr(app: FastAPI) -> None:
    with TestClient(app, client=LOCAL) as host:
        assert host.get("/api/games").status_code == 200
        assert host.get("/").status_code == 200
        table = host.get("/api/table").json()
        assert table == {
            "code_required": True,
            "join_url": expected_join_url(),
            "code": "ABCD-2345",
            "qr_url": "/api/table/qr.svg",
        }
        qr = host.get(table["qr_url"])
        assert qr.headers["content-type"] == "image/svg+xml"
        png = resvg_py.svg_to_bytes(svg_string=qr.text, dpi=96.0, zoom=4)
        image = cv2.imdecode(np.frombuffer(bytes(png), np.uint8), cv2.IMREAD_COLOR)
        assert decode_qr(image) == expected_join_url()
    with TestClient(app, client=PHONE, headers={"X-Table-Code": CODE}) as phone:
        told = phone.get("/api/table").json()
        assert told == {"code_required": True, "join_url": None, "code": None, "qr_url": None}
        assert phone.get("/api/table/qr.svg").status_code == 404


def test_listening_on_localhost_needs_no_code(tmp_path: Path) -> None:
    app = open_app(tmp_path, host="127.0.0.1")
    assert app.state.table_code is None
    with TestClient(app, client=PHONE) as client:
        assert client.get("/api/games").status_code == 200
        assert client.get("/api/table").json()["code_required"] is False


def test_a_code_is_made_when_none_is_given(tmp_path: Path) -> None:
    first = open_app(tmp_path, table_code=None).state.table_code
    second = open_app(tmp_path, table_code=None).state.table_code
    assert re.fullmatch(f"[{ALPHABET}]{{8}}", first)
    assert first != second


def test_the_code_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHANGHAI_TABLE_CODE", "kitchen-table")
    monkeypatch.setenv("SHANGHAI_ALLOWED_HOSTS", "table.lan, den.lan")
    settings = Settings()
    assert settings.table_code == "KITCHENTABLE"
    assert settings.allowed_hosts == ["table.lan", "den.lan"]
    monkeypatch.setenv("SHANGHAI_TABLE_CODE", "abc")
    with pytest.raises(ValidationError, match="6 to 64 letters or digits"):
        Settings()


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    serve_command.register(parser.add_subparsers())
    return parser.parse_args(["serve", *argv])


def qr_in(text: str) -> str:
    """Decode a QR code drawn with half blocks (light modules drawn) in `text`."""
    lines = [line for line in text.splitlines() if line and set(line) <= set("█▀▄ \xa0")]
    rows: list[list[bool]] = []
    for line in lines:
        rows += [[ch in "█▀" for ch in line], [ch in "█▄" for ch in line]]
    width = max(len(row) for row in rows)
    light = np.array([[i >= len(r) or r[i] for i in range(width)] for r in rows], np.uint8)
    image = np.pad(light * 255, 4, constant_values=255)
    big = cv2.resize(image, None, fx=10, fy=10, interpolation=cv2.INTER_NEAREST)
    return decode_qr(cv2.cvtColor(big, cv2.COLOR_GRAY2BGR))


def test_serve_prints_the_code_the_join_url_and_its_qr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    served: list[FastAPI] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **_kw: served.append(app))
    argv = ("--host", "0.0.0.0", "--port", "8123", "--data-dir", str(tmp_path))
    assert serve_command.cmd_serve(parse(*argv, "--table-code", "abcd-2345")) == 0
    out = capsys.readouterr().out
    assert "table code ABCD-2345" in out
    join = expected_join_url(port=8123)
    assert f"open {join} or scan" in out
    assert qr_in(out) == join
    assert "open http://127.0.0.1:8123/ (API docs" in out
    assert served[-1].state.table_code == CODE

    serve_command.cmd_serve(parse(*argv))  # a new code of its own
    made = served[-1].state.table_code
    assert re.fullmatch(f"[{ALPHABET}]{{8}}", made)
    assert expected_join_url(made, 8123) in capsys.readouterr().out

    serve_command.cmd_serve(parse("--data-dir", str(tmp_path)))  # localhost: no code
    assert "table code" not in capsys.readouterr().out
    assert served[-1].state.table_code is None

    with pytest.raises(UsageError, match=r"--table-code: .*6 to 64 letters or digits"):
        serve_command.cmd_serve(parse(*argv, "--table-code", "abc"))


def test_guessing_is_slowed_down_per_device(app: FastAPI, phone: TestClient) -> None:
    for guess in range(MAX_WRONG):
        wrong = phone.get("/api/games", headers={"X-Table-Code": f"WRONG{guess:03d}"})
        assert wrong.status_code == 401
    # Past the limit even the right code waits: a guess must not learn anything.
    refused = phone.get("/api/games", headers={"X-Table-Code": CODE})
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert "too many wrong table codes" in refused.json()["detail"]
    assert phone.get(f"/?code={CODE}").status_code == 429
    # Another device of the table is not held up by it.
    with TestClient(app, client=("192.0.2.78", 40000)) as other:
        assert other.get("/api/games", headers={"X-Table-Code": CODE}).status_code == 200


def test_the_guess_limit_forgets_after_its_window() -> None:
    now = [1000.0]
    limiter = GuessLimiter(max_wrong=3, window_s=60.0, clock=lambda: now[0])
    for _ in range(3):
        assert limiter.wait_s("a") == 0.0
        limiter.wrong("a")
        now[0] += 10.0
    assert limiter.wait_s("a") == pytest.approx(30.0)
    assert limiter.wait_s("b") == 0.0
    now[0] += 30.0
    assert limiter.wait_s("a") == 0.0
    limiter.wrong("a")  # with the two still in the window: held until 1010 leaves it
    assert limiter.wait_s("a") == pytest.approx(10.0)


def test_the_cookie_of_a_server_on_another_port_is_not_taken(phone: TestClient) -> None:
    phone.cookies.set(cookie_name(9000), CODE)
    refused = phone.get("/api/games")
    assert refused.status_code == 401
    assert "table needs its code" in refused.json()["detail"]
    joined = phone.get(f"/?code={CODE}")
    assert joined.headers["set-cookie"].startswith(f"{cookie_name(80)}={CODE};")
