"""The page's live view in Chromium with a fake camera whose video swaps a card (7h, then
Qh, in the first place; the file loops, so back and forth). The stand-in scanner names
each place's card by its face in the frame it is sent, so the labels must follow the
swap; each label sampled on the page is checked against the picture drawn under it (the
label belongs to its own frame). Then the camera stops."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from page_kit import TIMEOUT, new_game

from fake_camera import CARD_SLOTS, card_frames
from shanghai.engine.cards import Card
from shanghai.vision.arrays import Frame
from shanghai.vision.snapshot import SeenCard, TableSnapshot

pytestmark = pytest.mark.e2e

FACES = ["7h", "Qh", "Kc"]
INSET = (12, 30)
"""Pixels left out of a place's box (x, y) when comparing faces: the box's edges and the
label drawn above it."""


def face_templates(slot: int) -> dict[str, Frame]:
    """Each face as the fake camera draws it in place `slot` (its first frame)."""
    x0, y0, x1, y1 = CARD_SLOTS[slot]
    dx, dy = INSET
    return {
        face: card_frames([face] * (slot + 1), 1)[0][y0 + dy : y1 - dy, x0 + dx : x1 - dx]
        for face in FACES
    }


def nearest_face(patch: Frame, templates: dict[str, Frame]) -> str:
    def distance(template: Frame) -> float:
        resized = cv2.resize(patch, (template.shape[1], template.shape[0]))
        return float(np.abs(resized.astype(np.float32) - template.astype(np.float32)).mean())

    return min(templates, key=lambda face: distance(templates[face]))


class FaceScanner:
    """Stands in for recognition: the card in each of the first two places of the fake
    camera's frame is the face it looks most like."""

    def __init__(self) -> None:
        self.templates = [face_templates(slot) for slot in range(2)]

    @property
    def name(self) -> str:
        return "faces (e2e)"

    def scan(self, image: Frame, **_: object) -> TableSnapshot:
        height, width = image.shape[:2]
        scale = width / 640
        cards = []
        for slot, templates in enumerate(self.templates):
            x0, y0, x1, y1 = (v * scale for v in CARD_SLOTS[slot])
            dx, dy = INSET[0] * scale, INSET[1] * scale
            patch = image[int(y0 + dy) : int(y1 - dy), int(x0 + dx) : int(x1 - dx)]
            face = nearest_face(patch, templates)
            cards.append(SeenCard(Card.parse(face), 0.95, (x0, y0, x1, y1)))
        return TableSnapshot(width, height, tuple(cards), ())


SAMPLE = """() => {
  const canvas = document.getElementById('live-overlay');
  if (!canvas.dataset.labels || !canvas.width) return null;
  const scale = canvas.width / 640;
  const [x0, y0, x1, y1] = [40, 140, 150, 294].map((v) => Math.round(v * scale));
  const [dx, dy] = [12, 30].map((v) => Math.round(v * scale));
  const data = canvas.getContext('2d').getImageData(x0 + dx, y0 + dy, x1 - x0 - 2 * dx,
                                                    y1 - y0 - 2 * dy);
  return { frame: Number(canvas.dataset.frame), labels: JSON.parse(canvas.dataset.labels),
           scale,
           width: data.width, height: data.height, rgba: Array.from(data.data) };
}"""


def test_a_swapped_cards_label_follows_on_its_own_frame(
    live_server: Callable[..., Any], browser_for: Callable[..., Any], screenshots: Path
) -> None:
    assert list(CARD_SLOTS[0]) == [40, 140, 150, 294]  # SAMPLE's place
    server = live_server(FaceScanner())
    page = browser_for(["7h", "Kc"], then=["Qh", "Kc"]).new_page(
        viewport={"width": 1100, "height": 900}
    )
    new_game(page, server.url)
    page.click("#start-camera")
    page.wait_for_function(
        "Boolean(document.getElementById('live-overlay').dataset.frame)", timeout=TIMEOUT
    )
    assert page.locator("#start-camera").inner_text() == "Stop camera"
    assert page.locator("#camera-picker").is_hidden()  # one (fake) camera: nothing to pick
    templates = face_templates(0)
    labelled: list[str] = []
    frames: set[int] = set()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        sample = page.evaluate(SAMPLE)
        if sample is not None and sample["labels"]:
            frames.add(sample["frame"])
            rgba = np.array(sample["rgba"], np.uint8).reshape(sample["height"], sample["width"], 4)
            shown = nearest_face(cv2.cvtColor(rgba, cv2.COLOR_RGBA2BGR), templates)
            first = [
                label["card"]
                for label in sample["labels"]
                if (label["xyxy"][0] + label["xyxy"][2]) / 2 < CARD_SLOTS[0][2] * sample["scale"]
            ]
            assert first == [shown], f"frame {sample['frame']}: label {first} on a {shown}"
            if not labelled or labelled[-1] != shown:
                labelled.append(shown)
        if len(labelled) >= 3:  # 7h -> Qh -> 7h, or the other way round
            break
        time.sleep(0.1)
    page.screenshot(path=str(screenshots / "live-swap.png"))
    assert len(labelled) >= 3, f"the label did not follow the swap: {labelled}"
    assert {"7h", "Qh"} <= set(labelled)
    assert len(frames) >= 3

    page.click("#start-camera")  # stop
    page.wait_for_function("document.getElementById('live-frame').hidden", timeout=TIMEOUT)
    assert page.locator("#start-camera").inner_text() == "Start camera"
    assert page.locator("#live-status").inner_text() == "This device's camera is off."
    assert page.evaluate("document.getElementById('live-video').srcObject") is None
