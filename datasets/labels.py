"""Labels measured from the pixels: what of each card and index the camera really sees.

The composer paints every card's id into an integer mask as it draws it (later cards
over earlier ones, clutter as -1), so after the last card the mask says which card
owns each pixel. A label is derived from that mask, never from the layout's intent:

- an index is `visible` (labelled, and cut out for the reader) when at least
  `VISIBLE_MIN` of its area shows in the frame (or tile), it is at least
  `INDEX_MIN_SIZE_PX` across and still has contrast after the lighting effects;
- `partial` between `HIDDEN_MAX` and `VISIBLE_MIN`: not labelled, not cropped, and
  recorded so an evaluation can ignore it rather than count it either way;
- `hidden` below `HIDDEN_MAX`; `small`, `blurred` and `washed_out` when too small,
  smeared by more than `BLUR_MAX_SHARE` of its size, or too faint;
- a `card` box is the axis-aligned box of the card's visible pixels, given when at
  least `CARD_VISIBLE_MIN` of the card shows. Face-down cards get no label.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from .layouts import Placement

__all__ = [
    "BLUR_MAX_SHARE",
    "CARD_VISIBLE_MIN",
    "CLASS_NAMES",
    "CONTRAST_MIN",
    "HIDDEN_MAX",
    "INDEX_MIN_SIZE_PX",
    "VISIBLE_MIN",
    "CardLabel",
    "IndexLabel",
    "measure_labels",
    "quad_size",
    "visible_fraction",
    "yolo_lines",
]

VISIBLE_MIN = 0.75
HIDDEN_MAX = 0.25
CARD_VISIBLE_MIN = 0.05
"""Least share of a face-up card that must show for it to get a `card` box. A card
under others in a loose pile may show only an edge: unlabelled, the locator learns to
ignore it, and the scan cannot say "1 card could not be read". At 0.15 (until
2026-11-27) the three hand photos of the scan's validation split (seed 3101, 400
hands) whose missed card went unwarned each held such a card, showing 8-11% of
itself; 34 of the 400 held an unreadable card under 15% (24 of them between 5 and 15%),
and one a card whose index showed but whose outline was not labelled (so its read lay
in no card box). Under 5% is mostly a hairline edge nobody can tell from a shadow."""
INDEX_MIN_SIZE_PX = 7.0
CONTRAST_MIN = 10.0
BLUR_MAX_SHARE = 0.5
CLASS_NAMES: tuple[str, ...] = ("card", "index")
"""Detector classes, in class-id order."""

Quad = npt.NDArray[np.float64]
"""(4, 2) corner points in pixels, in the face's order (tl, tr, br, bl)."""
Mask = npt.NDArray[np.int32]
Window = tuple[int, int, int, int]
"""(x0, y0, x1, y1) of the frame or tile the labels are for, in full-frame pixels."""


@dataclass(frozen=True, slots=True)
class IndexLabel:
    quad: Quad
    visible: float
    state: str
    """`visible`, `partial`, `hidden`, `small`, `blurred` or `washed_out`."""


@dataclass(frozen=True, slots=True)
class CardLabel:
    ident: int
    placement: Placement
    quad: Quad
    visible: float
    box_xyxy: tuple[int, int, int, int] | None
    """Box of the visible pixels (window coordinates), or None if not labelled."""
    indices: tuple[IndexLabel, ...]


def visible_fraction(quad: Quad, mask: Mask, ident: int) -> float:
    """Share of the quad's rasterised area whose mask pixels belong to `ident`.

    The area counts pixels outside `mask` too (a corner cut off by the frame edge is
    not visible), so the quad is rasterised on its own canvas first.
    """
    x0, y0 = np.floor(quad.min(axis=0)).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    if (x1 - x0) * (y1 - y0) > 4 * mask.size + 10_000:
        return 0.0  # a degenerate quad near the horizon: not a readable thing
    canvas = np.zeros((y1 - y0, x1 - x0), np.uint8)
    points = np.round((quad - [x0, y0]) * 16).astype(np.int32)
    cv2.fillPoly(canvas, [points], 1, lineType=cv2.LINE_8, shift=4)
    total = int(canvas.sum())
    if total == 0:
        return 0.0
    h, w = mask.shape
    ix0, iy0, ix1, iy1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if ix1 <= ix0 or iy1 <= iy0:
        return 0.0
    inside = canvas[iy0 - y0 : iy1 - y0, ix0 - x0 : ix1 - x0].astype(bool)
    owned = mask[iy0:iy1, ix0:ix1] == ident
    return float((inside & owned).sum()) / total


def quad_size(quad: Quad) -> float:
    """sqrt of the quad's area: the side of a square of the same area, in pixels."""
    x, y = quad[:, 0], quad[:, 1]
    return float(np.sqrt(abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))) / 2))


