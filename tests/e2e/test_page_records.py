"""Games renamed and deleted from the home list, and the records page (issue 17), at
phone and desktop size: finished games with their winners, each player's statistics,
every game exported (JSON, CSV) and imported back, a bad file refused in words."""

from __future__ import annotations

import json
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


def finish(page: Any, base: str, game: int, hands: tuple[str, ...]) -> None:
    """Every round through the API, with the same hands each time."""
    rounds = len(page.request.get(f"{base}/api/games/{game}").json()["rounds"])
    for number in range(1, rounds + 1):
        for seat, cards in enumerate(hands):
            answer = page.request.post(
                f"{base}/api/games/{game}/rounds/{number}/hands",
                data={"player": seat, "cards": cards},
            )
            assert answer.status == 201, answer.text()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_rename_a_game_and_delete_one_from_the_home_list(
    size: str,
    live_server: Callable[..., Any],
    browser_for: Callable[[list[str]], Any],
    screenshots: Path,
) -> None:
    server = live_server()
    viewport = PHONE if size == "phone" else DESKTOP
    page = browser_for([]).new_page(viewport=viewport)
    keep = api_game(page, server.url, ["Ann", "Bob", "Cy"])
    gone = api_game(page, server.url, ["Dee", "Eve", "Flo"])
    open_table(page, server.url, keep)
    page.locator("#game-panel summary").click()
    page.fill("#game-rename", "  Saturday   at Gran's ")
    page.click("#save-game-name")
    wait_for_text(page, "#game-title", "Saturday at Gran's — Shanghai")
    assert page.input_value("#game-rename") == "Saturday at Gran's"

    page.goto(f"{server.url}/#/")
    page.wait_for_selector(f"#game-item-{gone}", timeout=TIMEOUT)
    assert "Saturday at Gran's" in page.locator(f"#game-item-{keep}").inner_text()
    item = page.locator(f"#game-item-{gone}")
    item.locator(".delete-game").click()
    ask = item.get_by_role("alertdialog")
    assert ask.is_visible() and "Delete Evening for good?" in ask.inner_text()
    at_both_sizes(page, screenshots, f"home-delete-ask-from-{size}")
    page.set_viewport_size(viewport)
    assert violations(page) == []
    item.locator(".delete-no").click()  # "Keep it" keeps it
    assert not ask.is_visible()
    assert page.request.get(f"{server.url}/api/games/{gone}").status == 200
    item.locator(".delete-game").click()
    with page.expect_response(lambda r: r.request.method == "DELETE"):
        item.locator(".delete-yes").click()
    page.wait_for_selector(f"#game-item-{gone}", state="detached", timeout=TIMEOUT)
    assert page.request.get(f"{server.url}/api/games/{gone}").status == 404
    assert page.locator(f"#game-item-{keep}").count() == 1


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_records_export_and_import(
    size: str,
    live_server: Callable[..., Any],
    browser_for: Callable[[list[str]], Any],
    screenshots: Path,
    tmp_path: Path,
) -> None:
    server = live_server()
    viewport = PHONE if size == "phone" else DESKTOP
    page = browser_for([]).new_page(viewport=viewport)
    first = api_game(page, server.url, ["Ann", "Bob", "Cy"])
    finish(page, server.url, first, ("", "7h", "Kd"))
    second = api_game(page, server.url, ["Ann", "Bob", "Dee", "Grandmother Elisabeth"])
    finish(page, server.url, second, ("Qs", "", "Kd", "3c"))
    api_game(page, server.url, ["Eve", "Flo", "Gus"])  # still playing: not listed

    page.goto(f"{server.url}/#/")
    page.click("#records-link")
    page.wait_for_selector("#finished-games", timeout=TIMEOUT)
    rows = page.locator("#finished-games tbody tr")
    assert rows.count() == 2
    assert rows.nth(0).locator(".winner").inner_text() == "Bob"
    assert rows.nth(1).locator(".winner").inner_text() == "Ann"
    stats = page.locator("#player-stats tbody tr")
    assert stats.count() == 5
    # Ann: two games, one win; rounds of 0 and of 10 (the queen): average 5.0, best 0
    ann = [c.strip() for c in stats.filter(has_text="Ann").first.inner_text().split("\t")]
    assert ann == ["Ann", "2", "1", "5.0", "0"]
    if size == "phone":
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    at_both_sizes(page, screenshots, f"records-from-{size}")
    page.set_viewport_size(viewport)
    assert violations(page) == []

    # export: the JSON holds every game; the CSV a row per hand
    with page.expect_download() as download:
        page.click("#export-json")
    exported = tmp_path / "games.json"
    download.value.save_as(exported)
    archive = json.loads(exported.read_text())
    assert len(archive["games"]) == 3
    with page.expect_download() as download:
        page.click("#export-csv")
    assert download.value.suggested_filename.endswith(".csv")

    # import: the same file again changes nothing; an edited copy adds its games
    page.set_input_files("#import-file", str(exported))
    page.click("#import-button")
    wait_for_text(page, "#import-done", "Imported 0 games; 3 already here")
    archive["games"][0].update(created_at="2025-12-24T20:00:00Z", name="Christmas Eve")
    copy = tmp_path / "christmas.json"
    copy.write_text(json.dumps(archive))
    page.set_input_files("#import-file", str(copy))
    page.click("#import-button")
    wait_for_text(page, "#import-done", "Imported 1 game; 2 already here")
    assert page.locator("#finished-games tbody tr").count() == 3
    assert page.locator("#finished-games").inner_text().count("Christmas Eve") == 1

    # a file that is not an export: refused in words, nothing imported
    bad = tmp_path / "notes.json"
    bad.write_text("Ann 5, Bob 10")
    page.set_input_files("#import-file", str(bad))
    page.click("#import-button")
    wait_for_text(page, "#import-error", "The file is not JSON (line 1, column 1")
    page.locator("#import-error").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshots / f"import-refused-{size}.png"), full_page=True)
    assert len(page.request.get(f"{server.url}/api/games").json()) == 4
