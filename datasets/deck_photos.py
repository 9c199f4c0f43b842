"""Photos for teaching a deck: cards of one look lying apart on a table, labelled.

What a person does before `shanghai deck enroll`: lay the cards out face up, apart,
a few at a time, and photograph them from above. `enrolment_photos` renders such photos
with the scene composer (a table surface, light, blur, JPEG) and writes the labels CSV
the enrolment reads (`vision.deck_enrol.read_labels`). The benchmark
(`tests/benchmarks/deck_teach.py`) and the tests use it.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from shanghai.engine.cards import Card

from .camera import sample_camera
from .faces import CARD_H_MM, CARD_W_MM, DeckLook
from .hand_photos import _card_corners, _framed
from .layouts import Layout, Placement
from .scene import Rendered, render_scene
from .splits import choose_background

__all__ = ["cards_apart", "enrolment_photos"]

STEADY_BLUR_PX = 2.0
"""`enrolment_photos` draws a photo again while the renderer's blur reaches further than
this (`Rendered.blur_px`): a person teaching a deck takes a shaken photo again, since
the enrolment refuses blurred ones (`vision.deck_enrol.check_sharp`). On four
validation looks, 1 card of 376 photographed with blur up to this failed that check
(a yellow 6 at 1.9 px)."""
STEADY_TRIES = 20
"""Draws of one photo at most before a blurred one is kept anyway (about one in three
is blurred further than `STEADY_BLUR_PX`)."""


def cards_apart(
    look: DeckLook,
    cards: Sequence[Card],
    rng: np.random.Generator,
    *,
    size: tuple[int, int] = (1600, 1200),
    card_px: tuple[float, float] = (300.0, 400.0),
    split: str = "test",
    step: float = 1.5,
) -> Rendered:
    """One photo of `cards` in a grid with a gap between them, each slightly turned,
    from nearly straight above (cards upright), every card in the frame. `step`: from
    one column to the next, in card widths (under 1 the cards of a row overlap, as
    when a person lays them too close: the enrolment must say so)."""
    columns = int(np.ceil(np.sqrt(len(cards))))
    layout = Layout()
    for k, card in enumerate(cards):
        layout.placements.append(
            Placement(
                card=card,
                look=look,
                face_up=True,
                x_mm=(k % columns) * CARD_W_MM * step + float(rng.normal(0, 4)),
                y_mm=(k // columns) * CARD_H_MM * 1.35 + float(rng.normal(0, 4)),
                angle_deg=float(rng.normal(0, 8)),
                zone="loose",
            )
        )
    corners = _card_corners(layout)
    centre = (corners.min(axis=0) + corners.max(axis=0)) / 2
    target = (float(centre[0]), float(centre[1]))
    camera = sample_camera(rng, size, target, card_px=card_px, max_tilt=15.0)
    camera = _framed(replace(camera, yaw_deg=90.0 + float(rng.normal(0, 5))), corners)
    return render_scene(layout, camera, choose_background(rng, split), rng)


def enrolment_photos(
    look: DeckLook,
    folder: Path,
    rng: np.random.Generator,
    *,
    cards: Sequence[Card] | None = None,
    per_photo: int = 9,
    size: tuple[int, int] = (1600, 1200),
) -> Path:
    """Photos of `cards` (default: one copy of every card of the look), `per_photo` to
    a photo, written to `folder` as `enrolNN.jpg` with `labels.csv` (rows image,cards);
    returns the CSV's path."""
    chosen = list(cards if cards is not None else look.cards())
    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    for n, start in enumerate(range(0, len(chosen), per_photo)):
        chunk = chosen[start : start + per_photo]
        rendered = cards_apart(look, chunk, rng, size=size)
        for _ in range(STEADY_TRIES):
            if rendered.blur_px <= STEADY_BLUR_PX:
                break
            rendered = cards_apart(look, chunk, rng, size=size)
        image = folder / f"enrol{n:02d}.jpg"
        image.write_bytes(rendered.jpeg)
        rows.append([image.name, " ".join(str(c) for c in chunk)])
    labels = folder / "labels.csv"
    with labels.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["image", "cards"], *rows])
    return labels
