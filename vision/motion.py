"""Where the table changed: a cheap look at each live frame that decides whether the
models need to run at all.

A card table is still most of the time. `MotionGate.look` shrinks each frame to a small
grey picture (`width` pixels wide, about a millisecond at 1280x720) and compares it, cell
by cell, with two others: the picture the cards were last read from (the reference) and
the first picture of the current still spell. A cell has changed when at least
`min_pixels` of its small pixels lie more than `threshold` grey levels outside the range
of the other picture's 3x3 neighbourhood, once the best global gain and offset (a
camera's exposure drifting) and a shift of a pixel or two (a hand-held phone) are taken
out; the neighbourhood absorbs what is left of a shift (under a small pixel). Sensor
noise averages away in the shrinking.

The first frame is read at once; after that, the verdict (`Look`) is one of:
- `still`: the picture is as it was read: keep the reads, run no model.
- `moving`: it differs from the reference and has not held still for `settle_seconds`
  (and `settle_frames`): a hand over the table, a card being laid. Keep the last cards;
  the ones under the hand are still there.
- `settled`: it differs from the reference and has held still: read it (then `accept`
  it as the new reference).

`changed_cells` says where (a boolean grid), for callers that read only there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

import cv2
import numpy as np
import numpy.typing as npt

from .arrays import Frame

__all__ = ["Look", "MotionGate", "Verdict", "small_grey"]

Small = npt.NDArray[np.float32]
"""(h, w) float32 grey picture, `MotionGate.width` wide."""


class Look(StrEnum):
    STILL = "still"
    MOVING = "moving"
    SETTLED = "settled"


@dataclass(frozen=True, slots=True)
class Verdict:
    look: Look
    changed_cells: npt.NDArray[np.bool_]
    """(rows, cols): cells that differ from the reference (all True before any read)."""

    @property
    def changed_share(self) -> float:
        return float(self.changed_cells.mean()) if self.changed_cells.size else 0.0


SMOOTH_SIGMA = 1.25
"""Gaussian blur (small pixels) of each small picture. Shrinking a card's fine print (a
court card's picture, pips) aliases, so a move of a fraction of a small pixel changed
values past any neighbour's and a hand-held picture was never "settled"; blurred this
much, a still card under a phone that shakes by a pixel is still, and a look-alike swap
still shows (chosen on generated frames: fake-camera jitter, validation tables of
`tests/benchmarks/live_bench.py`; width and blur together)."""


def small_grey(frame: Frame, width: int) -> Small:
    """The frame shrunk to `width` pixels wide (area average), grey, float32, blurred by
    `SMOOTH_SIGMA`."""
    h, w = frame.shape[:2]
    height = max(1, round(h * width / max(w, 1)))
    small = cv2.resize(frame, (width, height), interpolation=cv2.INTER_AREA)
    if small.ndim == 3:
        small = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    blurred = cv2.GaussianBlur(small.astype(np.float32), (0, 0), SMOOTH_SIGMA)
    return np.asarray(blurred, dtype=np.float32)


def _aligned(reference: Small, current: Small, max_shift: float) -> Small:
    """`reference` moved by the global shift between the two (up to `max_shift` small
    pixels each way) and matched to `current`'s exposure (gain and offset)."""
    if max_shift > 0:
        (dx, dy), _response = cv2.phaseCorrelate(reference, current)
        if 0.05 < max(abs(dx), abs(dy)) <= max_shift:
            move = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
            h, w = reference.shape
            moved = cv2.warpAffine(
                reference, move, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
            )
            reference = np.asarray(moved, dtype=np.float32)
    mean_ref, mean_cur = float(reference.mean()), float(current.mean())
    spread = float(((reference - mean_ref) ** 2).mean())
    cross = float(((reference - mean_ref) * (current - mean_cur)).mean())
    gain = cross / spread if spread > 1e-3 else 1.0
    gain = min(max(gain, 0.7), 1.4)
    out: Small = (reference - mean_ref) * gain + mean_cur
    return out


_NEIGHBOURS = np.ones((3, 3), np.uint8)


def _outside(picture: Small, other: Small, threshold: float) -> npt.NDArray[np.bool_]:
    """Pixels of `picture` brighter than every pixel of `other`'s 3x3 neighbourhood, or
    darker than every one, by more than `threshold`. A shift of under a small pixel left
    after alignment (a phone held in the hand, a sub-pixel move the global shift cannot
    take out) keeps each value between its neighbours'; a plain difference saw every
    printed edge of a still card as changed, and the gate called a hand-held picture
    moving for as long as it was held."""
    high = cv2.dilate(other, _NEIGHBOURS)
    low = cv2.erode(other, _NEIGHBOURS)
    return np.asarray((picture > high + threshold) | (picture < low - threshold), dtype=np.bool_)


