"""A tiny table for the card-logic and scan tests: cards placed by hand, boxes measured.

`MiniTable` places cards (later ones on top) as rotated rectangles, paints their ids
into a mask and measures what a perfect detector would report: each face-up card's box
of visible pixels (when at least 15% shows) and each corner index whose quad is at
least 75% visible. No renderer, no model: the answers are known by construction.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from shanghai.engine.variants import Rules
from shanghai.vision.pipeline import FrameReads, Passes
from shanghai.vision.readings import IndexReadings
from shanghai.vision.regions import within

CARD_W, CARD_H = 63.0, 88.0
INDEX_CENTRE = (6.5, 13.0)  # from the top-left corner, card units
INDEX_SIZE = (9.0, 20.0)


@dataclass
class MiniTable:
    width: int = 1200
    height: int = 900
    scale: float = 1.5
    """Pixels per card unit (a card is 63 x 88 units)."""
    four_index: bool = False
    """Cards print their index in all four corners (some bridge decks), not two."""
    index_in: float = 0.0
    """How much further in than usual the deck prints its indices: the share of the way
    from the usual place to the card's centre (0: where most decks print them)."""
    whole_outlines: bool = False
    """Each card's box is its whole outline, the covered part included, as the locator
    often boxes the cards of a spread row (False: the visible pixels alone)."""
    placed: list[tuple[str, float, float, float, bool]] = field(default_factory=list)
    unreadable: set[int] = field(default_factory=set)
    """Positions in `placed` of cards whose outline is found and one corner located, but
    none read (blurred, covered): a scan drops an outline with no corner at all."""
    unread_corners: list[tuple[int, list[float], str]] = field(default_factory=list)
    """After `measure`: (card number from 1, box, card) of each unreadable card's first
    corner in view."""

    def card(
        self,
        name: str,
        x: float,
        y: float,
        angle: float = 0.0,
        *,
        face_up: bool = True,
        readable: bool = True,
    ) -> None:
        """A card centred at (x, y) pixels, turned `angle` degrees; later cards lie on top.
        `readable` False: its outline shows and a corner is located, but no index is
        read (blurred, covered)."""
        if not readable:
            self.unreadable.add(len(self.placed))
        self.placed.append((name, x, y, angle, face_up))

    def row(self, names: list[str], x: float, y: float, step: float, angle: float = 0.0) -> None:
        """Cards left to right (in the card's own frame), each `step` units past the last
        and lying on it, so each one's top-left index shows."""
        a = math.radians(angle)
        for k, name in enumerate(names):
            off = (k - (len(names) - 1) / 2) * step * self.scale
            self.card(name, x + off * math.cos(a), y + off * math.sin(a), angle)

    def fan(self, names: list[str], x: float, y: float, spread: float, angle: float = 0.0) -> None:
        """A hand fanned around a pivot below the cards (in their own frame), the
        middle card centred at (x, y)."""
        reach = 120.0 * self.scale
        a = math.radians(angle)
        pivot_x, pivot_y = x - reach * math.sin(a), y + reach * math.cos(a)
        for k, name in enumerate(names):
            t = -spread / 2 + spread * k / max(1, len(names) - 1)
            r = math.radians(t + angle)
            self.card(name, pivot_x + reach * math.sin(r), pivot_y - reach * math.cos(r), t + angle)

    def unread(self) -> tuple[np.ndarray, tuple[str, ...]]:  # type: ignore[type-arg]
        """(K, 4) corners located but not read after `measure`, and the reader's best
        guess for each (the card itself: a blurred index still looks most like it)."""
        boxes = np.asarray([box for _, box, _ in self.unread_corners], np.float32)
        return boxes.reshape(-1, 4), tuple(name for _, _, name in self.unread_corners)

    def _quad(self, x: float, y: float, angle: float, local: np.ndarray) -> np.ndarray:
        a = math.radians(angle)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return (local - [CARD_W / 2, CARD_H / 2]) * self.scale @ rot.T + [x, y]

    def measure(self) -> tuple[IndexReadings, np.ndarray]:
        mask = np.zeros((self.height, self.width), np.int32)
        corners = np.array([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]], np.float64)
        quads = []
        for ident, (_, x, y, angle, _) in enumerate(self.placed, start=1):
            quad = self._quad(x, y, angle, corners)
            quads.append(quad)
            cv2.fillPoly(mask, [np.round(quad).astype(np.int32)], ident)
        boxes, names, index_boxes = [], [], []
        self.unread_corners = []
        for ident, (name, x, y, angle, face_up) in enumerate(self.placed, start=1):
            if not face_up:
                continue
            full = np.zeros_like(mask, np.uint8)
            cv2.fillPoly(full, [np.round(quads[ident - 1]).astype(np.int32)], 1)
            own = mask == ident
            if own.sum() >= 0.15 * full.sum():
                ys, xs = np.nonzero(full if self.whole_outlines else own)
                boxes.append([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1])
            cx, cy = INDEX_CENTRE
            w, h = INDEX_SIZE
            cx += self.index_in * (CARD_W / 2 - cx)
            cy += self.index_in * (CARD_H / 2 - cy)
            centres = [(cx, cy), (CARD_W - cx, CARD_H - cy)]
            if self.four_index:
                centres += [(CARD_W - cx, cy), (cx, CARD_H - cy)]
            for centre in centres:
                local = np.array(
                    [
                        [centre[0] - w / 2, centre[1] - h / 2],
                        [centre[0] + w / 2, centre[1] - h / 2],
                        [centre[0] + w / 2, centre[1] + h / 2],
                        [centre[0] - w / 2, centre[1] + h / 2],
                    ]
                )
                iq = self._quad(x, y, angle, local)
                area = np.zeros_like(mask, np.uint8)
                cv2.fillPoly(area, [np.round(iq).astype(np.int32)], 1)
                if area.sum() and (own & (area > 0)).sum() >= 0.75 * area.sum():
                    box = [*iq.min(axis=0), *iq.max(axis=0)]
                    if ident - 1 not in self.unreadable:
                        index_boxes.append(box)
                        names.append(name)
                    elif not any(owner == ident for owner, _, _ in self.unread_corners):
                        self.unread_corners.append((ident, box, name))
        readings = IndexReadings(
            np.asarray(index_boxes, np.float32).reshape(-1, 4),
            tuple(names),
            np.full(len(names), 0.9, np.float32),
        )
        return readings, np.asarray(boxes, np.float32).reshape(-1, 4)


