"""The second locator passes of still photos (2x for small cards, half size for large
ones): when each runs and which of its boxes it keeps."""

from __future__ import annotations

import numpy as np

from shanghai.vision.detections import Detections
from shanghai.vision.zoom import ZoomPass

NAMES = ("card", "index")


def _dets(rows: list[tuple[float, float, float, float, float, int]]) -> Detections:
    array = np.asarray(rows, np.float32).reshape(-1, 6)
    return Detections(array[:, :4], array[:, 4], array[:, 5].astype(np.int64), NAMES)


def test_runs_only_for_small_cards_and_only_when_enabled() -> None:
    small = _dets([(0, 0, 50, 70, 0.9, 0), (60, 0, 110, 70, 0.9, 0)])
    big = _dets([(0, 0, 200, 280, 0.9, 0), (10, 10, 30, 40, 0.8, 1)])
    assert ZoomPass().wanted(small)
    assert not ZoomPass().wanted(big)
    assert ZoomPass().wanted(Detections.empty(NAMES))  # nothing found: look closer
    assert not ZoomPass(zoom=1.0).wanted(small)


def test_cards_are_judged_by_the_outlines_that_hold_an_index() -> None:
    """A taught deck's locator outlined the waves of a marbled cloth as cards a metre
    long around a small hand: judged by every outline, the photo took the half-size
    pass and lost the hand's small indices. The outlines holding an index (each index's
    smallest, a box over the whole hand holds some too) say the cards' size; with no
    index in any outline, every outline counts, as close up the first pass misses
    indices too large for it."""
    hand = [(500, 500, 560, 584, 0.8, 0), (505, 505, 515, 521, 0.7, 1)]
    cloth = [(0, 0, 900, 1200, 0.9, 0), (300, 0, 1300, 1100, 0.8, 0), (0, 300, 1000, 1300, 0.6, 0)]
    zoom = ZoomPass(shrink=0.5)
    assert zoom.wanted(_dets(hand + cloth)) and not zoom.wants_shrink(_dets(hand + cloth))
    unread = [(500, 500, 560, 584, 0.8, 0), *cloth]  # the hand's index not found
    assert zoom.wants_shrink(_dets(unread)) and not zoom.wanted(_dets(unread))


def test_keeps_only_the_zoomed_pass_small_boxes_and_drops_duplicates() -> None:
    first = _dets([(100, 100, 112, 118, 0.4, 1), (0, 0, 60, 84, 0.9, 0)])
    zoomed = _dets(
        [
            (101, 100, 112, 119, 0.7, 1),  # the same small index, surer: replaces it
            (300, 300, 310, 316, 0.6, 1),  # a small index the first pass missed
            (600, 600, 610, 616, 0.3, 1),  # small but unsure: the zoomed pass needs 0.5
            (400, 400, 440, 460, 0.9, 1),  # a big "index": the 1x pass judges those
            (500, 500, 560, 584, 0.8, 0),  # a small card the first pass missed
            (0, 0, 300, 420, 0.9, 0),  # a big card: not from the zoomed pass
        ]
    )
    merged = ZoomPass(small_card_px=140, small_index_px=22).merge(first, zoomed)
    got = {
        (tuple(np.round(b).astype(int).tolist()), round(float(c), 2), int(k))
        for b, c, k in zip(merged.xyxy, merged.confidence, merged.class_id, strict=True)
    }
    assert got == {
        ((101, 100, 112, 119), 0.7, 1),
        ((300, 300, 310, 316), 0.6, 1),
        ((0, 0, 60, 84), 0.9, 0),
        ((500, 500, 560, 584), 0.8, 0),
    }


def test_a_card_and_an_index_in_the_same_place_both_stay() -> None:
    first = _dets([(0, 0, 20, 20, 0.9, 0)])
    zoomed = _dets([(0, 0, 20, 20, 0.8, 1)])
    merged = ZoomPass().merge(first, zoomed)
    assert sorted(merged.class_id.tolist()) == [0, 1]


def test_half_size_pass_runs_only_for_large_cards_when_enabled() -> None:
    large = _dets([(0, 0, 250, 350, 0.9, 0), (300, 0, 550, 350, 0.9, 0)])
    medium = _dets([(0, 0, 100, 140, 0.9, 0), (10, 10, 30, 40, 0.8, 1)])
    assert ZoomPass(shrink=0.5).wants_shrink(large)
    assert not ZoomPass(shrink=0.5).wants_shrink(medium)
    assert not ZoomPass(shrink=0.5).wants_shrink(Detections.empty(NAMES))
    assert not ZoomPass().wants_shrink(large)  # off unless asked for


def test_keeps_only_the_half_size_pass_large_boxes() -> None:
    first = _dets([(0, 0, 250, 350, 0.9, 0), (10, 10, 30, 40, 0.6, 1)])
    shrunk = _dets(
        [
            (300, 0, 560, 360, 0.8, 0),  # a large card the first pass missed
            (310, 10, 350, 100, 0.7, 1),  # a large index the first pass missed
            (11, 11, 30, 41, 0.9, 1),  # a small index, surer: the first pass judges those
            (600, 0, 700, 140, 0.9, 0),  # a medium card: not from the half-size pass
        ]
    )
    merged = ZoomPass(shrink=0.5, large_card_px=220, large_index_px=50).merge_large(first, shrunk)
    got = {tuple(np.round(b).astype(int).tolist()) for b in merged.xyxy}
    assert got == {(0, 0, 250, 350), (10, 10, 30, 40), (300, 0, 560, 360), (310, 10, 350, 100)}


def test_two_cards_of_a_fan_keep_their_boxes_and_a_card_boxed_twice_or_in_part_one() -> None:
    """Cards in a hand lie over each other: the top card's box covers most of the one
    under it (IoU 0.37, the smaller covered 0.56, as a fan of two on a real photo).
    Merged with the half-size pass, both stay, as the locator's own suppression left
    them; the top card boxed again by the second pass (IoU over the locator's level) is
    one card, and so is a box lying inside a surer card's box (a part of that card)."""
    fan = [(141, 218, 315, 459, 0.9, 0), (69, 216, 235, 452, 0.8, 0)]
    shrunk = _dets(
        [
            (143, 216, 316, 461, 0.85, 0),  # the top card boxed again
            (160, 230, 300, 300, 0.7, 0),  # its upper part alone
            (75, 229, 100, 277, 0.9, 1),  # not large: the first pass judges indices
        ]
    )
    zoom = ZoomPass(shrink=0.5, large_card_px=60, large_index_px=50)
    merged = zoom.merge_large(_dets(fan), shrunk)
    got = sorted(tuple(np.round(b).astype(int).tolist()) for b in merged.xyxy)
    assert got == [(69, 216, 235, 452), (141, 218, 315, 459)]
    # Judged as two indices are (the smaller covered over `overlap`), the fan lost a card.
    indices = _dets([(x0, y0, x1, y1, c, 1) for x0, y0, x1, y1, c, _ in fan])
    assert len(ZoomPass().merge(indices, _dets([]))) == 1