@dataclass
class MotionGate:
    """See the module doc. Feed every frame to `look` with its time (seconds); after
    reading a `settled` frame, call `accept`."""

    width: int = 320
    """Small picture width (pixels); 320 is 4x smaller than a 1280x720 frame. At 160
    (8x), blurred enough to be still under a hand-held phone, a card swapped for its
    look-alike (7h for 8h) left no trace on a table seen from a seat."""
    cell: int = 8
    """Cell side in small pixels (32 frame pixels at 1280 wide: about a quarter card)."""
    threshold: float = 14.0
    """Grey levels a small pixel must move by to count."""
    min_pixels: int = 2
    """Small pixels over `threshold` that make a cell changed."""
    settle_seconds: float = 0.2
    """How long the picture must hold still after a change before it is read."""
    settle_frames: int = 1
    """How many frames after the first of a still spell must agree with it as well (for
    sparse frames, such as a browser's few a second, where time alone says little)."""
    max_shift: float = 1.5
    """Largest global shift (small pixels) taken out as camera jitter, not change."""
    patience: float = 3.0
    """A picture that has not held still for this long (seconds) is read anyway, and
    again as often while it goes on moving, so a camera that shakes all the time still
    shows cards."""
    _reference: Small | None = None
    _spell: Small | None = None
    _spell_since: float = 0.0
    _spell_frames: int = 0
    _moving_since: float | None = None
    _current: Small | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.width < 16 or self.cell < 1 or self.min_pixels < 1 or self.settle_frames < 0:
            raise ValueError("need width >= 16, cell >= 1, min_pixels >= 1, settle_frames >= 0")
        if self.threshold <= 0 or self.settle_seconds < 0 or self.patience <= 0:
            raise ValueError("need threshold > 0, settle_seconds >= 0, patience > 0")

    def changed(self, reference: Small, current: Small) -> npt.NDArray[np.bool_]:
        """(rows, cols) cells of `current` that differ from `reference`."""
        if reference.shape != current.shape:
            return self._grid(current, True)
        aligned = _aligned(reference, current, self.max_shift)
        over = (
            _outside(current, aligned, self.threshold) | _outside(aligned, current, self.threshold)
        ).astype(np.float32)
        h, w = over.shape
        rows, cols = -(-h // self.cell), -(-w // self.cell)
        padded = np.zeros((rows * self.cell, cols * self.cell), np.float32)
        padded[:h, :w] = over
        counts = padded.reshape(rows, self.cell, cols, self.cell).sum(axis=(1, 3))
        return np.asarray(counts >= self.min_pixels, dtype=np.bool_)

    def _grid(self, current: Small, value: bool) -> npt.NDArray[np.bool_]:
        h, w = current.shape
        return np.full((-(-h // self.cell), -(-w // self.cell)), value, np.bool_)

    def look(self, frame: Frame, timestamp: float) -> Verdict:
        current = small_grey(frame, self.width)
        self._current = current
        if self._spell is None or self.changed(self._spell, current).any():
            self._spell, self._spell_since, self._spell_frames = current, timestamp, 0
        else:
            self._spell_frames += 1
        settled = (
            timestamp - self._spell_since >= self.settle_seconds
            and self._spell_frames >= self.settle_frames
        )
        if self._reference is None:  # nothing read yet: read the first frame at once
            return Verdict(Look.SETTLED, self._grid(current, True))
        cells = self.changed(self._reference, current)
        if not cells.any():  # as it was read: whatever moved has left it as it was
            self._moving_since = None
            return Verdict(Look.STILL, cells)
        if settled:
            return Verdict(Look.SETTLED, cells)
        if self._moving_since is None:
            self._moving_since = timestamp
        if timestamp - self._moving_since >= self.patience:
            return Verdict(Look.SETTLED, cells)
        return Verdict(Look.MOVING, cells)

    def accept(self) -> None:
        """The last frame looked at was read: it is the new reference."""
        self._reference = self._current
        self._moving_since = None

    def reset(self) -> None:
        """Forget everything (a new video, a camera moved)."""
        self._reference = self._spell = self._current = None
        self._moving_since = None
