"""A found card cut out and straightened for the page: a turned card comes out upright
and in portrait, filling the picture, also on a speckled table, for a court card
whose print breaks its white, and for a card a dark band cuts in two halves (also when
the locator boxed the halves apart); where no card stands out, the box is kept; where
two cuts are card-shaped, the one with the card's indices at its corners."""

from __future__ import annotations

import cv2
import numpy as np

from shanghai.vision.arrays import Box
from shanghai.vision.card_model import CARD_ASPECT, INDEX_INSET
from shanghai.vision.deck_faces import (
    FACE_HEIGHT,
    card_cutout,
    corner_misfit,
    looks_whole,
    spanning_box,
    upright_card,
    whole_face,
)


def _table_with_a_card(angle: float, size: tuple[float, float] = (120, 170)) -> np.ndarray:  # type: ignore[type-arg]
    table = np.full((400, 400, 3), (40, 100, 40), np.uint8)
    corners = cv2.boxPoints(((200, 200), size, angle)).astype(np.int32)
    cv2.fillConvexPoly(table, corners, (245, 245, 245))
    cv2.circle(table, (200, 200), 12, (30, 30, 200), -1)  # a pip
    return table


def test_a_turned_card_comes_out_upright_and_filling_the_picture() -> None:
    for angle in (0.0, 9.0, -14.0, 90.0):
        table = _table_with_a_card(angle)
        ys, xs = np.nonzero(table[:, :, 0] > 200)
        box = (float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max()))
        face = card_cutout(table, box)
        height, width = face.shape[:2]
        assert height == FACE_HEIGHT and width < height  # portrait
        assert abs(width / height - 120 / 170) < 0.05
        # the card's white fills it: no table left in the corners
        assert np.mean(face[:, :, 1] > 200) > 0.9


def test_no_card_standing_out_keeps_the_box() -> None:
    plain = np.full((90, 60, 3), 120, np.uint8)
    face = upright_card(plain)
    assert face.shape[0] == FACE_HEIGHT and abs(face.shape[1] - 60 * FACE_HEIGHT / 90) <= 1.5
    assert np.all(face == 120)
    assert upright_card(np.zeros((4, 4, 3), np.uint8)).shape == (4, 4, 3)


def test_a_speckled_table_leaves_no_strip_beside_the_card() -> None:
    """Carpet: bright specks touching the card used to stretch its rectangle."""
    rng = np.random.default_rng(2)
    grain = rng.integers(90, 150, (400, 400, 1), dtype=np.uint8)
    table = np.repeat(grain, 3, axis=2)
    for x, y in rng.integers(0, 400, (900, 2)):
        cv2.circle(table, (int(x), int(y)), 3, (235, 235, 235), -1)
    corners = cv2.boxPoints(((200, 200), (120, 170), 6.0)).astype(np.int32)
    cv2.fillConvexPoly(table, corners, (245, 245, 245))
    # a court card's print: a dark frame with colour inside, breaking the white
    cv2.rectangle(table, (165, 145), (235, 255), (30, 60, 160), -1)
    box = (125.0, 107.0, 275.0, 293.0)
    face = card_cutout(table, box)
    height, width = face.shape[:2]
    assert height == FACE_HEIGHT and abs(width / height - 120 / 170) < 0.06
    card = face[:, :, 1] > 200
    edges = [card[:, :4], card[:, -4:], card[:4, :], card[-4:, :]]
    assert all(np.mean(edge) > 0.6 for edge in edges), [np.mean(e) for e in edges]


def _band_card(angle: float) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[type-arg]
    """A dark table with a white card whose middle third is a dark green band (a Rook
    look's), and the card's white as a mask."""
    table = np.full((500, 500, 3), (60, 50, 45), np.uint8)
    card = np.zeros((500, 500), np.uint8)
    cv2.fillConvexPoly(card, cv2.boxPoints(((250, 250), (150, 210), angle)).astype(np.int32), 255)
    band = np.zeros_like(card)
    cv2.fillConvexPoly(band, cv2.boxPoints(((250, 250), (150, 70), angle)).astype(np.int32), 255)
    table[card > 0] = (240, 240, 240)
    table[band > 0] = (60, 110, 30)
    return table, (card > 0) & (band == 0)


def test_a_card_with_a_dark_band_comes_out_whole() -> None:
    """The largest bright region is one half; the face is the card, band and both halves."""
    for angle in (0.0, 8.0, -12.0):
        table, white = _band_card(angle)
        ys, xs = np.nonzero(white)
        face = card_cutout(
            table, (float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max()))
        )
        height, width = face.shape[:2]
        assert abs(width / height - 150 / 210) < 0.06, (angle, width / height)
        rows = face[:, :, 0].astype(float).mean(axis=1)  # blue: white high, band low
        third = height // 3
        assert rows[:third].mean() > 150 and rows[-third:].mean() > 150
        assert rows[third + 10 : 2 * third - 10].mean() < 90


