"""The page in a real headless Chromium against the real server.

- `test_a_game_without_recognition`: what works with no model at all (the app as it
  runs when the model files are missing) — new game, the browser camera running with
  the honest "model not installed" message, round end by
  clicks and text, a correction, buys up to the limit, a dispute check, the score
  sheet and its chart surviving a reload, the printable sheet, a phone-sized view.
- `test_scoring_from_the_camera_with_a_stand_in_scanner`: the camera path end to end
  (browser camera -> websocket -> overlay -> scan from camera -> correct one card ->
  confirm -> reload) with a stand-in scanner that returns known cards: the plumbing is
  real, the recognition is not.
- `test_real_recognition_from_the_camera`: the same with the app's own scanner and the
  shipped model (skipped, saying so, only if `models/cards-*.onnx` are missing).
- `test_a_scan_to_check_says_what_and_marks_the_card`: a hand photo with a card the
  scan cannot read and a read below the sure level: "Reading the cards…" while it runs,
  then every warning of the scan in a visible box and the unsure card's chip marked;
  a clean scan shows no box.
- `test_an_empty_hand_from_a_scan_is_asked_before_it_counts_as_out`: confirming no
  cards after a scan that read some asks "did Ann go out?"; cancel sends nothing,
  yes records "went out" (with `confirm_out`); a 422 is shown in words.
- `test_a_dispute_photo_fills_the_lay_down_text`: a lay-down photo puts its melds in the
  text field, shows the card lying outside every meld and its warning; the text is then
  edited and checked again.
- `test_a_whole_table_photo_gives_each_hand_to_its_player`: one photo of the table lists
  a hand per seat of the photo with its points and the photo's warnings once; two
  hands are given to two players (one given to the wrong player first, then moved),
  each box filled with its unsure card marked; both confirm against the seat picked,
  with no corrections, and a confirm keeps the other's unsaved entry.

The stand-in scanner is the real scan contract (`PhotoScanner`) over a table laid by
hand (`mini_table.MiniTable`), so warnings, unsure reads and loose cards are the scan's
own. Screenshots go to out/screenshots/ (git-ignored); the scan tests take each at
phone (390x844) and desktop (1280x800) size.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mini_table import MiniTable
from page_kit import (
    DESKTOP,
    TIMEOUT,
    StandInScanner,
    at_both_sizes,
    camera_table,
    confirm,
    fixed,
    hand_table,
    jpeg_file,
    new_game,
    photo_of,
    saved,
)

from shanghai.server.scanning import UnavailableScanner, default_scanner

pytestmark = pytest.mark.e2e


def test_a_game_without_recognition(
    live_server: Callable[..., Any], browser_for: Callable[[list[str]], Any], screenshots: Path
) -> None:
    server = live_server(UnavailableScanner())
    browser = browser_for(["7h", "Kd", "JK"])
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.goto(server.url + "/")
    page.wait_for_selector("#new-game")
    page.screenshot(path=str(screenshots / "home.png"), full_page=True)
    game = new_game(page, server.url)
    assert "Round 1: 2 sets of 3 · 11 cards each" in page.inner_text("#round-info")

    # the browser camera runs; without a model the page says so instead of guessing
    page.click("#start-camera")
    page.wait_for_function("document.getElementById('live-video').videoWidth > 0", timeout=TIMEOUT)
    page.wait_for_function(
        "document.getElementById('live-status').textContent.includes('not installed')",
        timeout=TIMEOUT,
    )

    # Ann by clicks: 7h and Kd from the picker, Kd removed again, Ks typed
    ann = page.locator("#player-0")
    ann.locator("summary").click()
    ann.locator("button[data-card='7h']").click()
    ann.locator("button[data-card='Kd']").click()
    page.wait_for_function(
        "document.querySelector('#player-0 .points').textContent === '15 pts'", timeout=TIMEOUT
    )
    ann.locator(".chips .chip", has_text="K").click()
    assert ann.locator(".cards-input").input_value() == "7h"
    ann.locator(".cards-input").fill("7h Ks")
    saved(page, ann.locator(".save").click)
    assert page.inner_text("#player-0 .points") == "15 pts"
    confirm(page, 1, "")  # Bob went out
    confirm(page, 2, "JK 2c")
    page.wait_for_function(
        "document.getElementById('round-info').textContent.startsWith('Round 2')",
        timeout=TIMEOUT,
    )
    # the camera kept running through the saves
    assert page.evaluate("document.getElementById('live-video').videoWidth") > 0

    # round 2: Ann saves 9d, then corrects it to 9c 3h
    confirm(page, 0, "9d")
    page.locator("#player-0 .correct").click()
    page.locator("#player-0 .cards-input").fill("9c 3h")
    saved(page, page.locator("#player-0 .save").click)
    page.wait_for_selector("#player-0 >> text=Corrections: removed 9d", timeout=TIMEOUT)

    # buys: three allowed in round 2, the fourth refused
    for left in (2, 1, 0):
        page.locator("#buys-1 .buy-button").click()
        page.wait_for_selector(f"#buys-1 >> text={left} of 3 buys left", timeout=TIMEOUT)
    page.locator("#buys-1 .buy-button").click()
    page.wait_for_selector("#buys-1 >> text=Bob has used all 3 buys", timeout=TIMEOUT)
    page.screenshot(path=str(screenshots / "table.png"), full_page=True)

    # dispute check by text
    page.select_option("#check-round", "2")
    page.fill("#check-cards", "7h 7s 7c | 4d 5d 6d 8d")
    page.click("#check-button")
    page.wait_for_selector("#check-result >> text=Not a legal lay-down", timeout=TIMEOUT)
    assert page.locator("#check-result .verdict.valid").count() == 1
    assert page.locator("#check-result .verdict.invalid").count() == 1
    page.fill("#check-cards", "7h 7s 7c | 4d 5d 6d 7d")
    page.click("#check-button")
    page.wait_for_selector("#check-result >> text=Legal lay-down", timeout=TIMEOUT)
    page.locator("#dispute-panel").screenshot(path=str(screenshots / "dispute.png"))

    # score sheet with chart; still there after a reload
    page.goto(f"{server.url}/#/games/{game}/sheet")
    page.wait_for_selector("#score-sheet")
    first = page.locator("#score-sheet tbody tr").first.inner_text()
    assert "15" in first and "70" in first
    assert page.locator("#chart polyline.series").count() == 3
    assert page.inner_text("#score-sheet tfoot").split() == ["Total", "15", "0", "70"]
    # the legend's player colours apply under the page's CSP (no inline style attributes)
    colours = page.locator(".legend .swatch").evaluate_all(
        "spans => spans.map(s => getComputedStyle(s).backgroundColor)"
    )
    assert colours[:2] == ["rgb(31, 119, 180)", "rgb(214, 39, 40)"]
    page.screenshot(path=str(screenshots / "sheet.png"), full_page=True)
    page.reload()
    page.wait_for_selector("#score-sheet")
    assert page.inner_text("#score-sheet tfoot").split() == ["Total", "15", "0", "70"]
    assert "Leading: Bob" in page.inner_text("#sheet-result")

    # printable sheet, pre-filled with every round's contract
    page.goto(f"{server.url}/games/{game}/print")
    text = page.inner_text("#print-sheet")
    assert "1 set of 3 + 1 run of 10" in text and "3 runs of 5" in text
    page.screenshot(path=str(screenshots / "print.png"), full_page=True)

    # readable on a phone: nothing wider than the screen
    phone = browser.new_page(viewport={"width": 375, "height": 760}, device_scale_factor=2)
    phone.goto(f"{server.url}/#/games/{game}")
    phone.wait_for_selector("#round-panel")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 375
    phone.screenshot(path=str(screenshots / "table-phone.png"), full_page=True)
    phone.goto(f"{server.url}/#/games/{game}/sheet")
    phone.wait_for_selector("#score-sheet")
    phone.screenshot(path=str(screenshots / "sheet-phone.png"), full_page=True)


def camera_round(page: Any, base: str, screenshots: Path, shot: str) -> str:
    """Create a game, see the cards on the live view, score Ann from the camera with one
    card corrected, finish the round, reload, and check the sheet."""
    game = new_game(page, base)
    page.click("#start-camera")
    # the chips are read in the same script that sees three of them: with a real model
    # the steady set may change between two calls
    seen = page.wait_for_function(
        """() => {
            const chips = [...document.querySelectorAll('#live-cards .chip')];
            return chips.length === 3 ? chips.map((chip) => chip.textContent) : null;
        }""",
        timeout=TIMEOUT,
    ).json_value()
    assert len(seen) == 3
    page.wait_for_function("document.getElementById('live-overlay').width > 0", timeout=TIMEOUT)
    page.screenshot(path=str(screenshots / f"{shot}-live.png"), full_page=True)
    ann = page.locator("#player-0")
    ann.locator(".scan-live").click()
    ann.locator("img.evidence").wait_for(timeout=TIMEOUT)
    proposed = ann.locator(".cards-input").input_value().split()
    assert len(proposed) == 3
    # the player corrects one card: the last one read becomes 2c
    ann.locator(".cards-input").fill(" ".join([*proposed[:-1], "2c"]))
    saved(page, ann.locator(".save").click)
    page.wait_for_selector(
        f"#player-0 >> text=Corrections: removed {proposed[-1]}", timeout=TIMEOUT
    )
    confirm(page, 1, "")
    confirm(page, 2, "4c")
    page.goto(f"{base}/#/games/{game}/sheet")
    page.reload()
    page.wait_for_selector("#score-sheet")
    first_row = page.locator("#score-sheet tbody tr").first.inner_text()
    assert "Σ" in first_row
    page.screenshot(path=str(screenshots / f"{shot}-sheet.png"), full_page=True)
    return game


def test_scoring_from_the_camera_with_a_stand_in_scanner(
    live_server: Callable[..., Any], browser_for: Callable[[list[str]], Any], screenshots: Path
) -> None:
    cards = ["7h", "Kc", "Jd"]
    server = live_server(StandInScanner(camera_table(cards)))
    page = browser_for(cards).new_page(viewport={"width": 1100, "height": 900})
    game = camera_round(page, server.url, screenshots, "camera-stand-in")
    page.goto(f"{server.url}/#/games/{game}")
    page.wait_for_selector("#round-panel")
    # the stand-in read 7h Kc Jd; Jd was corrected to 2c: 5 + 10 + 20 = 35
    sheet = page.request.get(f"{server.url}/api/games/{game}/sheet").json()
    assert sheet["totals"] == [35, 0, 5]
    hand = page.request.get(f"{server.url}/api/games/{game}/rounds/1").json()["hands"][0]
    assert hand["entry"] == "scan"
    assert hand["corrections"] == [
        {"action": "removed", "card": "Jd"},
        {"action": "added", "card": "2c"},
    ]


def test_real_recognition_from_the_camera(
    live_server: Callable[..., Any], browser_for: Callable[[list[str]], Any], screenshots: Path
) -> None:
    scanner = default_scanner()
    if isinstance(scanner, UnavailableScanner):
        pytest.skip(f"waiting for shanghai.vision: {scanner.reason}")
    cards = ["7h", "Kc", "Jd"]
    server = live_server()
    page = browser_for(cards).new_page(viewport={"width": 1100, "height": 900})
    game = camera_round(page, server.url, screenshots, "camera-real")
    # what the scan proposed = the stored hand with the player's correction undone
    hand = page.request.get(f"{server.url}/api/games/{game}/rounds/1").json()["hands"][0]
    proposed = list(hand["cards"])
    for change in hand["corrections"]:
        if change["action"] == "added":
            proposed.remove(change["card"])
        else:
            proposed.append(change["card"])
    assert sorted(proposed) == sorted(cards)


def scan_photo(page: Any, seat: int, photo: bytes) -> dict[str, Any]:
    """Upload a photo of a player's hand; the scan's answer once the page shows it."""
    box = page.locator(f"#player-{seat}")
    with page.expect_response(lambda r: r.url.endswith("/scans")) as answer:
        box.locator(".scan-file").set_input_files(files=[jpeg_file(photo, "hand.jpg")])
    assert answer.value.status == 201, answer.value.text()
    box.locator("img.evidence").wait_for(timeout=TIMEOUT)
    result: dict[str, Any] = answer.value.json()
    return result


def test_a_scan_to_check_says_what_and_marks_the_card(
    live_server: Callable[..., Any], browser_for: Callable[[list[str]], Any], screenshots: Path
) -> None:
    table = hand_table(["7h", "Kd", "9c"], unread=1)
    scanner = StandInScanner(fixed(table), unsure={"Kd"})
    scanner.gate = threading.Event()
    server = live_server(scanner)
    page = browser_for([]).new_page(viewport=DESKTOP)
    new_game(page, server.url)
    ann = page.locator("#player-0")

    # while the scan runs the page says so and its buttons wait
    with page.expect_response(lambda r: r.url.endswith("/scans"), timeout=TIMEOUT) as answer:
        ann.locator(".scan-file").set_input_files(files=[jpeg_file(photo_of(table), "hand.jpg")])
        busy = ann.get_by_role("status").filter(has_text="Reading the cards…")
        busy.wait_for(timeout=TIMEOUT)
        assert ann.locator(".scan-photo").is_disabled()
        assert ann.locator(".scan-live").is_disabled()
        assert ann.locator(".save").is_disabled()
        scanner.gate.set()
    scan = answer.value.json()
    ann.locator("img.evidence").wait_for(timeout=TIMEOUT)
    assert busy.count() == 0
    assert ann.locator(".save").is_enabled()

    # the scan read three cards (Kd unsure) and saw a fourth it could not read
    assert sorted(scan["proposed"]) == ["7h", "9c", "Kd"]
    assert [w["code"] for w in scan["warnings"]] == ["unread", "unsure"]
    assert sorted(ann.locator(".cards-input").input_value().split()) == ["7h", "9c", "Kd"]

    # every warning's message, plainly, in a box the screen reader announces
    box = ann.locator(".warnings[role=status]")
    assert box.is_visible()
    assert box.locator("li").evaluate_all("items => items.map((i) => i.dataset.code)") == [
        "unread",
        "unsure",
    ]
    assert box.locator("li").all_text_contents() == [w["message"] for w in scan["warnings"]]
    assert "Kd" in box.locator("li[data-code=unsure]").text_content()

    # the unsure read's chip is marked (orange, '?', said so); the sure ones are not
    unsure = ann.get_by_role("button", name="king of diamonds, unsure: check it")
    assert unsure.inner_text() == "K♦?"
    assert unsure.evaluate("c => getComputedStyle(c).borderTopColor") == "rgb(194, 94, 0)"
    assert ann.locator(".chips .chip.unsure").count() == 1
    assert ann.get_by_role("button", name="7 of hearts, remove").count() == 1
    at_both_sizes(page, screenshots, "scan-to-check")
    ann.screenshot(path=str(screenshots / "scan-to-check-hand.png"))

    # the person adds the card the scan could not read: Kd stays marked until removed
    ann.locator(".cards-input").fill(ann.locator(".cards-input").input_value() + " Qs")
    page.wait_for_function(
        "document.querySelector('#player-0 .points').textContent === '30 pts'", timeout=TIMEOUT
    )
    assert ann.locator(".chips .chip.unsure").count() == 1
    unsure.click()
    assert ann.locator(".chips .chip.unsure").count() == 0

    # a clean scan shows no warning box and no marked card
    scanner.table, scanner.unsure, scanner.gate = fixed(hand_table(["5s", "5h"])), frozenset(), None
    clean = scan_photo(page, 1, photo_of(hand_table(["5s", "5h"])))
    assert clean["warnings"] == []
    assert page.locator("#player-1 .warnings").count() == 0
    assert page.locator("#player-1 .chips .chip.unsure").count() == 0
    assert sorted(page.locator("#player-1 .cards-input").input_value().split()) == ["5h", "5s"]


def test_an_empty_hand_from_a_scan_is_asked_before_it_counts_as_out(
    live_server: Callable[..., Any], browser_for: Callable[[list[str]], Any], screenshots: Path
) -> None:
    table = hand_table(["7h", "9c"])
    server = live_server(StandInScanner(fixed(table)))
    page = browser_for([]).new_page(viewport=DESKTOP)
    game = new_game(page, server.url)
    sent: list[Any] = []
    page.on("request", lambda r: sent.append(r) if r.url.endswith("/hands") else None)

    # a 422 from the server is shown in words: only the player out can go out blind
    bob = page.locator("#player-1")
    bob.locator(".cards-input").fill("7h")
    bob.locator(".blind").check()
    with page.expect_response(lambda r: r.url.endswith("/hands")) as refused:
        bob.locator(".save").click()
    assert refused.value.status == 422
    detail = refused.value.json()["detail"]
    said = detail[0].upper() + detail[1:] + ("" if detail.endswith(".") else ".")  # a sentence
    page.wait_for_function(
        "(text) => document.querySelector('#player-1 .error').textContent === text",
        arg=said,
        timeout=TIMEOUT,
    )
    assert "blind" in detail

    # Ann's photo shows two cards; she confirms none: the page asks first
    ann = page.locator("#player-0")
    scan = scan_photo(page, 0, photo_of(table))
    assert sorted(scan["proposed"]) == ["7h", "9c"]
    ann.locator(".cards-input").fill("")
    before = len(sent)
    ann.locator(".save").click()
    question = ann.get_by_role("alertdialog", name="No cards left: did Ann go out?")
    question.wait_for(timeout=TIMEOUT)
    assert "The scan read 2 cards" in question.inner_text()
    assert question.locator(".confirm-out").evaluate("b => b === document.activeElement")
    assert len(sent) == before
    at_both_sizes(page, screenshots, "went-out-question")
    ann.screenshot(path=str(screenshots / "went-out-question-hand.png"))

    # cancel: nothing is sent, the hand is still open
    question.get_by_role("button", name="Cancel").click()
    assert question.is_hidden()
    assert len(sent) == before
    assert ann.locator(".save").is_visible()

    # confirm: recorded as went out, with the scan as evidence
    ann.locator(".save").click()
    question.wait_for(timeout=TIMEOUT)
    saved(page, question.get_by_role("button", name="Yes, Ann went out").click)
    page.wait_for_selector("#player-0 >> text=Went out ✓ saved", timeout=TIMEOUT)
    assert len(sent) == before + 1
    assert sent[-1].post_data_json == {
        "cards": "",
        "blind": False,
        "player": 0,
        "scan_id": scan["id"],
        "confirm_out": True,
    }
    hand = page.request.get(f"{server.url}/api/games/{game}/rounds/1").json()["hands"][0]
    assert (hand["player"], hand["went_out"], hand["points"]) == ("Ann", True, 0)
    assert hand["scan_id"] == scan["id"] and hand["entry"] == "scan"
    assert sorted(c["card"] for c in hand["corrections"]) == ["7h", "9c"]


def test_a_dispute_photo_fills_the_lay_down_text(
    live_server: Callable[..., Any], browser_for: Callable[[list[str]], Any], screenshots: Path
) -> None:
    table = MiniTable(width=960, height=640, scale=1.75)
    table.row(["7h", "7s", "7c"], 330, 170, step=22)
    table.row(["4d", "5d", "6d", "7d"], 330, 430, step=22)
    table.card("Kc", 760, 300)
    server = live_server(StandInScanner(fixed(table)))
    page = browser_for([]).new_page(viewport=DESKTOP)
    new_game(page, server.url)
    page.select_option("#check-round", "2")
    with page.expect_response(lambda r: r.url.endswith("/check-image")) as answer:
        page.set_input_files("#check-photo", files=[jpeg_file(photo_of(table), "melds.jpg")])
    report = answer.value.json()
    page.wait_for_selector("#check-result >> text=Legal lay-down", timeout=TIMEOUT)

    # the photo's melds, as text to edit; the loose card and its warning
    assert report["text"] == "7h 7s 7c | 4d 5d 6d 7d"
    assert page.input_value("#check-cards") == report["text"]
    assert page.locator("#check-result .verdict.valid").count() == 2
    loose = page.locator("#check-loose")
    assert loose.inner_text().split() == ["Not", "part", "of", "a", "meld:", "K♣"]
    warnings = page.locator("#check-result .warnings[role=status] li")
    assert warnings.evaluate_all("items => items.map((i) => i.dataset.code)") == ["loose"]
    assert warnings.all_text_contents() == [w["message"] for w in report["warnings"]]
    assert "Kc" in warnings.first.text_content()
    assert page.locator("#check-result img.evidence").is_visible()
    at_both_sizes(page, screenshots, "dispute-photo")
    page.locator("#dispute-panel").screenshot(path=str(screenshots / "dispute-photo-panel.png"))

    # edited and checked again by text: the photo's notes give way to the new verdict
    page.fill("#check-cards", "7h 7s 7c | 4d 5d 6d 8d")
    page.click("#check-button")
    page.wait_for_selector("#check-result >> text=Not a legal lay-down", timeout=TIMEOUT)
    assert page.locator("#check-result .warnings").count() == 0
    assert page.locator("#check-loose").count() == 0


def three_hands(width: int, height: int) -> MiniTable:
    """A table seen from above, three hands left: at the bottom of the photo (its seat 1),
    upper left (seat 2) and upper right (seat 3); any photo size."""
    sx, sy = width / 1200, height / 900
    table = MiniTable(width=width, height=height, scale=1.5 * min(sx, sy))
    table.row(["7h", "8c"], 600 * sx, 760 * sy, step=30)
    table.row(["Kd", "Qs", "5d"], 250 * sx, 230 * sy, step=30)
    table.row(["9s", "4h"], 950 * sx, 230 * sy, step=30)
    return table


def test_a_whole_table_photo_gives_each_hand_to_its_player(
    live_server: Callable[..., Any], browser_for: Callable[[list[str]], Any], screenshots: Path
) -> None:
    table = three_hands(1200, 900)
    server = live_server(StandInScanner(three_hands, unsure={"8c"}))
    page = browser_for(["7h", "8c", "9s"]).new_page(viewport=DESKTOP)
    game = new_game(page, server.url)
    with page.expect_response(lambda r: r.url.endswith("/scans")) as answer:
        page.set_input_files("#table-photo", files=[jpeg_file(photo_of(table), "table.jpg")])
    assert answer.value.status == 201, answer.value.text()
    scan = answer.value.json()
    assert scan["photo"] == "table"  # sent as photo=table (the browser keeps a file's body)
    rows = page.locator("#table-hands .seat-hand")
    rows.first.wait_for(timeout=TIMEOUT)

    # a hand per seat of the photo, with its points; the photo's warnings once, above
    assert [" ".join(row.inner_text().split()) for row in rows.locator(".seat-cards").all()] == [
        "Seat 1 (bottom): 7♥ 8♣ — 10 pts",
        "Seat 2 (upper left): K♦ Q♠ 5♦ — 25 pts",
        "Seat 3 (upper right): 9♠ 4♥ — 10 pts",
    ]
    notes = page.locator("#table-scan .warnings[role=status] li")
    assert notes.all_text_contents() == [w["message"] for w in scan["warnings"]]
    assert notes.evaluate_all("items => items.map((i) => i.dataset.code)") == ["unsure"]
    assert page.locator(".warnings").count() == 1
    assert page.locator("#table-hands img.evidence").is_visible()
    # each list's default: the player whose seat number is the photo's seat
    whose = [
        rows.nth(k).get_by_role("combobox", name=f"Whose hand is seat {k + 1}?") for k in range(3)
    ]
    assert [w.input_value() for w in whose] == ["0", "1", "2"]

    # the bottom hand given to Ann (the default) fills her box, its unsure card marked
    ann, bob, cy = (page.locator(f"#player-{seat}") for seat in range(3))
    rows.nth(0).get_by_role("button", name="Fill in").click()
    assert ann.locator(".cards-input").input_value() == "7h 8c"
    assert ann.get_by_role("button", name="8 of clubs, unsure: check it").is_visible()
    assert "In Ann's box" in rows.nth(0).inner_text()
    # ...but it is Bob's: given to him, Ann's box is empty again
    whose[0].select_option(label="Bob")
    rows.nth(0).get_by_role("button", name="Fill in").click()
    assert ann.locator(".cards-input").input_value() == ""
    assert ann.locator(".chips .chip").count() == 0
    assert ann.locator(".from-table").count() == 0
    assert bob.locator(".cards-input").input_value() == "7h 8c"
    assert bob.locator(".chips .chip.unsure").count() == 1
    assert bob.locator(".from-table").inner_text() == "From the table photo: seat 1 (bottom)."
    # the points come from the server (POST .../points): wait for the answer
    bob.locator(".points", has_text="10 pts").wait_for(timeout=TIMEOUT)
    assert whose[1].input_value() == ""  # Bob holds a hand now: seat 2's default is no one
    # the upper right hand is Cy's, as the default says
    rows.nth(2).get_by_role("button", name="Fill in").click()
    assert cy.locator(".cards-input").input_value() == "9s 4h"
    assert cy.locator(".chips .chip.unsure").count() == 0
    assert page.locator("#round-panel .warnings").count() == 1
    at_both_sizes(page, screenshots, "table-photo")
    page.locator("#round-panel").screenshot(path=str(screenshots / "table-photo-panel.png"))

    # both confirm against the seat picked; Bob's save keeps Cy's entry
    sent: list[Any] = []
    page.on(
        "request", lambda r: sent.append(r.post_data_json) if r.url.endswith("/hands") else None
    )
    saved(page, bob.locator(".save").click)
    assert " ".join(rows.nth(0).inner_text().split()).endswith("Bob's hand ✓ saved")
    assert cy.locator(".cards-input").input_value() == "9s 4h"
    assert "In Cy's box" in rows.nth(2).inner_text()
    assert rows.nth(1).locator("option").all_text_contents() == ["no one", "Ann", "Cy"]
    saved(page, cy.locator(".save").click)
    assert [(b["player"], b["scan_id"], b["scan_seat"]) for b in sent] == [
        (1, scan["id"], 0),
        (2, scan["id"], 2),
    ]
    hands = page.request.get(f"{server.url}/api/games/{game}/rounds/1").json()["hands"]
    assert [(h["player"], h["points"], h["corrections"], h["scan_id"]) for h in hands] == [
        ("Bob", 10, [], scan["id"]),
        ("Cy", 10, [], scan["id"]),
    ]
    assert rows.nth(1).locator("option").all_text_contents() == ["no one", "Ann"]
    assert page.locator("#round-panel").inner_text().count("null") == 0
    page.locator("#round-panel").screenshot(path=str(screenshots / "table-photo-saved.png"))

    # the live camera's frame serves as the table photo too
    page.click("#start-camera")
    page.wait_for_function("document.getElementById('live-video').videoWidth > 0", timeout=TIMEOUT)
    with page.expect_response(lambda r: r.url.endswith("/scans")) as again:
        page.click("#table-live")
    assert again.value.status == 201, again.value.text()
    assert (again.value.json()["photo"], again.value.json()["source"]) == ("table", "live")
    page.wait_for_function(
        "(id) => document.querySelector('#table-hands img.evidence').src.includes(`/${id}/`)",
        arg=again.value.json()["id"],
        timeout=TIMEOUT,
    )
    assert [w.input_value() for w in whose] == ["0", "", ""]  # only Ann's hand is open
