"""Reading again only the part of a live frame that changed.

A settled live frame used to be located in full, at twice its size for small cards: over
a second on this 2-core CPU for a 1280x720 table, for a change of one card. The change
gate already knows where the picture differs from the last frame read (its changed
cells), so a settled read can locate only there and keep the last reads elsewhere:

- `changed_region`: the changed cells' bounding box in frame pixels, grown by a card's
  height each way (a card touching the change is then whole inside the region), or None
  when the change covers too much of the frame for a part to be worth it;
- `reread`: locate in that region only, with the passes and scale the last full read
  of the frame took (`pipeline.Passes`: judged alone, a part holding only small cards
  took a zoomed pass the whole frame did not, and its reads differed from a still
  scan's), read its indices, and put them in place of the last reads whose centres lie
  in the changed part grown by half a card; every read outside it is kept as it was.

`Reread` is the memory a live view carries between its settled reads (one per view: a
scanner is shared between views and threads, so it holds none). The reconstruction
then runs on the whole table's reads, so seats and melds are judged as in a full read.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from shanghai.engine.variants import Rules

from .arrays import BoolArray, Float32Array, Frame
from .pipeline import FrameReader, FrameReads

__all__ = ["MAX_SHARE", "Reread", "changed_region", "reread", "within"]

MAX_SHARE = 0.5
"""Largest share of the frame a region may cover; beyond it the frame is read in full
(a part that large costs nearly as much, and a whole new table is read afresh)."""
MIN_CARD_PX = 48.0
"""Least card height assumed when growing a region (no card read yet, or only tiny)."""
Region = tuple[int, int, int, int]


@dataclass
class Reread:
    """A live view's reads between settled frames (see the module doc). The live table
    sets `changed` (the gate's cells) before each read; the scanner reads and stores."""

    reads: FrameReads | None = None
    shape: tuple[int, int] | None = None
    """(height, width) of the frame `reads` belong to."""
    changed: BoolArray | None = None
    regional: int = 0
    """Reads made on a region so far (the rest were full)."""
    full: int = 0
    region: tuple[Region, Region] | None = None
    """The last read's (located, replaced) regions (None: it was read in full)."""

    def forget(self) -> None:
        self.reads = self.shape = self.changed = self.region = None


def _card_height(reads: FrameReads) -> float:
    """The tallest card box read (a region grown by it holds any card it touches)."""
    boxes = reads.card_xyxy
    if len(boxes) == 0:
        return MIN_CARD_PX
    sides = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    return max(MIN_CARD_PX, float(sides.max()))


def changed_region(
    cells: BoolArray, shape: tuple[int, int], grow: float, max_share: float = MAX_SHARE
) -> tuple[Region, Region] | None:
    """(region to locate in, inner part whose reads are replaced), both (x0, y0, x1, y1)
    frame pixels, for the gate's changed `cells` on a frame of `shape` (height, width);
    None when nothing changed or the region would cover more than `max_share` of it."""
    if not cells.any():
        return None
    height, width = shape
    rows, cols = cells.shape
    ys, xs = np.nonzero(cells)
    cell_h, cell_w = height / rows, width / cols
    changed = (
        xs.min() * cell_w,
        ys.min() * cell_h,
        (xs.max() + 1) * cell_w,
        (ys.max() + 1) * cell_h,
    )

    def grown(by: float) -> Region:
        return (
            max(0, int(changed[0] - by)),
            max(0, int(changed[1] - by)),
            min(width, int(np.ceil(changed[2] + by))),
            min(height, int(np.ceil(changed[3] + by))),
        )

    outer = grown(grow)
    if (outer[2] - outer[0]) * (outer[3] - outer[1]) > max_share * width * height:
        return None
    return outer, grown(grow / 2)


def _inside(xyxy: Float32Array, region: Region) -> BoolArray:
    """Which boxes have their centre in `region`."""
    if len(xyxy) == 0:
        return np.zeros(0, np.bool_)
    cx, cy = (xyxy[:, 0] + xyxy[:, 2]) / 2, (xyxy[:, 1] + xyxy[:, 3]) / 2
    x0, y0, x1, y1 = region
    return np.asarray((cx >= x0) & (cx < x1) & (cy >= y0) & (cy < y1), dtype=np.bool_)


def _part(reads: FrameReads, region: Region, inside: bool = True) -> FrameReads:
    """The reads whose boxes have their centre in `region` (or, `inside` False, not)."""
    names = _inside(reads.readings.xyxy, region) == inside
    cards = _inside(reads.card_xyxy, region) == inside
    unread = _inside(reads.unread_xyxy, region) == inside
    return FrameReads(
        reads.readings.take(names),
        reads.card_xyxy[cards],
        reads.unread_xyxy[unread],
        tuple(b for b, k in zip(reads.unread_best, unread, strict=True) if k),
        reads.passes,
        None if reads.unread is None else reads.unread.take(unread),
        reads.shake,
    )


def within(reads: FrameReads, region: Region) -> FrameReads:
    """The reads whose boxes have their centre in `region` (a stand-in reader's answer
    for a region: what a locator run on that part of the frame would find)."""
    return _part(reads, region)


def _spliced(old: FrameReads, new: FrameReads, inner: Region) -> FrameReads:
    """`old` outside `inner`, `new` inside it (with `old`'s passes)."""
    kept, fresh = _part(old, inner, inside=False), _part(new, inner)
    return FrameReads(
        kept.readings.join(fresh.readings),
        np.concatenate([kept.card_xyxy, fresh.card_xyxy]).astype(np.float32),
        np.concatenate([kept.unread_xyxy, fresh.unread_xyxy]).astype(np.float32),
        kept.unread_best + fresh.unread_best,
        old.passes,
        None if kept.unread is None or fresh.unread is None else kept.unread.join(fresh.unread),
    )


def reread(
    models: FrameReader, frame: Frame, rules: Rules | None, memory: Reread | None
) -> FrameReads:
    """The reads of a settled frame: only its changed part located when `memory` holds
    the last frame's reads and the change is small (see the module doc), else in full.
    Updates `memory` (when given) with the result."""
    shape = (int(frame.shape[0]), int(frame.shape[1]))
    last = memory.reads if memory is not None and memory.shape == shape else None
    cells = memory.changed if memory is not None else None
    region = None
    if last is not None and cells is not None:
        region = changed_region(cells, shape, _card_height(last))
    if memory is None or last is None or region is None:
        reads = models.read_frame(frame, rules)
        if memory is not None:
            memory.full += 1
    else:
        outer, inner = region
        fresh = models.read_frame(frame, rules, region=outer, like=last.passes)
        reads = _spliced(last, fresh, inner)
        memory.regional += 1
    if memory is not None:
        memory.reads, memory.shape, memory.changed = reads, shape, None
        memory.region = region
    return reads
