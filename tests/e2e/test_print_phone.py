"""The printable sheet on a 390x844 phone: the page never scrolls sideways; the table
scrolls in its own box with the round column fixed (its style allowed by the CSP hash:
a stale hash would leave the column unstyled and this test failing)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from page_kit import PHONE, api_game

pytestmark = pytest.mark.e2e
EIGHT = ["Ann", "Bob", "Cy", "Dee", "Eve", "Flo", "Gus", "Hal"]


def test_the_printable_sheet_fits_a_phone(
    live_server: Callable[..., Any], browser_for: Callable[[list[str]], Any], screenshots: Path
) -> None:
    server = live_server()
    page = browser_for([]).new_page(viewport=PHONE)
    refused: list[str] = []
    page.on("console", lambda m: refused.append(m.text) if "Content Security" in m.text else None)
    game = api_game(page, server.url, EIGHT)
    for seat, cards in enumerate(["7h", "", "Kd 9c", "JK", "2c", "3d", "4h", "5s"]):
        answer = page.request.post(
            f"{server.url}/api/games/{game}/rounds/1/hands", data={"player": seat, "cards": cards}
        )
        assert answer.ok, answer.text()
    page.goto(f"{server.url}/games/{game}/print")
    page.wait_for_selector("#print-sheet")
    assert refused == []
    # the page body does not overflow the phone's width; the table's box does
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert page.evaluate("document.body.scrollWidth") <= PHONE["width"]
    scroller = page.locator("#print-scroll")
    assert scroller.evaluate("s => s.scrollWidth > s.clientWidth")
    first = page.locator("#print-sheet tbody tr").first.locator("td.round")
    assert first.evaluate("c => getComputedStyle(c).position") == "sticky"
    before = first.bounding_box()["x"]
    page.screenshot(path=str(screenshots / "print-phone.png"), full_page=True)
    scroller.evaluate("s => { s.scrollLeft = s.scrollWidth; }")
    assert scroller.evaluate("s => s.scrollLeft") > 0
    assert abs(first.bounding_box()["x"] - before) <= 1  # the round column stays (its border)
    last = page.locator("#print-sheet thead tr").first.locator("th").last.bounding_box()
    assert last["x"] + last["width"] <= PHONE["width"]  # the last player came into view
    page.screenshot(path=str(screenshots / "print-phone-scrolled.png"), full_page=True)
