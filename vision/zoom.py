"""A second, zoomed locator pass for frames whose cards are small.

The locator is trained on tiles at native scale and finds index corners down to about
16 px well; a photo of the whole table puts indices at 8-14 px, where it finds few of
them (measured on generated dev scenes with the second CPU candidate: 8 of 52 visible
whole-table indices at 1x, 26 at 2x, 19 of those read right). Upscaling the frame
brings those indices into the trained range, but pushes close-up indices out of it (a
2x pass found 48 of 188 close-up indices against 146 at 1x). So the zoomed pass only
runs when the first pass shows small cards, and only its small boxes are kept: each
box is judged at the scale that suits its size.

A zoomed pass costs about zoom**2 times the first one, so it is for still photos
(scan, score, check, the server's scans); `watch` keeps one pass. Zoomed boxes must
also be surer (`min_conf` 0.5) than the first pass's (0.25): taken at 0.25 they
brought card pips and a notepad read as indices. Measured with the third CPU candidate
on 25 generated dev round-end scenes each: cards found 353 -> 488 of 871 and wrong
cards 285 -> 298 (seeds 901), 381 -> 454 of 818 and 247 -> 236 (902); with a floor of
0.25 instead: 555 found but 412 wrong.

The other way round, a close-up (cards over 220 px) shows indices of 60-180 px, above
the trained range: the locator missed 51 of 429 visible close-up indices on generated
dev scenes, median long side 98 px against 45 px for those it found. So a frame of
large cards gets a cheap second pass at half size (a quarter of the cost), of which
only the large boxes are kept: located 378 -> 397 of the 429, with the third CPU
candidate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .arrays import Float32Array
from .detections import Detections

__all__ = ["DETECTOR_IOU", "NEAR_GAIN", "ZoomPass", "shifted", "turned_boxes"]

DETECTOR_IOU = 0.6
"""The locator's own suppression level (IoU, each class apart): within one pass, boxes
of one class overlapping more than this are one object (`pipeline.CardModels.iou`), and
card boxes from two passes are resolved by the same rule (`ZoomPass.merge`)."""

CARD_WITHIN = 0.9
"""A card box lying this much inside a surer one is a part of that card, not a card
(`_suppress`): the locator boxes a card cut by a brush handle in two halves, or the
strip of a card's index column, as well as the whole card."""


