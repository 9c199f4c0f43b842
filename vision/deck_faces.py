"""A found card as the person teaching a deck sees it: cut out and straightened.

The locator gives each card an axis-aligned box; a card lying a little turned fills it
with table in the corners. `upright_card` finds the card inside its box (the largest
region brighter than the table, Otsu's threshold, with the other large pieces of the
card a dark band cuts apart: `_card_region`) and turns it upright, portrait, with a
perspective warp of its least-area rectangle. Where no such region fills most of the box
(a dark card, a light table), the box itself is kept: never a worse picture than the
box.

A textured table (carpet, wood grain) has bright specks that touch the card and
stretch its rectangle: on real photos of one deck on carpet, many cut-outs kept a strip
of carpet at a side. So the region is opened first (specks and thin bridges cut off),
and after the warp, edge rows and columns the card covers less than half of are
trimmed (at most `MAX_TRIM` of a side). The faces are what a person checks on the page
and what a taught deck's locator learns the deck's cards from (`enrolled_look`).

A box may hold only part of a card: the locator boxes a band card's white halves apart,
and where it finds one half and nothing of the other, that half is all the box holds.
Enrolment then looks for the card again as what stands out from the table around the
box (`whole_face`, `card_on_table`): enrolment photos show cards lying apart on a table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from .arrays import Box, Float32Array, Frame

__all__ = [
    "FACE_HEIGHT",
    "MARGIN",
    "card_cutout",
    "card_on_table",
    "looks_whole",
    "spanning_box",
    "upright_card",
    "whole_face",
]

FACE_HEIGHT = 280
"""Height of a straightened card (pixels): enough to check its name on a phone."""
MARGIN = 0.06
"""Share of the box's side cut around it, so the card's edge lies inside the cut."""
MIN_FILL = 0.35
"""Least share of the cut that the card region must cover to be taken for the card."""
OPENING = 0.04
"""The opening's kernel, as a share of the cut's shorter side."""
MAX_TRIM = 0.12
"""Most of a side's length trimmed from each edge after the warp."""
PIECE_SHARE = 0.25
"""Least area, as a share of the largest bright region's, of a region taken as another
piece of the same card (`_card_region`)."""
PIECE_EDGE = 0.1
"""A piece's centre lies at least this share of the cut's side from its edges: a
neighbour's corner reaching into the cut's margin is no piece of the card."""
CARD_SHAPES = (0.55, 0.95)
"""Width over height of a straightened whole card: 0.64 (Rook, bridge) to 0.72 (poker)
as printed, 0.69-0.82 as stored from a validation teach's photos (perspective and the
trim); the two faces of that teach cut from a half card's box came out 0.39 and 0.46."""
TABLE_SMOOTH = 0.02
"""The blur (sigma, a share of the reach) that averages a speckled table's specks into
its colour before the card is told from it (`card_on_table`)."""
TABLE_FITS = 3
TABLE_KEEP = 0.6
"""The table's colour plane is refitted on this share of the window's edge pixels that
fit it best (`_table_colour`)."""
TABLE_CONTRAST = 18.0
"""Least colour distance (CIELAB, 8-bit scale) from the table for a pixel to be card."""


def card_cutout(frame: Frame, xyxy: Box) -> Frame:
    """The box with `MARGIN` around it (clipped to the frame), straightened."""
    x0, y0, x1, y1 = xyxy
    pad = MARGIN * max(x1 - x0, y1 - y0)
    h, w = frame.shape[:2]
    left, top = max(0, round(x0 - pad)), max(0, round(y0 - pad))
    right, bottom = min(w, round(x1 + pad)), min(h, round(y1 + pad))
    return upright_card(np.ascontiguousarray(frame[top:bottom, left:right]))


def spanning_box(boxes: npt.NDArray[np.float32]) -> Box:
    """The box spanning all of (N, 4) `boxes`, one card's pieces. Enrolment cuts a
    card's face from it: a card the locator boxes as two halves (a Rook look's dark
    band between them) or as a box and a lone corner was cut from its first piece
    alone, and that half was stored as the card's face."""
    x0, y0 = boxes[:, :2].min(axis=0)
    x1, y1 = boxes[:, 2:].max(axis=0)
    return float(x0), float(y0), float(x1), float(y1)


def _scaled(image: Frame, height: int = FACE_HEIGHT) -> Frame:
    h, w = image.shape[:2]
    if h == 0 or w == 0:
        return image
    width = max(1, round(w * height / h))
    return np.asarray(cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA), np.uint8)


def _corners(rect: tuple[Sequence[float], Sequence[float], float]) -> Float32Array:
    """The rectangle's corners as top-left, top-right, bottom-right, bottom-left."""
    points = cv2.boxPoints(rect).astype(np.float32)
    sums, diffs = points.sum(axis=1), points[:, 1] - points[:, 0]
    return np.array(
        [
            points[sums.argmin()],
            points[diffs.argmin()],
            points[sums.argmax()],
            points[diffs.argmax()],
        ],
        np.float32,
    )


