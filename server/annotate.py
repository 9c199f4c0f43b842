"""Overlays drawn on scanned images: each card's box and name, coloured by verdict."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

from shanghai.vision.snapshot import SeenCard

__all__ = ["GREEN", "GREY", "ORANGE", "RED", "draw_cards", "encode_jpeg"]

Colour = tuple[int, int, int]
GREEN: Colour = (60, 180, 60)
RED: Colour = (40, 40, 220)
GREY: Colour = (140, 140, 140)
ORANGE: Colour = (0, 140, 255)
"""Unsure reads and card outlines left unread: what the person must check."""
MAX_SIDE = 1600


def draw_cards(
    image_bgr: npt.NDArray[np.uint8],
    cards: Sequence[SeenCard],
    colours: Sequence[Colour] | None = None,
    labels: Sequence[str] | None = None,
    unread: Sequence[tuple[float, float, float, float]] = (),
) -> npt.NDArray[np.uint8]:
    """A copy of the image (shrunk to at most MAX_SIDE pixels) with every card boxed;
    an unsure read orange with a '?', and each card outline left unread orange, '?'."""
    height, width = image_bgr.shape[:2]
    scale = min(1.0, MAX_SIDE / max(height, width))
    canvas: npt.NDArray[np.uint8] = image_bgr.copy()
    if scale < 1.0:
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        canvas = np.asarray(cv2.resize(canvas, size, interpolation=cv2.INTER_AREA), np.uint8)
    thickness = max(2, round(max(canvas.shape[:2]) / 400))
    font_scale = max(0.5, max(canvas.shape[:2]) / 1400)
    boxes = [(c.xyxy, c.sure) for c in cards] + [(box, False) for box in unread]
    for index, (xyxy, sure) in enumerate(boxes):
        colour = colours[index] if colours and index < len(cards) else GREY
        if not sure:
            colour = ORANGE
        x1, y1, x2, y2 = (round(v * scale) for v in xyxy)
        cv2.rectangle(canvas, (x1, y1), (x2, y2), colour, thickness)
        if index >= len(cards):
            text = "? not read"
        else:
            card = cards[index]
            text = labels[index] if labels else f"{card.card} {card.confidence:.2f}"
            text += "" if sure else " ?"
        (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font_scale, 1)
        top = max(0, y1 - th - base - 4)
        cv2.rectangle(canvas, (x1, top), (x1 + tw + 6, top + th + base + 4), colour, -1)
        cv2.putText(
            canvas,
            text,
            (x1 + 3, top + th + 2),
            cv2.FONT_HERSHEY_SIMPLEX,
            font_scale,
            (255, 255, 255),
            1,
            cv2.LINE_AA,
        )
    return canvas


def encode_jpeg(image_bgr: npt.NDArray[np.uint8], quality: int = 85) -> bytes:
    ok, buffer = cv2.imencode(".jpg", image_bgr, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return bytes(buffer.tobytes())
