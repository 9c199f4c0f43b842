"""Teaching a taught deck its own locator from the deck list, in Chromium: the button
(only where the server can train), the progress bar and what it is doing while the
child process runs, the toast and "its own locator" when it is done, Stop. The child is
the stand-in of tests/locator_stand_in.py (real training needs the train extra and
minutes). Axe in both themes; screenshots in out/screenshots/decks-locator-*.png."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from locator_stand_in import stand_in_jobs
from page_kit import PHONE, TIMEOUT, at_both_sizes, violations, wait_for_text
from taught_deck import taught_deck

from shanghai.vision.deck_store import LOCATOR_MINUTES
from shanghai.vision.pipeline import CardModels, models_installed

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not models_installed(), reason="card models not installed"),
]


def test_teach_a_deck_its_locator_and_stop_it(
    live_server: Callable[..., Any],
    browser_for: Callable[[list[str]], Any],
    screenshots: Path,
    tmp_path: Path,
) -> None:
    server = live_server()
    taught_deck(server.settings.data_dir, CardModels())
    go = tmp_path / "go"
    app = server.server.config.app
    app.state.decks = dataclasses.replace(app.state.decks, jobs=stand_in_jobs("wait", go))
    page = browser_for([]).new_page(viewport=PHONE)
    page.goto(f"{server.url}/#/decks")
    page.wait_for_selector("#deck-item-home", timeout=TIMEOUT)
    item = page.locator("#deck-item-home")
    button = item.locator(".teach-locator")
    assert button.inner_text() == "Teach its locator"
    assert "14 minutes" in page.inner_text("#locator-hint")
    assert item.locator(".locator-job").is_hidden()

    button.click()
    budget = math.floor(LOCATOR_MINUTES + 0.5)  # the page rounds the minutes half up
    training = f"Training its locator… 0 of {budget} min"
    wait_for_text(page, "#deck-item-home .locator-status", training)
    assert item.locator(".locator-job progress").is_visible()
    assert item.locator(".remove-deck").is_disabled()
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        assert violations(page) == [], scheme
    page.emulate_media(color_scheme="light")
    at_both_sizes(page, screenshots, "decks-locator-running")
    # leaving and coming back finds it still running
    page.goto(f"{server.url}/#/")
    page.goto(f"{server.url}/#/decks")
    wait_for_text(page, "#deck-item-home .locator-status", "Training its locator")

    go.touch()
    checking = "Checking its reads on photos of its cards… 1 of 2"
    wait_for_text(page, "#deck-item-home .locator-status", checking)
    at_both_sizes(page, screenshots, "decks-locator-checking")
    go.with_suffix(".check").touch()
    wait_for_text(page, "#toast", "Deck home has its own locator and reader now.")
    page.wait_for_selector("#deck-item-home .teach-locator:not([disabled])", timeout=TIMEOUT)
    assert "its own locator and reader" in item.inner_text()
    assert item.locator(".teach-locator").inner_text() == "Teach its locator again"
    assert item.locator(".locator-job").is_hidden()
    at_both_sizes(page, screenshots, "decks-locator-done")

    go.unlink()
    go.with_suffix(".check").unlink()
    item.locator(".teach-locator").click()
    wait_for_text(page, "#deck-item-home .locator-status", "Training its locator")
    item.locator(".stop-locator").click()
    kept = "the deck keeps the locator and reader it had"
    wait_for_text(page, "#deck-item-home .deck-message", kept)
    assert "its own locator" in item.inner_text()
    deck = page.request.get(f"{server.url}/api/decks/home").json()
    assert deck["locator"] is True and deck["reader"] is True
