"""The fake camera of the browser tests: a generated video of real-looking cards.

Chromium plays a Y4M file as its camera (`--use-file-for-fake-video-capture`). The
cards are faces drawn by the data generator, not text, so the app's own recognition
can be tested on the same video as the stand-in scanner.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from shanghai.datasets.decks import code_looks, face_of
from shanghai.engine.cards import Card
from shanghai.vision.arrays import Frame

__all__ = ["CARD_SLOTS", "card_frames", "card_video"]

CARD_SLOTS = [(40 + slot * 140, 140, 150 + slot * 140, 294) for slot in range(4)]
"""Where `card_frames` lays each card (x0, y0, x1, y1 in its 640x480 frames)."""
WIDTH, HEIGHT = 640, 480


def card_frames(cards: list[str], frames: int = 20) -> list[Frame]:
    """640x480 BGR frames of rendered card faces on green felt.

    The faces come from the data generator's first code-drawn deck, so a real model
    sees real-looking corner indices; the cards sit in `CARD_SLOTS` and jitter by a
    pixel or two from frame to frame like a hand-held phone.
    """
    look = code_looks()[0]
    faces = [face_of(look, Card.parse(card)).rgba for card in cards]
    out = []
    for index in range(frames):
        image = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
        image[:] = (50, 110, 45)
        for (x0, y0, x1, y1), face in zip(CARD_SLOTS, faces, strict=False):
            x0, x1 = x0 + index % 3, x1 + index % 3
            rgba = cv2.resize(face, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
            alpha = rgba[..., 3:].astype(np.float32) / 255
            bgr = cv2.cvtColor(rgba[..., :3], cv2.COLOR_RGB2BGR).astype(np.float32)
            region = image[y0:y1, x0:x1].astype(np.float32)
            image[y0:y1, x0:x1] = (bgr * alpha + region * (1 - alpha)).astype(np.uint8)
        out.append(image)
    return out


def card_video(
    path: Path, cards: list[str], frames: int = 20, then: list[str] | None = None
) -> Path:
    """`card_frames` as a Y4M video (Chromium's fake-camera format, 10 frames a second);
    with `then`, as many frames of those cards follow (a card swapped: Chromium loops the
    file, so the swap goes back and forth)."""
    images = card_frames(cards, frames) + (card_frames(then, frames) if then else [])
    with path.open("wb") as out:
        out.write(f"YUV4MPEG2 W{WIDTH} H{HEIGHT} F10:1 Ip A1:1 C420jpeg\n".encode())
        for image in images:
            out.write(b"FRAME\n")
            out.write(cv2.cvtColor(image, cv2.COLOR_BGR2YUV_I420).tobytes())
    return path
