"""Drawing a `TableSnapshot` over its frame: the one overlay of the CLI and the server.

Each card gets its box and name with its confidence: orange with a `?` when the read is
unsure or a copy beyond the shoe (what a person must check), else the colour of its
meld's verdict (green legal, red not, when the variant is known) or white. Each card
outline or corner seen but not read gets an orange `? not read` box. With `outlines`,
each meld also gets an outline with its verdict (the first reason when illegal) and
each hand an outline with its points, as `shanghai scan --annotate` and `watch --show`
draw. A caller with verdicts of its own (a dispute's lay-down judged at lay-down
limits) passes the card colours.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from .arrays import Box, Frame
from .snapshot import TableSnapshot

__all__ = ["BLUE", "GREEN", "GREY", "ORANGE", "RED", "Colour", "SnapshotOverlay"]

Colour = tuple[int, int, int]
"""BGR."""
GREEN: Colour = (60, 180, 60)
RED: Colour = (40, 40, 220)
GREY: Colour = (150, 150, 150)
BLUE: Colour = (220, 140, 40)
ORANGE: Colour = (0, 140, 255)
"""Unsure reads, copies beyond the shoe and cards seen but not read: to check."""
WHITE: Colour = (255, 255, 255)


@dataclass(frozen=True)
class SnapshotOverlay:
    """`annotate(frame, snapshot)` returns a copy of the frame with the overlay, shrunk
    to at most `max_side` pixels when given (an evidence image need not be 12 MP)."""

    outlines: bool = True
    max_side: int | None = None

    def annotate(
        self, frame: Frame, snapshot: TableSnapshot, colours: Sequence[Colour] | None = None
    ) -> Frame:
        """`colours`: one per card of the snapshot, instead of its meld's verdict."""
        height, width = frame.shape[:2]
        scale = 1.0 if self.max_side is None else min(1.0, self.max_side / max(height, width))
        image: Frame = frame.copy()
        if scale < 1.0:
            size = (max(1, round(width * scale)), max(1, round(height * scale)))
            image = np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), np.uint8)
        text = max(0.45, max(image.shape[:2]) / 1500)
        thickness = max(1, round(max(image.shape[:2]) / 500))
        fill = list(colours) if colours is not None else self._verdict_colours(snapshot)
        for card, colour in zip(snapshot.cards, fill, strict=True):
            check = not card.sure or card.excess
            label = f"{card.card} {card.confidence:.2f}" + (" ?" if check else "")
            _box(
                image,
                _scaled(card.xyxy, scale),
                ORANGE if check else colour,
                label,
                text,
                thickness,
            )
        for box in snapshot.unread:
            _box(image, _scaled(box, scale), ORANGE, "? not read", text, thickness)
        if self.outlines:
            self._outlines(image, snapshot, scale, text, thickness)
        return image

    @staticmethod
    def _verdict_colours(snapshot: TableSnapshot) -> list[Colour]:
        colours = [WHITE] * len(snapshot.cards)
        if snapshot.rules is None:
            return colours
        for seat in snapshot.seats:
            for meld, verdict in zip(seat.melds, snapshot.meld_verdicts(seat), strict=True):
                for i in meld:
                    colours[i] = GREEN if verdict.valid else RED
        return colours

    @staticmethod
    def _outlines(
        image: Frame, snapshot: TableSnapshot, scale: float, text: float, thickness: int
    ) -> None:
        for seat in snapshot.seats:
            verdicts = snapshot.meld_verdicts(seat) if snapshot.rules is not None else []
            for k, meld in enumerate(seat.melds):
                boxes = [_scaled(snapshot.cards[i].xyxy, scale) for i in meld]
                if verdicts:
                    colour = GREEN if verdicts[k].valid else RED
                    what = "legal" if verdicts[k].valid else verdicts[k].reasons[0]
                else:
                    colour, what = GREY, "meld"
                at = _outline(image, boxes, colour, thickness * 2)
                _label(image, f"seat {seat.seat}: {what}", at, colour, text)
            if seat.hand:
                boxes = [_scaled(snapshot.cards[i].xyxy, scale) for i in seat.hand]
                at = _outline(image, boxes, BLUE, thickness * 2)
                what = f"seat {seat.seat} hand"
                if snapshot.rules is not None:
                    with contextlib.suppress(ValueError):
                        what += f": {snapshot.hand_score(seat).points} points"
                _label(image, what, at, BLUE, text)


def _scaled(box: Sequence[float], scale: float) -> Box:
    x1, y1, x2, y2 = (float(v) * scale for v in box)
    return (x1, y1, x2, y2)


def _box(image: Frame, box: Box, colour: Colour, label: str, text: float, thickness: int) -> None:
    x1, y1, x2, y2 = (round(v) for v in box)
    cv2.rectangle(image, (x1, y1), (x2, y2), colour, thickness)
    _label(image, label, (x1, y1), colour, text * 0.8)


def _outline(image: Frame, boxes: list[Box], colour: Colour, width: int) -> tuple[int, int]:
    pts = np.asarray(
        [(x, y) for x1, y1, x2, y2 in boxes for x, y in ((x1, y1), (x2, y1), (x2, y2), (x1, y2))],
        dtype=np.float32,
    )
    hull = cv2.convexHull(pts).astype(np.int32)
    cv2.polylines(image, [hull], True, colour, width, cv2.LINE_AA)
    top = hull[:, 0, :][int(np.argmin(hull[:, 0, 1]))]
    return int(top[0]), int(top[1])


def _label(image: Frame, text: str, at: tuple[int, int], colour: Colour, scale: float) -> None:
    """`text` on a filled box of `colour` above `at`, dark on light colours."""
    x, y = at
    (w, h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
    y = max(h + base + 2, y)
    cv2.rectangle(image, (x, y - h - base - 2), (x + w + 4, y), colour, -1)
    ink = (0, 0, 0) if sum(colour) > 400 else (255, 255, 255)
    cv2.putText(
        image, text, (x + 2, y - base), cv2.FONT_HERSHEY_SIMPLEX, scale, ink, 1, cv2.LINE_AA
    )
