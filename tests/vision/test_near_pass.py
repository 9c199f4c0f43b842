"""The near pass: a large photo whose cards lie small in one part of it is located again
over that part at twice its own pixels (`zoom.ZoomPass.near`), where the whole-frame
passes, capped at the locator's largest input, see its indices at under their size. It
runs for a taught deck's scans only (`pipeline.NEAR`)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from shanghai.engine.cards import Card
from shanghai.vision.arrays import Frame
from shanghai.vision.deck_head import DeckHead, fit_head, reader_fingerprint
from shanghai.vision.detections import Detections
from shanghai.vision.model_files import default_models_dir
from shanghai.vision.pipeline import NEAR, CardModels, models_installed
from shanghai.vision.zoom import ZoomPass

NAMES = ("card", "index")
PHONE = (2448, 3264)
"""(width, height) of an 8-megapixel phone photo (`roundend.ROUND_END_SIZES`)."""

needs_models = pytest.mark.skipif(not models_installed(), reason="shipped models not installed")


def _dets(rows: list[tuple[float, float, float, float, float, int]]) -> Detections:
    array = np.asarray(rows, np.float32).reshape(-1, 6)
    return Detections(array[:, :4], array[:, 4], array[:, 5].astype(np.int64), NAMES)


def test_the_region_holds_every_box_and_a_card_around_them() -> None:
    found = _dets(
        [
            (1000, 1000, 1060, 1090, 0.9, 0),
            (1100, 1010, 1160, 1100, 0.9, 0),
            (1005, 1004, 1015, 1018, 0.8, 1),
        ]
    )
    # median card long side 90: the region reaches 90 px past the boxes each way
    assert ZoomPass().near_region(found, 2448, 3264) == (910, 910, 1250, 1190)
    # clipped to the frame
    assert ZoomPass().near_region(found, 1200, 1150) == (910, 910, 1200, 1150)


def test_with_indices_alone_the_region_reaches_a_card_size_past_them() -> None:
    found = _dets([(500, 500, 510, 514, 0.8, 1), (540, 500, 550, 514, 0.8, 1)])
    # no card box: six index sizes (6 x 14 px) each way
    assert ZoomPass().near_region(found, 2448, 3264) == (416, 416, 634, 598)


def test_nothing_found_gives_no_region() -> None:
    assert ZoomPass().near_region(Detections.empty(NAMES), 2448, 3264) is None


def _small_hand_on_a_phone_photo(seed: int, index_px: float) -> tuple[Frame, list[tuple]]:
    """A generated photo of a few cards (the first steady one with three visible indices
    from `seed` on), shrunk until its median visible index is `index_px` and laid in the
    middle of an 8-megapixel frame of its own table's colour; returns the frame and the
    true index boxes in it."""
    from shanghai.datasets.decks import code_looks
    from shanghai.datasets.hand_photos import photo_of_cards
    from shanghai.datasets.labels import index_box, quad_size

    look = next(look for look in code_looks() if look.name == "code-classic")
    cards = [Card.parse(name) for name in ("4h", "9s", "Qd", "7c", "Jh")]
    while True:
        rendered, _ = photo_of_cards(np.random.default_rng(seed), "train", look, cards)
        quads = [
            np.asarray(ix.quad)
            for label in rendered.labels()
            for ix in label.indices
            if ix.state == "visible"
        ]
        if rendered.blur_px < 1.0 and len(quads) >= 3:
            break
        seed += 1000
    factor = index_px / float(np.median([quad_size(q) for q in quads]))
    small = cv2.resize(rendered.image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    width, height = PHONE
    frame = np.empty((height, width, 3), np.uint8)
    frame[:] = np.median(rendered.image.reshape(-1, 3), axis=0).astype(np.uint8)
    h, w = small.shape[:2]
    y0, x0 = (height - h) // 2, (width - w) // 2
    frame[y0 : y0 + h, x0 : x0 + w] = small
    boxes = [index_box(q * factor + (x0, y0), width, height) for q in quads]
    return frame, boxes


def _taught(models: CardModels) -> CardModels:
    """`models` reading with a deck taught in part, its head alone (the shipped locator
    locates): what a deck enrolled without the train extra is."""
    rng = np.random.default_rng(0)
    features = rng.normal(size=(20, 8)).astype(np.float32)
    head: DeckHead = fit_head(
        features,
        ["7h"] * 10 + ["8h"] * 10,
        kind="prototype",
        reader=reader_fingerprint(default_models_dir() / "cards-reader.onnx"),
    )
    models.use_deck(head)
    return models


def _found(index_xyxy: np.ndarray, truth: list[tuple]) -> int:
    """True index boxes some located box covers at IoU 0.5 or more."""
    hits = 0
    for t in truth:
        tb = np.asarray(t, np.float32)
        lt = np.maximum(index_xyxy[:, :2], tb[:2])
        rb = np.minimum(index_xyxy[:, 2:], tb[2:])
        inter = (rb - lt).clip(0).prod(axis=1)
        areas = (index_xyxy[:, 2:] - index_xyxy[:, :2]).prod(axis=1) + (tb[2:] - tb[:2]).prod()
        union = areas - inter
        hits += bool(len(index_xyxy) and np.max(inter / union) >= 0.5)
    return hits


@needs_models
def test_the_near_pass_finds_small_indices_of_a_phone_photo_the_frame_passes_miss() -> None:
    """Hands whose indices are 9 px in an 8-megapixel frame: the shipped locator, with
    the near pass (a taught deck's scan), finds at least as many of them on every photo
    and more over all; the shipped models alone take no near pass."""
    with_near = _taught(CardModels(zoom=ZoomPass(zoom=2.0, near=NEAR)))
    without = CardModels(zoom=ZoomPass(zoom=2.0, near=NEAR))
    more = 0
    for seed in range(4):
        frame, truth = _small_hand_on_a_phone_photo(seed, 9.0)
        near_xyxy, _, _, passes = with_near.locate_passes(frame)
        frame_xyxy, _, _, frame_passes = without.locate_passes(frame)
        assert passes.second == "zoom" and passes.near == NEAR
        assert frame_passes.near == 0.0
        assert _found(near_xyxy, truth) >= _found(frame_xyxy, truth)
        more += _found(near_xyxy, truth) - _found(frame_xyxy, truth)
    assert more > 0


@needs_models
def test_a_frame_the_zoomed_pass_already_sees_twice_over_takes_no_near_pass() -> None:
    frame, _ = _small_hand_on_a_phone_photo(0, 9.0)
    webcam = np.ascontiguousarray(frame[1000:1960, 600:1880])  # 1280 x 960 around the hand
    *_, passes = _taught(CardModels(zoom=ZoomPass(zoom=2.0, near=NEAR))).locate_passes(webcam)
    assert passes.second == "zoom" and passes.near == 0.0
