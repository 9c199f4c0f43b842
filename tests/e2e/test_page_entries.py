"""No lost input (issue 17): what is typed, clicked or scanned for a hand and not yet
confirmed survives every redraw of the table (another player's confirm, a buy and its
undo, an update from another device) and a reload, until it is confirmed.

- `test_a_confirm_and_buys_keep_the_other_entries`: at phone and desktop size, typed
  cards, picked cards and a scan's proposal in three boxes; a fourth player confirms,
  a buy is recorded and taken back: every entry stays, with the focus and caret.
- `test_two_players_typing_while_a_third_confirms`: two devices; on the first, Ann's
  and Bob's cards are being typed (the caret in Bob's) while Cy confirms on the
  second: the first device shows Cy's saved hand within seconds and loses nothing.
- `test_reload_mid_round_keeps_entries`: entries (a scan's marked cards included) come
  back after a reload and a trip to the score sheet; a confirm clears its own.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from page_kit import (
    DESKTOP,
    PHONE,
    TIMEOUT,
    StandInScanner,
    api_game,
    fixed,
    hand_table,
    jpeg_file,
    open_table,
    photo_of,
    saved,
)

pytestmark = pytest.mark.e2e


def drafts_in_storage(page: Any) -> list[str]:
    return sorted(
        page.evaluate("Object.keys(localStorage).filter((k) => k.startsWith('shanghai.draft.'))")
    )


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_confirm_and_buys_keep_the_other_entries(
    size: str,
    live_server: Callable[..., Any],
    browser_for: Callable[[list[str]], Any],
    screenshots: Path,
) -> None:
    scanner = StandInScanner(fixed(hand_table(["9c", "Kd"])), unsure={"Kd"})
    server = live_server(scanner)
    page = browser_for([]).new_page(viewport=PHONE if size == "phone" else DESKTOP)
    game = api_game(page, server.url, ["Ann", "Bob", "Cy", "Dee"])
    open_table(page, server.url, game)

    # Ann types, Bob picks two cards, Cy's hand is scanned, Dee types and confirms
    page.locator("#player-0 .cards-input").fill("7h 8h")
    bob = page.locator("#player-1")
    bob.locator("summary").click()
    bob.locator("button[data-card='Qs']").click()
    bob.locator("button[data-card='JK']").click()
    cy = page.locator("#player-2")
    cy.locator(".scan-file").set_input_files(jpeg_file(photo_of(hand_table(["9c", "Kd"]))))
    cy.locator("img.evidence").wait_for(timeout=TIMEOUT)
    assert cy.locator(".chip.unsure").count() == 1

    page.locator("#player-3 .cards-input").fill("2c")
    saved(page, page.locator("#player-3 .save").click)
    page.wait_for_selector("#player-3 >> text=✓ saved", timeout=TIMEOUT)

    for buy in ("#buys-0 .buy-button", "#buys-0 .undo-buy"):
        with page.expect_response(lambda r: "/buys" in r.url):
            page.locator(buy).click()
        page.wait_for_selector(
            "#buys-0 >> text=3 of 3 buys left"
            if "undo" in buy
            else "#buys-0 >> text=2 of 3 buys left",
            timeout=TIMEOUT,
        )

    assert page.locator("#player-0 .cards-input").input_value() == "7h 8h"
    assert bob.locator(".cards-input").input_value() == "Qs JK"
    assert bob.locator(".chips .chip").all_inner_texts() == ["Q♠", "JK"]
    assert cy.locator(".cards-input").input_value() == "9c Kd"
    assert cy.locator(".chip.unsure").count() == 1  # the scan's doubt is still marked
    assert cy.locator("img.evidence").count() == 1
    page.screenshot(path=str(screenshots / f"entries-kept-{size}.png"), full_page=True)

    # a poll that finds nothing new redraws nothing
    page.locator("#player-0 .cards-input").evaluate("i => (i.dataset.old = 'yes')")
    page.evaluate("pollTable()")
    assert page.locator("#player-0 .cards-input").evaluate("i => i.dataset.old") == "yes"


def test_two_players_typing_while_a_third_confirms(
    live_server: Callable[..., Any], browser_for: Callable[[list[str]], Any], screenshots: Path
) -> None:
    server = live_server()
    browser = browser_for([])
    first = browser.new_context(viewport=PHONE).new_page()
    second = browser.new_context(viewport=DESKTOP).new_page()
    game = api_game(first, server.url, ["Ann", "Bob", "Cy"])
    open_table(first, server.url, game)
    open_table(second, server.url, game)

    first.locator("#player-0 .cards-input").fill("5s 6s")
    bob = first.locator("#player-1 .cards-input")
    bob.click()
    bob.type("Kc 4")  # still typing: the caret after "4"
    first.evaluate("document.getElementById('round-panel').dataset.old = 'yes'")

    second.locator("#player-2 .cards-input").fill("9d")
    saved(second, second.locator("#player-2 .save").click)

    # the first device reads the change within a poll or two, and redraws around Bob
    first.wait_for_function("!document.getElementById('round-panel').dataset.old", timeout=TIMEOUT)
    first.wait_for_selector("#player-2 >> text=✓ saved", timeout=TIMEOUT)
    assert first.locator("#player-0 .cards-input").input_value() == "5s 6s"
    assert bob.input_value() == "Kc 4"
    assert bob.evaluate("b => b === document.activeElement")
    bob.type("h")  # the caret was kept where Bob left it
    assert bob.input_value() == "Kc 4h"
    first.screenshot(path=str(screenshots / "entries-other-device-phone.png"), full_page=True)

    # Ann confirms on the first device; the second device sees it too
    saved(first, first.locator("#player-0 .save").click)
    second.wait_for_selector("#player-0 >> text=✓ saved", timeout=TIMEOUT)
    assert bob.input_value() == "Kc 4h"


def test_reload_mid_round_keeps_entries(
    live_server: Callable[..., Any], browser_for: Callable[[list[str]], Any], screenshots: Path
) -> None:
    scanner = StandInScanner(fixed(hand_table(["9c", "Kd"])), unsure={"Kd"})
    server = live_server(scanner)
    page = browser_for([]).new_page(viewport=PHONE)
    game = api_game(page, server.url, ["Ann", "Bob", "Cy"])
    open_table(page, server.url, game)

    page.locator("#player-0 .cards-input").fill("7h 8h")
    page.locator("#player-0 .blind").check()
    page.locator("#player-1 summary").click()
    page.locator("#player-1 button[data-card='Ad']").click()
    cy = page.locator("#player-2")
    cy.locator(".scan-file").set_input_files(jpeg_file(photo_of(hand_table(["9c", "Kd"]))))
    cy.locator("img.evidence").wait_for(timeout=TIMEOUT)
    assert drafts_in_storage(page) == [f"shanghai.draft.{game}.1.seat{seat}" for seat in (0, 1, 2)]

    page.reload()
    page.wait_for_selector("#round-panel")
    assert page.locator("#player-0 .cards-input").input_value() == "7h 8h"
    assert page.locator("#player-0 .blind").is_checked()
    assert page.locator("#player-1 .cards-input").input_value() == "Ad"
    assert cy.locator(".cards-input").input_value() == "9c Kd"
    assert cy.locator(".chip.unsure").count() == 1
    cy.locator("img.evidence").wait_for(timeout=TIMEOUT)
    page.screenshot(path=str(screenshots / "entries-after-reload-phone.png"), full_page=True)

    # to the score sheet and back
    page.click("#nav-sheet")
    page.wait_for_selector("#score-sheet")
    page.click("#nav-table")
    page.wait_for_selector("#round-panel")
    assert page.locator("#player-1 .cards-input").input_value() == "Ad"

    # Cy confirms the scan (it is still the scan's: its id goes with the hand)
    saved(page, cy.locator(".save").click)
    hand = page.request.get(f"{server.url}/api/games/{game}/rounds/1").json()["hands"][0]
    assert hand["seat"] == 2 and hand["entry"] == "scan"
    assert drafts_in_storage(page) == [f"shanghai.draft.{game}.1.seat{seat}" for seat in (0, 1)]
    # a box emptied again keeps nothing
    page.locator("#player-1 .cards-input").fill("")
    assert drafts_in_storage(page) == [f"shanghai.draft.{game}.1.seat0"]