def test_a_card_boxed_as_two_halves_is_cut_from_the_box_spanning_both() -> None:
    table, white = _band_card(0.0)
    ys, xs = np.nonzero(white)
    top = ys < 250
    halves = np.array(
        [
            [xs[top].min(), ys[top].min(), xs[top].max(), ys[top].max()],
            [xs[~top].min(), ys[~top].min(), xs[~top].max(), ys[~top].max()],
        ],
        np.float32,
    )
    box = spanning_box(halves)
    assert box == (float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max()))
    height, width = card_cutout(table, box).shape[:2]
    assert abs(width / height - 150 / 210) < 0.06
    # one half's box alone gives half a card, the face enrolment used to store
    half = card_cutout(table, tuple(float(v) for v in halves[0]))  # type: ignore[arg-type]
    assert half.shape[1] / half.shape[0] < 0.6 or half.shape[1] / half.shape[0] > 1.2


def _lit_speckled_table(shape: tuple[int, int]) -> np.ndarray:  # type: ignore[type-arg]
    """A pink speckled table lit from one side (a light gradient across it)."""
    rng = np.random.default_rng(5)
    h, w = shape
    table = np.empty((h, w, 3), np.float32)
    table[:] = (150, 130, 170)
    for x, y in rng.integers(0, max(h, w), (2500, 2)):
        cv2.circle(table, (int(x), int(y)), 3, (40, 40, 50), -1)
    light = np.linspace(0.75, 1.25, w, dtype=np.float32)[None, :, None]
    return np.clip(table * light, 0, 255).astype(np.uint8)


def test_a_half_boxed_band_card_is_found_whole_on_the_table() -> None:
    """The locator boxed one white half and found nothing of the other: the box's cut is
    half a card, and enrolment stored that sliver as the card's face."""
    table = _lit_speckled_table((700, 900))
    card = np.zeros(table.shape[:2], np.uint8)
    band = np.zeros_like(card)
    cv2.fillConvexPoly(card, cv2.boxPoints(((400, 350), (150, 210), 7.0)).astype(np.int32), 255)
    cv2.fillConvexPoly(band, cv2.boxPoints(((400, 350), (150, 70), 7.0)).astype(np.int32), 255)
    table[card > 0] = (235, 235, 235)
    table[band > 0] = (30, 30, 30)
    # another card lying apart, as on an enrolment photo
    cv2.fillConvexPoly(
        table, cv2.boxPoints(((700, 380), (150, 210), -5.0)).astype(np.int32), (235, 235, 235)
    )
    white = (card > 0) & (band == 0)
    ys, xs = np.nonzero(white & (np.arange(700)[:, None] < 330))
    half = (float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max()))
    assert not looks_whole(card_cutout(table, half))
    index = ((half[0] + half[2]) / 2, half[1] + 15.0)  # the half's corner index
    face = whole_face(table, half, reach=230.0, marks=[index])
    height, width = face.shape[:2]
    assert abs(width / height - 150 / 210) < 0.06, width / height
    rows = face[:, :, 0].astype(float).mean(axis=1)
    third = height // 3
    assert rows[:third].mean() > 150 and rows[-third:].mean() > 150  # both white halves
    assert rows[third + 10 : 2 * third - 10].mean() < 90  # the band between them
    # a region that leaves out the card's own index is not taken for the card
    away = (half[2] + 120.0, half[3] + 200.0)
    kept = whole_face(table, half, reach=230.0, marks=[index, away])
    assert np.array_equal(kept, card_cutout(table, half))


def test_a_card_boxed_whole_keeps_its_cut_and_nothing_found_keeps_the_box() -> None:
    table = _table_with_a_card(9.0)
    ys, xs = np.nonzero(table[:, :, 0] > 200)
    box = (float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max()))
    assert np.array_equal(whole_face(table, box, reach=200.0), card_cutout(table, box))
    # a sliver on a plain grey photo: no card stands out around it, the box's cut is kept
    plain = np.full((300, 300, 3), 128, np.uint8)
    sliver = (100.0, 140.0, 200.0, 160.0)
    assert np.array_equal(whole_face(plain, sliver, reach=120.0), card_cutout(plain, sliver))