class TableReader:
    """Stands in for the models (`vision.scan.FrameReader`): every frame shows `table`,
    read perfectly (confidence `confidence` for every index), so a scan runs the whole
    scan contract after the models on answers known by construction. Reads below
    `sure_read` are marked unsure, as the shipped models' `models.toml` says for them."""

    sure_read = 0.7
    sure_name: float | None = None
    min_read = 0.0
    named_read: float | None = None
    taught = False
    corner_span: float | None = None
    own_cards: frozenset[str] = frozenset()

    def __init__(self, table: MiniTable, confidence: float = 0.9) -> None:
        self.table = table
        self.confidence = confidence

    @property
    def name(self) -> str:
        return "mini table"

    def read_frame(
        self,
        frame: np.ndarray,  # type: ignore[type-arg]
        rules: Rules | None = None,
        region: tuple[int, int, int, int] | None = None,
        like: Passes | None = None,
    ) -> FrameReads:
        readings, boxes = self.table.measure()
        readings = IndexReadings(
            readings.xyxy, readings.names, np.full(len(readings), self.confidence, np.float32)
        )
        reads = self.reads(FrameReads(readings, boxes, *self.table.unread()))
        return reads if region is None else within(reads, region)

    def reads(self, found: FrameReads) -> FrameReads:
        """What the stand-in reports for the table read perfectly: that, here; a stand-in
        for models that err or doubt changes it."""
        return found


class WithUnread(TableReader):
    """The table read perfectly, plus indices located but not read (boxes and the
    reader's best guess for each), as the models report a corner too small or covered
    to read, and card outlines with nothing located in them (`outlines`: a box, a place
    mat, what the locator took for cards on real photos)."""

    def __init__(
        self,
        table: MiniTable,
        unread: Sequence[tuple[tuple[float, ...], str]],
        outlines: Sequence[tuple[float, ...]] = (),
    ) -> None:
        super().__init__(table)
        self.unread = unread
        self.outlines = outlines

    def reads(self, found: FrameReads) -> FrameReads:
        boxes = np.asarray([box for box, _ in self.unread], np.float32).reshape(-1, 4)
        outlines = np.asarray(self.outlines, np.float32).reshape(-1, 4)
        return FrameReads(
            found.readings,
            np.concatenate([found.card_xyxy, outlines]),
            np.concatenate([found.unread_xyxy, boxes]),
            found.unread_best + tuple(g for _, g in self.unread),
        )
