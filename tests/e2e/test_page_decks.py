"""Teach a deck on the page (issue 16), with the real models on generated photos, at
phone and desktop size: start a deck from the home page, photograph cards, check and
correct the names, drop a card found twice, see the cards missing, adapt (the progress
bar while it runs), start a game with the deck, remove the deck (asked first). Axe in
the light and the dark theme; screenshots in out/screenshots/decks-*.png."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from page_kit import DESKTOP, PHONE, TIMEOUT, at_both_sizes, jpeg_file, violations

from shanghai.datasets.deck_photos import enrolment_photos
from shanghai.datasets.decks import code_looks
from shanghai.engine.cards import Card
from shanghai.server import deck_jobs
from shanghai.vision.deck_store import DeckStore, decks_dir
from shanghai.vision.model_files import DETECTOR_FILE, default_models_dir
from shanghai.vision.pipeline import models_installed

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not models_installed(), reason="card models not installed"),
]

FIRST = ["7h", "8s", "Kd"]
SECOND = ["JK", "10h"]


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    look = next(look for look in code_looks() if look.name == "code-classic")
    folder = tmp_path_factory.mktemp("deck-page")
    out = []
    for n, cards in enumerate((FIRST, SECOND)):
        enrolment_photos(
            look,
            folder / str(n),
            np.random.default_rng(7 + n),
            cards=[Card.parse(c) for c in cards],
            per_photo=len(cards),
            size=(1024, 768),
        )
        out.append((folder / str(n) / "enrol00.jpg").read_bytes())
    return out


@pytest.fixture
def held_adaptation(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """The adaptation waits at its first progress report until the event is set (so
    the page's progress bar can be looked at); few views per crop keep it quick."""
    monkeypatch.setenv("SHANGHAI_DECK_VIEWS", "3")
    go_on = threading.Event()
    real = deck_jobs.store_enrolled

    def held(*args: object, progress: Callable[[str, int, int], None], **kw: object) -> object:
        def report(stage: str, done: int, total: int) -> None:
            go_on.wait(60)
            progress(stage, done, total)

        return real(*args, progress=report, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(deck_jobs, "store_enrolled", held)
    return go_on


def shaken(jpeg: bytes) -> bytes:
    """The photo as a camera moving 15 px sideways smears it."""
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    kernel = np.full((1, 15), 1 / 15, np.float32)
    return bytes(cv2.imencode(".jpg", cv2.filter2D(image, -1, kernel))[1])


def names_shown(page: Any) -> list[str]:
    return [
        str(v) for v in page.eval_on_selector_all(".deck-card-name", "s => s.map(x => x.value)")
    ]


def no_violations(page: Any) -> None:
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        assert violations(page) == [], scheme
    page.emulate_media(color_scheme="light")


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_teach_a_deck_adapt_and_play_with_it(
    size: str,
    live_server: Callable[..., Any],
    browser_for: Callable[[list[str]], Any],
    screenshots: Path,
    photos: list[bytes],
    held_adaptation: threading.Event,
) -> None:
    server = live_server()
    viewport = PHONE if size == "phone" else DESKTOP
    page = browser_for([]).new_page(viewport=viewport)
    page.goto(f"{server.url}/#/")
    page.click("#decks-link")
    page.wait_for_selector("#new-deck", timeout=TIMEOUT)
    assert page.locator("#no-decks").is_visible()
    page.fill("#deck-name", "my deck")  # a space: refused in words
    page.click("#start-deck")
    page.wait_for_selector("#deck-error:not(:empty)", timeout=TIMEOUT)
    page.fill("#deck-name", "home")
    page.select_option("#deck-family", "standard")
    page.click("#start-deck")
    page.wait_for_selector("#deck-photo", timeout=TIMEOUT)
    assert page.get_attribute("#deck-photo", "capture") == "environment"

    # A shaken photo is refused in words (a blurred face would teach blur), nothing added.
    page.set_input_files("#deck-photo", jpeg_file(shaken(photos[0]), "shaken.jpg"))
    page.wait_for_selector("#deck-photo-error:not(:empty)", timeout=TIMEOUT)
    assert "blurred" in page.inner_text("#deck-photo-error")
    assert page.locator(".deck-card").count() == 0

    page.set_input_files("#deck-photo", jpeg_file(photos[0], "first.jpg"))
    page.wait_for_function("document.querySelectorAll('.deck-card').length === 3", timeout=TIMEOUT)
    assert sorted(names_shown(page)) == sorted(FIRST)
    assert page.inner_text("#deck-photo-error") == ""
    assert page.inner_text("#missing-title") == "Still missing: 50 cards"
    # every picture loaded (cut out, straightened)
    page.wait_for_function(
        "[...document.querySelectorAll('.deck-card img')]"
        ".every(i => i.complete && i.naturalWidth > 0)",
        timeout=TIMEOUT,
    )

    # The same photo again: its cards are taken, so they come unnamed with a note; drop them.
    page.set_input_files("#deck-photo", jpeg_file(photos[0], "again.jpg"))
    page.wait_for_function("document.querySelectorAll('.deck-card').length === 6", timeout=TIMEOUT)
    assert names_shown(page)[3:] == ["", "", ""]
    assert page.locator(".deck-card .note").count() == 3
    # naming one as a card already taught is refused in words
    page.select_option("#deck-card-4-name", FIRST[0])
    page.wait_for_selector("#deck-card-4 .error:not(:empty)", timeout=TIMEOUT)
    assert "cannot be enrolled twice" in page.inner_text("#deck-card-4 .error")
    at_both_sizes(page, screenshots, f"decks-teach-from-{size}")
    page.set_viewport_size(viewport)
    no_violations(page)
    page.emulate_media(color_scheme="dark")
    page.screenshot(path=str(screenshots / f"decks-teach-dark-{size}.png"), full_page=True)
    page.emulate_media(color_scheme="light")
    for card_id in (4, 5, 6):
        page.click(f"#deck-card-{card_id} .drop-card")
        page.wait_for_selector(f"#deck-card-{card_id}", state="detached", timeout=TIMEOUT)
    assert page.locator(".deck-card").count() == 3

    # Correct a name (and see the missing cards follow), then put it back.
    page.select_option("#deck-card-1-name", "2c")
    page.wait_for_function(
        "document.getElementById('missing-title').textContent === 'Still missing: 50 cards'"
        " && !document.querySelector('#deck-missing [aria-label=\"2 of clubs\"]')",
        timeout=TIMEOUT,
    )
    assert "named by you" in page.inner_text("#deck-card-1 .read-as")
    original = next(c for c in FIRST if c not in names_shown(page))
    page.select_option("#deck-card-1-name", original)
    page.wait_for_function(
        "!document.querySelector('#deck-card-1 .read-as').textContent.includes('named by you')",
        timeout=TIMEOUT,
    )

    page.set_input_files("#deck-photo", jpeg_file(photos[1], "second.jpg"))
    page.wait_for_function("document.querySelectorAll('.deck-card').length === 5", timeout=TIMEOUT)
    assert sorted(names_shown(page)) == sorted(FIRST + SECOND)
    assert page.inner_text("#missing-title") == "Still missing: 48 cards"
    assert page.locator("#deck-missing [aria-label='joker']").count() == 0
    assert page.inner_text("#adapt-deck") == "Adapt to 5 cards"

    # Adapt: the progress bar while it runs, the page usable, then the deck in the list.
    page.click("#adapt-deck")
    page.wait_for_selector("#adapt-progress:not([hidden])", timeout=TIMEOUT)
    assert page.locator("#stop-adapt").is_visible()
    assert page.locator("#deck-photo").is_disabled()
    at_both_sizes(page, screenshots, f"decks-adapting-from-{size}")
    page.set_viewport_size(viewport)
    no_violations(page)
    held_adaptation.set()
    page.wait_for_selector("#deck-item-home", timeout=60_000)
    assert "5 cards taught" in page.inner_text("#deck-item-home")
    assert "48 cards missing" in page.inner_text("#deck-item-home")

    # A game picks the deck on the home page's form.
    page.goto(f"{server.url}/#/")
    page.wait_for_selector("#deck-row:not([hidden])", timeout=TIMEOUT)
    page.fill("#game-name", "With our deck")
    page.select_option("#variant", "shanghai")
    page.select_option("#game-deck", "home")
    page.fill("#players", "Ann\nBob\nCy")
    at_both_sizes(page, screenshots, f"decks-new-game-from-{size}")
    page.set_viewport_size(viewport)
    no_violations(page)
    page.click("#create-game")
    page.wait_for_selector("#round-info", timeout=TIMEOUT)
    game = page.url.rsplit("/", 1)[-1]
    assert page.request.get(f"{server.url}/api/games/{game}").json()["deck"] == "home"
    assert page.inner_text("#deck-info") == "Cards read with the deck 'home'"

    # The list (a deck with its own locator says so: `shanghai deck locator` made one;
    # here any valid locator file), and removing the deck (asked first).
    page.goto(f"{server.url}/#/decks")
    page.wait_for_selector("#deck-item-home", timeout=TIMEOUT)
    assert "its own locator" not in page.inner_text("#deck-item-home")
    stored = DeckStore(decks_dir(server.settings.data_dir)).get("home")
    shutil.copyfile(default_models_dir() / DETECTOR_FILE, stored.locator_path)
    page.reload()
    page.wait_for_selector("#deck-item-home", timeout=TIMEOUT)
    assert "its own locator" in page.inner_text("#deck-item-home")
    at_both_sizes(page, screenshots, f"decks-list-from-{size}")
    page.set_viewport_size(viewport)
    item = page.locator("#deck-item-home")
    item.locator(".remove-deck").click()
    ask = item.get_by_role("alertdialog")
    assert ask.is_visible() and "Remove deck home?" in ask.inner_text()
    assert page.evaluate("document.activeElement.className").endswith("remove-no")
    no_violations(page)
    item.locator(".remove-yes").click()
    page.wait_for_selector("#no-decks", timeout=TIMEOUT)
    assert page.request.get(f"{server.url}/api/decks").json() == []
