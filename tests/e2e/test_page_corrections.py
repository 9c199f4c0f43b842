"""Correcting a finished game from the page (issue 17), at phone and desktop size: a past
round's hand and buys corrected, each change named with this device's name in the
round's history (the sheet's "edited" mark shows it), the last changes undone, the game
reopened and finished anew."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from page_kit import (
    DESKTOP,
    PHONE,
    TIMEOUT,
    api_game,
    at_both_sizes,
    open_table,
    violations,
    wait_for_text,
)

pytestmark = pytest.mark.e2e


def play_all_but_the_last_hand(page: Any, base: str, game: int) -> int:
    """Every round through the API (Ann out, Bob 7h, Cy Kd) but Cy's last hand; the
    last round's number."""
    rounds = len(page.request.get(f"{base}/api/games/{game}").json()["rounds"])
    for number in range(1, rounds + 1):
        for seat, cards in ((0, ""), (1, "7h"), (2, "Kd")):
            if (number, seat) == (rounds, 2):
                return rounds
            answer = page.request.post(
                f"{base}/api/games/{game}/rounds/{number}/hands",
                data={"player": seat, "cards": cards},
            )
            assert answer.status == 201, answer.text()
    return rounds


def confirm_last(page: Any, seat: int, cards: str) -> None:
    """Confirm the hand that ends the game (the round panel then goes)."""
    box = page.locator(f"#player-{seat}")
    box.locator(".cards-input").fill(cards)
    with page.expect_response(lambda r: "/hands" in r.url) as answer:
        box.locator(".save").click()
    assert answer.value.status == 201, answer.value.text()
    wait_for_text(page, "#round-info", "Game over. Winner: Ann")


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_correcting_a_finished_game(
    size: str,
    live_server: Callable[..., Any],
    browser_for: Callable[[list[str]], Any],
    screenshots: Path,
) -> None:
    server = live_server()
    page = browser_for([]).new_page(viewport=PHONE if size == "phone" else DESKTOP)
    game = api_game(page, server.url, ["Ann", "Bob", "Cy"])
    last = play_all_but_the_last_hand(page, server.url, game)
    open_table(page, server.url, game)
    page.fill("#device-name", "Ann's phone")
    page.dispatch_event("#device-name", "change")
    confirm_last(page, 2, "Kd")

    # a past round of the finished game, opened from the table: Bob's hand corrected
    page.click("a.round-link:text-is('2')")
    page.wait_for_selector("#past-round", timeout=TIMEOUT)
    bob = page.locator("#player-1")
    bob.locator(".correct").click()
    bob.locator(".cards-input").fill("7h 9c")
    with page.expect_response(lambda r: "/hands/1" in r.url) as answer:
        bob.locator(".save").click()
    assert answer.value.status == 200
    wait_for_text(page, "#player-1 .points", "10 pts")
    wait_for_text(page, "#round-history", "Bob's hand corrected: 7h (5 pts) → 7h 9c (10 pts)")
    assert "Ann's phone" in page.locator("#round-history li").last.inner_text()
    # and a buy recorded late, for Cy
    with page.expect_response(lambda r: r.url.endswith("/rounds/2/buys")):
        page.get_by_label("Buy for Cy").click()
    wait_for_text(page, "#round-history", "Cy bought (buy 1)")
    buys = page.request.get(f"{server.url}/api/games/{game}/rounds/2").json()["buys"]
    assert page.locator("#buys-2 .buys-left").inner_text() == (
        f"{buys[2]['left']} of {buys[2]['allowed']} buys left"
    )
    assert buys[2]["used"] == 1
    page.screenshot(path=str(screenshots / f"past-round-{size}.png"), full_page=True)
    assert violations(page) == []
    # a correction begun is kept on the device: to the table and back, it is still there
    page.locator("#player-2 .correct").click()
    page.locator("#player-2 .cards-input").fill("Kd 5s")
    page.click("#nav-table")
    page.wait_for_selector("#undo-last", timeout=TIMEOUT)
    page.click("a.round-link:text-is('2')")
    page.wait_for_selector("#past-round", timeout=TIMEOUT)
    assert page.locator("#player-2 .cards-input").input_value() == "Kd 5s"
    page.locator("#player-2 .cancel-fix").click()
    assert page.locator("#player-2 .correct").is_visible()

    # the sheet marks round 2 edited; the mark shows its history
    page.click("#nav-sheet")
    page.wait_for_selector("#score-sheet", timeout=TIMEOUT)
    marks = page.locator("button.edited")
    assert marks.count() == 1
    assert page.locator("tbody tr").nth(1).locator("button.edited").count() == 1
    marks.click()
    wait_for_text(page, "#round-history", "Bob's hand corrected")
    assert page.locator("#round-history li").count() == 5  # 3 entered, corrected, buy
    if size == "phone":
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=str(screenshots / f"sheet-history-{size}.png"), full_page=True)
    assert violations(page) == []
    page.emulate_media(color_scheme="dark")
    page.screenshot(path=str(screenshots / f"sheet-history-{size}-dark.png"), full_page=True)
    assert violations(page) == []
    page.emulate_media(color_scheme="light")

    # undo twice: the buy, then the correction (asked first, saying what)
    page.click("#nav-table")
    page.wait_for_selector("#undo-last", timeout=TIMEOUT)
    page.click("#undo-last")
    wait_for_text(page, "#undo-ask", "Cy bought (buy 1) (by Ann's phone")
    page.click("#undo-ask .cancel-ask")
    assert not page.locator("#undo-ask").is_visible()
    # another device changes the game while the question is open: refused, in words
    page.click("#undo-last")
    # the folded question keeps its old words: wait for it to open again (its change read)
    # before the other device posts, or the page could read the other device's change
    page.wait_for_selector("#undo-ask", state="visible", timeout=TIMEOUT)
    wait_for_text(page, "#undo-ask", "Cy bought")
    other = page.request.post(
        f"{server.url}/api/games/{game}/rounds/2/buys", data={"player": 0, "by": "Bob's phone"}
    )
    assert other.status == 201
    # the page's poll sees the other device's change but leaves the open question alone
    page.evaluate("pollTable()")
    assert page.locator("#undo-ask").is_visible()
    page.click("#undo-ask .confirm-yes")
    wait_for_text(page, "#change-error", "The last change is no longer the one shown")
    # the question is folded and the table drawn anew; the reason stays until the next try
    assert not page.locator("#undo-ask").is_visible()
    for undone in ("Ann bought", "Cy bought", "Bob's hand corrected"):
        page.click("#undo-last")
        wait_for_text(page, "#undo-ask", undone)
        with page.expect_response(lambda r: r.url.endswith("/undo")) as answer:
            page.click("#undo-ask .confirm-yes")
        assert answer.value.status == 200
        wait_for_text(page, "#toast", f"Undone: {undone}")
    hand = page.request.get(f"{server.url}/api/games/{game}/rounds/2").json()["hands"][1]
    assert (hand["cards"], hand["points"]) == (["7h"], 5)

    # reopen: Cy's last hand comes back to enter again, then the game ends anew
    page.wait_for_selector("#reopen-game", timeout=TIMEOUT)
    page.click("#reopen-game")
    page.wait_for_selector("#reopen-ask:not([hidden])", timeout=TIMEOUT)
    page.screenshot(path=str(screenshots / f"reopen-ask-{size}.png"), full_page=True)
    assert violations(page) == []
    with page.expect_response(lambda r: r.url.endswith("/reopen")):
        page.click("#reopen-ask .confirm-yes")
    page.wait_for_selector(f'#round-panel[data-game="{game}"]', timeout=TIMEOUT)
    wait_for_text(page, "#round-info", f"Round {last}:")
    assert page.locator("#player-2 .cards-input").input_value() == "Kd"
    page.locator("#table-history summary").click()
    wait_for_text(page, "#table-history", "Game reopened: Cy's hand taken back (Kd (10 pts))")
    confirm_last(page, 2, "Kd Qd")
    history = page.request.get(f"{server.url}/api/games/{game}/changes?round={last}").json()
    assert [c["kind"] for c in history][-2:] == ["reopened", "entered"]
    assert {c["by"] for c in history[-2:]} == {"Ann's phone"}
    at_both_sizes(page, screenshots, f"finished-again-from-{size}")