def _card_region(contours: Sequence[npt.NDArray[Any]], shape: tuple[int, ...]) -> npt.NDArray[Any]:
    """The card's outline among the bright regions of the cut: the convex hull of the
    largest and of every region at least `PIECE_SHARE` of it whose centre lies off the
    cut's margin (`PIECE_EDGE`). A card with a dark band across its middle (a Rook
    look's coloured band) is two bright halves with the band between: the largest
    alone was half a card, and enrolment stored that half as the card's face, which a
    taught deck's scenes then drew stretched to a whole card."""
    largest = max(contours, key=cv2.contourArea)
    least = PIECE_SHARE * cv2.contourArea(largest)
    h, w = shape
    pieces = [largest]
    for contour in contours:
        if contour is largest or cv2.contourArea(contour) < least:
            continue
        m = cv2.moments(contour)
        x, y = m["m10"] / m["m00"], m["m01"] / m["m00"]
        if (
            PIECE_EDGE * w <= x <= (1 - PIECE_EDGE) * w
            and PIECE_EDGE * h <= y <= (1 - PIECE_EDGE) * h
        ):
            pieces.append(contour)
    if len(pieces) == 1:
        return largest
    return np.asarray(cv2.convexHull(np.concatenate(pieces)))


def upright_card(cut: Frame, *, height: int = FACE_HEIGHT) -> Frame:
    """(height, W, 3) the card in `cut` straightened and in portrait, or `cut` scaled."""
    if cut.size == 0 or min(cut.shape[:2]) < 8:
        return cut
    gray = cv2.GaussianBlur(cv2.cvtColor(cut, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    _, mask = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    # fill every region (a court card's print inside its white border), then open
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(mask, contours, -1, 255, thickness=cv2.FILLED)
    side = max(3, round(OPENING * min(cut.shape[:2])) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return _scaled(cut, height)
    largest = _card_region(contours, cut.shape[:2])
    if cv2.contourArea(largest) < MIN_FILL * cut.shape[0] * cut.shape[1]:
        return _scaled(cut, height)
    face = _straightened(cut, largest, height)
    return _scaled(cut, height) if face is None else face


def _straightened(cut: Frame, region: npt.NDArray[Any], height: int) -> Frame | None:
    """The card whose outline is `region` (a contour in `cut`), warped upright and in
    portrait by its least-area rectangle and trimmed; None for a sliver."""
    rect = cv2.minAreaRect(region)
    corners = _corners(rect)
    top = float(np.linalg.norm(corners[1] - corners[0]))
    side = float(np.linalg.norm(corners[3] - corners[0]))
    if top < 4 or side < 4:
        return None
    if top > side:  # lying across: start from another corner so the card stands up
        corners = np.roll(corners, -1, axis=0)
        top, side = side, top
    width = max(1, round(height * top / side))
    target = np.array(
        [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]], np.float32
    )
    warp = cv2.getPerspectiveTransform(corners, target)
    out = cv2.warpPerspective(cut, warp, (width, height), flags=cv2.INTER_AREA)
    card = np.zeros(cut.shape[:2], np.uint8)
    cv2.drawContours(card, [region], -1, 255, thickness=cv2.FILLED)
    covered = cv2.warpPerspective(card, warp, (width, height), flags=cv2.INTER_NEAREST) > 0
    return _trimmed(np.asarray(out, np.uint8), covered, height)


def looks_whole(face: Frame) -> bool:
    """Whether a straightened face has a whole card's shape (`CARD_SHAPES`)."""
    h, w = face.shape[:2]
    return bool(h > 0 and CARD_SHAPES[0] <= w / h <= CARD_SHAPES[1])


def card_on_table(
    frame: Frame, xyxy: Box, reach: float, marks: Sequence[tuple[float, float]] = ()
) -> Frame | None:
    """The card holding the box `xyxy` and the points `marks` (its indices' centres),
    found as what stands out from the table around it, straightened; None where it does
    not stand apart (it touches the window's edge, nothing there differs from the table,
    or the region found leaves out a mark).

    Why: a card cut in two by a dark band is boxed by the locator as its white halves,
    and where one half and its index go unfound the other half's box is all there is:
    the brightest region inside it is half a card. Enrolment photos show cards lying
    apart on a table, so the card is the region around the box whose colour is not the
    table's, the band included. Looked for within `reach` pixels (about a card's larger
    side) of the box; the table's colour is a plane fitted to the window's edge
    (`_table_colour`), its speckle smoothed away first (`TABLE_SMOOTH`). The region must
    hold the card's own indices: where a card's white matches a light table, the band
    alone stands out, and it was taken for the card."""
    x0, y0, x1, y1 = xyxy
    h, w = frame.shape[:2]
    left, top = max(0, round(x0 - reach)), max(0, round(y0 - reach))
    right, bottom = min(w, round(x1 + reach)), min(h, round(y1 + reach))
    cut = np.ascontiguousarray(frame[top:bottom, left:right])
    if min(cut.shape[:2]) < 16:
        return None
    sigma = max(1.0, TABLE_SMOOTH * reach)
    lab = cv2.cvtColor(cv2.GaussianBlur(cut, (0, 0), sigma), cv2.COLOR_BGR2LAB).astype(np.float32)
    ring = max(2, round(0.03 * min(cut.shape[:2])))
    edge = np.ones(cut.shape[:2], bool)
    edge[ring:-ring, ring:-ring] = False
    distance = np.clip(np.linalg.norm(lab - _table_colour(lab, edge), axis=2), 0, 255)
    distance = distance.astype(np.uint8)
    # Table and cards: two modes of the distance (Otsu), however speckled the table.
    otsu, _ = cv2.threshold(distance, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = (distance > max(TABLE_CONTRAST, otsu)).astype(np.uint8) * 255
    # The blur mixes a band's dark and the card's white into the table's grey along
    # their edge: a seam the closing bridges.
    seam = max(3, round(2 * sigma) | 1)
    mask = cv2.morphologyEx(
        mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (seam, seam))
    )
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(mask, contours, -1, 255, thickness=cv2.FILLED)
    count, labels = cv2.connectedComponents(mask)
    inside = labels[
        max(0, round(y0) - top) : max(0, round(y1) - top),
        max(0, round(x0) - left) : max(0, round(x1) - left),
    ]
    held = np.bincount(inside.ravel(), minlength=count)
    held[0] = 0
    if count < 2 or held.max() == 0:
        return None
    region = labels == int(held.argmax())
    ys, xs = np.nonzero(region)
    if (
        ys.min() <= ring
        or xs.min() <= ring
        or ys.max() >= cut.shape[0] - 1 - ring
        or (xs.max() >= cut.shape[1] - 1 - ring)
    ):
        return None
    outline, _ = cv2.findContours(
        region.astype(np.uint8) * 255, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE
    )
    card = max(outline, key=cv2.contourArea)
    # The marks are tested against the card's rectangle, not its pixels: a corner whose
    # white matches the table drops out of the region, the index printed there with it.
    rectangle = cv2.boxPoints(cv2.minAreaRect(card)).astype(np.float32)
    for x, y in marks:
        if cv2.pointPolygonTest(rectangle, (float(x - left), float(y - top)), False) < 0:
            return None
    return _straightened(cut, card, FACE_HEIGHT)


def _table_colour(lab: npt.NDArray[np.float32], edge: npt.NDArray[np.bool_]) -> npt.NDArray[Any]:
    """(H, W, 3) the table's colour under every pixel of `lab`: a plane in x and y
    fitted to the `edge` pixels, refitted `TABLE_FITS` times on the `TABLE_KEEP` share
    that fits best (the cards the edge crosses are left out). One colour for the whole
    window took the lit half of a table with a light gradient for card."""
    h, w = edge.shape
    ys, xs = np.nonzero(edge)
    step = max(1, len(ys) // 4000)
    ys, xs = ys[::step], xs[::step]
    design = np.stack([np.ones(len(xs)), xs / w, ys / h], axis=1)
    values = lab[ys, xs].astype(np.float64)
    keep = np.ones(len(ys), bool)
    coef = np.zeros((3, 3))
    for _ in range(TABLE_FITS):
        coef = np.linalg.lstsq(design[keep], values[keep], rcond=None)[0]
        residual = np.linalg.norm(design @ coef - values, axis=1)
        keep = residual <= np.quantile(residual, TABLE_KEEP)
    gy, gx = np.mgrid[0:h, 0:w]
    return np.asarray(
        coef[0] + np.multiply.outer(gx / w, coef[1]) + np.multiply.outer(gy / h, coef[2]),
        np.float32,
    )


def whole_face(
    frame: Frame, xyxy: Box, reach: float, marks: Sequence[tuple[float, float]] = ()
) -> Frame:
    """The card boxed by `xyxy` cut out and straightened (`card_cutout`); where that is
    not a whole card's shape (`looks_whole`), the card found on the table around the box
    (`card_on_table`, within `reach` pixels, about a card's larger side, holding the
    `marks`, its indices' centres) when that one is. Else the box's cut as before:
    never a worse picture than the box."""
    face = card_cutout(frame, xyxy)
    if looks_whole(face):
        return face
    found = card_on_table(frame, xyxy, reach, marks)
    return found if found is not None and looks_whole(found) else face


def _trimmed(face: Frame, covered: npt.NDArray[np.bool_], height: int) -> Frame:
    """`face` without the edge rows and columns the card covers less than half of (at
    most `MAX_TRIM` of a side each), scaled back to `height`."""
    h, w = covered.shape

    def span(share: npt.NDArray[np.float64], n: int) -> tuple[int, int]:
        most = int(MAX_TRIM * n)
        start = 0
        while start < most and share[start] < 0.5:
            start += 1
        end = n
        while n - end < most and share[end - 1] < 0.5:
            end -= 1
        return start, end

    top, bottom = span(covered.mean(axis=1), h)
    left, right = span(covered.mean(axis=0), w)
    if (top, bottom, left, right) == (0, h, 0, w):
        return face
    return _scaled(np.ascontiguousarray(face[top:bottom, left:right]), height)
