"""Phone first (issue 17): the score sheet fits 390 px with its round column fixed while
the players scroll; the card picker's keys are at least 44 px and lined up by suit;
red suits readable (contrast measured); Rook colours carry a mark besides colour; a
four-colour option kept on the device; a dark theme from the system; the live panel
folded on a phone so the hands come first.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from page_kit import DESKTOP, PHONE, TIMEOUT, api_game, open_table

pytestmark = pytest.mark.e2e
EIGHT = ["Ann", "Bob", "Cy", "Dee", "Eve", "Flo", "Gus", "Hal"]


def contrast(page: Any, selector: str) -> float:
    """WCAG contrast of an element's text colour against its own background."""
    return float(
        page.locator(selector).first.evaluate(
            """(node) => {
                const rgb = (text) => text.match(/[\\d.]+/g).slice(0, 3).map(Number);
                const lum = ([r, g, b]) => {
                  const f = (c) => {
                    c /= 255;
                    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
                  };
                  return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
                };
                const style = getComputedStyle(node);
                const a = lum(rgb(style.color)), b = lum(rgb(style.backgroundColor));
                return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
            }"""
        )
    )


def boxes(page: Any, selector: str) -> list[dict[str, float]]:
    return [
        page.locator(selector).nth(k).bounding_box() for k in range(page.locator(selector).count())
    ]


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_picker_keys_are_big_lined_up_and_readable(
    size: str,
    live_server: Callable[..., Any],
    browser_for: Callable[[list[str]], Any],
    screenshots: Path,
) -> None:
    server = live_server()
    page = browser_for([]).new_page(viewport=PHONE if size == "phone" else DESKTOP)
    game = api_game(page, server.url, ["Ann", "Bob", "Cy"])
    open_table(page, server.url, game)
    ann = page.locator("#player-0")
    ann.locator("summary").click()

    keys = boxes(page, "#player-0 .picker button")
    assert len(keys) == 53
    assert min(k["width"] for k in keys) >= 44 and min(k["height"] for k in keys) >= 44
    # a rank sits under the same rank of every suit: A, 8 of each suit in one column
    for rank in ("A", "8"):
        xs = {
            round(ann.locator(f"button[data-card='{rank}{s}']").bounding_box()["x"]) for s in "cdhs"
        }
        assert len(xs) == 1, (rank, xs)
    # each suit starts a row of its own: the ace of diamonds is below the king of clubs
    assert (
        ann.locator("button[data-card='Ad']").bounding_box()["y"]
        > ann.locator("button[data-card='Kc']").bounding_box()["y"]
    )
    assert ann.get_by_role("group", name="hearts").get_by_role("button").count() == 13
    # red suits: a dark red on the white key, at least 4.5:1
    assert contrast(page, "#player-0 button[data-card='Qh']") >= 4.5
    assert contrast(page, "#player-0 button[data-card='Qs']") >= 4.5
    # the chips of a hand are buttons of at least 44 px too
    ann.locator("button[data-card='Qh']").click()
    chip = ann.get_by_role("button", name="queen of hearts, remove")
    box = chip.bounding_box()
    assert box["width"] >= 44 and box["height"] >= 44
    assert contrast(page, "#player-0 .chips .chip") >= 4.5
    page.locator("#player-0").screenshot(path=str(screenshots / f"picker-{size}.png"))
    if size == "phone":
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        # the live panel is folded: the first screen shows the hands, not the camera
        assert not page.locator("#live-panel").evaluate("d => d.open")
        assert ann.bounding_box()["y"] < PHONE["height"]
    else:
        assert page.locator("#live-panel").evaluate("d => d.open")
    page.screenshot(path=str(screenshots / f"table-first-screen-{size}.png"))


