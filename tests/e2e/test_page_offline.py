"""Offline and installable (issue 17): an icon drawn for the page (SVG, and PNGs drawn by
tools/make_icons.py), a web app manifest, and a service worker that opens the page
with no network while never keeping an API answer; the API docs (/docs, /redoc) open
with no internet, their viewers served from an installed package.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from page_kit import DESKTOP, PHONE, TIMEOUT, api_game, open_table
from PIL import Image

pytestmark = pytest.mark.e2e
STATIC = Path(__file__).resolve().parents[2] / "server" / "static"


def test_the_manifest_names_icons_that_exist() -> None:
    manifest = json.loads((STATIC / "manifest.webmanifest").read_text())
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    for icon in manifest["icons"]:
        path = STATIC / Path(icon["src"]).name
        assert path.exists(), icon
        if icon["type"] == "image/png":
            size = int(icon["sizes"].split("x")[0])
            with Image.open(path) as image:
                assert image.size == (size, size)
    assert any(icon.get("purpose") == "maskable" for icon in manifest["icons"])


def test_the_page_opens_offline_and_keeps_no_api_answer(
    live_server: Callable[..., Any], browser_for: Callable[[list[str]], Any], screenshots: Path
) -> None:
    server = live_server()
    browser = browser_for([])
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    game = api_game(page, server.url, ["Ann", "Bob", "Cy"])
    open_table(page, server.url, game)
    assert page.evaluate("document.querySelector('link[rel=manifest]').href").endswith(
        "/static/manifest.webmanifest"
    )
    # the icon is the page's own
    icon = page.request.get(f"{server.url}/static/icon.svg")
    assert icon.ok and icon.headers["content-type"].startswith("image/svg+xml")
    worker = page.request.get(f"{server.url}/sw.js")
    assert worker.headers["service-worker-allowed"] == "/"

    page.wait_for_function(
        "navigator.serviceWorker.ready.then((r) => Boolean(r.active)).catch(() => false)",
        timeout=TIMEOUT,
    )
    page.locator("#player-0 .cards-input").fill("7h 8h")
    # once the worker controls the page, the shell is kept
    page.reload()
    page.wait_for_selector("#round-panel", timeout=TIMEOUT)
    assert page.evaluate("Boolean(navigator.serviceWorker.controller)")
    kept = page.evaluate(
        """async () => {
            const keys = [];
            for (const name of await caches.keys()) {
              const cache = await caches.open(name);
              for (const request of await cache.keys()) keys.push(new URL(request.url).pathname);
            }
            return keys;
        }"""
    )
    assert "/" in kept and "/static/app.js" in kept and "/static/round-end.js" in kept
    assert not [k for k in kept if k.startswith("/api/")]

    # no network: the page still opens, says it is offline, and the entry is there
    context.set_offline(True)
    page.reload()
    page.wait_for_selector("#offline-note", state="visible", timeout=TIMEOUT)
    page.wait_for_selector("#retry", timeout=TIMEOUT)
    assert "cannot be reached" in page.inner_text("main")
    page.screenshot(path=str(screenshots / "offline-phone.png"), full_page=True)
    context.set_offline(False)
    page.click("#retry")
    page.wait_for_selector("#round-panel", timeout=TIMEOUT)
    assert page.locator("#player-0 .cards-input").input_value() == "7h 8h"
    page.wait_for_selector("#offline-note", state="hidden", timeout=TIMEOUT)


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_the_api_docs_need_no_internet(
    path: str,
    live_server: Callable[..., Any],
    browser_for: Callable[[list[str]], Any],
    screenshots: Path,
) -> None:
    server = live_server()
    page = browser_for([]).new_page(viewport=DESKTOP)
    elsewhere: list[str] = []

    def only_this_server(route: Any) -> None:
        if route.request.url.startswith(server.url):
            route.continue_()
        else:
            elsewhere.append(f"{route.request.resource_type} {route.request.url}")
            route.abort()

    page.route("**/*", only_this_server)
    page.goto(server.url + path)
    if path == "/docs":
        page.wait_for_selector(".swagger-ui .opblock", timeout=TIMEOUT)
    else:
        page.wait_for_selector("redoc [role=navigation], .api-content", timeout=TIMEOUT)
    assert "/api/games" in page.inner_text("body")
    # nothing the viewer needs comes from elsewhere (ReDoc's footer links its maker's
    # logo, an image that is simply not shown offline)
    assert [r for r in elsewhere if not r.startswith("image ")] == []
    page.screenshot(path=str(screenshots / f"api{path.replace('/', '-')}.png"))