def _turned_on(
    table: np.ndarray,  # type: ignore[type-arg]
    card: tuple[int, int, int],
    angle: float,
) -> tuple[Box, list[tuple[float, float]]]:
    """Lay a card of colour `card` with two corner indices (and a pip) turned by `angle`
    in the middle of `table`; returns its box and its indices' centres."""
    width, height = 120, 170
    face = np.full((height, width, 3), card, np.uint8)
    ix, iy = INDEX_INSET
    centres = [(ix * width, iy * height), ((1 - ix) * width, (1 - iy) * height)]
    for x, y in centres:
        cv2.rectangle(face, (int(x - 6), int(y - 11)), (int(x + 6), int(y + 11)), (30, 30, 160), -1)
    cv2.circle(face, (width // 2, height // 2), 14, (30, 30, 160), -1)
    side = table.shape[0]
    turn = cv2.getRotationMatrix2D((width / 2, height / 2), angle, 1.0)
    turn[:, 2] += (side / 2 - width / 2, side / 2 - height / 2)
    on_table = cv2.warpAffine(face, turn, (side, side))
    inside = cv2.warpAffine(np.full((height, width), 255, np.uint8), turn, (side, side)) > 127
    table[inside] = on_table[inside]
    ys, xs = np.nonzero(inside)
    box = (float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max()))
    marks = [(float(p[0]), float(p[1])) for p in (turn @ np.array([x, y, 1.0]) for x, y in centres)]
    return box, marks


def _indices_at_corners(face: np.ndarray) -> bool:  # type: ignore[type-arg]
    """Dark ink in the face's top-left and bottom-right index places."""
    ix, iy = INDEX_INSET
    h, w = face.shape[:2]
    cells = [
        face[
            int(h * (cy - 0.04)) : int(h * (cy + 0.04)), int(w * (cx - 0.04)) : int(w * (cx + 0.04))
        ]
        for cy, cx in ((iy, ix), (1 - iy, 1 - ix))
    ]
    return all(cell[:, :, 1].mean() < 120 for cell in cells)


def test_a_turned_card_on_a_white_table_is_cut_where_its_indices_sit_at_its_corners() -> None:
    """A cream card lying turned on a white table: the brightest region of the box's cut
    is the table, so the box's cut kept the table around the turned card, card-shaped
    enough to pass, and a taught deck's scenes drew the card small and turned inside a
    rectangle of table. The card found on the table has its indices at its corners."""
    table = np.full((500, 500, 3), 250, np.uint8)
    box, marks = _turned_on(table, (150, 205, 235), 20.0)
    cut = card_cutout(table, box)
    assert looks_whole(cut) and np.mean(cut[:, :, 0] > 240) > 0.2  # table in its corners
    assert not _indices_at_corners(cut)
    chosen = whole_face(table, box, reach=220.0, marks=marks)
    assert abs(chosen.shape[1] / chosen.shape[0] - 120 / 170) < 0.05
    assert np.mean(chosen[:, :, 0] > 240) < 0.02  # the card alone
    assert _indices_at_corners(chosen)
    # without the marks nothing tells the two apart: the box's cut, as before
    assert np.array_equal(whole_face(table, box, reach=220.0), cut)


def test_a_card_nothing_tells_from_the_table_is_placed_by_its_two_indices() -> None:
    """A white card on a table nearly as white: no outline in the box, nothing standing
    out from the table; its two indices are found all the same and place it."""
    table = np.full((500, 500, 3), 236, np.uint8)
    box, marks = _turned_on(table, (244, 244, 244), 12.0)
    assert not _indices_at_corners(card_cutout(table, box))
    placed = whole_face(table, box, reach=220.0, marks=marks)
    assert abs(placed.shape[1] / placed.shape[0] - CARD_ASPECT) < 0.01
    assert _indices_at_corners(placed)
    assert placed[:, :, 0].mean() > 200  # card, with its pip, not the cut's dark corners
    # one index alone cannot place a card: the box's cut stays
    alone = whole_face(table, box, reach=220.0, marks=marks[:1])
    assert not _indices_at_corners(alone)
    # two indices of one long side taken for a diagonal imply a card turned across
    # its box: not cut so
    side = [marks[0], (marks[0][0], marks[1][1])]
    assert not _indices_at_corners(whole_face(table, box, reach=220.0, marks=side))


def test_corner_misfit_is_the_worst_index_distance_from_a_corner_place() -> None:
    ix, iy = INDEX_INSET
    assert corner_misfit(np.array([[ix, iy], [1 - ix, 1 - iy]])) == 0.0
    assert corner_misfit(np.array([[1 - ix, iy]])) == 0.0  # a four-index deck's corner
    assert (
        abs(corner_misfit(np.array([[ix, iy], [0.5, 0.5]])) - np.hypot(0.5 - ix, 0.5 - iy)) < 1e-9
    )
    assert corner_misfit(np.zeros((0, 2))) == 0.0
