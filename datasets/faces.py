"""Card faces: the rendered picture of one card of one deck look, with its index boxes.

Every look renders at one fixed size (`FACE_W` x `FACE_H` pixels, poker proportions);
scenes warp these cached pictures into place, so each face is drawn once per process.
Index boxes are stated in face pixels, measured from the ink actually drawn (code
looks) or from the art (SVG looks), so the labels follow the pictures.
"""

from __future__ import annotations

import abc
import zlib
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from PIL import Image

from shanghai.engine.cards import Card, DeckFamily, cards_of_family

from .drawing import SUPERSAMPLE, Box, rounded_alpha

__all__ = [
    "CARD_H_MM",
    "CARD_W_MM",
    "FACE_H",
    "FACE_W",
    "CardFace",
    "DeckLook",
    "stable_seed",
]

FACE_W, FACE_H = 250, 350
"""Size of every rendered face and back in pixels (width, height)."""
CARD_W_MM, CARD_H_MM = 63.0, 88.0
"""Physical size of a poker card; scenes are laid out in millimetres."""


def stable_seed(*parts: object) -> int:
    """A seed from text parts that is the same in every process (`hash()` is not)."""
    return zlib.crc32("\x1f".join(str(p) for p in parts).encode())


@dataclass(frozen=True, slots=True)
class CardFace:
    """One rendered face.

    `rgba` is (FACE_H, FACE_W, 4) uint8, alpha 0 outside the rounded corners.
    `index_boxes` are the corner indices as `(x0, y0, x1, y1)` face pixels; most decks
    have two (top-left and bottom-right, the second upside down), some four.
    """

    rgba: npt.NDArray[np.uint8]
    index_boxes: tuple[Box, ...]


class DeckLook(abc.ABC):
    """One deck design. Subclasses draw faces in code or load them from SVG art.

    `held_out` looks are used only in the test split, so test numbers say how the
    models do on a deck they have never seen. `train_only` looks (the randomised code
    looks) are used only in the train split: val and test keep the fixed looks.
    `val_only` looks (`decks.unseen_val_looks`) are drawn only in the unseen-validation
    split (`splits.UNSEEN_VAL`): decks no model trained on and the test never shows, so
    what is meant for decks the model never saw can be chosen without looking at test.
    """

    name: str
    family: DeckFamily
    held_out: bool
    train_only: bool = False
    val_only: bool = False
    system_fonts: bool = False
    """Drawn in a Debian font (`fonts.SYSTEM_FONT_FILES`): such looks exist only where
    those fonts are installed (`decks.code_looks`)."""
    source: str
    """Where the art comes from: `code` or `npm:<package>@<version>` (see THIRD_PARTY.md)."""

    def cards(self) -> tuple[Card, ...]:
        """The distinct faces this look has (a whole deck family by default)."""
        return tuple(cards_of_family(self.family))

    @abc.abstractmethod
    def render_face(self, card: Card) -> CardFace:
        """Draw one face; called once per (look, card) per process, then cached."""

    @abc.abstractmethod
    def render_back(self) -> npt.NDArray[np.uint8]:
        """The back of this deck, (FACE_H, FACE_W, 4) uint8 RGBA."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def stamp_corners(img: Image.Image, layer: Image.Image, ink: Box) -> tuple[Image.Image, list[Box]]:
    """Composite an index `layer` at the top-left and, turned, at the bottom-right of a
    supersampled face; returns the turned layer and both ink boxes."""
    w, h = img.size
    turned = layer.rotate(180)
    img.alpha_composite(layer)
    img.alpha_composite(turned)
    return turned, [ink, (w - ink[2], h - ink[3], w - ink[0], h - ink[1])]


def finish_face(img: Image.Image, boxes: list[Box], corner_radius: float) -> CardFace:
    """Shrink a supersampled face to FACE_W x FACE_H with rounded corners, and turn the
    supersampled ink boxes into face-pixel index boxes with a small margin."""
    rgba = np.array(img.resize((FACE_W, FACE_H), Image.Resampling.BOX), dtype=np.uint8)
    rgba[..., 3] = rounded_alpha(FACE_W, FACE_H, corner_radius)
    pad, s = 2.0, SUPERSAMPLE
    index_boxes = tuple(
        (b[0] / s - pad, b[1] / s - pad, b[2] / s + pad, b[3] / s + pad) for b in boxes
    )
    return CardFace(rgba=rgba, index_boxes=index_boxes)
