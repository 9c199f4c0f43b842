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

Either cut can keep the table: on a table as light as the card (or lighter) the box's
brightest region is the table, and what stands out from it can be a part of the card.
A card cut right has its indices where cards print them, near two opposite corners, so
enrolment, which knows the card's index centres, keeps the cut that puts them nearest
those places (`corner_misfit`), and where neither is near, places the card by its two
indices (`_by_indices`). The faces matter beyond the page: a taught deck's scenes draw
them, and its reader learns from those scenes (docs/decks.md, 2026-12-07).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from .arrays import Box, Float32Array, Float64Array, Frame
from .box_overlap import box_iou
from .card_model import CARD_ASPECT, INDEX_INSET

__all__ = [
    "FACE_HEIGHT",
    "MARGIN",
    "card_cutout",
    "card_on_table",
    "corner_misfit",
    "looks_whole",
    "spanning_box",
    "upright_card",
    "whole_face",
]

FACE_HEIGHT = 350
"""Height of a straightened card (pixels): the height the generator draws every face at
(`datasets.faces.FACE_H`), since a taught deck's scenes are drawn from these faces.
At 280 (enough to check a name on a phone) a face was blown up again for the scenes,
and a deck reader taught on the printed faces shrunk to 280 and back lost what the
printed faces gave it close up (docs/decks.md, 2026-12-07, second session)."""
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
MISFIT_MOST = 0.05
"""Most `corner_misfit` of a face cut by the card's outline; beyond it the card is cut
by where its indices lie (`_by_indices`). Decks print their index centres 0.07 to 0.12
of a side in from the corner (`card_model.INDEX_INSET`): a card cut by its own edges
lies within about 0.035 of the places; 0.05 is more than decks differ by."""
BOX_AGREES = 0.7
"""Least IoU of the card that two index centres imply (`_by_indices`) with the card's
box for that card to be cut: two indices of one long side (a four-index deck), taken
for a diagonal, imply a card turned across the box."""


def card_cutout(frame: Frame, xyxy: Box) -> Frame:
    """The box with `MARGIN` around it (clipped to the frame), straightened."""
    return _cutout(frame, xyxy)[0]


def _cutout(frame: Frame, xyxy: Box) -> tuple[Frame, Float64Array]:
    """`card_cutout`, and the homography from frame pixels to the face's fractions."""
    x0, y0, x1, y1 = xyxy
    pad = MARGIN * max(x1 - x0, y1 - y0)
    h, w = frame.shape[:2]
    left, top = max(0, round(x0 - pad)), max(0, round(y0 - pad))
    right, bottom = min(w, round(x1 + pad)), min(h, round(y1 + pad))
    face, to_face = _upright(np.ascontiguousarray(frame[top:bottom, left:right]), FACE_HEIGHT)
    return face, to_face @ _shift(-left, -top)


def _shift(dx: float, dy: float) -> Float64Array:
    return np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])


def _scale(sx: float, sy: float) -> Float64Array:
    return np.array([[sx, 0.0, 0.0], [0.0, sy, 0.0], [0.0, 0.0, 1.0]])


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
    return _upright(cut, height)[0]


def _upright(cut: Frame, height: int) -> tuple[Frame, Float64Array]:
    """`upright_card`, and the homography from `cut`'s pixels to the face's fractions
    (x over its width, y over its height)."""
    kept = _scaled(cut, height), _scale(1 / max(1, cut.shape[1]), 1 / max(1, cut.shape[0]))
    if cut.size == 0 or min(cut.shape[:2]) < 8:
        return cut, kept[1]
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
        return kept
    largest = _card_region(contours, cut.shape[:2])
    if cv2.contourArea(largest) < MIN_FILL * cut.shape[0] * cut.shape[1]:
        return kept
    face = _straightened(cut, largest, height)
    return kept if face is None else face


def _straightened(
    cut: Frame, region: npt.NDArray[Any], height: int
) -> tuple[Frame, Float64Array] | None:
    """The card whose outline is `region` (a contour in `cut`), warped upright and in
    portrait by its least-area rectangle and trimmed, with the homography from `cut`'s
    pixels to the face's fractions; None for a sliver."""
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
    face, (y0, y1, x0, x1) = _trimmed(np.asarray(out, np.uint8), covered, height)
    to_face = _scale(1 / max(1, x1 - x0), 1 / max(1, y1 - y0)) @ _shift(-x0, -y0) @ warp
    return face, np.asarray(to_face, np.float64)


def looks_whole(face: Frame) -> bool:
    """Whether a straightened face has a whole card's shape (`CARD_SHAPES`)."""
    h, w = face.shape[:2]
    return bool(h > 0 and CARD_SHAPES[0] <= w / h <= CARD_SHAPES[1])


def card_on_table(
    frame: Frame, xyxy: Box, reach: float, marks: Sequence[tuple[float, float]] = ()
) -> Frame | None:
    """`_on_table`'s face alone."""
    found = _on_table(frame, xyxy, reach, marks)
    return None if found is None else found[0]


