"""What the browser tests share: the stand-in scanner (the real scan contract over a
table laid by hand), photos of such tables, and page helpers (a new game, confirm a
hand and wait for the redraw, screenshots at phone and desktop size).

The stand-in is not recognition: the plumbing is real, the reads are the table's."""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from mini_table import CARD_H, CARD_W, MiniTable

from fake_camera import CARD_SLOTS
from shanghai.engine.variants import Rules
from shanghai.vision.pipeline import FrameReads, Passes
from shanghai.vision.readings import IndexReadings
from shanghai.vision.regions import Reread, within
from shanghai.vision.scan import PhotoScanner
from shanghai.vision.snapshot import PhotoKind, TableSnapshot

TIMEOUT = 15_000
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
SURE_LEVEL = 0.7
"""The stand-in models' sure level (as the shipped `models.toml` gives its models)."""
SURE, UNSURE = 0.95, 0.55
"""Confidences of the stand-in's reads: sure, and read but below the sure level."""

Frame = np.ndarray  # type: ignore[type-arg]
Layout = Callable[[int, int], MiniTable]
"""The table a frame of (width, height) pixels shows."""


class StandInReader:
    """Stands in for the models (`vision.scan.FrameReader`): the frame shows `table`,
    every index read at `SURE`, those of the cards named in `unsure` at `UNSURE`."""

    sure_read = SURE_LEVEL
    sure_name: float | None = None
    min_read = 0.0
    named_read: float | None = None
    taught = False
    corner_span: float | None = None
    own_cards: frozenset[str] = frozenset()

    def __init__(self, table: MiniTable, unsure: Collection[str] = ()) -> None:
        self.table = table
        self.unsure = frozenset(unsure)

    @property
    def name(self) -> str:
        return "stand-in (e2e)"

    def read_frame(
        self,
        frame: Frame,
        rules: Rules | None = None,
        region: tuple[int, int, int, int] | None = None,
        like: Passes | None = None,
    ) -> FrameReads:
        readings, card_xyxy = self.table.measure()
        confidence = [UNSURE if name in self.unsure else SURE for name in readings.names]
        reads = FrameReads(
            IndexReadings(readings.xyxy, readings.names, np.asarray(confidence, np.float32)),
            card_xyxy,
            *self.table.unread(),
        )
        return reads if region is None else within(reads, region)


class StandInScanner:
    """Not recognition: the real scan contract (`PhotoScanner`) over a table laid by hand
    instead of the models. `table` lays the table for each frame's size; `unsure` names
    the cards read below the sure level; `gate`, when set, holds each hand scan until
    it is released (to see the page while a scan runs)."""

    def __init__(self, table: Layout, unsure: Collection[str] = ()) -> None:
        self.table = table
        self.unsure = frozenset(unsure)
        self.gate: threading.Event | None = None

    @property
    def name(self) -> str:
        return "stand-in (e2e)"

    def scan(
        self,
        image: Frame,
        *,
        rules: Rules | None = None,
        kind: PhotoKind = PhotoKind.HAND,
        seats: int = 1,
        reread: Reread | None = None,
    ) -> TableSnapshot:
        if self.gate is not None and kind is PhotoKind.HAND:
            self.gate.wait(TIMEOUT / 1000)
        height, width = image.shape[:2]
        reader = StandInReader(self.table(width, height), self.unsure)
        return PhotoScanner(reader).scan(image, rules=rules, kind=kind, seats=seats, reread=reread)


def camera_table(cards: Sequence[str]) -> Layout:
    """The fake camera's frame: `cards` in its `CARD_SLOTS`, at any frame size."""

    def lay(width: int, height: int) -> MiniTable:
        sx, sy = width / 640, height / 480
        _, top, _, bottom = CARD_SLOTS[0]
        table = MiniTable(width=width, height=height, scale=(bottom - top) * sy / CARD_H)
        for card, (x0, y0, x1, y1) in zip(cards, CARD_SLOTS, strict=False):
            table.card(card, (x0 + x1) / 2 * sx, (y0 + y1) / 2 * sy)
        return table

    return lay


def fixed(table: MiniTable) -> Layout:
    """Every photo shows `table` (the photos uploaded are `photo_of(table)`)."""
    return lambda width, height: table


def hand_table(cards: Sequence[str], *, unread: int = 0) -> MiniTable:
    """A hand spread out, overlapping left to right (each card's index shows), then
    `unread` more cards whose outline shows but whose index cannot be read."""
    table = MiniTable(width=800, height=560, scale=2.6)
    for k, name in enumerate([*cards, *["Qs"] * unread]):
        table.card(name, 235 + 110 * k, 280, readable=k < len(cards))
    return table


