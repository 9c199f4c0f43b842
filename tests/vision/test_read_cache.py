"""The live read cache: still indices are served, anything that changed is read again.

Frames are the browser tests' fake camera (generated card faces on felt, 640x480); the
reader here is a stand-in that records which boxes it was asked to read, so the tests
see exactly what the cache served. `test_models.py` runs the cache with the real models.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from fake_camera import CARD_SLOTS, card_frames
from shanghai.datasets.decks import code_looks, face_of
from shanghai.datasets.faces import FACE_W
from shanghai.engine.cards import Card
from shanghai.vision.read_cache import ReadCache, crop_change, reference_crop

CARDS = ["As", "10d", "Qh", "3c"]
CLASSES = 8


def index_box(slot: int, dx: float = 0.0) -> list[float]:
    """The top-left index of the card in `slot`, as the face drawing measured it."""
    x0, y0, x1, _ = CARD_SLOTS[slot]
    scale = (x1 - x0) / FACE_W
    box = face_of(code_looks()[0], Card.parse(CARDS[slot])).index_boxes[0]
    return [
        x0 + box[0] * scale + dx,
        y0 + box[1] * scale,
        x0 + box[2] * scale + dx,
        y0 + box[3] * scale,
    ]


BOXES = np.array([index_box(s) for s in range(4)], np.float32)
SIDE = float((BOXES[:, 2:] - BOXES[:, :2]).max())


class Reader:
    """Stands in for the model: row `i` of a frame is read as class `i % CLASSES` with
    probability `sure` (a dict: per row), and every call's rows are recorded."""

    def __init__(self, sure: dict[int, float] | None = None) -> None:
        self.sure = sure or {}
        self.calls: list[list[int]] = []

    def __call__(self, rows: list[int]) -> npt.NDArray[np.float32]:
        self.calls.append(list(rows))
        out = np.zeros((len(rows), CLASSES), np.float32)
        for k, row in enumerate(rows):
            p = self.sure.get(row, 0.95)
            out[k] = (1 - p) / (CLASSES - 1)
            out[k, row % CLASSES] = p
        return out


def next_frame(frame: npt.NDArray[np.uint8], seed: int = 0) -> npt.NDArray[np.uint8]:
    """A still camera's next frame: sensor noise and a little more exposure."""
    rng = np.random.default_rng(seed)
    noisy = frame.astype(np.float32) * 1.05 + rng.normal(0, 3, frame.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def frame() -> npt.NDArray[np.uint8]:
    return card_frames(CARDS, frames=1)[0]


def test_a_still_frame_is_served_from_the_cache(frame: npt.NDArray[np.uint8]) -> None:
    cache, reader = ReadCache(), Reader()
    first = cache.read(frame, BOXES, reader)
    again = cache.read(next_frame(frame), BOXES, reader)
    assert reader.calls == [[0, 1, 2, 3]]
    np.testing.assert_array_equal(again, first)
    assert (cache.hits, cache.misses) == (4, 4)


def test_a_card_laid_in_place_is_read_again(frame: npt.NDArray[np.uint8]) -> None:
    """The next rank of the same suit put on the 3 of clubs: only that box is read."""
    cache, reader = ReadCache(), Reader()
    cache.read(frame, BOXES, reader)
    laid = card_frames([*CARDS[:3], "4c"], frames=1)[0]
    cache.read(next_frame(laid), BOXES, reader)
    assert reader.calls == [[0, 1, 2, 3], [3]]


def test_an_unsure_read_is_taken_again_every_frame(frame: npt.NDArray[np.uint8]) -> None:
    cache, reader = ReadCache(min_sure=0.9), Reader(sure={1: 0.6})
    for seed in range(3):
        cache.read(next_frame(frame, seed), BOXES, reader)
    assert reader.calls == [[0, 1, 2, 3], [1], [1]]


def test_a_read_is_served_for_at_most_max_age_frames(frame: npt.NDArray[np.uint8]) -> None:
    cache, reader = ReadCache(max_age=2), Reader()
    for seed in range(7):
        cache.read(next_frame(frame, seed), BOXES[:1], reader)
    assert reader.calls == [[0], [0], [0]]  # read, served twice; read, served twice; read
    assert (cache.hits, cache.misses) == (4, 3)


def test_a_box_that_moved_is_read_again(frame: npt.NDArray[np.uint8]) -> None:
    cache, reader = ReadCache(max_shift=0.15), Reader()
    cache.read(frame, BOXES, reader)
    moved = BOXES.copy()
    moved[2] = index_box(2, dx=0.3 * SIDE)  # 30% of the box's long side
    moved[3] = index_box(3, dx=0.05 * SIDE)  # a detector's jitter: still served
    cache.read(frame, moved, reader)
    assert reader.calls == [[0, 1, 2, 3], [2]]


def test_crop_change_ignores_exposure_and_noise_not_another_index(
    frame: npt.NDArray[np.uint8],
) -> None:
    box = BOXES[3]
    old = reference_crop(frame, box)
    darker = np.clip(frame.astype(np.float32) * 0.85 + 6, 0, 255).astype(np.uint8)
    other = card_frames([*CARDS[:3], "3s"], frames=1)[0]
    assert crop_change(old, reference_crop(next_frame(darker), box)) < ReadCache.max_change
    assert crop_change(old, reference_crop(other, box)) > 2 * ReadCache.max_change


def test_an_empty_frame_reads_nothing(frame: npt.NDArray[np.uint8]) -> None:
    cache, reader = ReadCache(), Reader()
    cache.read(frame, BOXES, reader)
    out = cache.read(frame, np.zeros((0, 4), np.float32), reader)
    assert out.shape[0] == 0 and reader.calls == [[0, 1, 2, 3]]
    cache.read(frame, BOXES, reader)
    assert reader.calls == [[0, 1, 2, 3], [0, 1, 2, 3]]