def _on_table(
    frame: Frame, xyxy: Box, reach: float, marks: Sequence[tuple[float, float]] = ()
) -> tuple[Frame, Float64Array] | None:
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
    alone stands out, and it was taken for the card. Returned with the homography from
    frame pixels to the face's fractions."""
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
    found = _straightened(cut, card, FACE_HEIGHT)
    if found is None:
        return None
    return found[0], found[1] @ _shift(-left, -top)


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
    """The card boxed by `xyxy` cut out and straightened: of the box's cut
    (`card_cutout`) and the card found on the table around the box (`card_on_table`,
    within `reach` pixels, about a card's larger side, holding the `marks`, its indices'
    centres), those of a whole card's shape (`looks_whole`), the one whose marks lie
    where a card's indices do (`corner_misfit`; the box's cut where they tie or no mark
    is given). Where neither puts them within `MISFIT_MOST` of those places, the card
    placed by its two indices (`_by_indices`), if that card fills the box. Else the
    box's cut: never a worse picture than the box.

    Why the marks choose: on a light or speckled table the box's cut can hold the table
    around a card lying turned inside it (Otsu's card region took the table too, or none
    was found and the box was kept), still of a card's shape; a taught deck's scenes then
    drew that card small and turned inside a rectangle of table (15 of 53 faces of a
    validation deck, 2026-12-07). A face straightened right has its indices at its
    corners."""
    cut = _cutout(frame, xyxy)
    if not marks and looks_whole(cut[0]):
        return cut[0]
    found = _on_table(frame, xyxy, reach, marks)
    whole = [c for c in (cut, found) if c is not None and looks_whole(c[0])]
    if not marks:
        return whole[0][0] if whole else cut[0]
    points = np.array([[x, y, 1.0] for x, y in marks])
    misfits = []
    for _, to_face in whole:
        mapped = points @ to_face.T
        misfits.append(corner_misfit(mapped[:, :2] / mapped[:, 2:3]))
    if whole and min(misfits) <= MISFIT_MOST:
        return whole[int(np.argmin(misfits))][0]
    placed = _by_indices(frame, xyxy, marks)
    if placed is not None:
        return placed
    return whole[int(np.argmin(misfits))][0] if whole else cut[0]


def _by_indices(frame: Frame, xyxy: Box, marks: Sequence[tuple[float, float]]) -> Frame | None:
    """The card whose opposite corner indices are centred at the two `marks` farthest
    apart, warped (turn, scale, shift) so that they land where a card prints them
    (`card_model.INDEX_INSET`), in portrait; None with fewer than two marks or where the
    card so placed does not fill the box `xyxy` (`BOX_AGREES`).

    Why: on a table as light as the card, or under a shadow, neither the card's outline
    in its box nor what stands out from the table gives the card, and the cut keeps the
    card turned inside a rectangle of table; its indices are found all the same. The
    upper index is taken for the top-left one (a card turned half round shows the same
    face); of the two diagonals, the card whose box agrees with the locator's."""
    if len(marks) < 2:
        return None
    points = np.array(marks, np.float64)
    apart = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=2)
    i, j = np.unravel_index(int(apart.argmax()), apart.shape)
    if apart[i, j] < 8:
        return None
    first, second = (
        (points[i], points[j]) if points[i][1] <= points[j][1] else (points[j], points[i])
    )
    height = FACE_HEIGHT
    width = round(CARD_ASPECT * height)
    ix, iy = INDEX_INSET
    outline = np.array([[0.0, 0.0], [width, 0.0], [width, height], [0.0, height]])
    best: tuple[float, Float64Array] | None = None
    for top in (ix * width, (1 - ix) * width):  # top-left -> bottom-right, or the other diagonal
        to = complex(width - top, (1 - iy) * height) - complex(top, iy * height)
        frm = complex(*(second - first))
        turn = to / frm  # scale and turn, as one complex factor
        shift = complex(top, iy * height) - turn * complex(*first)
        warp = np.array(
            [[turn.real, -turn.imag, shift.real], [turn.imag, turn.real, shift.imag]], np.float64
        )
        back = cv2.invertAffineTransform(warp)
        corners = outline @ back[:, :2].T + back[:, 2]
        box = (*corners.min(axis=0), *corners.max(axis=0))
        agreement = float(box_iou(box, xyxy))
        if best is None or agreement > best[0]:
            best = agreement, warp
    assert best is not None
    if best[0] < BOX_AGREES:
        return None
    face = cv2.warpAffine(
        frame, best[1], (width, height), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
    )
    return np.asarray(face, np.uint8)


def corner_misfit(fractions: Float64Array) -> float:
    """How far (in shares of the face's width and height) the worst of the (N, 2)
    `fractions` (x over the face's width, y over its height) lies from the nearest place
    a card prints an index (`card_model.INDEX_INSET` in from any corner)."""
    ix, iy = INDEX_INSET
    places = np.array([[ix, iy], [1 - ix, iy], [1 - ix, 1 - iy], [ix, 1 - iy]])
    gaps = np.linalg.norm(fractions[:, None, :] - places[None, :, :], axis=2).min(axis=1)
    return float(gaps.max()) if len(gaps) else 0.0


def _trimmed(
    face: Frame, covered: npt.NDArray[np.bool_], height: int
) -> tuple[Frame, tuple[int, int, int, int]]:
    """`face` without the edge rows and columns the card covers less than half of (at
    most `MAX_TRIM` of a side each), scaled back to `height`; and the rows and columns
    kept (top, bottom, left, right)."""
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
        return face, (0, h, 0, w)
    kept = _scaled(np.ascontiguousarray(face[top:bottom, left:right]), height)
    return kept, (top, bottom, left, right)
