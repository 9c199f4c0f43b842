"""Browser tests: the real server (uvicorn on a free port, a temp SQLite file) driven by
Debian's Chromium through Playwright, with a fake camera fed from a generated video.

Chromium is never skipped silently: without /usr/bin/chromium (Debian package
`chromium`, in .ci/apt-packages.txt) these tests fail, unless SHANGHAI_SKIP_E2E=1.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import uvicorn

from fake_camera import card_video
from shanghai.server.app import create_app
from shanghai.server.scanning import CardScanner
from shanghai.server.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "out" / "screenshots"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--use-fake-ui-for-media-stream",
    "--use-fake-device-for-media-stream",
]


def chromium_path() -> str:
    found = os.environ.get("SHANGHAI_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(found).exists():
        if os.environ.get("SHANGHAI_SKIP_E2E") == "1":
            pytest.skip("browser tests opted out with SHANGHAI_SKIP_E2E=1")
        pytest.fail(
            "Chromium not found: install the Debian package 'chromium' (listed in "
            ".ci/apt-packages.txt) or set SHANGHAI_SKIP_E2E=1",
            pytrace=False,
        )
    return found


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LiveServer:
    """uvicorn serving the app in a thread."""

    def __init__(self, settings: Settings, scanner: CardScanner | None = None) -> None:
        self.settings = settings
        self.port = _free_port()
        config = uvicorn.Config(
            create_app(settings, scanner=scanner),
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the server did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *_exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


ServerFactory = Callable[..., LiveServer]


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[ServerFactory]:
    started: list[LiveServer] = []

    def start(scanner: CardScanner | None = None) -> LiveServer:
        settings = Settings(data_dir=tmp_path, database_url=f"sqlite:///{tmp_path / 'e2e.db'}")
        server = LiveServer(settings, scanner).__enter__()
        started.append(server)
        return server

    yield start
    for server in started:
        server.__exit__(None, None, None)


@pytest.fixture(scope="session")
def playwright_driver() -> Iterator[object]:
    from playwright.sync_api import Page, sync_playwright

    chromium_path()  # fail (or opt out) before starting the driver
    # The page's Content-Security-Policy forbids eval (no 'unsafe-eval'), with which
    # Playwright's wait_for_function polls inside the page; poll with page.evaluate
    # instead (run through the DevTools protocol, which the policy allows), so the page
    # is tested under its real policy.
    with pytest.MonkeyPatch.context() as patch, sync_playwright() as driver:
        patch.setattr(Page, "wait_for_function", _wait_for_function)
        yield driver


def _wait_for_function(
    page: object,
    expression: str,
    *,
    arg: object = None,
    timeout: float | None = None,
    polling: object = None,
) -> object:
    """`Page.wait_for_function` polling every 50 ms with `page.evaluate_handle`."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    deadline = time.monotonic() + (30_000 if timeout is None else timeout) / 1000
    while True:
        handle = page.evaluate_handle(expression, arg)  # type: ignore[attr-defined]
        if handle.json_value():
            return handle
        handle.dispose()
        if time.monotonic() > deadline:
            raise PlaywrightTimeoutError(f"timed out waiting for {expression.strip()[:80]!r}")
        time.sleep(0.05)


@pytest.fixture
def browser_for(playwright_driver: object, tmp_path: Path) -> Iterator[Callable[..., object]]:
    """A fresh headless Chromium whose fake camera shows the given cards (then, when
    given, other cards: `fake_camera.card_video`)."""
    browsers: list[object] = []

    def launch(cards: list[str], then: list[str] | None = None) -> object:
        video = card_video(tmp_path / "cards.y4m", cards, then=then)
        browser = playwright_driver.chromium.launch(  # type: ignore[attr-defined]
            executable_path=chromium_path(),
            args=[*CHROMIUM_ARGS, f"--use-file-for-fake-video-capture={video}"],
        )
        browsers.append(browser)
        return browser

    yield launch
    for browser in browsers:
        browser.close()  # type: ignore[attr-defined]


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
