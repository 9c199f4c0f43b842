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
(scan, score, check); live video keeps one pass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .detections import Detections
from .onnx_models import nms

__all__ = ["ZoomPass"]

FloatArray = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class ZoomPass:
    """When to run the zoomed pass and what to keep from it.

    `zoom`: the upscale of the second pass (1 turns it off). `small_card_px`: the pass
    runs when the median card box found has a long side under this, or when no card
    was found at all. From the zoomed pass only card boxes under `small_card_px` and
    index boxes under `small_index_px` (long side, frame pixels) are kept.
    """

    zoom: float = 2.0
    small_card_px: float = 140.0
    small_index_px: float = 22.0
    nms_iou: float = 0.5

    @property
    def enabled(self) -> bool:
        return self.zoom > 1.0

    def wanted(self, first: Detections) -> bool:
        """Whether the first pass shows cards small enough for a zoomed look."""
        if not self.enabled:
            return False
        cards = first.of_class("card")
        if len(cards) == 0:
            return True
        return bool(np.median(_long_side(cards.xyxy)) < self.small_card_px)

    def merge(self, first: Detections, zoomed: Detections) -> Detections:
        """Both passes' boxes, the zoomed pass's only where they are small, with
        duplicates (same class, IoU above `nms_iou`) resolved by confidence."""
        limit = np.full(len(zoomed), np.inf, np.float32)
        for cls, px in (("card", self.small_card_px), ("index", self.small_index_px)):
            if cls in zoomed.names:
                limit[zoomed.class_id == zoomed.names.index(cls)] = px
        small = _long_side(zoomed.xyxy) < limit
        xyxy = np.concatenate([first.xyxy, zoomed.xyxy[small]])
        confidence = np.concatenate([first.confidence, zoomed.confidence[small]])
        class_id = np.concatenate([first.class_id, zoomed.class_id[small]])
        # one NMS per class: offset each class's boxes far apart
        offset = (class_id[:, None] * (xyxy.max(initial=0.0) + 1.0)).astype(np.float32)
        keep = nms(xyxy + offset, confidence, self.nms_iou)
        return Detections(xyxy[keep], confidence[keep], class_id[keep], first.names)


def _long_side(xyxy: FloatArray) -> FloatArray:
    out: FloatArray = np.maximum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1])
    return out
