"""A shaken photo's indices read again with the shake taken out (`vision/unshake.py`)."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from shanghai.vision.crops import square_crop
from shanghai.vision.unshake import (
    LEAST_GAIN,
    LONGEST_SHARE,
    IndexPatch,
    Read,
    Shake,
    find_shake,
    shakes,
    unshaken_reads,
)

Box = tuple[float, float, float, float]


def _table(seed: int = 3) -> tuple[npt.NDArray[np.uint8], list[Box]]:
    """A grey table 1200x900 px with six white cards' corners, each a dark rank in a
    sans font: a photo large enough for a 13 px shake (`LONGEST_SHARE`)."""
    rng = np.random.default_rng(seed)
    image = np.full((900, 1200, 3), 96, np.uint8)
    image += rng.integers(0, 12, image.shape, dtype=np.uint8)
    boxes: list[Box] = []
    for k, rank in enumerate(("7", "10", "K", "4", "Q", "9")):
        x, y = 240 + 300 * (k % 3), 240 + 300 * (k // 3)
        cv2.rectangle(image, (x - 10, y - 10), (x + 90, y + 120), (235, 235, 235), -1)
        colour = (30, 30, 200) if k % 2 else (25, 25, 25)
        cv2.putText(image, rank, (x, y + 30), cv2.FONT_HERSHEY_SIMPLEX, 1.1, colour, 3)
        boxes.append((x - 4.0, y - 2.0, x + 26.0 * len(rank) + 4.0, y + 36.0))
    return image, boxes


def _smeared(image: npt.NDArray[np.uint8], shake: Shake) -> npt.NDArray[np.uint8]:
    return np.asarray(cv2.filter2D(image, -1, shake.kernel()), np.uint8)


def _template_reader(sharp: npt.NDArray[np.uint8], boxes: list[Box]) -> Read:
    """A stand-in reader that knows each index's sharp look: its probability of the
    right class is how alike (normalised correlation) a crop is to the sharp crop of
    the index whose box it is nearest, so it is surest of the crops the shake was taken
    out of best, as a reader trained on sharp indices is."""
    templates = [square_crop(sharp, box).astype(np.float32) for box in boxes]

    def read(crops: list[npt.NDArray[np.uint8]]) -> npt.NDArray[np.float32]:
        out = np.zeros((len(crops), 2), np.float32)
        for i, crop in enumerate(crops):
            c = crop.astype(np.float32)
            alike = max(
                float(np.corrcoef(c.ravel(), t.ravel())[0, 1]) if c.std() > 0 else 0.0
                for t in templates
            )
            out[i] = (max(alike, 0.0), 1 - max(alike, 0.0))
        return out

    return read


def test_a_shake_is_a_motion_or_a_focus_blur_and_its_kernel_sums_to_one() -> None:
    with pytest.raises(ValueError, match="not both"):
        Shake(length=5, sigma=1.0)
    with pytest.raises(ValueError, match="not both"):
        Shake()
    motion, focus = Shake(length=9, angle=30.0), Shake(sigma=2.0)
    for shake in (motion, focus):
        assert shake.kernel().sum() == pytest.approx(1.0, abs=1e-5)
    assert motion.kernel().shape == (9, 9)
    ys, xs = np.nonzero(motion.kernel())
    along = np.degrees(np.arctan2(ys[-1] - ys[0], xs[-1] - xs[0]))
    assert along == pytest.approx(30.0, abs=8.0)  # a stroke along the angle (y down)
    assert str(motion) == "a 9 px shake at 30 degrees" and str(focus) == "a 2 px focus blur"


def _alike(a: npt.NDArray[np.uint8], b: npt.NDArray[np.uint8]) -> float:
    return float(np.corrcoef(a.astype(np.float32).ravel(), b.astype(np.float32).ravel())[0, 1])


def test_the_true_kernel_brings_an_index_crop_back_towards_its_sharp_look() -> None:
    """Alike in shape (normalised correlation), not in level: the Wiener filter's noise
    term dims the crop a little, and the reader reads shapes."""
    sharp, boxes = _table()
    shake = Shake(length=11, angle=40.0)
    blurred = _smeared(sharp, shake)
    for box in boxes:
        truth = square_crop(sharp, box)
        as_cut = _alike(square_crop(blurred, box), truth)
        assert _alike(IndexPatch(blurred, box).crop(shake), truth) > as_cut + 0.03


def test_a_shake_longer_than_the_photo_allows_is_not_tried() -> None:
    """A shake is a turn of the camera: in pixels, a share of the frame."""
    assert Shake(length=13, angle=60.0).fits(900) and not Shake(length=13).fits(360)
    assert all(s.fits(378) for s in shakes(378))
    assert max(s.length for s in shakes(378)) <= LONGEST_SHARE * 378
    assert len(shakes(378)) < len(shakes(3024))
    sharp, boxes = _table()
    small = np.ascontiguousarray(sharp[:360, :480])
    read = _template_reader(small, boxes[:1])
    smeared = _smeared(small, Shake(length=13, angle=60.0))
    xyxy = np.array(boxes[:1], np.float32)
    found = find_shake(smeared, xyxy, np.ones(1, np.float32), read)
    assert found is None or found.fits(360)


def test_an_index_at_the_photo_s_edge_is_cut_as_square_crop_cuts_it() -> None:
    sharp, _ = _table()
    box = (2.0, 2.0, 30.0, 40.0)
    crop = IndexPatch(sharp, box).crop(Shake(sigma=0.3))
    assert crop.shape == square_crop(sharp, box).shape and crop.dtype == np.uint8


def test_the_search_finds_a_shake_near_the_true_one_and_none_in_a_sharp_photo() -> None:
    sharp, boxes = _table()
    read = _template_reader(sharp, boxes)
    xyxy = np.array(boxes, np.float32)
    located = np.full(len(boxes), 0.8, np.float32)
    assert find_shake(sharp, xyxy, located, read) is None
    true = Shake(length=13, angle=60.0)
    found = find_shake(_smeared(sharp, true), xyxy, located, read)
    assert found is not None and found.length
    assert abs(found.length - true.length) <= 4
    assert min(abs(found.angle - true.angle), 180 - abs(found.angle - true.angle)) <= 12


def test_reads_are_left_alone_when_no_kernel_gains_enough() -> None:
    sharp, boxes = _table()
    xyxy = np.array(boxes, np.float32)
    as_cut = np.tile(np.array([[0.9, 0.1]], np.float32), (len(boxes), 1))

    def never_surer(crops: list[npt.NDArray[np.uint8]]) -> npt.NDArray[np.float32]:
        return np.tile(np.array([[0.9 + LEAST_GAIN / 2, 0.0]], np.float32), (len(crops), 1))

    probabilities, shake = unshaken_reads(
        _smeared(sharp, Shake(length=9)), xyxy, np.ones(len(boxes), np.float32), as_cut, never_surer
    )
    assert shake is None and probabilities is as_cut


def test_a_found_shake_averages_the_reads_as_cut_and_unshaken() -> None:
    sharp, boxes = _table()
    true = Shake(length=13, angle=60.0)
    read = _template_reader(sharp, boxes)
    blurred = _smeared(sharp, true)
    xyxy = np.array(boxes, np.float32)
    as_cut = read([square_crop(blurred, box) for box in boxes])
    probabilities, shake = unshaken_reads(
        blurred, xyxy, np.full(len(boxes), 0.8, np.float32), as_cut, read
    )
    assert shake is not None
    unshaken = read([IndexPatch(blurred, box).crop(shake) for box in boxes])
    assert np.allclose(probabilities, (as_cut + unshaken) / 2, atol=1e-6)
    assert probabilities[:, 0].mean() > as_cut[:, 0].mean()
