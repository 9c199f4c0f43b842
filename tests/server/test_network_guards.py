"""Who may talk to the server: the Host header must name it (a DNS-rebinding page is
400), another site's page may not write or open the websocket (403), and evidence
photos are served only with their scan's token (404 otherwise)."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from shanghai.server.app import create_app
from shanghai.server.evidence import KEY_FILE
from shanghai.server.scanning import UnavailableScanner
from shanghai.server.settings import Settings

GameMaker = Callable[..., int]
ScanSetter = Callable[..., list[tuple[int, int]]]
GAME = {"variant": "shanghai", "players": ["Ann", "Bob", "Cy"]}


def guarded(tmp_path: Path, **settings: object) -> TestClient:
    values: dict[str, object] = {
        "data_dir": tmp_path,
        "database_url": f"sqlite:///{tmp_path / 'guards.db'}",
        **settings,
    }
    app = create_app(Settings.model_validate(values), scanner=UnavailableScanner())
    return TestClient(app)


@pytest.fixture
def local(tmp_path: Path) -> Iterator[TestClient]:
    """The app as `shanghai serve` runs it by default (127.0.0.1)."""
    with guarded(tmp_path, allowed_hosts=["table.lan"]) as client:
        yield client


# --- Host ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example", "[::2]:80", "a b"]
)
def test_a_foreign_host_is_400(local: TestClient, host: str) -> None:
    """A page whose own name was rebound to this machine sends its own name."""
    response = local.get("/api/games", headers={"host": host})
    assert response.status_code == 400
    assert "--allowed-host" in response.json()["detail"]
    assert local.get("/", headers={"host": host}).status_code == 400
    refused = local.post("/api/games", json=GAME, headers={"host": host})
    assert refused.status_code == 400
    assert local.get("/api/games").json() == []
    # The security headers stay on the refusal.
    assert response.headers["x-frame-options"] == "DENY"
    assert "content-security-policy" in response.headers


@pytest.mark.parametrize(
    "host",
    [
        "localhost:8000",
        "LOCALHOST",
        "127.0.0.1:8000",
        "[::1]:8000",
        "table.lan",
        "table.lan.:8000",
        socket.gethostname(),
        f"{socket.gethostname()}.local:8000",
    ],
)
def test_the_names_of_this_server_are_served(local: TestClient, host: str) -> None:
    assert local.get("/api/games", headers={"host": host}).status_code == 200
    name, _, port = host.rpartition(":") if host.endswith("8000") else (host, "", "")
    lookalike = f"{name.rstrip('.')}.evil.example" + (f":{port}" if port else "")
    assert local.get("/api/games", headers={"host": lookalike}).status_code == 400


def test_the_bound_address_is_served(tmp_path: Path) -> None:
    with guarded(tmp_path, host="10.1.2.3", table_code="ABCD2345") as client:
        headers = {"x-table-code": "ABCD2345"}
        assert client.get("/api/games", headers={**headers, "host": "10.1.2.3:8000"}).is_success
        wrong = client.get("/api/games", headers={**headers, "host": "10.1.2.4:8000"})
        assert wrong.status_code == 400


def test_a_websocket_with_a_foreign_host_is_refused(local: TestClient) -> None:
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        local.websocket_connect("/api/live/ws", headers={"host": "evil.example"}) as ws,
    ):
        ws.send_text("reset")
        ws.receive_json()  # only if the socket opened
    assert refused.value.code == 1008


# --- Origin -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "origin", ["http://evil.example", "null", "http://testserver:8080", "https://testserver"]
)
def test_a_write_from_another_site_is_403(local: TestClient, origin: str) -> None:
    made = local.post("/api/games", json=GAME, headers={"origin": "http://testserver"})
    assert made.status_code == 201
    game = made.json()["id"]
    crossed = local.post("/api/games", json=GAME, headers={"origin": origin})
    assert crossed.status_code == 403
    assert "another site" in crossed.json()["detail"]
    # The multipart form a foreign page can send without asking (no CORS preflight).
    form = local.post(
        f"/api/games/{game}/rounds/1/scans",
        data={"player": "0"},
        files={"image": ("a.jpg", b"\xff\xd8\xff", "image/jpeg")},
        headers={"origin": origin},
    )
    assert form.status_code == 403
    hand = {"player": 0, "cards": "7h"}
    assert (
        local.post(
            f"/api/games/{game}/rounds/1/hands", json=hand, headers={"origin": origin}
        ).status_code
        == 403
    )
    assert (
        local.put(
            f"/api/games/{game}/rounds/1/hands/0", json=hand, headers={"origin": origin}
        ).status_code
        == 403
    )
    assert (
        local.delete(
            f"/api/games/{game}/rounds/1/buys?player=0", headers={"origin": origin}
        ).status_code
        == 403
    )
    assert [g["id"] for g in local.get("/api/games").json()] == [game]
    assert local.get(f"/api/games/{game}/rounds/1").json()["hands"] == []
    # A read changes nothing (and without CORS the other site cannot see the answer).
    assert local.get("/api/games", headers={"origin": origin}).status_code == 200
    # The same page reached by another of the server's names is the same site.
    other = local.post(
        "/api/games",
        json=GAME,
        headers={"origin": "http://localhost:8000", "host": "localhost:8000"},
    )
    assert other.status_code == 201


def test_a_cross_site_write_without_origin_is_403(local: TestClient) -> None:
    refused = local.post("/api/games", json=GAME, headers={"sec-fetch-site": "cross-site"})
    assert refused.status_code == 403
    assert local.get("/api/games").json() == []


def test_a_websocket_from_another_site_is_refused(local: TestClient) -> None:
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        local.websocket_connect("/api/live/ws", headers={"origin": "http://evil.example"}) as ws,
    ):
        ws.send_text("reset")
        ws.receive_json()  # only if the socket opened
    assert refused.value.code == 1008
    with local.websocket_connect("/api/live/ws", headers={"origin": "http://testserver"}) as ws:
        ws.send_text("reset")
        assert ws.receive_json() == {"reset": True}


# --- evidence -----------------------------------------------------------------------------


def scan_once(client: TestClient, make_game: GameMaker, photo: bytes) -> dict[str, object]:
    game = make_game()
    response = client.post(
        f"/api/games/{game}/rounds/1/scans",
        data={"player": "0"},
        files={"image": ("a.jpg", photo, "image/jpeg")},
    )
    assert response.status_code == 201, response.text
    scan: dict[str, object] = response.json()
    return scan


def token_of(url: object) -> str:
    return parse_qs(urlsplit(str(url)).query)["token"][0]


def test_evidence_needs_its_token(
    client: TestClient, make_game: GameMaker, photo: bytes, fake_scanner: ScanSetter
) -> None:
    fake_scanner(["7h"])
    first = scan_once(client, make_game, photo)
    second = scan_once(client, make_game, photo)
    sid = first["id"]
    token = token_of(first["image_url"])
    assert len(token) >= 20
    assert first["image_url"] == f"/api/scans/{sid}/image?token={token}"
    assert first["annotated_url"] == f"/api/scans/{sid}/annotated.jpg?token={token}"
    assert client.get(str(first["image_url"])).content == photo
    assert client.get(str(first["annotated_url"])).status_code == 200
    read = client.get(f"/api/scans/{sid}?token={token}")
    assert read.status_code == 200
    assert read.json()["image_url"] == first["image_url"]
    assert token_of(second["image_url"]) != token
    for path in (f"/api/scans/{sid}", f"/api/scans/{sid}/image", f"/api/scans/{sid}/annotated.jpg"):
        for query in ("", "?token=", "?token=AAAAAAAAAAAAAAAAAAAAAA", f"?token={token}x"):
            missing = client.get(path + query)
            assert missing.status_code == 404, (path, query)
            assert missing.json() == {"detail": f"scan {sid} not found"}
        other = client.get(f"{path}?token={token_of(second['image_url'])}")
        assert other.status_code == 404


def test_the_evidence_key_is_kept_in_the_data_folder(
    client: TestClient, app: FastAPI, make_game: GameMaker, photo: bytes, fake_scanner: ScanSetter
) -> None:
    fake_scanner(["7h"])
    scan = scan_once(client, make_game, photo)
    key = app.state.settings.data_dir / KEY_FILE
    assert os.stat(key).st_mode & 0o777 == 0o600
    again = create_app(app.state.settings, scanner=UnavailableScanner())
    with TestClient(again) as restarted:  # the same URL after a restart
        assert restarted.get(str(scan["image_url"])).content == photo
