"""The table code in a real Chromium: the server listens on every interface and the
browser comes from the machine's LAN address (as a phone does). Without the code the
page is the code form; the join link (`?code=`) lands on the plain page, which then
works (a game is created); the machine itself sees the join QR code."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from shanghai.server.app import create_app
from shanghai.server.lan import lan_address
from shanghai.server.scanning import UnavailableScanner
from shanghai.server.settings import Settings

pytestmark = pytest.mark.e2e
CODE = "K7QM3XWA"
TIMEOUT = 15_000


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("0.0.0.0", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def open_server(tmp_path: Path) -> Iterator[tuple[str, int]]:
    """uvicorn on 0.0.0.0 with a table code; yields (LAN address, port)."""
    address = lan_address()
    if address is None:
        pytest.skip("this machine has no LAN address to come from")
    port = _free_port()
    settings = Settings(
        data_dir=tmp_path,
        database_url=f"sqlite:///{tmp_path / 'code.db'}",
        host="0.0.0.0",
        port=port,
        table_code=CODE,
    )
    app = create_app(settings, scanner=UnavailableScanner())
    server = uvicorn.Server(uvicorn.Config(app, host="0.0.0.0", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.05)
    yield address, port
    server.should_exit = True
    thread.join(timeout=10)


def test_a_phone_joins_with_the_code(
    open_server: tuple[str, int],
    browser_for: Callable[[list[str]], Any],
    screenshots: Path,
) -> None:
    address, port = open_server
    browser = browser_for(["7h"])
    phone = browser.new_context(viewport={"width": 390, "height": 844})
    page = phone.new_page()
    base = f"http://{address}:{port}"

    page.goto(base + "/")
    page.wait_for_selector("#table-code-form")
    assert page.locator("#new-game").count() == 0
    page.fill("#code", "wrong-code")
    page.click("#table-code-form button")
    page.wait_for_selector("#code-error")
    page.screenshot(path=str(screenshots / "table-code-form.png"), full_page=True)

    page.goto(f"{base}/?code={CODE}")
    page.wait_for_selector("#new-game", timeout=TIMEOUT)
    assert page.url == base + "/"
    assert page.evaluate("document.cookie") == ""  # HttpOnly: no script sees the code
    assert page.locator("#join").count() == 0  # only the host's screen shows the QR code
    page.fill("#players", "Ann\nBob\nCy")
    page.click("#create-game")
    page.wait_for_selector("#round-info", timeout=TIMEOUT)

    # The form types the code as people do: lower case, with the dash.
    other = browser.new_page()
    other.goto(base + "/")
    other.fill("#code", "k7qm-3xwa")
    other.click("#table-code-form button")
    other.wait_for_selector("#new-game", timeout=TIMEOUT)
    assert "Ann, Bob, Cy" in other.inner_text("#games")

    host = browser.new_page(viewport={"width": 1100, "height": 900})
    host.goto(f"http://127.0.0.1:{port}/")
    host.wait_for_selector("#join img.qr", timeout=TIMEOUT)
    host.wait_for_function(
        "document.getElementById('join-qr').complete "
        "&& document.getElementById('join-qr').naturalWidth > 0",
        timeout=TIMEOUT,
    )
    assert f"{base}/?code={CODE}" in host.inner_text("#join")
    assert host.inner_text("#join-code") == "K7QM-3XWA"
    host.locator("#join").screenshot(path=str(screenshots / "join-qr.png"))