def photo_of(table: MiniTable) -> bytes:
    """A JPEG of the table as laid (upright cards only): white cards on felt, later ones
    on top, each readable card's rank and suit at its index corner, unreadable blank."""
    image = np.full((table.height, table.width, 3), (50, 110, 45), np.uint8)
    half_w, half_h = CARD_W * table.scale / 2, CARD_H * table.scale / 2
    size = table.scale / 2.5
    for k, (name, x, y, angle, _face_up) in enumerate(table.placed):
        assert angle == 0, "photo_of draws upright cards only"
        x0, y0, x1, y1 = (round(v) for v in (x - half_w, y - half_h, x + half_w, y + half_h))
        cv2.rectangle(image, (x0, y0), (x1, y1), (248, 248, 248), -1)
        cv2.rectangle(image, (x0, y0), (x1, y1), (110, 110, 110), 1)
        if k in table.unreadable:
            continue
        ink = (40, 40, 190) if name[-1] in "hd" else (30, 30, 30)
        rank, suit = (name, "") if name == "JK" else (name[:-1], name[-1])
        for text, top in ((rank, 16), (suit, 30)):
            at = (x0 + round(3 * table.scale), y0 + round(top * table.scale))
            cv2.putText(image, text, at, cv2.FONT_HERSHEY_SIMPLEX, size, ink, 2, cv2.LINE_AA)
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return bytes(jpeg.tobytes())


def jpeg_file(data: bytes, name: str = "photo.jpg") -> dict[str, Any]:
    return {"name": name, "mimeType": "image/jpeg", "buffer": data}


def at_both_sizes(page: Any, screenshots: Path, name: str) -> None:
    """Full-page screenshots at phone and desktop size; on the phone nothing is wider
    than the screen."""
    for label, size in (("phone", PHONE), ("desktop", DESKTOP)):
        page.set_viewport_size(size)
        if label == "phone":
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        page.screenshot(path=str(screenshots / f"{name}-{label}.png"), full_page=True)


AXE_STANDARDS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]


def violations(page: Any) -> list[str]:
    """axe-core's violations on the page as it is (the engine as the
    `axe-playwright-python` wheel ships it): one line per rule and element."""
    from axe_playwright_python.base import AXE_SCRIPT

    page.evaluate(AXE_SCRIPT)
    found = page.evaluate(
        "(tags) => axe.run(document, { runOnly: { type: 'tag', values: tags } })"
        ".then((r) => r.violations)",
        AXE_STANDARDS,
    )
    return [
        f"{v['id']} ({v['impact']}): {node['target']} {node.get('failureSummary', '')[:160]}"
        for v in found
        for node in v["nodes"]
    ]


def new_game(page: Any, base: str, players: str = "Ann\nBob\nCy") -> str:
    page.goto(base + "/")
    page.fill("#game-name", "Friday")
    page.select_option("#variant", "shanghai")
    page.fill("#players", players)
    page.click("#create-game")
    page.wait_for_selector("#round-info", timeout=TIMEOUT)
    return str(page.url.rsplit("/", 1)[-1])


def saved(page: Any, click: Callable[[], None]) -> None:
    """Click a save button and wait until the server answered 2xx and the round panel
    was redrawn."""
    page.evaluate("document.getElementById('round-panel').dataset.old = 'yes'")
    with page.expect_response(lambda r: "/hands" in r.url) as answer:
        click()
    assert answer.value.status in (200, 201), answer.value.text()
    page.wait_for_function("!document.getElementById('round-panel').dataset.old", timeout=TIMEOUT)


def confirm(page: Any, seat: int, cards: str) -> None:
    box = page.locator(f"#player-{seat}")
    box.locator(".cards-input").fill(cards)
    saved(page, box.locator(".save").click)


def api_game(page: Any, base: str, players: Sequence[str], variant: str = "shanghai") -> int:
    """A new game made through the API (the page's own form is tested elsewhere)."""
    answer = page.request.post(
        f"{base}/api/games", data={"name": "Evening", "variant": variant, "players": list(players)}
    )
    assert answer.status in (200, 201), answer.text()
    return int(answer.json()["id"])


def open_table(page: Any, base: str, game: int) -> None:
    page.goto(f"{base}/#/games/{game}")
    # A change of hash alone keeps the page: wait for this game's panel, not the last.
    page.wait_for_selector(f'#round-panel[data-game="{game}"]', timeout=TIMEOUT)


def wait_for_text(page: Any, selector: str, text: str) -> None:
    """Wait until the element at `selector` holds `text`."""
    page.wait_for_function(
        "([selector, text]) => { const node = document.querySelector(selector);"
        " return node !== null && node.textContent.includes(text); }",
        arg=[selector, text],
        timeout=TIMEOUT,
    )
