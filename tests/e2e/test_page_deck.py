"""The card picker shows the game's own deck, as the server gives it (`cards_in_play`):
a Rook game of four players without the removed 14s, a standard game without Rook
cards, and a card-text error naming only that deck."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from page_kit import PHONE, api_game, open_table

pytestmark = pytest.mark.e2e


def picked_cards(page: Any) -> list[str]:
    return [
        str(card)
        for card in page.locator("#player-0 .picker button").evaluate_all(
            "keys => keys.map((k) => k.dataset.card)"
        )
    ]


def test_the_picker_shows_the_games_deck(
    live_server: Callable[..., Any], browser_for: Callable[[list[str]], Any]
) -> None:
    server = live_server()
    page = browser_for([]).new_page(viewport=PHONE)

    rook = api_game(page, server.url, ["Ann", "Bob", "Cy", "Dee"], variant="rook")
    open_table(page, server.url, rook)
    page.locator("#player-0 summary").click()
    cards = picked_cards(page)
    assert len(cards) == 14 + 3 * 13 + 1
    assert "14B" in cards and "ROOK" in cards
    assert not {"14R", "14Y", "14G", "JK"} & set(cards)
    assert (
        page.locator("#player-0").get_by_role("group", name="red").get_by_role("button").count()
        == 13
    )
    # a typed card not of this deck: the error names the Rook deck only
    page.locator("#player-0 .cards-input").fill("7h")
    error = page.locator("#player-0").get_by_text("not in play")
    error.wait_for()
    assert "1-14 in B, 1-13 in R Y G, ROOK" in error.inner_text()
    assert "c d h s" not in error.inner_text()

    standard = api_game(page, server.url, ["Ann", "Bob", "Cy"])
    open_table(page, server.url, standard)
    page.locator("#player-0 summary").click()
    cards = picked_cards(page)
    assert len(cards) == 53 and cards[-1] == "JK"
    assert not any(c == "ROOK" or c[-1] in "BRYG" for c in cards)