def test_rook_colours_four_colours_and_dark_theme(
    live_server: Callable[..., Any], browser_for: Callable[[list[str]], Any], screenshots: Path
) -> None:
    server = live_server()
    browser = browser_for([])
    page = browser.new_context(viewport=PHONE, color_scheme="dark").new_page()
    rook = api_game(page, server.url, ["Ann", "Bob", "Cy"], variant="rook")
    open_table(page, server.url, rook)
    page.locator("#player-0 summary").click()
    # yellow and green are told apart by more than colour: an underline of their own
    # beside their letter, and their names for screen readers
    yellow = page.locator("#player-0 button[data-card='5Y']")
    green = page.locator("#player-0 button[data-card='5G']")
    assert yellow.inner_text() == "5Y" and green.inner_text() == "5G"
    assert yellow.get_attribute("aria-label") == "add 5 yellow"
    styles = [b.evaluate("b => getComputedStyle(b).textDecorationStyle") for b in (yellow, green)]
    assert styles == ["dotted", "double"]
    rook_key = page.locator("#player-0 button[data-card='ROOK']").bounding_box()
    assert rook_key["width"] >= 2 * 44  # two keys wide: its name shows whole
    for card in ("5Y", "5G", "5R", "5B"):
        assert contrast(page, f"#player-0 button[data-card='{card}']") >= 4.5, card
    # dark theme: the page is dark, the card keys stay white like cards
    background = page.evaluate("getComputedStyle(document.body.parentElement).backgroundColor")
    assert background == "rgb(17, 24, 20)"
    assert contrast(page, "#player-0 .cards-input") >= 4.5
    page.screenshot(path=str(screenshots / "rook-dark-phone.png"), full_page=True)

    # four-colour suits: chosen once, kept after a reload
    game = api_game(page, server.url, ["Ann", "Bob", "Cy"])
    open_table(page, server.url, game)
    page.locator("#player-0 summary").click()
    club = page.locator("#player-0 button[data-card='9c']")
    diamond = page.locator("#player-0 button[data-card='9d']")
    assert club.evaluate("b => getComputedStyle(b).color") == "rgb(23, 32, 26)"
    page.check("#four-colours")
    page.reload()
    page.wait_for_selector("#round-panel", timeout=TIMEOUT)
    page.locator("#player-0 summary").click()
    assert page.is_checked("#four-colours")
    assert club.evaluate("b => getComputedStyle(b).color") == "rgb(27, 107, 44)"
    assert diamond.evaluate("b => getComputedStyle(b).color") == "rgb(20, 82, 168)"
    for card in ("9c", "9d", "9h", "9s"):
        assert contrast(page, f"#player-0 button[data-card='{card}']") >= 4.5, card
    page.locator("#player-0").screenshot(path=str(screenshots / "four-colours-dark-phone.png"))


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_score_sheet_fits_with_its_round_column_fixed(
    size: str,
    live_server: Callable[..., Any],
    browser_for: Callable[[list[str]], Any],
    screenshots: Path,
) -> None:
    server = live_server()
    page = browser_for([]).new_page(viewport=PHONE if size == "phone" else DESKTOP)
    game = api_game(page, server.url, EIGHT)
    for seat, cards in enumerate(["7h", "", "Kd 9c", "JK", "2c", "3d", "4h", "5s"]):
        answer = page.request.post(
            f"{server.url}/api/games/{game}/rounds/1/hands", data={"player": seat, "cards": cards}
        )
        assert answer.ok, answer.text()
    page.goto(f"{server.url}/#/games/{game}/sheet")
    page.wait_for_selector("#score-sheet")
    width = PHONE["width"] if size == "phone" else DESKTOP["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=str(screenshots / f"sheet-eight-{size}.png"), full_page=True)
    if size == "phone":
        scroller = page.locator(".table-scroll")
        assert scroller.evaluate("s => s.scrollWidth > s.clientWidth")
        first = page.locator("#score-sheet tbody tr").first.locator("th.round")
        before = first.bounding_box()["x"]
        scroller.evaluate("s => { s.scrollLeft = s.scrollWidth; }")
        assert first.bounding_box()["x"] == before  # the round column stays
        assert page.locator("#score-sheet thead th").last.bounding_box()["x"] < width
        page.screenshot(path=str(screenshots / f"sheet-eight-scrolled-{size}.png"), full_page=True)
