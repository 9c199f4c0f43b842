"""A game's players renamed and the game deleted from the page: the names follow on the
table at once; deleting asks first ("Keep it" keeps it) and then takes the game away."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from page_kit import PHONE, TIMEOUT, api_game, confirm, open_table

pytestmark = pytest.mark.e2e


def test_rename_players_and_delete_the_game(
    live_server: Callable[..., Any], browser_for: Callable[[list[str]], Any]
) -> None:
    server = live_server()
    page = browser_for([]).new_page(viewport=PHONE)
    game = api_game(page, server.url, ["Ann", "Bob", "Cy"])
    open_table(page, server.url, game)
    confirm(page, 0, "7h")

    panel = page.locator("#game-panel")
    panel.locator("summary").click()
    page.get_by_label("Name of the player in seat 2").fill("  Bobby ")
    page.click("#save-names")
    page.wait_for_function(
        "() => document.getElementById('totals').textContent.includes('Bobby')", timeout=TIMEOUT
    )
    assert page.locator("#player-1 h3").first.inner_text().startswith("Bobby")
    assert page.get_by_label("Name of the player in seat 2").input_value() == "Bobby"
    # the open box kept its place and took the name, spoken labels too
    assert page.locator("#player-1 .scan-photo").get_attribute("aria-label") == (
        "Photo of Bobby's hand"
    )
    # a name another player has: refused in words, nothing changed
    page.get_by_label("Name of the player in seat 3").fill("ann")
    page.click("#save-names")
    error = page.locator("#game-edit-error")
    error.wait_for()
    page.wait_for_function(
        "() => document.getElementById('game-edit-error').textContent.length > 0", timeout=TIMEOUT
    )
    assert "Ann is already the name of the player in seat 0" in error.inner_text()
    names = page.request.get(f"{server.url}/api/games/{game}").json()["players"]
    assert names == ["Ann", "Bobby", "Cy"]

    # delete: asked first; "Keep it" keeps the game
    page.click("#delete-game")
    ask = page.get_by_role("alertdialog")
    assert ask.is_visible() and "for good" in ask.inner_text()
    page.click("#delete-no")
    assert not ask.is_visible()
    assert page.request.get(f"{server.url}/api/games/{game}").status == 200
    page.click("#delete-game")
    page.click("#delete-yes")
    page.wait_for_selector("#new-game", timeout=TIMEOUT)
    assert page.request.get(f"{server.url}/api/games/{game}").status == 404
    assert page.locator(f"#games a[href='#/games/{game}']").count() == 0
