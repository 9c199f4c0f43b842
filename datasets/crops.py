"""Index crops for the reader (an ultralytics classify model).

The crop geometry lives in `shanghai.vision.crops` so that the runtime and the training
data cut an index out with the same code; this module re-exports it for the data
generator. Training crops jitter the centre and the margin around that contract
(`write_index_crops`, used by the generator and by a taught deck's reader step).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection
from pathlib import Path

import cv2
import numpy as np

from shanghai.engine.cards import CARD_CLASSES, Card
from shanghai.vision.arrays import Box, Frame
from shanghai.vision.card_model import turn
from shanghai.vision.crops import CROP_CONTEXT, CROP_SIZE, square_crop
from shanghai.vision.face_kind import FACE_CONTEXT, FACE_KINDS, face_crop, face_kind
from shanghai.vision.upright import UPRIGHT_CLASSES, turned_card, upright_crop

from .labels import index_box
from .scene import Rendered
from .writer import write_crop

__all__ = [
    "CROP_CONTEXT",
    "CROP_SIZE",
    "UPRIGHT_COPIES",
    "UPRIGHT_JITTER_DEG",
    "half_turn",
    "square_crop",
    "write_face_crops",
    "write_index_crops",
    "write_upright_crops",
    "write_upright_index_crops",
]

UPRIGHT_COPIES = 3
"""Cuts of each Rook 6 or 9 index, each with its own jitter: they are 2 of a Rook
deck's 14 ranks, so a scene holds few."""
UPRIGHT_JITTER_DEG = 15.0
"""Spread (standard deviation) of the turn added to an upright crop: the scan's up comes
from a card's fitted pose, which is off by some degrees on covered cards."""


def write_index_crops(
    root: Path,
    split: str,
    stem: str,
    rendered: Rendered,
    rng: np.random.Generator,
    size: int = CROP_SIZE,
) -> Counter[str]:
    """Cut every visible index of `rendered` as a reader crop (the runtime's crop with a
    jittered margin and centre, as a locator's box is never exact) into `root/split/CARD/`;
    returns how many crops each card got."""

    def cut(image: Frame, box: Box, context: float, shift: tuple[float, float]) -> Frame:
        return square_crop(image, box, size=size, context=CROP_CONTEXT * context, shift=shift)

    return _write_crops(root, split, stem, rendered, rng, cut, str, CARD_CLASSES)


def half_turn(folder: Path, share: float, rng: np.random.Generator) -> int:
    """Turn about `share` of the crops under `folder` (`CLASS/*.png`) half a turn in
    place; returns how many were turned.

    Why: the runtime reads every crop both ways up and averages the two
    (`vision.pipeline.CardModels`, `turned`), as a corner index is printed both ways up.
    But photos of a hand show mostly upright indices (a fan or a row covers each card's
    bottom corner), so crops cut from them hold few upside-down ones and a reader
    fine-tuned on them reads the turned view worse: a taught deck's reader on the
    upright indices of 80 validation photos (rook-teach-band) read 0.942 of them right
    as cut and 0.907 turned, and once read a crisp 13R at 0.99 one way and 10R at 0.99
    the other. Turned crops teach both ways alike (docs/decks.md, 2026-12-05)."""
    turned = 0
    for path in sorted(folder.glob("*/*.png")):
        if rng.random() >= share:
            continue
        crop = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if crop is None:
            raise ValueError(f"{path}: not a readable image")
        cv2.imwrite(str(path), np.ascontiguousarray(crop[::-1, ::-1]))
        turned += 1
    return turned


def write_face_crops(
    root: Path, split: str, stem: str, rendered: Rendered, rng: np.random.Generator
) -> Counter[str]:
    """Cut the face crop (`vision.face_kind.face_crop`) around every visible index of
    `rendered` into `root/split/KIND/`, KIND the card's `face_kind`, with the reader
    crops' jitter; returns how many crops each kind got."""

    def cut(image: Frame, box: Box, context: float, shift: tuple[float, float]) -> Frame:
        return face_crop(image, box, context=FACE_CONTEXT * context, shift=shift)

    return _write_crops(root, split, stem, rendered, rng, cut, face_kind, FACE_KINDS)


