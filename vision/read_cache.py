"""Reads carried over from one live video frame to the next.

At a card table most cards lie still from one frame to the next, and reading every
index again is a third of a live frame's cost (a 1280x720 round-end frame with about 30
indices: locator about 65 ms, reader about 20-30 ms on this 2-core machine). The cache
keeps, for each index read in the last frame, its box, its crop and its reader
probabilities. An index box of the new frame takes them over when an old box lies where
it lies (every side within `max_shift` of the box's long side) and the new frame, cut
with the old box, still looks like the old crop: `crop_change` under `max_change`.

`crop_change` is the largest mean over an 8x8 block of the signed difference (per colour
channel), after the best gain and offset between the two crops is taken out. Sensor
noise averages out within a block and a change of exposure is taken out, while another
card put in the same place (a discard laid on the pile) moves whole strokes of its
index, or its colour (Rook cards of one number). It is for a still camera: a camera
that moves by a fraction of a pixel changes the crops' edges by as much as another
card does, so those boxes are read again.
`tests/benchmarks/read_cache_eval.py` measures both sides of `max_change` on generated
scenes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from .arrays import Float32Array, Frame
from .crops import CROP_SIZE, square_crop

__all__ = ["ReadCache", "crop_change", "reference_crop"]


BLOCK = 8
"""Side (pixels of the 64-pixel crop) of the blocks `crop_change` averages over."""


def reference_crop(frame: Frame, box: npt.NDArray[np.float32]) -> Float32Array:
    """The reader's square crop around `box` (BGR), as float32."""
    crop = square_crop(frame, (float(box[0]), float(box[1]), float(box[2]), float(box[3])))
    return crop.astype(np.float32)


def crop_change(old: Float32Array, new: Float32Array, block: int = BLOCK) -> float:
    """Largest |mean| over `block`-sized blocks of what is left of `new` after the best
    gain and offset of `old` (each colour channel on its own) is taken out. Colour
    counts: Rook cards of one number differ only in it.

    Block means are linear, so the fit is taken out of the block means, not the pixels;
    with OpenCV's means this costs tens of microseconds a crop, against a reader call's
    milliseconds."""
    h, w = old.shape[:2]
    size = (w // block, h // block)
    mean_old = np.array(cv2.mean(old)[:3], np.float32)
    mean_new = np.array(cv2.mean(new)[:3], np.float32)
    cross = np.array(cv2.mean(cv2.multiply(old, new))[:3], np.float32) - mean_old * mean_new
    spread = np.array(cv2.mean(cv2.multiply(old, old))[:3], np.float32) - mean_old**2
    gain = cross / np.maximum(spread, 1e-3)
    blocks_old = cv2.resize(old, size, interpolation=cv2.INTER_AREA)
    blocks_new = cv2.resize(new, size, interpolation=cv2.INTER_AREA)
    rest = blocks_new - mean_new - gain * (blocks_old - mean_old)
    return float(np.abs(rest).max())


def _box_shift(old: Float32Array, new: Float32Array) -> Float32Array:
    """(new, old) matrix: the largest move of a box side, as a share of the new box's
    long side."""
    side = np.maximum(new[:, 2:] - new[:, :2], 1.0).max(axis=1)
    shift: Float32Array = np.abs(new[:, None, :] - old[None, :, :]).max(axis=2) / side[:, None]
    return shift


@dataclass
class ReadCache:
    """The reads of recent frames, offered to the next frame (see the module doc).

    A served box keeps the entry it matched, so later frames are compared with the
    pixels that were actually read, not with a chain of frames that could drift; an
    entry is offered for at most `max_age` frames, then its box is read again, and only
    a read whose best class reached `min_sure` is offered at all: an unsure read is taken
    again every frame, so that the live tracker's vote over frames (`smoothing`) still
    sees fresh reads where a misread is likely.
    `max_shift`: how far (share of the box's long side) a box may move and still be
    the same index. `max_change`: the `crop_change` (levels of 255) under which the pixels
    are still the same index. `hits` and `misses` count boxes served and read.
    """

    max_shift: float = 0.15
    max_change: float = 8.0
    max_age: int = 30
    min_sure: float = 0.9
    hits: int = 0
    misses: int = 0
    _boxes: Float32Array = field(default_factory=lambda: np.zeros((0, 4), np.float32))
    _crops: list[Float32Array] = field(default_factory=list)
    _probabilities: Float32Array = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    _ages: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))

    def read(
        self, frame: Frame, boxes: Float32Array, reader: Callable[[list[int]], Float32Array]
    ) -> Float32Array:
        """Probabilities (N, classes) for `boxes`: served from the cache where the same
        index lies still, `reader(indices)` for the rest (rows for those boxes)."""
        boxes = boxes.astype(np.float32)
        source = self._match(frame, boxes)
        missed = [i for i, j in enumerate(source) if j < 0]
        fresh = reader(missed) if missed else None
        classes = fresh.shape[1] if fresh is not None else self._probabilities.shape[1]
        out = np.zeros((len(boxes), classes), np.float32)
        kept_boxes, kept_crops, kept_probabilities, kept_ages = [], [], [], []
        for i, j in enumerate(source):
            if j >= 0:
                out[i] = self._probabilities[j]
                kept_boxes.append(self._boxes[j])
                kept_crops.append(self._crops[j])
                kept_ages.append(int(self._ages[j]) + 1)
            else:
                assert fresh is not None
                out[i] = fresh[missed.index(i)]
                kept_boxes.append(boxes[i])
                kept_crops.append(reference_crop(frame, boxes[i]))
                kept_ages.append(0)
            kept_probabilities.append(out[i])
        self.hits += len(boxes) - len(missed)
        self.misses += len(missed)
        self._boxes = np.array(kept_boxes, np.float32).reshape(-1, 4)
        self._crops = kept_crops
        self._probabilities = np.array(kept_probabilities, np.float32).reshape(len(boxes), classes)
        self._ages = np.array(kept_ages, np.int64)
        return out

    def _match(self, frame: Frame, boxes: Float32Array) -> list[int]:
        """For each box, the cache entry it takes over (-1: none)."""
        source = [-1] * len(boxes)
        if not len(boxes) or not len(self._boxes):
            return source
        shift = _box_shift(self._boxes, boxes)
        offered = (self._ages < self.max_age) & (self._probabilities.max(axis=1) >= self.min_sure)
        taken: set[int] = set()
        for i in range(len(boxes)):
            near = np.flatnonzero((shift[i] <= self.max_shift) & offered)
            for j in map(int, near[np.argsort(shift[i, near])]):
                if j in taken:
                    continue
                now = reference_crop(frame, self._boxes[j])
                if crop_change(self._crops[j], now) <= self.max_change:
                    source[i] = j
                    taken.add(j)
                    break
        return source

    def clear(self) -> None:
        """Forget every read (a new video, a camera moved)."""
        self._boxes = np.zeros((0, 4), np.float32)
        self._crops = []
        self._probabilities = np.zeros((0, 0), np.float32)
        self._ages = np.zeros(0, np.int64)


assert CROP_SIZE % BLOCK == 0
