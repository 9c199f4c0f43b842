"""Feedback in words (issue 17): no raw validation text, no literal "null", Enter
submits, a question before a round ends with nobody out, a refusal in words for a
second player out, the seconds counted while a scan runs, and an offline server said
plainly.

- `test_errors_are_said_in_words`: the new-game form with no players or too few for
  the variant, a server refusal (a card not in play) and an unreachable server.
- `test_enter_submits_and_no_null`: Enter confirms a hand and checks a lay-down typed
  as text; the check's answer has no "null" in it.
- `test_a_round_with_nobody_out_or_two_out_is_asked`: the last hand of a round with
  nobody out asks first (cancel sends nothing); an empty hand after another player went
  out is refused in words before anything is sent.
- `test_a_scan_in_progress_counts_the_seconds`.
"""

from __future__ import annotations

import threading
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


def test_errors_are_said_in_words(
    live_server: Callable[..., Any], browser_for: Callable[[list[str]], Any], screenshots: Path
) -> None:
    server = live_server()
    browser = browser_for([])
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector("#new-game")
    error = page.locator("#new-game-error")

    assert "null" not in page.inner_text("body")
    page.click("#create-game")
    assert error.inner_text() == "Enter the players first, one name per line, in seat order."
    page.fill("#players", "Ann\nBob")
    page.select_option("#variant", "shanghai")
    page.click("#create-game")
    assert error.inner_text() == "Shanghai Rummy is for 3 to 8 players; 2 names entered."
    page.screenshot(path=str(screenshots / "feedback-new-game-phone.png"), full_page=True)

    # the server's own validation list, were it reached, in words too
    said = page.evaluate(
        """() => api("POST", "/api/games", { variant: "shanghai", players: [] })
              .catch((e) => e.message)"""
    )
    assert said == "Enter at least one player, one name per line."
    assert "List should have" not in said

    # a card not in play: the server's reason, as a sentence
    game = api_game(page, server.url, ["Ann", "Bob", "Cy"], variant="rook")
    open_table(page, server.url, game)
    page.locator("#player-0 .cards-input").fill("7h")
    message = page.locator("#player-0 .error")
    message.wait_for(timeout=TIMEOUT)
    assert message.inner_text().startswith("7h") and message.inner_text().endswith(".")
    assert "detail" not in message.inner_text() and "null" not in message.inner_text()

    # the server unreachable: said so, and the entry stays on this device
    page.locator("#player-0 .cards-input").fill("7R")
    context.set_offline(True)
    page.locator("#player-0 .save").click()
    page.wait_for_selector("#player-0 >> text=cannot be reached", timeout=TIMEOUT)
    page.wait_for_selector("#offline-note", state="visible", timeout=TIMEOUT)
    page.screenshot(path=str(screenshots / "feedback-offline-phone.png"), full_page=True)
    context.set_offline(False)
    saved(page, page.locator("#player-0 .save").click)
    page.wait_for_selector("#offline-note", state="hidden", timeout=TIMEOUT)


def test_enter_submits_and_no_null(
    live_server: Callable[..., Any], browser_for: Callable[[list[str]], Any]
) -> None:
    server = live_server()
    page = browser_for([]).new_page(viewport=DESKTOP)
    game = api_game(page, server.url, ["Ann", "Bob", "Cy"])
    open_table(page, server.url, game)

    box = page.locator("#player-0 .cards-input")
    box.fill("7h Ks")
    saved(page, lambda: box.press("Enter"))
    page.wait_for_selector("#player-0 >> text=✓ saved", timeout=TIMEOUT)
    assert "null" not in page.inner_text("#player-0")

    page.fill("#check-cards", "7h 7s 7c | 4d 5d 6d 7d")
    page.press("#check-cards", "Enter")
    page.wait_for_selector("#check-result >> text=Legal lay-down", timeout=TIMEOUT)
    assert "null" not in page.inner_text("#check-result")
    page.fill("#check-cards", "7h 7s")
    page.press("#check-cards", "Enter")
    page.wait_for_selector("#check-result >> text=Not a legal lay-down", timeout=TIMEOUT)
    assert "null" not in page.inner_text("#check-result")


def test_a_round_with_nobody_out_or_two_out_is_asked(
    live_server: Callable[..., Any], browser_for: Callable[[list[str]], Any], screenshots: Path
) -> None:
    server = live_server()
    page = browser_for([]).new_page(viewport=PHONE)
    game = api_game(page, server.url, ["Ann", "Bob", "Cy"])
    open_table(page, server.url, game)
    for seat, cards in ((0, "7h"), (1, "9c")):
        page.locator(f"#player-{seat} .cards-input").fill(cards)
        saved(page, page.locator(f"#player-{seat} .save").click)

    # Cy has cards left too: nobody went out, asked before the round ends
    cy = page.locator("#player-2")
    cy.locator(".cards-input").fill("4d")
    requests: list[str] = []
    page.on(
        "request",
        lambda r: requests.append(r.url) if r.method == "POST" and "/hands" in r.url else None,
    )
    cy.locator(".save").click()
    question = cy.locator(".ask")
    question.wait_for(timeout=TIMEOUT)
    assert "Nobody went out in round 1?" in question.inner_text()
    assert question.locator(".confirm-yes").evaluate("b => b === document.activeElement")
    page.screenshot(path=str(screenshots / "feedback-nobody-out-phone.png"), full_page=True)
    page.keyboard.press("Escape")
    assert question.is_hidden() and requests == []
    cy.locator(".save").click()
    saved(page, question.locator(".confirm-yes").click)
    page.wait_for_selector("#round-info >> text=Round 2", timeout=TIMEOUT)

    # round 2: Ann went out; Bob's empty hand is refused before it is sent
    page.locator("#player-0 .cards-input").fill("")
    saved(page, page.locator("#player-0 .save").click)
    page.locator("#player-1 .save").click()
    page.wait_for_selector(
        "#player-1 >> text=Ann already went out this round, and only one player can go out",
        timeout=TIMEOUT,
    )
    assert len([r for r in requests if "/rounds/2/" in r]) == 1  # Ann's only


def test_a_scan_in_progress_counts_the_seconds(
    live_server: Callable[..., Any], browser_for: Callable[[list[str]], Any], screenshots: Path
) -> None:
    table = hand_table(["7h", "Kd"])
    scanner = StandInScanner(fixed(table))
    scanner.gate = threading.Event()
    server = live_server(scanner)
    page = browser_for([]).new_page(viewport=PHONE)
    game = api_game(page, server.url, ["Ann", "Bob", "Cy"])
    open_table(page, server.url, game)
    ann = page.locator("#player-0")
    ann.locator(".scan-file").set_input_files(jpeg_file(photo_of(table)))
    page.wait_for_selector("#player-0 .busy >> text=Reading the cards… 2 s", timeout=TIMEOUT)
    assert ann.locator(".save").is_disabled()
    page.screenshot(path=str(screenshots / "feedback-scan-progress-phone.png"), full_page=True)
    scanner.gate.set()
    ann.locator("img.evidence").wait_for(timeout=TIMEOUT)
    assert ann.locator(".busy").is_hidden()
    assert ann.locator(".cards-input").input_value() == "7h Kd"
