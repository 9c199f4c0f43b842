"""Moving between views faster than the server answers, in Chromium: the view shown is
the one the address names. Two quick hash changes run two routes at once; the first,
its answer held back here, used to draw itself last, over the second (the home page
under the address of the decks; seen when a test went #/ -> #/decks while a deck's
locator was being taught)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from page_kit import PHONE, TIMEOUT

pytestmark = [pytest.mark.e2e]


def test_a_view_whose_answer_comes_late_does_not_cover_the_next(
    live_server: Callable[..., Any], browser_for: Callable[[list[str]], Any]
) -> None:
    server = live_server()
    page = browser_for([]).new_page(viewport=PHONE)
    page.goto(f"{server.url}/#/decks")
    page.wait_for_selector("#deck-name", timeout=TIMEOUT)

    held: list[Any] = []
    page.route("**/api/games", lambda route: held.append(route))  # the games list waits
    page.evaluate("location.hash = '#/'")
    for _ in range(500):  # until the home view has asked for its games (events dispatch)
        if held:
            break
        page.wait_for_timeout(20)
    assert held, "the home view never asked for its games"
    page.evaluate("location.hash = '#/decks'")
    page.wait_for_selector("#deck-name", timeout=TIMEOUT)

    with page.expect_response("**/api/games", timeout=TIMEOUT):
        held[0].continue_()
    # let the page finish what the late answer set off (its render, had it drawn)
    page.evaluate("new Promise((done) => setTimeout(done, 300))")
    assert page.evaluate("location.hash") == "#/decks"
    assert page.locator("#deck-name").is_visible()
    assert page.locator("#variant").count() == 0  # the home page's form is not drawn
