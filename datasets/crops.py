"""Index crops for the reader (an ultralytics classify model).

The crop geometry lives in `shanghai.vision.crops` so that the runtime and the training
data cut an index out with the same code; this module re-exports it for the data
generator. Training crops jitter the centre and the margin around that contract
(`write_index_crops`, used by the generator and by a taught deck's reader step).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from shanghai.vision.crops import CROP_CONTEXT, CROP_SIZE, square_crop

from .labels import index_box
from .scene import Rendered
from .writer import write_crop

__all__ = ["CROP_CONTEXT", "CROP_SIZE", "square_crop", "write_index_crops"]


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
    made: Counter[str] = Counter()
    h, w = rendered.image.shape[:2]
    k = 0
    for label in rendered.labels():
        for ix in label.indices:
            if ix.state != "visible":
                continue
            crop = square_crop(
                rendered.image,
                index_box(ix.quad, w, h),
                size=size,
                context=CROP_CONTEXT * float(rng.uniform(0.88, 1.15)),
                shift=(float(rng.normal(0, 0.04)), float(rng.normal(0, 0.04))),
            )
            name = str(label.placement.card)
            write_crop(root, split, name, f"{stem}-{k}", crop)
            made[name] += 1
            k += 1
    return made
