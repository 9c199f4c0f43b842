"""Reader crops of a taught deck's own enrolled indices, seen small and soft.

A taught deck's reader is fine-tuned for minutes (`deck_locator.teach_locator`) on the
index crops of generated photos of its faces: about 2,000 crops, which its 4-minute
budget shows it some 48 times. What it still misses is the indices of 9-20 px that a
photo from across the table gives, blurred or not: read under the floor or misread
(code-unseen-00 taught, 40 validation photos: 34 of the 36 visible indices of the cards
missed were located; docs/decks.md). Each enrolled index (`StoredDeck.crop_paths`, cut
`deck_head.ENROL_CONTEXT` times its box from a close photo) can be shown at those sizes
for next to no CPU: turned, cut as the runtime cuts (`vision.crops.square_crop`, with the
training crops' jitter), shrunk to the few pixels a distant camera gives it, blurred or
smeared, lit differently, JPEG-compressed at that size, then enlarged to the reader's
input as the runtime enlarges a small crop. Rendering a photo for the same crops costs
about a quarter of a second each.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from shanghai.engine.cards import CARD_CLASSES
from shanghai.vision.arrays import Frame
from shanghai.vision.crops import CROP_CONTEXT, CROP_SIZE
from shanghai.vision.deck_store import StoredDeck

from .effects import motion_kernel
from .writer import write_crop

__all__ = ["SMALL_SIDES", "small_view", "write_enrolled_crops"]

SMALL_SIDES = (11.0, 40.0)
"""Side of the runtime crop in photo pixels for a small view (log-uniform): the crop is
`CROP_CONTEXT` (1.3) times an index's long side, so indices of about 8-31 px."""
SMALL_SHARE = 0.75
"""Share of the views shrunk to `SMALL_SIDES`; the rest keep the enrolment photo's size."""
TURNED_SHARE = 0.5
"""Share of the views turned by any angle (a loose card); the rest by a few degrees."""
BLUR_SHARE = 0.25
"""Share of the views out of focus (a Gaussian blur at the small size)."""
SMEAR_SHARE = 0.4
"""Share of the views smeared by a shaking hand (`motion_kernel` at the small size)."""
SMEAR_REACH = 0.55
"""Longest smear in index sizes: the labels keep an index smeared by up to
`labels.BLUR_MAX_SHARE` (0.5) of its size as readable, so the test photos hold such
indices. With smears to 0.3 of the index in a fifth of the views (and blur in 0.35),
the taught code-unseen-00 validation deck read its 80 photos at P 0.969 R 0.851 (12
wrong cards) and 0.934 of its located indices; with these shares and reach, 0.985 /
0.872 (6 wrong) and 0.947, the shaken close-ups' recall 0.576 -> 0.644 (the reader
retrained alone on the same crops, 4 minutes). The whole step with them: 0.975 / 0.878
(10 wrong) against 0.972 / 0.854 (11); on the three test looks 14 -> 9 wrong cards
(docs/decks.md, 2026-12-04)."""

CAST_SPREAD = 0.05
"""Spread (standard deviation) of each colour channel's gain: light of another colour.
Three times as much (0.15) was tried against a 1Y read 1Y 0.50 / 1R 0.50 under a teal
light: on the band validation deck's 538 located indices, with half the crops half
turned, 481 read right and kept with 5 wrong, against 479-481 with 6-7 at 0.05 (the
reader retrained alone, docs/decks.md, 2026-12-05): no change beyond a retrain's own
spread, so not kept."""


def small_view(wide: Frame, rng: np.random.Generator) -> Frame:
    """One reader crop (`CROP_SIZE` square, BGR uint8) of a stored enrolment crop
    `wide` (square, centred on the index, `ENROL_CONTEXT` times its box)."""
    side_wide = wide.shape[0]
    if rng.random() < TURNED_SHARE:
        angle = float(rng.uniform(-180, 180))
    else:
        angle = float(rng.normal(0, 8))
    # The runtime crop is the central half of the stored one, with the training jitter.
    window = side_wide / 2 * float(rng.uniform(0.88, 1.15))
    shift = rng.normal(0, 0.04, 2) * window
    small = rng.random() < SMALL_SHARE
    lo, hi = SMALL_SIDES
    side = round(math.exp(rng.uniform(math.log(lo), math.log(hi)))) if small else CROP_SIZE
    factor = side / window
    if factor < 1:  # shrink first, so the warp does not alias thin strokes
        shrunk = max(4, round(side_wide * factor))
        source = cv2.resize(wide, (shrunk, shrunk), interpolation=cv2.INTER_AREA)
        factor_left = 1.0
        scale_px = shrunk / side_wide
    else:
        source, factor_left, scale_px = wide, factor, 1.0
    cx = (side_wide / 2 + shift[0]) * scale_px
    cy = (side_wide / 2 + shift[1]) * scale_px
    m = cv2.getRotationMatrix2D((cx, cy), angle, factor_left)
    m[:, 2] += (side / 2 - cx, side / 2 - cy)
    view = cv2.warpAffine(
        source, m, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    ).astype(np.float32)
    roll = rng.random()
    if roll < BLUR_SHARE:
        view = np.asarray(cv2.GaussianBlur(view, (0, 0), float(rng.uniform(0.3, 1.0))), np.float32)
    elif roll < BLUR_SHARE + SMEAR_SHARE:
        index_px = side / CROP_CONTEXT
        length = max(3, int(rng.uniform(2, max(3.0, SMEAR_REACH * index_px)))) | 1
        smear = motion_kernel(length, float(rng.uniform(0, math.pi)))
        view = np.asarray(cv2.filter2D(view, -1, smear), np.float32)
    cast = rng.normal(1, CAST_SPREAD, 3).astype(np.float32)
    view = view * float(rng.uniform(0.65, 1.3)) * cast + float(rng.uniform(-30, 30))
    view += rng.standard_normal(view.shape).astype(np.float32) * float(rng.uniform(0.5, 6))
    out = np.clip(view, 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        quality = int(rng.integers(40, 95))
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if ok:
            out = np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR), np.uint8)
    if side != CROP_SIZE:
        out = np.asarray(
            cv2.resize(out, (CROP_SIZE, CROP_SIZE), interpolation=cv2.INTER_LINEAR), np.uint8
        )
    return out


def write_enrolled_crops(
    deck: StoredDeck, root: Path, rng: np.random.Generator, per_crop: int, split: str = "train"
) -> Counter[str]:
    """`per_crop` views (`small_view`) of every enrolled index of `deck` into
    `root/split/CARD/` (ultralytics' classify layout); returns how many each card got."""
    made: Counter[str] = Counter()
    for card in deck.cards:
        name = str(card)
        for k, path in enumerate(deck.crop_paths(card)):
            read = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if read is None:
                continue
            wide = np.asarray(read, np.uint8)
            for j in range(per_crop):
                view = small_view(wide, rng)
                write_crop(root, split, name, f"e{k}-{j:03d}", view, CARD_CLASSES)
                made[name] += 1
    return made