def _write_crops(
    root: Path,
    split: str,
    stem: str,
    rendered: Rendered,
    rng: np.random.Generator,
    cut: Callable[[Frame, Box, float, tuple[float, float]], Frame],
    folder: Callable[[Card], str],
    classes: Collection[str],
) -> Counter[str]:
    """Every visible index of `rendered`, cut by `cut` (image, index box, context factor,
    centre shift) into `root/split/folder(card)/`."""
    made: Counter[str] = Counter()
    h, w = rendered.image.shape[:2]
    k = 0
    for label in rendered.labels():
        for ix in label.indices:
            if ix.state != "visible":
                continue
            crop = cut(
                rendered.image,
                index_box(ix.quad, w, h),
                float(rng.uniform(0.88, 1.15)),
                (float(rng.normal(0, 0.04)), float(rng.normal(0, 0.04))),
            )
            name = folder(label.placement.card)
            write_crop(root, split, name, f"{stem}-{k}", crop, classes)
            made[name] += 1
            k += 1
    return made


def write_upright_crops(
    root: Path, split: str, stem: str, rendered: Rendered, rng: np.random.Generator
) -> Counter[str]:
    """Every visible index of a Rook 6 or 9 in `rendered`, turned upright by its card's
    true pose with a jittered turn (`vision.upright.upright_crop`), `UPRIGHT_COPIES`
    times, into `root/split/RANK/`, for the upright 6-or-9 check; returns how many
    crops each rank got."""

    def rank(card: Card) -> str | None:
        return str(card.rank) if turned_card(card) is not None else None

    return _write_upright(root, split, stem, rendered, rng, rank, UPRIGHT_CLASSES, UPRIGHT_COPIES)


def write_upright_index_crops(
    root: Path, split: str, stem: str, rendered: Rendered, rng: np.random.Generator
) -> Counter[str]:
    """Every visible index of `rendered`, turned upright as `write_upright_crops` turns
    a Rook 6 or 9, once, into `root/split/CARD/`, for the upright reader (a reader of
    every card that only ever sees an index the right way up); returns how many crops
    each card got."""
    return _write_upright(root, split, stem, rendered, rng, str, CARD_CLASSES, 1)


def _write_upright(
    root: Path,
    split: str,
    stem: str,
    rendered: Rendered,
    rng: np.random.Generator,
    folder: Callable[[Card], str | None],
    classes: Collection[str],
    copies: int,
) -> Counter[str]:
    """Every visible index of a card `folder` names (None: skipped), turned upright by
    the card's true pose with a jittered turn, `copies` times, into
    `root/split/folder(card)/`. An index is printed upright from its own corner: its up
    is the card's top edge's side for an index in the card's top half, the bottom
    edge's for one in the bottom half."""
    made: Counter[str] = Counter()
    h, w = rendered.image.shape[:2]
    k = 0
    for label in rendered.labels():
        name = folder(label.placement.card)
        if name is None:
            continue
        corners = np.asarray(label.quad, dtype=np.float64)
        top = corners[0] - corners[3]
        top /= max(float(np.hypot(*top)), 1e-9)
        for ix in label.indices:
            if ix.state != "visible":
                continue
            x0, y0, x1, y1 = index_box(ix.quad, w, h)
            centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
            up = top if float((centre - corners.mean(axis=0)) @ top) > 0 else -top
            for _ in range(copies):
                side = max(x1 - x0, y1 - y0) * CROP_CONTEXT * float(rng.uniform(0.88, 1.15))
                at = centre + rng.normal(0.0, 0.04, 2) * side
                turned = turn(up, float(rng.normal(0.0, UPRIGHT_JITTER_DEG)))
                crop = upright_crop(rendered.image, (float(at[0]), float(at[1])), side, turned)
                write_crop(root, split, name, f"{stem}-{k}", crop, classes)
                made[name] += 1
                k += 1
    return made
