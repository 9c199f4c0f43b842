"""What every request and response passes through: the body limit however the body is
sent (Content-Length or chunked, JSON or multipart), a server error that closes the
connection cleanly, and the security headers on every answer."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anyio
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from shanghai.server.db import get_session

GameMaker = Callable[..., int]
CHUNK = 64 * 1024


class Upload:
    """Drive the app as a server would, one ASGI call: the body arrives in chunks of
    `CHUNK` bytes (up to `chunks` of them, unless told a Content-Length); records how
    many chunks the app asked for and what it answered."""

    def __init__(self, app: FastAPI, path: str, content_type: str, chunks: int) -> None:
        self.app, self.path, self.content_type, self.chunks = app, path, content_type, chunks
        self.read = 0
        self.status = 0
        self.headers: dict[str, str] = {}
        self.body = b""

    def run(self, content_length: int | None = None) -> Upload:
        headers = [(b"content-type", self.content_type.encode()), (b"host", b"testserver")]
        if content_length is not None:
            headers.append((b"content-length", str(content_length).encode()))
        scope: dict[str, Any] = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": self.path,
            "raw_path": self.path.encode(),
            "root_path": "",
            "query_string": b"",
            "headers": headers,
            "client": ("127.0.0.1", 5000),
            "server": ("testserver", 80),
            "state": {},
        }
        head = (
            b'--x\r\nContent-Disposition: form-data; name="image"; filename="a.jpg"\r\n'
            b"Content-Type: image/jpeg\r\n\r\n"
        )

        async def receive() -> dict[str, Any]:
            if self.read >= self.chunks:  # the app waits for a disconnect
                await anyio.sleep(3600)
            self.read += 1
            body = head if self.read == 1 else b"\xff" * CHUNK
            return {"type": "http.request", "body": body, "more_body": self.read < self.chunks}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                self.status = message["status"]
                self.headers = {k.decode(): v.decode() for k, v in message["headers"]}
            elif message["type"] == "http.response.body":
                self.body += message.get("body", b"")

        async def call() -> None:
            with anyio.fail_after(60):
                await self.app(scope, receive, send)

        # In a thread of its own: the browser tests' Playwright keeps an event loop
        # running in the main thread for the whole session, and anyio.run refuses that.
        with ThreadPoolExecutor(max_workers=1) as pool:
            pool.submit(anyio.run, call).result()
        return self


@pytest.fixture
def small_limit(client: TestClient) -> int:
    """A 1 MiB photo limit (the body limit is that plus the multipart overhead)."""
    client.app.state.settings.max_upload_bytes = 1024 * 1024  # type: ignore[attr-defined]
    return 1024 * 1024 + 64 * 1024


@pytest.mark.parametrize("kind", ["multipart", "json"])
def test_a_chunked_body_is_cut_off_at_the_limit(
    client: TestClient, make_game: GameMaker, small_limit: int, kind: str
) -> None:
    """No Content-Length: the body is counted as it arrives and refused once past the
    limit; the app never reads (or spools) the rest of a 300-chunk upload."""
    game = make_game()
    if kind == "multipart":
        path, content_type = f"/api/games/{game}/rounds/1/scans", "multipart/form-data; boundary=x"
    else:
        path, content_type = "/api/games", "application/json"
    upload = Upload(client.app, path, content_type, chunks=300).run()  # type: ignore[arg-type]
    assert upload.status == 413
    assert upload.headers["connection"] == "close"
    assert "larger than" in json.loads(upload.body)["detail"]
    assert upload.read <= small_limit // CHUNK + 2


def test_a_declared_content_length_over_the_limit_is_refused_unread(
    client: TestClient, make_game: GameMaker, small_limit: int
) -> None:
    game = make_game()
    path = f"/api/games/{game}/rounds/1/scans"
    upload = Upload(client.app, path, "multipart/form-data; boundary=x", chunks=300)  # type: ignore[arg-type]
    upload.run(content_length=300 * CHUNK)
    assert upload.status == 413
    assert upload.read == 0
    assert upload.headers["connection"] == "close"
    assert "x-content-type-options" in upload.headers
    huge = Upload(client.app, path, "multipart/form-data", chunks=1)  # type: ignore[arg-type]
    assert huge.run(content_length=10**30).status == 413


def test_a_body_within_the_limit_still_reaches_the_route(
    client: TestClient, make_game: GameMaker, small_limit: int
) -> None:
    game = make_game()
    response = client.post(
        "/api/games",
        content=iter([json.dumps({"variant": "shanghai", "players": ["A", "B", "C"]}).encode()]),
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 201
    assert "content-length" not in response.request.headers  # sent chunked
    scan = client.post(
        f"/api/games/{game}/rounds/1/scans",
        data={"player": "0"},
        files={"image": ("a.jpg", b"\xff\xd8" + b"0" * (small_limit + 10), "image/jpeg")},
    )
    assert scan.status_code == 413


@pytest.fixture
def crashing(app: FastAPI) -> TestClient:
    """The app whose database session fails with an unexpected error."""

    def broken() -> None:
        raise RuntimeError("disk on fire")

    app.dependency_overrides[get_session] = broken
    return TestClient(app, raise_server_exceptions=False)


def test_a_server_error_says_connection_close(crashing: TestClient) -> None:
    with crashing:
        response = crashing.get("/api/games")
    assert response.status_code == 500
    assert response.headers["connection"] == "close"
    assert response.json() == {"detail": "internal server error; the error was logged"}
    assert "disk on fire" not in response.text
    assert response.headers["x-frame-options"] == "DENY"


HEADERS = {
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


def test_every_answer_carries_the_security_headers(
    client: TestClient, make_game: GameMaker
) -> None:
    game = make_game()
    answers = [
        client.get("/"),
        client.get("/static/app.js"),
        client.get("/static/style.css"),
        client.get("/api/games"),
        client.get(f"/api/games/{game}/sheet.csv"),
        client.get("/api/games/999"),  # 404
        client.get("/api/games/x"),  # 422
        client.post("/api/games", content=b"x", headers={"content-type": "image/png"}),  # 415
        client.get("/no/such/page"),
        client.get("/openapi.json"),
    ]
    for response in answers:
        for name, value in HEADERS.items():
            assert response.headers.get(name) == value, (response.url, name)
        assert "content-security-policy" in response.headers, response.url


def _policy(response: Any) -> dict[str, list[str]]:
    policy: dict[str, list[str]] = {}
    for part in response.headers["content-security-policy"].split(";"):
        name, *sources = part.split()
        policy[name] = sources
    return policy


def test_the_page_policy_allows_only_what_the_page_uses(client: TestClient) -> None:
    policy = _policy(client.get("/"))
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"]  # no inline script, no eval
    assert policy["style-src"] == ["'self'"]
    assert "style-src-attr" not in policy  # no inline style attributes either
    assert policy["img-src"] == ["'self'", "data:", "blob:"]
    assert policy["connect-src"] == ["'self'", "ws://testserver", "wss://testserver"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["object-src"] == ["'none'"]
    # A Host header that is not a host name is never copied into the policy.
    odd = _policy(client.get("/", headers={"host": "evil; script-src *"}))
    assert odd["connect-src"] == ["'self'"]
    assert odd["script-src"] == ["'self'"]


def test_the_printable_sheet_allows_its_own_style_and_button(
    client: TestClient, make_game: GameMaker
) -> None:
    from shanghai.server.printable import PRINT_POLICY

    game = make_game()
    page = client.get(f"/games/{game}/print")
    assert page.headers["content-security-policy"] == PRINT_POLICY
    policy = _policy(page)
    assert len(policy["style-src"]) == 1 and policy["style-src"][0].startswith("'sha256-")
    assert "'unsafe-inline'" not in PRINT_POLICY
    assert page.headers["x-frame-options"] == "DENY"


def test_the_api_docs_keep_working(client: TestClient) -> None:
    """The docs viewer is served from the package: its policy lets nothing in from
    another site (no CDN), and its scripts are the server's own."""
    docs = client.get("/docs")
    policy = _policy(docs)
    assert docs.status_code == 200
    assert not [s for values in policy.values() for s in values if "//" in s or "." in s]
    assert policy["frame-ancestors"] == ["'none'"]
    for src in re.findall(r'src="([^"]+)"', docs.text):
        assert src.startswith("/"), src
        assert client.get(src).status_code == 200