@dataclass(frozen=True, slots=True)
class ZoomPass:
    """When to run the zoomed pass and what to keep from it.

    `zoom`: the upscale of the second pass (1 turns it off). `small_card_px`: the pass
    runs when the median card box found has a long side under this, or when no card
    was found at all. From the zoomed pass only card boxes under `small_card_px` and
    index boxes under `small_index_px` (long side, frame pixels) are kept, and only
    those found with at least `min_conf`.
    """

    zoom: float = 2.0
    small_card_px: float = 140.0
    small_index_px: float = 22.0
    overlap: float = 0.5
    min_conf: float = 0.5
    shrink: float = 1.0
    """Scale of the pass for large cards (1: off). It runs when the median card box is
    over `large_card_px`, and keeps card boxes over that and index boxes over
    `large_index_px`."""
    large_card_px: float = 220.0
    large_index_px: float = 50.0
    half_turn: bool = False
    """Locate the frame a second time turned half a turn and keep the boxes of both
    (`merge_turned`): see `turned_boxes`."""
    near: float = 0.0
    """Scale (locator input pixels per frame pixel) of a third pass over the part of a
    frame that holds the boxes found (`near_region`), for frames whose zoomed pass stays
    under it (0: off). The zoomed pass doubles the first pass's input, which is capped at
    the locator's largest input: on a 1280-px frame that is twice the photo's own
    pixels, on an 8-megapixel phone photo 0.78 of them, so a hand photographed from
    across the table there keeps indices of 10-20 px at 8-16 px in both passes. Only the
    cards' part of the frame is looked at again, at most at `pipeline.ZOOM_MAX_SIDE`
    (a photo taking it scanned in about 1.0 s instead of 0.6, docs/vision.md); its boxes
    are kept as the zoomed pass's are (`merge`)."""

    @property
    def enabled(self) -> bool:
        return self.zoom > 1.0

    def wanted(self, first: Detections, scale: float = 1.0) -> bool:
        """Whether the first pass shows cards small enough for a zoomed look. `scale`:
        the first pass's input pixels per frame pixel (under 1 for frames larger than
        the locator's input): sizes are judged as the locator saw them."""
        if not self.enabled:
            return False
        cards = _holding_an_index(first)
        if len(cards) == 0:
            return True
        return bool(np.median(_long_side(cards)) * scale < self.small_card_px)

    def wants_shrink(self, first: Detections, scale: float = 1.0) -> bool:
        """Whether the first pass shows cards large enough for a half-size look."""
        cards = _holding_an_index(first)
        if self.shrink >= 1.0 or len(cards) == 0:
            return False
        return bool(np.median(_long_side(cards)) * scale > self.large_card_px)

    def near_region(
        self, found: Detections, width: int, height: int
    ) -> tuple[int, int, int, int] | None:
        """(x0, y0, x1, y1): the frame part holding every box found, widened each way by
        the median card's long side (a card at the edge of the hand that the first
        passes missed lies within a card of the others); None when nothing was found."""
        if len(found) == 0:
            return None
        cards = found.of_class("card")
        sides = _long_side(cards.xyxy if len(cards) else found.xyxy)
        pad = float(np.median(sides)) * (1.0 if len(cards) else NEAR_INDEX_PAD)
        x0, y0 = (found.xyxy[:, :2].min(axis=0) - pad).clip(0).astype(int).tolist()
        x1, y1 = found.xyxy[:, 2:].max(axis=0) + pad
        right, bottom = min(width, int(np.ceil(x1))), min(height, int(np.ceil(y1)))
        if right - x0 < 2 or bottom - y0 < 2:
            return None
        return x0, y0, right, bottom

    def merge(
        self, first: Detections, zoomed: Detections, scale: float = 1.0, iou: float = DETECTOR_IOU
    ) -> Detections:
        """Both passes' boxes, the zoomed pass's only where they are small, with
        duplicates resolved by confidence (`_suppress`: indices by the smaller box
        covered over `overlap`, cards by `iou`, the locator's own level)."""
        limit = _per_class(zoomed, self.small_card_px, self.small_index_px)
        small = (_long_side(zoomed.xyxy) * scale < limit) & (zoomed.confidence >= self.min_conf)
        return self._joined(first, zoomed, small, iou)

    def merge_large(
        self, first: Detections, shrunk: Detections, scale: float = 1.0, iou: float = DETECTOR_IOU
    ) -> Detections:
        """Both passes' boxes, the shrunk pass's only where they are large."""
        limit = _per_class(shrunk, self.large_card_px, self.large_index_px)
        return self._joined(first, shrunk, _long_side(shrunk.xyxy) * scale > limit, iou)

    def merge_turned(
        self, found: Detections, turned: Detections, iou: float = DETECTOR_IOU
    ) -> Detections:
        """Both looks' boxes (`turned` already mapped back to frame pixels), duplicates
        resolved by confidence as between the zoom passes."""
        return self._joined(found, turned, np.ones(len(turned), dtype=bool), iou)

    def _joined(
        self, first: Detections, other: Detections, take: npt.NDArray[np.bool_], iou: float
    ) -> Detections:
        xyxy = np.concatenate([first.xyxy, other.xyxy[take]])
        confidence = np.concatenate([first.confidence, other.confidence[take]])
        class_id = np.concatenate([first.class_id, other.class_id[take]])
        card = first.names.index("card") if "card" in first.names else None
        keep = _suppress(xyxy, confidence, class_id, self.overlap, card, iou)
        return Detections(xyxy[keep], confidence[keep], class_id[keep], first.names)


NEAR_INDEX_PAD = 6.0
"""With no card box found, the near pass's region is widened by this many index sizes
(a card is about six of its indices tall)."""
NEAR_GAIN = 1.25
"""The near pass runs only when it sees the cards at least this much larger than the
zoomed pass did (`pipeline.CardModels.locate_passes`)."""


def shifted(found: Detections, x0: float, y0: float) -> Detections:
    """Boxes found in a part of a frame, in the whole frame's pixels."""
    offset = np.array([x0, y0, x0, y0], np.float32)
    return Detections(found.xyxy + offset, found.confidence, found.class_id, found.names)


def turned_boxes(found: Detections, width: int, height: int) -> Detections:
    """Boxes found on a frame turned half a turn, in the unturned frame's pixels.

    Why a half-turned look at all: a card is printed the same both ways up, so a
    half-turned photo is as real a photo of the table as the photo itself, yet the
    locator, a small network, finds some indices in one and not in the other."""
    x1, y1, x2, y2 = (found.xyxy[:, k] for k in range(4))
    xyxy = np.stack([width - x2, height - y2, width - x1, height - y1], axis=1)
    return Detections(xyxy, found.confidence, found.class_id, found.names)


