"""The page in a real headless Chromium against the real server.

- `test_a_game_without_recognition`: what works with no model at all (the app as it
  runs when the model files are missing) — new game, the browser camera running with
  the honest "model not installed" message, round end by
  clicks and text, a correction, buys up to the limit, a dispute check, the score
  sheet and its chart surviving a reload, the printable sheet, a phone-sized view.
- `test_scoring_from_the_camera_with_a_stand_in_scanner`: the camera path end to end
  (browser camera -> websocket -> overlay -> scan from camera -> correct one card ->
  confirm -> reload) with a stand-in scanner that returns known cards: the plumbing is
  real, the recognition is not.
- `test_real_recognition_from_the_camera`: the same with the app's own scanner and the
  shipped model (skipped, saying so, only if `models/cards-*.onnx` are missing).

Screenshots of every page go to out/screenshots/ (git-ignored).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fake_camera import CARD_SLOTS
from shanghai.server.scanning import DetectedCard, ScanResult, UnavailableScanner, default_scanner

pytestmark = pytest.mark.e2e
TIMEOUT = 15_000


class StandInScanner:
    """Not recognition: answers every frame with the cards the fake camera shows."""

    def __init__(self, cards: list[str]) -> None:
        self.cards = cards

    @property
    def name(self) -> str:
        return "stand-in (e2e)"

    def scan(self, image_bgr: np.ndarray) -> ScanResult:  # type: ignore[type-arg]
        height, width = image_bgr.shape[:2]
        sx, sy = width / 640, height / 480
        return ScanResult(
            cards=tuple(
                DetectedCard(card=card, confidence=0.97, xyxy=(x0 * sx, y0 * sy, x1 * sx, y1 * sy))
                for card, (x0, y0, x1, y1) in zip(self.cards, CARD_SLOTS, strict=False)
            ),
            model="stand-in",
        )


def new_game(page: Any, base: str, players: str = "Ann\nBob\nCy") -> str:
    page.goto(base + "/")
    page.fill("#game-name", "Friday")
    page.select_option("#variant", "shanghai")
    page.fill("#players", players)
    page.click("#create-game")
    page.wait_for_selector("#round-info", timeout=TIMEOUT)
    return str(page.url.rsplit("/", 1)[-1])


def saved(page: Any, click: Callable[[], None]) -> None:
    """Click a save button and wait until the server answered 2xx and the round panel
    was redrawn."""
    page.evaluate("document.getElementById('round-panel').dataset.old = 'yes'")
    with page.expect_response(lambda r: "/hands" in r.url) as answer:
        click()
    assert answer.value.status in (200, 201), answer.value.text()
    page.wait_for_function("!document.getElementById('round-panel').dataset.old", timeout=TIMEOUT)


def confirm(page: Any, seat: int, cards: str) -> None:
    box = page.locator(f"#player-{seat}")
    box.locator(".cards-input").fill(cards)
    saved(page, box.locator(".save").click)


def test_a_game_without_recognition(
    live_server: Callable[..., Any], browser_for: Callable[[list[str]], Any], screenshots: Path
) -> None:
    server = live_server(UnavailableScanner())
    browser = browser_for(["7h", "Kd", "JK"])
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.goto(server.url + "/")
    page.wait_for_selector("#new-game")
    page.screenshot(path=str(screenshots / "home.png"), full_page=True)
    game = new_game(page, server.url)
    assert "Round 1: 2 sets of 3 · 11 cards each" in page.inner_text("#round-info")

    # the browser camera runs; without a model the page says so instead of guessing
    page.click("#start-camera")
    page.wait_for_function("document.getElementById('live-video').videoWidth > 0", timeout=TIMEOUT)
    page.wait_for_function(
        "document.getElementById('live-status').textContent.includes('not installed')",
        timeout=TIMEOUT,
    )

    # Ann by clicks: 7h and Kd from the picker, Kd removed again, Ks typed
    ann = page.locator("#player-0")
    ann.locator("summary").click()
    ann.locator("button[data-card='7h']").click()
    ann.locator("button[data-card='Kd']").click()
    page.wait_for_function(
        "document.querySelector('#player-0 .points').textContent === '15 pts'", timeout=TIMEOUT
    )
    ann.locator(".chips .chip", has_text="K").click()
    assert ann.locator(".cards-input").input_value() == "7h"
    ann.locator(".cards-input").fill("7h Ks")
    saved(page, ann.locator(".save").click)
    assert page.inner_text("#player-0 .points") == "15 pts"
    confirm(page, 1, "")  # Bob went out
    confirm(page, 2, "JK 2c")
    page.wait_for_function(
        "document.getElementById('round-info').textContent.startsWith('Round 2')",
        timeout=TIMEOUT,
    )
    # the camera kept running through the saves
    assert page.evaluate("document.getElementById('live-video').videoWidth") > 0

    # round 2: Ann saves 9d, then corrects it to 9c 3h
    confirm(page, 0, "9d")
    page.locator("#player-0 .correct").click()
    page.locator("#player-0 .cards-input").fill("9c 3h")
    saved(page, page.locator("#player-0 .save").click)
    page.wait_for_selector("#player-0 >> text=Corrections: removed 9d", timeout=TIMEOUT)

    # buys: three allowed in round 2, the fourth refused
    for left in (2, 1, 0):
        page.locator("#buys-1 .buy-button").click()
        page.wait_for_selector(f"#buys-1 >> text={left} of 3 buys left", timeout=TIMEOUT)
    page.locator("#buys-1 .buy-button").click()
    page.wait_for_selector("#buys-1 >> text=Bob has used all 3 buys", timeout=TIMEOUT)
    page.screenshot(path=str(screenshots / "table.png"), full_page=True)

    # dispute check by text
    page.select_option("#check-round", "2")
    page.fill("#check-cards", "7h 7s 7c | 4d 5d 6d 8d")
    page.click("#check-button")
    page.wait_for_selector("#check-result >> text=Not a legal lay-down", timeout=TIMEOUT)
    assert page.locator("#check-result .verdict.valid").count() == 1
    assert page.locator("#check-result .verdict.invalid").count() == 1
    page.fill("#check-cards", "7h 7s 7c | 4d 5d 6d 7d")
    page.click("#check-button")
    page.wait_for_selector("#check-result >> text=Legal lay-down", timeout=TIMEOUT)
    page.locator("#dispute-panel").screenshot(path=str(screenshots / "dispute.png"))

    # score sheet with chart; still there after a reload
    page.goto(f"{server.url}/#/games/{game}/sheet")
    page.wait_for_selector("#score-sheet")
    first = page.locator("#score-sheet tbody tr").first.inner_text()
    assert "15" in first and "70" in first
    assert page.locator("#chart polyline.series").count() == 3
    assert page.inner_text("#score-sheet tfoot").split() == ["Total", "15", "0", "70"]
    page.screenshot(path=str(screenshots / "sheet.png"), full_page=True)
    page.reload()
    page.wait_for_selector("#score-sheet")
    assert page.inner_text("#score-sheet tfoot").split() == ["Total", "15", "0", "70"]
    assert "Leading: Bob" in page.inner_text("#sheet-result")

    # printable sheet, pre-filled with every round's contract
    page.goto(f"{server.url}/games/{game}/print")
    text = page.inner_text("#print-sheet")
    assert "1 set of 3 + 1 run of 10" in text and "3 runs of 5" in text
    page.screenshot(path=str(screenshots / "print.png"), full_page=True)

    # readable on a phone: nothing wider than the screen
    phone = browser.new_page(viewport={"width": 375, "height": 760}, device_scale_factor=2)
    phone.goto(f"{server.url}/#/games/{game}")
    phone.wait_for_selector("#round-panel")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 375
    phone.screenshot(path=str(screenshots / "table-phone.png"), full_page=True)
    phone.goto(f"{server.url}/#/games/{game}/sheet")
    phone.wait_for_selector("#score-sheet")
    phone.screenshot(path=str(screenshots / "sheet-phone.png"), full_page=True)


def camera_round(page: Any, base: str, screenshots: Path, shot: str) -> str:
    """Create a game, see the cards on the live view, score Ann from the camera with one
    card corrected, finish the round, reload, and check the sheet."""
    game = new_game(page, base)
    page.click("#start-camera")
    # the chips are read in the same script that sees three of them: with a real model
    # the steady set may change between two calls
    seen = page.wait_for_function(
        """() => {
            const chips = [...document.querySelectorAll('#live-cards .chip')];
            return chips.length === 3 ? chips.map((chip) => chip.textContent) : null;
        }""",
        timeout=TIMEOUT,
    ).json_value()
    assert len(seen) == 3
    page.wait_for_function("document.getElementById('live-overlay').width > 0", timeout=TIMEOUT)
    page.screenshot(path=str(screenshots / f"{shot}-live.png"), full_page=True)
    ann = page.locator("#player-0")
    ann.locator(".scan-live").click()
    ann.locator("img.evidence").wait_for(timeout=TIMEOUT)
    proposed = ann.locator(".cards-input").input_value().split()
    assert len(proposed) == 3
    # the player corrects one card: the last one read becomes 2c
    ann.locator(".cards-input").fill(" ".join([*proposed[:-1], "2c"]))
    saved(page, ann.locator(".save").click)
    page.wait_for_selector(
        f"#player-0 >> text=Corrections: removed {proposed[-1]}", timeout=TIMEOUT
    )
    confirm(page, 1, "")
    confirm(page, 2, "4c")
    page.goto(f"{base}/#/games/{game}/sheet")
    page.reload()
    page.wait_for_selector("#score-sheet")
    first_row = page.locator("#score-sheet tbody tr").first.inner_text()
    assert "Σ" in first_row
    page.screenshot(path=str(screenshots / f"{shot}-sheet.png"), full_page=True)
    return game


def test_scoring_from_the_camera_with_a_stand_in_scanner(
    live_server: Callable[..., Any], browser_for: Callable[[list[str]], Any], screenshots: Path
) -> None:
    cards = ["7h", "Kc", "Jd"]
    server = live_server(StandInScanner(cards))
    page = browser_for(cards).new_page(viewport={"width": 1100, "height": 900})
    game = camera_round(page, server.url, screenshots, "camera-stand-in")
    page.goto(f"{server.url}/#/games/{game}")
    page.wait_for_selector("#round-panel")
    # the stand-in read 7h Kc Jd; Jd was corrected to 2c: 5 + 10 + 20 = 35
    sheet = page.request.get(f"{server.url}/api/games/{game}/sheet").json()
    assert sheet["totals"] == [35, 0, 5]
    hand = page.request.get(f"{server.url}/api/games/{game}/rounds/1").json()["hands"][0]
    assert hand["entry"] == "scan"
    assert hand["corrections"] == [
        {"action": "removed", "card": "Jd"},
        {"action": "added", "card": "2c"},
    ]


def test_real_recognition_from_the_camera(
    live_server: Callable[..., Any], browser_for: Callable[[list[str]], Any], screenshots: Path
) -> None:
    scanner = default_scanner()
    if isinstance(scanner, UnavailableScanner):
        pytest.skip(f"waiting for shanghai.vision: {scanner.reason}")
    cards = ["7h", "Kc", "Jd"]
    server = live_server()
    page = browser_for(cards).new_page(viewport={"width": 1100, "height": 900})
    game = camera_round(page, server.url, screenshots, "camera-real")
    # what the scan proposed = the stored hand with the player's correction undone
    hand = page.request.get(f"{server.url}/api/games/{game}/rounds/1").json()["hands"][0]
    proposed = list(hand["cards"])
    for change in hand["corrections"]:
        if change["action"] == "added":
            proposed.remove(change["card"])
        else:
            proposed.append(change["card"])
    assert sorted(proposed) == sorted(cards)
