"""A phone as the camera, every screen shows the table (issue 19), in Chromium: one page
(a phone, named "Ann's phone" in "This device is") streams its fake camera for a game;
its own page and a second page on the same game (a laptop) show the steady table, each
seat's melds with their verdicts; the second says "Live from Ann's phone". When the phone
stops, the second page says nothing more. Screenshots at phone and desktop size."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mini_table import MiniTable
from page_kit import (
    DESKTOP,
    PHONE,
    TIMEOUT,
    StandInScanner,
    new_game,
    violations,
    wait_for_text,
)

pytestmark = pytest.mark.e2e


def lay_down(width: int, height: int) -> MiniTable:
    """Whatever the camera shows, the table read is: the player nearest the bottom edge
    (Ann) laid a set of sevens and a 'set' of queens with a nine, her king in front;
    a two across the table (Cy's)."""
    sx, sy = width / 1600, height / 1200
    table = MiniTable(width=width, height=height, scale=1.5 * sy)
    table.row(["7h", "7s", "7c"], 650 * sx, 1000 * sy, step=20)
    table.row(["Qd", "Qs", "9c"], 950 * sx, 1000 * sy, step=20)
    table.card("Kc", 800 * sx, 1120 * sy)
    table.card("2d", 800 * sx, 150 * sy)
    return table


def seat_text(page: Any) -> str:
    return str(page.locator("#live-table-cards").inner_text())


def test_one_phone_streams_every_screen_shows_the_table(
    live_server: Callable[..., Any], browser_for: Callable[..., Any], screenshots: Path
) -> None:
    server = live_server(StandInScanner(lay_down))
    browser = browser_for(["7h", "Kc"])
    phone = browser.new_context(viewport=PHONE).new_page()
    laptop = browser.new_context(viewport=DESKTOP).new_page()
    new_game(phone, server.url)
    game_url = phone.url
    phone.fill("#device-name", "Ann's phone")
    phone.locator("#device-name").dispatch_event("change")
    laptop.goto(game_url)
    laptop.wait_for_selector("#round-info", timeout=TIMEOUT)
    assert laptop.locator("#live-from").is_hidden()
    assert laptop.locator("#live-table").is_hidden()  # nobody streams: no table

    if not phone.locator("#live-panel").evaluate("p => p.open"):  # folded on a phone
        phone.click("#live-panel > summary")
    phone.click("#start-camera")
    wait_for_text(phone, "#live-table-cards", "Not a legal lay-down")
    own = seat_text(phone)
    assert phone.locator("#live-from").is_hidden()  # its own camera

    wait_for_text(laptop, "#live-from", "Live from Ann's phone")
    wait_for_text(laptop, "#live-table-cards", "Not a legal lay-down")
    shown = seat_text(laptop)
    assert shown == own
    assert "Round 1: 2 sets of 3" in shown
    assert "set of 3 7s" in shown  # the sevens: legal, described
    ann = laptop.locator('.live-seat[data-seat="0"]')
    assert ann.locator("h3").inner_text() == "Ann"
    melds = ann.locator(".live-meld")
    assert melds.count() == 2
    assert "valid" in (melds.nth(0).get_attribute("class") or "").split()
    assert "invalid" in (melds.nth(1).get_attribute("class") or "").split()
    assert melds.nth(1).inner_text().strip() != "Q♦ Q♠ 9♣"  # a reason follows the cards
    assert laptop.locator('.live-seat[data-seat="2"] h3').inner_text() == "Cy"
    assert laptop.locator("#live-table").evaluate("d => d.open")
    assert laptop.locator("#live-cards .chip").count() == 8  # the steady cards too
    # and the frame that table was read from, from the phone's camera
    laptop.wait_for_function(
        "document.getElementById('live-picture').naturalWidth > 0", timeout=TIMEOUT
    )
    alt = laptop.locator("#live-picture").get_attribute("alt")
    assert alt == "The table as Ann's phone sees it"
    assert phone.locator("#live-picture").is_hidden()  # the phone shows its own video
    assert violations(laptop) == []

    phone.screenshot(path=str(screenshots / "live-table-streaming-phone.png"), full_page=True)
    laptop.screenshot(path=str(screenshots / "live-table-watching-desktop.png"), full_page=True)
    phone.set_viewport_size(DESKTOP)
    laptop.set_viewport_size(PHONE)
    if not laptop.locator("#live-panel").evaluate("p => p.open"):
        laptop.click("#live-panel > summary")
    assert laptop.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    phone.screenshot(path=str(screenshots / "live-table-streaming-desktop.png"), full_page=True)
    laptop.screenshot(path=str(screenshots / "live-table-watching-phone.png"), full_page=True)

    laptop.click("#live-table > summary")  # the table folds
    assert laptop.locator("#live-table-cards").is_hidden()

    phone.click("#start-camera")  # stop: the other screen no longer shows a live table
    laptop.wait_for_function(
        "document.getElementById('live-from').hidden && "
        "document.getElementById('live-table').hidden",
        timeout=TIMEOUT,
    )
    assert laptop.locator("#live-cards .chip").count() == 0
    assert laptop.locator("#live-picture").is_hidden()


def test_a_second_camera_takes_the_game_over(
    live_server: Callable[..., Any], browser_for: Callable[..., Any]
) -> None:
    """Bob's laptop starts its camera while Ann's phone streams: the phone's camera stops
    and says who streams now; the laptop shows its own table, without "Live from"."""
    server = live_server(StandInScanner(lay_down))
    browser = browser_for(["7h", "Kc"])
    phone = browser.new_context(viewport=DESKTOP).new_page()
    laptop = browser.new_context(viewport=DESKTOP).new_page()
    new_game(phone, server.url)
    for page, name in ((phone, "Ann's phone"), (laptop, "Bob's laptop")):
        page.goto(phone.url)
        page.wait_for_selector("#round-info", timeout=TIMEOUT)
        page.fill("#device-name", name)
        page.locator("#device-name").dispatch_event("change")
    phone.click("#start-camera")
    wait_for_text(laptop, "#live-from", "Live from Ann's phone")
    laptop.click("#start-camera")
    wait_for_text(
        phone, "#live-status", "Bob's laptop now streams this game's table: this camera stopped."
    )
    assert phone.locator("#start-camera").inner_text() == "Start camera"
    assert phone.locator("#live-frame").is_hidden()
    wait_for_text(phone, "#live-from", "Live from Bob's laptop")
    wait_for_text(laptop, "#live-table-cards", "Not a legal lay-down")
    assert laptop.locator("#live-from").is_hidden()
