"""Training crops for the stray check (`shanghai.vision.stray_check`): what the shipped
models locate but cannot read on generated photos, sorted by where it truly lies.

The check must learn the locator's own mistakes (court art, pips, blank corners taken
for an index) against the covered slivers of real indices, so its crops are the boxes
the models leave unread on the scan's kind of photo (hands and lay-downs), labelled
from the render: `index` where the box lies on a face-up card's index (visible or
covered), `other` where it meets none. Boxes in between are not written. A few read
index boxes are added as `index` so the class is never only slivers.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from shanghai.engine.variant_files import find_variant
from shanghai.vision.box_overlap import overlap_areas
from shanghai.vision.pipeline import CardModels
from shanghai.vision.scan import PhotoScanner
from shanghai.vision.stray_check import STRAY_CLASSES, STRAY_CONTEXT, stray_crop

from .labels import index_box
from .scene import Rendered
from .writer import write_crop

__all__ = ["INDEX_COVER", "OTHER_COVER", "READ_SHARE", "located_class", "write_stray_crops"]

INDEX_COVER = 0.4
"""Least share of a located box an index's box covers for the crop to be `index`."""
OTHER_COVER = 0.05
"""Most share of a located box any index's box covers for the crop to be `other`."""
READ_SHARE = 0.1
"""Share of the read index boxes also written (as `index`)."""
HARVEST_CONF = 0.1
"""The locator's least confidence while harvesting (the scan's is 0.25): the boxes it
finds between the two are the same kind of mistake, and photos hold few at 0.25 (about
one box in ten the models leave unread lies on no index)."""


@functools.cache
def _models(folder: str | None) -> CardModels:
    """The models whose unread boxes are cut, loaded as a photo scan loads them, once
    per worker process."""
    models = PhotoScanner.load(folder, threads=1).models
    assert isinstance(models, CardModels)
    models.conf = HARVEST_CONF
    return models


def write_stray_crops(
    root: Path,
    split: str,
    stem: str,
    rendered: Rendered,
    truth: dict[str, Any],
    rng: np.random.Generator,
    models: str | None = None,
) -> Counter[str]:
    """Read `rendered` with the models of `models` (default: the shipped folder) under
    the photo's rules; cut every box located but not read, and `READ_SHARE` of the read
    ones, into `root/split/CLASS/`; returns how many crops each class got."""
    rules = find_variant(truth["variant"]).rules(truth["players"])
    reads = _models(models).read_frame(rendered.image, rules)
    h, w = rendered.image.shape[:2]
    quads = [
        index_box(ix.quad, w, h)
        for label in rendered.labels()
        if label.placement.face_up
        for ix in label.indices
    ]
    made: Counter[str] = Counter()
    boxes: list[tuple[str | None, np.ndarray]] = [
        (None, box) for box in reads.unread_xyxy.reshape(-1, 4)
    ]
    boxes += [
        ("index", box) for box in reads.readings.xyxy.reshape(-1, 4) if rng.random() < READ_SHARE
    ]
    for k, (known, box) in enumerate(boxes):
        name = known or located_class(box, quads)
        if name is None:
            continue
        crop = stray_crop(
            rendered.image,
            (float(box[0]), float(box[1]), float(box[2]), float(box[3])),
            context=STRAY_CONTEXT * float(rng.uniform(0.9, 1.12)),
            shift=(float(rng.normal(0, 0.04)), float(rng.normal(0, 0.04))),
        )
        write_crop(root, split, name, f"{stem}-{k}", crop, STRAY_CLASSES)
        made[name] += 1
    return made


def located_class(
    box: np.ndarray, indices: Sequence[tuple[float, float, float, float]]
) -> str | None:
    """`index`, `other` or None (between `INDEX_COVER` and `OTHER_COVER`) for one
    located box, by the most of it one of the true `indices` boxes covers."""
    area = max(float((box[2] - box[0]) * (box[3] - box[1])), 1e-6)
    cover = float(overlap_areas(box, indices).max()) / area if indices else 0.0
    if cover >= INDEX_COVER:
        return "index"
    if cover <= OTHER_COVER:
        return "other"
    return None