def _per_class(found: Detections, card_px: float, index_px: float) -> Float32Array:
    """A size limit for each box by its class (inf for a class the model lacks)."""
    limit = np.full(len(found), np.inf, np.float32)
    for cls, px in (("card", card_px), ("index", index_px)):
        if cls in found.names:
            limit[found.class_id == found.names.index(cls)] = px
    return limit


def _suppress(
    xyxy: Float32Array,
    confidence: Float32Array,
    class_id: npt.NDArray[np.int64],
    overlap: float,
    card: int | None = None,
    iou: float = DETECTOR_IOU,
) -> npt.NDArray[np.int64]:
    """Greedy by confidence: a box goes when a surer box of its class is the same
    object. An index is when that box covers more than `overlap` of the smaller of the
    two: plain IoU lets duplicates through there, the two passes box one small index a
    little differently (a 10 px box shifted by 3 px has IoU 0.5), and two reads of one
    index would count as two cards.

    A card (class `card`) is when their IoU is over `iou`, the locator's own level.
    Cards in a hand or a pile lie over each other, so one card's box covers most of the
    next one's: by the smaller box covered, the second pass of a close-up dropped the
    box of the card under another in a fan of two, which the first pass had found, and
    that card's read stood with no outline, marked "check it" (18 hands read right on
    the real-dev photos with their deck taught, 15 with the shipped models, 2026-12-06,
    fifth session). A card boxed by two passes overlaps itself far more than two cards
    of a fan do (IoU 0.37 for that pair). A box lying inside a surer one
    (`CARD_WITHIN`) is a part of that card all the same: kept, each such part became
    "a card could not be read" on a photo read right."""
    order = np.argsort(-confidence, kind="stable")
    area = (xyxy[:, 2] - xyxy[:, 0]).clip(0) * (xyxy[:, 3] - xyxy[:, 1]).clip(0)
    kept: list[int] = []
    for i in order.tolist():
        if kept:
            k = np.asarray(kept)
            lt = np.maximum(xyxy[k, :2], xyxy[i, :2])
            rb = np.minimum(xyxy[k, 2:], xyxy[i, 2:])
            inter = (rb - lt).clip(0).prod(1)
            if class_id[i] == card:
                same = (inter / (area[k] + area[i] - inter + 1e-9) > iou) | (
                    inter / (np.minimum(area[k], area[i]) + 1e-9) > CARD_WITHIN
                )
            else:
                same = inter / (np.minimum(area[k], area[i]) + 1e-9) > overlap
            if np.any((class_id[k] == class_id[i]) & same):
                continue
        kept.append(i)
    return np.asarray(kept, dtype=np.int64)


def _holding_an_index(found: Detections) -> Float32Array:
    """The card boxes of `found` that are the smallest holding the centre of an index
    box it found (all of them when none holds one): the cards whose size says how large
    the photo's cards are (`ZoomPass.wanted`, `wants_shrink`).

    A box holding no index is seldom a card (the scan drops such outlines,
    `scan._outlines_with_an_index`), and on a taught deck's validation photos its
    locator outlined the waves of a marbled cloth as cards a metre long: by them a hand
    of 11-22 px indices from across the table took the half-size pass, not the zoomed
    one, and lost its indices (docs/decks.md, 2026-12-05). When no card holds an index
    found, every card box counts, as before: close up, the first pass often misses
    indices too large for it, which is what the half-size pass is for."""
    cards = found.of_class("card").xyxy
    indices = found.of_class("index").xyxy
    if not len(cards) or not len(indices):
        return cards
    centres = (indices[:, :2] + indices[:, 2:]) / 2
    x, y = centres[None, :, 0], centres[None, :, 1]
    inside = (
        (x >= cards[:, None, 0])
        & (x <= cards[:, None, 2])
        & (y >= cards[:, None, 1])
        & (y <= cards[:, None, 3])
    )
    if not inside.any():
        return cards
    area = np.prod(cards[:, 2:] - cards[:, :2], axis=1)
    # Each index's smallest holder: a box over the whole hand holds indices too.
    smallest = np.where(inside, area[:, None], np.inf).argmin(axis=0)[inside.any(axis=0)]
    held: Float32Array = cards[np.unique(smallest)]
    return held


def _long_side(xyxy: Float32Array) -> Float32Array:
    out: Float32Array = np.maximum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1])
    return out
