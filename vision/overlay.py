"""Drawing a `TableSnapshot` over its frame: boxes, card names, meld outlines.

Each card gets its box and name (orange when the shoe cannot hold that many copies);
each meld an outline around its cards, green when the engine finds it legal, red with
the first reason when not (grey when no variant is known); each hand an outline in
blue with its points.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import cv2
import numpy as np

from .arrays import Frame
from .snapshot import TableSnapshot

__all__ = ["SnapshotOverlay"]

GREEN = (60, 190, 60)
RED = (40, 40, 220)
GREY = (160, 160, 160)
BLUE = (220, 140, 40)
ORANGE = (0, 140, 255)
CARD = (255, 255, 255)


def _outline(
    image: Frame,
    boxes: list[tuple[float, float, float, float]],
    colour: tuple[int, int, int],
    width: int,
) -> tuple[int, int]:
    pts = np.asarray(
        [(x, y) for x1, y1, x2, y2 in boxes for x, y in ((x1, y1), (x2, y1), (x2, y2), (x1, y2))],
        dtype=np.float32,
    )
    hull = cv2.convexHull(pts).astype(np.int32)
    cv2.polylines(image, [hull], True, colour, width, cv2.LINE_AA)
    top = hull[:, 0, :][int(np.argmin(hull[:, 0, 1]))]
    return int(top[0]), int(top[1])


def _label(
    image: Frame, text: str, at: tuple[int, int], colour: tuple[int, int, int], scale: float
) -> None:
    x, y = at
    (w, h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
    y = max(h + base, y)
    cv2.rectangle(image, (x, y - h - base), (x + w, y), colour, -1)
    cv2.putText(
        image, text, (x, y - base), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 1, cv2.LINE_AA
    )


@dataclass(frozen=True)
class SnapshotOverlay:
    """`annotate(frame, snapshot)` returns a copy of the frame with the overlay."""

    text_scale: float | None = None

    def annotate(self, frame: Frame, snapshot: TableSnapshot) -> Frame:
        image = frame.copy()
        scale = self.text_scale or max(0.4, min(image.shape[:2]) / 1400)
        width = max(1, round(scale * 2))
        for seen in snapshot.cards:
            x1, y1, x2, y2 = (round(v) for v in seen.xyxy)
            colour = ORANGE if seen.excess else CARD
            cv2.rectangle(image, (x1, y1), (x2, y2), colour, 1, cv2.LINE_AA)
            _label(image, f"{seen.card} {seen.confidence:.2f}", (x1, y1), colour, scale * 0.8)
        for seat in snapshot.seats:
            verdicts = snapshot.meld_verdicts(seat) if snapshot.rules is not None else []
            for k, meld in enumerate(seat.melds):
                boxes = [snapshot.cards[i].xyxy for i in meld]
                if verdicts:
                    verdict = verdicts[k]
                    colour = GREEN if verdict.valid else RED
                    text = "legal" if verdict.valid else verdict.reasons[0]
                else:
                    colour, text = GREY, "meld"
                at = _outline(image, boxes, colour, width * 2)
                _label(image, f"seat {seat.seat}: {text}", at, colour, scale)
            if seat.hand:
                boxes = [snapshot.cards[i].xyxy for i in seat.hand]
                at = _outline(image, boxes, BLUE, width * 2)
                text = f"seat {seat.seat} hand"
                if snapshot.rules is not None:
                    with contextlib.suppress(ValueError):
                        text += f": {snapshot.hand_score(seat).points} points"
                _label(image, text, at, BLUE, scale)
        return image
