"""Adapt the locator to a taught deck: minutes of training on scenes of its own faces.

Teaching a deck adapts the reading (`vision.deck_enrol`), but a card whose index the
shipped locator does not find is never read: on the held-out Rook look, enrolling every
card raised card recall from 0.42 to 0.54 only, with the reader alone at 0.91 on what
was found. Adapting the locator too, from the shipped weights on tiles of generated
photos of that deck (`enrolled_look`: the faces as photographed), raised it to 0.80
(docs/decks.md). It needs PyTorch (the `train` extra), so it is a step a person with
the extra takes: `shanghai deck enroll ... --locator`.

The tiles mix the taught deck's hands (fanned, in rows, loose, on the training tables)
with scenes of the training looks (a third of the tiles), so the locator does not
forget the other decks; `LocatorPlan` holds the sizes and the time budget.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from shanghai.vision.deck_store import LOCATOR_MINUTES, StoredDeck
from shanghai.vision.model_files import shipped_locator_weights
from shanghai.vision.pipeline import CardModels

from .decks import all_looks
from .enrolled_look import EnrolledLook, enrolled_look
from .generate import tile_windows
from .hand_photos import photo_of_cards
from .labels import yolo_lines
from .sampling import sample_scene
from .scene import Rendered
from .writer import encode_jpeg, labels_json, write_data_yaml, write_detect_item

__all__ = ["LocatorPlan", "deck_tiles", "teach_locator"]

Progress = Callable[[str, int, int], None]


def _no_progress(stage: str, done: int, total: int) -> None:
    """Progress is optional."""


@dataclass(frozen=True)
class LocatorPlan:
    """How much to generate and train. The defaults fit the issue's budget (a deck ready
    in 15 minutes on a 2-core CPU): about 2 minutes of scenes, 10 of training."""

    scenes: int = 240
    """Photos of the taught deck's cards (3 tiles each, a tenth kept to validate)."""
    other_scenes: int = 60
    """Scenes of the training looks, so the other decks are not forgotten."""
    minutes: float = LOCATOR_MINUTES
    """Training time budget; ultralytics fits the epochs and schedule to it."""
    tile: int = 416
    seed: int = 0


def _write_tiles(
    root: Path, split: str, stem: str, rendered: Rendered, rng: np.random.Generator, side: int
) -> None:
    """Three tiles of one photo at native scale, with their labels."""
    for k, window in enumerate(tile_windows(rng, rendered, side, 3)):
        x0, y0, x1, y1 = window
        labels = rendered.labels(window)
        jpeg = encode_jpeg(rendered.image[y0:y1, x0:x1], quality=95)
        meta = {"window": list(window), "cards": labels_json(labels)}
        write_detect_item(
            root, split, f"{stem}-{k}", jpeg, yolo_lines(labels, x1 - x0, y1 - y0), meta
        )


def deck_tiles(
    look: EnrolledLook, root: Path, plan: LocatorPlan, progress: Progress = _no_progress
) -> Path:
    """Write training tiles of the taught deck (and of the training looks) under `root`;
    returns the ultralytics `data.yaml`."""
    rng = np.random.default_rng([plan.seed, 1])
    cards = list(look.cards())
    training = [lk for lk in all_looks() if not lk.held_out]
    total = plan.scenes + plan.other_scenes
    for i in range(total):
        split = "val" if i % 10 == 9 or i == total - 1 else "train"
        if i < plan.scenes:
            size = int(rng.integers(1, min(11, len(cards)) + 1))
            hand = [cards[int(k)] for k in rng.choice(len(cards), size=size, replace=False)]
            rendered, _ = photo_of_cards(rng, "train", look, hand)
        else:
            rendered = sample_scene(rng, "train", training)
        _write_tiles(root, split, f"s{i:05d}", rendered, rng, plan.tile)
        progress("scenes", i + 1, total)
    return write_data_yaml(root)


class _TrainClock:
    """Training progress as ("train", seconds so far, seconds budgeted), at most once a
    second: ultralytics fits the epochs to the time budget, so time is the honest
    measure of how far along it is."""

    def __init__(self, progress: Progress, minutes: float) -> None:
        self.progress = progress
        self.budget = max(1, round(minutes * 60))
        self.started = time.monotonic()
        self.said = -1

    def __call__(self) -> None:
        elapsed = min(self.budget - 1, int(time.monotonic() - self.started))
        if elapsed > self.said:
            self.said = elapsed
            self.progress("train", elapsed, self.budget)

    def done(self) -> None:
        self.progress("train", self.budget, self.budget)


def teach_locator(
    deck: StoredDeck,
    models: CardModels,
    plan: LocatorPlan = LocatorPlan(),
    *,
    progress: Progress = _no_progress,
    work: Path | None = None,
) -> Path:
    """Adapt the shipped locator to `deck` and write it, int8 as the shipped one, to the
    deck's folder; returns its path. The scenes and the training run live in `work` (a
    temporary folder by default) and are not kept; an interruption (an exception from
    `progress`, a signal turned into `SystemExit`) leaves the deck as it was. Needs the
    `train` extra."""
    from .quantize import calibration_images, quantize_detector
    from .training import DetectorConfig, export_onnx, train_detector

    weights = shipped_locator_weights()
    if not weights.is_file():
        raise FileNotFoundError(f"{weights}: the shipped locator's weights are not installed")
    look = enrolled_look(deck, models)
    target = deck.locator_path
    partial = target.with_suffix(".partial")
    with tempfile.TemporaryDirectory(dir=work) as tmp:
        root = Path(tmp)
        data = deck_tiles(look, root / "tiles", plan, progress)
        clock = _TrainClock(progress, plan.minutes)
        clock()
        config = DetectorConfig(
            data=data,
            out=root / "runs",
            name="deck",
            epochs=max(1, int(plan.minutes)),
            hours=plan.minutes / 60,
            workers=0,
            seed=plan.seed,
            init_from=weights,
            extra={"warmup_epochs": 0.0, "optimizer": "AdamW", "lr0": 0.0005},
        )
        best = train_detector(config, on_batch=clock)
        clock.done()
        progress("export", 0, 1)
        float_model = export_onnx(best, imgsz=plan.tile, dynamic=True, to=root / "float.onnx")
        images = calibration_images(root / "tiles" / "train" / "images")
        try:
            quantize_detector(float_model, partial, images, imgsz=plan.tile)
            shutil.move(partial, target)
        finally:
            partial.unlink(missing_ok=True)
        progress("export", 1, 1)
    return target
