"""Accessibility (issue 17): axe-core (the engine as the `axe-playwright-python` wheel
ships it; nothing fetched at run time) finds no violation on the home page, the table
(a hand being entered, the picker open, a saved hand, the buys, the dispute check) and
the score sheet, at phone and desktop size, light and dark; and a round can be played
with the keyboard alone.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from page_kit import DESKTOP, PHONE, TIMEOUT, api_game, open_table, saved, violations

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(
    ("size", "scheme"), [("phone", "light"), ("desktop", "light"), ("phone", "dark")]
)
def test_axe_finds_nothing(
    size: str,
    scheme: str,
    live_server: Callable[..., Any],
    browser_for: Callable[[list[str]], Any],
    screenshots: Path,
) -> None:
    server = live_server()
    context = browser_for([]).new_context(
        viewport=PHONE if size == "phone" else DESKTOP, color_scheme=scheme
    )
    page = context.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector("#new-game")
    assert violations(page) == []

    game = api_game(page, server.url, ["Ann", "Bob", "Cy"])
    open_table(page, server.url, game)
    page.locator("#player-0 .cards-input").fill("7h Kd")
    saved(page, page.locator("#player-0 .save").click)
    page.locator("#player-1 .cards-input").fill("9c Qh")
    page.locator("#player-1 summary").click()
    page.fill("#check-cards", "7h 7s 7c | 4d 5d 6d 8d")
    page.click("#check-button")
    page.wait_for_selector("#check-result .verdict", timeout=TIMEOUT)
    assert violations(page) == []
    page.screenshot(path=str(screenshots / f"a11y-table-{size}-{scheme}.png"), full_page=True)

    page.click("#nav-sheet")
    page.wait_for_selector("#score-sheet")
    assert violations(page) == []


def test_a_round_by_keyboard_alone(
    live_server: Callable[..., Any], browser_for: Callable[[list[str]], Any]
) -> None:
    server = live_server()
    page = browser_for([]).new_page(viewport=DESKTOP)
    game = api_game(page, server.url, ["Ann", "Bob", "Cy"])
    open_table(page, server.url, game)

    def tab_to(name: str, *, limit: int = 200) -> None:
        """Tab until the focused element's accessible name (or text) is `name`."""
        for _ in range(limit):
            page.keyboard.press("Tab")
            focused = page.evaluate(
                "(() => { const e = document.activeElement;"
                " return e.getAttribute('aria-label') || e.textContent.trim(); })()"
            )
            if focused == name:
                return
        raise AssertionError(f"{name!r} not reached by Tab")

    # Ann: typed, Enter confirms
    tab_to("Ann's cards")
    page.keyboard.type("7h Kd")
    with page.expect_response(lambda r: "/hands" in r.url):
        page.keyboard.press("Enter")
    page.wait_for_selector("#player-0 >> text=✓ saved", timeout=TIMEOUT)

    # Bob: the picker opened from the keyboard, two cards added, one taken off again
    tab_to("Pick cards")
    page.keyboard.press("Enter")
    tab_to("add queen of spades")
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")  # the king of spades, next in the row
    page.keyboard.press("Space")
    assert page.locator("#player-1 .cards-input").input_value() == "Qs Ks"
    page.locator("#player-1 .cards-input").focus()
    tab_to("king of spades, remove")
    page.keyboard.press("Enter")
    assert page.locator("#player-1 .cards-input").input_value() == "Qs"
    tab_to("Confirm Bob's hand")
    with page.expect_response(lambda r: "/hands" in r.url):
        page.keyboard.press("Enter")
    page.wait_for_selector("#player-1 >> text=✓ saved", timeout=TIMEOUT)

    # Cy went out: an empty hand, confirmed with Enter; the round ends
    page.locator("#player-2 .cards-input").focus()
    with page.expect_response(lambda r: "/hands" in r.url):
        page.keyboard.press("Enter")
    page.wait_for_selector("#round-info >> text=Round 2", timeout=TIMEOUT)

    # a buy by keyboard
    tab_to("Buy for Bob")
    with page.expect_response(lambda r: "/buys" in r.url):
        page.keyboard.press("Enter")
    page.wait_for_selector("#buys-1 >> text=2 of 3 buys left", timeout=TIMEOUT)
