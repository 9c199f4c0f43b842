"""A taught deck as a look the generator can deal: the person's own cards, as photographed.

Teaching a deck (`vision.deck_enrol`) keeps each enrolled card's face cut out and
straightened. `enrolled_look` turns those faces into a `DeckLook`, so the scene
renderer lays the real print, colour and wear of that deck in fans, rows and piles on
the generator's tables, and the locator can be adapted to it (`deck_locator`): what the
shipped locator does not find on an unseen deck, the reader's adaptation cannot read.

A face's corner indices are where the shipped locator finds them on the straightened
face (shown on a plain grey table, as it was trained to see cards): the surest one,
moved to the top-left if it was found at the bottom-right, and the same turned at the
bottom-right, as nearly every deck prints them; a face where it finds none gets those
corners at the size the other faces of the deck have (`DEFAULT_INDEX` when none has
any). A corner left unlabelled would teach the locator not to find it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

from shanghai.engine.cards import Card
from shanghai.vision.arrays import Box
from shanghai.vision.deck_store import StoredDeck
from shanghai.vision.pipeline import CardModels
from shanghai.vision.sources import SourceError, read_image

from .backs import BackStyle, render_back
from .drawing import rounded_alpha
from .faces import FACE_H, FACE_W, CardFace, DeckLook

__all__ = ["DEFAULT_INDEX", "EnrolledLook", "enrolled_look", "face_indices"]

DEFAULT_INDEX: Box = (4.0, 4.0, 50.0, 92.0)
"""A top-left index in face pixels (FACE_W x FACE_H) when no face of the deck shows one
the locator finds: about where common decks print it."""
CORNER_RADIUS = 12.0
TABLE_GREY = 96
"""The plain table a face is shown on to find its indices (a mid grey, darker than
card stock)."""
MIN_INDEX_CONF = 0.3
"""Least locating confidence for a box on a face to count as one of its indices."""


class EnrolledLook(DeckLook):
    """A taught deck's faces (`faces`: card -> face) as a generator look."""

    def __init__(self, name: str, deck: StoredDeck, faces: dict[Card, CardFace]) -> None:
        self.name = name
        self.family = deck.family
        self.held_out = False
        self.source = f"deck:{deck.name}"
        self._faces = faces

    def cards(self) -> tuple[Card, ...]:
        return tuple(self._faces)

    def render_face(self, card: Card) -> CardFace:
        return self._faces[card]

    def render_back(self) -> npt.NDArray[np.uint8]:
        """Backs are not taught; a plain one (the locator is not taught backs either)."""
        return render_back(BackStyle(pattern="lattice", colour=(60, 60, 120)), CORNER_RADIUS)


def face_indices(models: CardModels, face_bgr: npt.NDArray[np.uint8]) -> list[Box]:
    """The index boxes the locator finds on a straightened face (FACE_W x FACE_H
    pixels), the face shown in the middle of a plain table three times its size."""
    h, w = face_bgr.shape[:2]
    canvas = np.full((3 * h, 3 * w, 3), TABLE_GREY, np.uint8)
    canvas[h : 2 * h, w : 2 * w] = face_bgr
    index_xyxy, index_conf, _ = models.locate(canvas)
    boxes: list[Box] = []
    for k in np.argsort(-index_conf):
        box, conf = index_xyxy[k], float(index_conf[k])
        x0, y0, x1, y1 = (float(v) for v in box)
        cx, cy = (x0 + x1) / 2 - w, (y0 + y1) / 2 - h
        if conf < MIN_INDEX_CONF or not (0 <= cx < w and 0 <= cy < h):
            continue
        boxes.append(
            (
                max(0.0, x0 - w) * FACE_W / w,
                max(0.0, y0 - h) * FACE_H / h,
                min(float(w), x1 - w) * FACE_W / w,
                min(float(h), y1 - h) * FACE_H / h,
            )
        )
    return boxes


def _turned(box: Box) -> Box:
    """The box turned half a turn about the face's centre."""
    return (FACE_W - box[2], FACE_H - box[3], FACE_W - box[0], FACE_H - box[1])


def _pair(box: Box) -> tuple[Box, Box]:
    """A found index as the top-left one and its turned twin at bottom-right."""
    top = _turned(box) if (box[1] + box[3]) / 2 > FACE_H / 2 else box
    return top, _turned(top)


def _usual(found: dict[Card, list[Box]]) -> tuple[Box, Box]:
    """The usual two corners at the median size of the indices found on the deck."""
    sizes = [(b[2] - b[0], b[3] - b[1]) for boxes in found.values() for b in boxes]
    if not sizes:
        return _pair(DEFAULT_INDEX)
    w, h = (float(np.median([s[k] for s in sizes])) for k in (0, 1))
    return _pair((4.0, 4.0, 4.0 + w, 4.0 + h))


def _face(image_bgr: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """(FACE_H, FACE_W, 4) RGBA with the generator's rounded corners."""
    rgb = cv2.cvtColor(
        cv2.resize(image_bgr, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2RGB
    )
    alpha = rounded_alpha(FACE_W, FACE_H, CORNER_RADIUS)
    return np.dstack([rgb, alpha]).astype(np.uint8)


def enrolled_look(
    deck: StoredDeck, models: CardModels, cards: Sequence[Card] | None = None
) -> EnrolledLook:
    """The deck's enrolled faces (or those of `cards`) as a look. Raises `SourceError`
    for a face file that cannot be read (a deck folder changed by hand).

    The look's name carries a digest of its faces: `decks.face_of` caches faces per
    process by look name, so a deck enrolled again, or another folder's deck of the same
    name, read in one process was drawn with the faces cached first (found when two kept
    decks named alike were checked in one run: the second was photographed with the
    first one's cards)."""
    chosen = list(cards) if cards is not None else list(deck.cards)
    images: dict[Card, npt.NDArray[np.uint8]] = {}
    for card in chosen:
        path = deck.face_path(card)
        if not path.is_file():
            raise SourceError(f"deck {deck.name}: no face for {card} ({path.name})")
        face = cv2.resize(read_image(path), (FACE_W, FACE_H), interpolation=cv2.INTER_AREA)
        images[card] = np.asarray(face, dtype=np.uint8)
    found = {card: face_indices(models, image) for card, image in images.items()}
    usual = _usual(found)
    faces = {
        card: CardFace(
            rgba=_face(image), index_boxes=_pair(found[card][0]) if found[card] else usual
        )
        for card, image in images.items()
    }
    digest = hashlib.sha256()
    for card, image in images.items():
        digest.update(str(card).encode())
        digest.update(image.tobytes())
    return EnrolledLook(f"taught-{deck.name}-{digest.hexdigest()[:12]}", deck, faces)
