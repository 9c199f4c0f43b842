"""The answers that come before the API (the network guard, the table code) and the
live websocket, fuzzed: the OpenAPI fuzzer (test_fuzz_api.py) never sends a strange
Host, Origin, cookie or websocket message, so these get their own property tests.

Whatever arrives, the server answers without a server error, and a refusal is one of
the documented ones: 400 (Host), 401 (table code), 403 (another site's write), 429
(too many wrong codes), each with a JSON `detail` (or the code form for a page)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.websockets import WebSocketDisconnect

from shanghai.server.app import create_app
from shanghai.server.scanning import UnavailableScanner
from shanghai.server.settings import Settings
from shanghai.server.table_code import GuessLimiter, TableCodeMiddleware

EXAMPLES = int(os.environ.get("SHANGHAI_FUZZ_EXAMPLES", "50"))
CODE = "ABCD2345"
REFUSALS = {400, 401, 403, 429}

_header_text = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=80)
_served = st.sampled_from(["testserver", "testserver:80", "TestServer.", "127.0.0.1"])
_hosts = st.one_of(
    _served,
    _served,
    _header_text,
    st.sampled_from(
        [
            "testserver",
            "localhost:8000",
            "127.0.0.1",
            "[::1]:8000",
            "[::1",
            "evil.example",
            "testserver:99999999999999999999",
            "TESTSERVER.",
            ":80",
            "",
        ]
    ),
)
_origins = st.one_of(
    st.none(),
    _header_text,
    st.sampled_from(
        [
            "http://testserver",
            "https://testserver",
            "http://testserver:80",
            "http://evil.example",
            "null",
            "http://user@testserver",
            "file://",
        ]
    ),
)


def _open_app(tmp_path: Path, **values: object) -> FastAPI:
    config = {
        "data_dir": tmp_path,
        "database_url": f"sqlite:///{tmp_path / 'guards.db'}",
        **values,
    }
    return create_app(Settings.model_validate(config), scanner=UnavailableScanner())


@pytest.fixture(scope="module")
def open_table(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    """Listening on every interface with a table code; guesses never held up (the
    limiter is tested on its own), so each example is judged on what it sends."""
    app = _open_app(tmp_path_factory.mktemp("open"), host="0.0.0.0", table_code=CODE)
    (layer,) = [m for m in app.user_middleware if m.cls is TableCodeMiddleware]
    layer.kwargs["limiter"] = GuessLimiter(max_wrong=10**9)
    return app


def _check_refusal(status: int, content_type: str, body: bytes, *, head: bool) -> None:
    assert status < 500, body[:300]
    if status in REFUSALS and not head:
        if content_type.startswith("application/json"):
            detail = json.loads(body)["detail"]
            assert isinstance(detail, str) and detail
        else:
            assert content_type.startswith("text/html"), content_type


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    method=st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]),
    path=st.sampled_from(["/", "/api/games", "/api/games/1", "/openapi.json", "/docs", "/x"]),
    host=_hosts,
    origin=_origins,
    fetch_site=st.sampled_from([None, "cross-site", "same-origin", "none", "junk"]),
    code=st.one_of(st.none(), _header_text, st.just(CODE), st.just("abcd-2345")),
    cookie=st.one_of(st.none(), _header_text),
    query_code=st.one_of(st.none(), _header_text, st.just(CODE)),
    loopback=st.booleans(),
)
def test_any_host_origin_or_code_gets_a_documented_answer(
    open_table: FastAPI,
    method: str,
    path: str,
    host: str,
    origin: str | None,
    fetch_site: str | None,
    code: str | None,
    cookie: str | None,
    query_code: str | None,
    loopback: bool,
) -> None:
    headers = {"host": host}
    if origin is not None:
        headers["origin"] = origin
    if fetch_site is not None:
        headers["sec-fetch-site"] = fetch_site
    if code is not None:
        headers["x-table-code"] = code
    if cookie is not None:
        headers["cookie"] = f"shanghai_table_code_80={cookie}"
    client_address = ("127.0.0.1", 5000) if loopback else ("192.0.2.9", 5000)
    with TestClient(open_table, client=client_address, follow_redirects=False) as client:
        response = client.request(
            method,
            f"http://testserver{path}",
            headers=headers,
            params={"code": query_code} if query_code is not None else None,
            json={"variant": "shanghai", "players": ["A"]} if method in ("POST", "PUT") else None,
        )
    _check_refusal(
        response.status_code,
        response.headers.get("content-type", ""),
        response.content,
        head=method == "HEAD",
    )
    if response.status_code == 401:
        assert not loopback, "the machine itself needs no code"


def _tiny_png(seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    image = rng.integers(0, 256, (24, 32, 3), dtype=np.uint8)
    ok, encoded = cv2.imencode(".png", image)
    assert ok
    return encoded.tobytes()


_messages = st.lists(
    st.one_of(
        st.binary(max_size=300).map(lambda b: ("bytes", b)),
        st.integers(0, 10**6).map(lambda s: ("bytes", _tiny_png(s))),
        st.binary(max_size=40).map(lambda b: ("bytes", b"\x89PNG\r\n\x1a\n" + b)),
        st.binary(max_size=40).map(lambda b: ("bytes", b"\xff\xd8\xff" + b)),
        st.text(max_size=60).map(lambda t: ("text", t)),
        st.just(("text", "reset")),
        st.just(("text", json.dumps({"frame": 10**30, "reset": None}))),
    ),
    min_size=1,
    max_size=4,
)


@pytest.fixture(scope="module")
def live_app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    """The app with the shipped model (frames are really decoded and read)."""
    folder = tmp_path_factory.mktemp("live")
    return create_app(Settings(data_dir=folder, database_url=f"sqlite:///{folder / 'live.db'}"))


@settings(
    max_examples=max(EXAMPLES // 2, 5), deadline=None, suppress_health_check=list(HealthCheck)
)
@given(messages=_messages, origin=_origins)
def test_the_live_socket_answers_any_message_or_closes_cleanly(
    live_app: FastAPI, messages: list[tuple[str, object]], origin: str | None
) -> None:
    headers = {"origin": origin} if origin is not None else {}
    with TestClient(live_app) as client:
        try:
            with client.websocket_connect("/api/live/ws", headers=headers) as socket:
                for kind, payload in messages:
                    if kind == "bytes":
                        assert isinstance(payload, bytes)
                        socket.send_bytes(payload)
                    else:
                        assert isinstance(payload, str)
                        socket.send_text(payload)
                    answer = socket.receive_json()
                    assert isinstance(answer, dict)
                    if "error" in answer:
                        assert isinstance(answer["error"], str) and answer["error"]
                        assert 400 <= answer["status"] < 500 or answer["status"] == 503
        except WebSocketDisconnect as closed:
            # Refused before it opened (another site's page) or closed for a reason the
            # protocol names; never an internal error (1011).
            assert closed.code in (1008, 1013), closed