def index_contrast(image: npt.NDArray[np.uint8], quad: Quad) -> float:
    """Standard deviation of grey levels inside the quad's box: ink against paper."""
    h, w = image.shape[:2]
    x0, y0 = np.clip(np.floor(quad.min(axis=0)).astype(int), 0, [w, h])
    x1, y1 = np.clip(np.ceil(quad.max(axis=0)).astype(int), 0, [w, h])
    if x1 - x0 < 2 or y1 - y0 < 2:
        return 0.0
    patch = image[y0:y1, x0:x1]
    grey = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY) if patch.ndim == 3 else patch
    return float(grey.std())


def _index_state(visible: float, size: float, contrast: float, blur_px: float) -> str:
    if visible < HIDDEN_MAX:
        return "hidden"
    if visible < VISIBLE_MIN:
        return "partial"
    if size < INDEX_MIN_SIZE_PX:
        return "small"
    if blur_px > BLUR_MAX_SHARE * size:
        return "blurred"
    if contrast < CONTRAST_MIN:
        return "washed_out"
    return "visible"


def measure_labels(
    placements: Sequence[Placement],
    card_quads: Sequence[Quad | None],
    index_quads: Sequence[Sequence[Quad]],
    mask: Mask,
    image: npt.NDArray[np.uint8],
    window: Window | None = None,
    *,
    blur_px: float = 0.0,
) -> list[CardLabel]:
    """Labels of every card for one window of the frame (default: the whole frame).

    Quads are in full-frame pixels; card `i` painted id `i + 1` into `mask`. Returned
    quads and boxes are in window coordinates.
    """
    x0, y0, x1, y1 = window or (0, 0, mask.shape[1], mask.shape[0])
    sub_mask = mask[y0:y1, x0:x1]
    sub_image = image[y0:y1, x0:x1]
    shift = np.array([x0, y0], np.float64)
    labels = []
    for i, (placement, card_quad) in enumerate(zip(placements, card_quads, strict=True)):
        if card_quad is None:
            continue
        ident = i + 1
        quad = card_quad - shift
        visible = visible_fraction(quad, sub_mask, ident)
        if visible <= 0.0:
            continue
        box = None
        if placement.face_up and visible >= CARD_VISIBLE_MIN:
            box = _owned_box(quad, sub_mask, ident)
        indices = []
        if placement.face_up:
            for iq in index_quads[i]:
                q = iq - shift
                v = visible_fraction(q, sub_mask, ident)
                size = quad_size(q)
                contrast = index_contrast(sub_image, q) if v >= VISIBLE_MIN else 0.0
                indices.append(
                    IndexLabel(quad=q, visible=v, state=_index_state(v, size, contrast, blur_px))
                )
        labels.append(
            CardLabel(
                ident=ident,
                placement=placement,
                quad=quad,
                visible=visible,
                box_xyxy=box,
                indices=tuple(indices),
            )
        )
    return labels


def _owned_box(quad: Quad, mask: Mask, ident: int) -> tuple[int, int, int, int] | None:
    h, w = mask.shape
    x0, y0 = np.clip(np.floor(quad.min(axis=0)).astype(int), 0, [w, h])
    x1, y1 = np.clip(np.ceil(quad.max(axis=0)).astype(int) + 1, 0, [w, h])
    ys, xs = np.nonzero(mask[y0:y1, x0:x1] == ident)
    if len(xs) == 0:
        return None
    return (int(x0 + xs.min()), int(y0 + ys.min()), int(x0 + xs.max() + 1), int(y0 + ys.max() + 1))


def index_box(quad: Quad, width: int, height: int) -> tuple[float, float, float, float]:
    """Axis-aligned box of an index quad, clipped to the window."""
    x0, y0 = quad.min(axis=0)
    x1, y1 = quad.max(axis=0)
    return (max(0.0, x0), max(0.0, y0), min(float(width), x1), min(float(height), y1))


def yolo_lines(labels: Sequence[CardLabel], width: int, height: int) -> list[str]:
    """Ultralytics detect lines `class cx cy w h` (normalised) for `card` and `index`."""
    lines = []
    for label in labels:
        boxes: list[tuple[int, tuple[float, float, float, float]]] = []
        if label.box_xyxy is not None:
            boxes.append((0, tuple(float(v) for v in label.box_xyxy)))  # type: ignore[arg-type]
        boxes += [
            (1, index_box(ix.quad, width, height)) for ix in label.indices if ix.state == "visible"
        ]
        for cls, (bx0, by0, bx1, by1) in boxes:
            if bx1 - bx0 < 1 or by1 - by0 < 1:
                continue
            cx, cy = (bx0 + bx1) / 2 / width, (by0 + by1) / 2 / height
            lines.append(
                f"{cls} {cx:.6f} {cy:.6f} {(bx1 - bx0) / width:.6f} {(by1 - by0) / height:.6f}"
            )
    return lines
