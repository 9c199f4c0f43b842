"""Adapt the locator (and the reader) to a taught deck: minutes of training on scenes of
its own faces.

Teaching a deck adapts the reading (`vision.deck_enrol`), but a card whose index the
shipped locator does not find is never read: on the held-out Rook look, enrolling every
card raised card recall from 0.42 to 0.54 only, with the reader alone at 0.91 on what
was found. Adapting the locator too, from the shipped weights on tiles of generated
photos of that deck (`enrolled_look`: the faces as photographed), raised it to 0.80
(docs/decks.md). It needs PyTorch (the `train` extra), so it is a step a person with
the extra takes: `shanghai deck enroll ... --locator`.

The tiles mix the taught deck's hands (fanned, in rows, loose, on the training tables)
with scenes of the training looks (a third of the tiles), so the locator does not
forget the other decks; `LocatorPlan` holds the sizes and the time budgets.

The same photos give the reader's training crops: every visible index, cut as the
runtime cuts it (`crops.write_index_crops`), plus a few photos of the training looks
that hold every card class (the classify data needs each class, and a reader fine-tuned
on one deck alone would forget the others), and each enrolled index seen small and soft
as from across the table (`enrolled_crops`, `LocatorPlan.enrolled_views`). Half of all
these training crops are then turned half a turn (`crops.half_turn`,
`LocatorPlan.half_turned`), as the runtime reads every crop both ways up. The reader is
then fine-tuned from the shipped weights for `reader_minutes`: the taught head on the
shipped reader's features reads flat probabilities (a right read at a median 0.9, so
most of a taught deck's cards were marked "check it"), while a reader trained on the
deck's own prints reads them surely (docs/decks.md, the spike of 2026-11-27).
`DeckHead.apply` uses it where the head would read (a crop near an enrolled card; every
crop of a deck enrolled whole, `DeckHead.reads`); elsewhere the shipped reading stays.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from shanghai.engine.cards import CARD_CLASSES
from shanghai.vision.deck_store import (
    LOCATOR_MINUTES,
    OVERHEAD_MINUTES,
    READER_MINUTES,
    StoredDeck,
)
from shanghai.vision.model_files import shipped_locator_weights, shipped_reader_weights
from shanghai.vision.pipeline import CardModels

from .crops import CROP_SIZE, half_turn, write_index_crops
from .deck_check import CHECK_SCENES, check_deck
from .decks import all_looks
from .enrolled_crops import write_enrolled_crops
from .enrolled_look import EnrolledLook, enrolled_look
from .faces import DeckLook
from .generate import tile_windows
from .hand_photos import photo_of_cards
from .labels import yolo_lines
from .sampling import sample_scene
from .scene import Rendered
from .step_budget import StepBudget
from .writer import encode_jpeg, labels_json, write_data_yaml, write_detect_item

__all__ = ["LocatorPlan", "deck_tiles", "teach_locator"]

Progress = Callable[[str, int, int], None]

ENROLLED_VIEWS = 40
"""Small views of each enrolled index added to the reader's crops (`LocatorPlan`). On the
code-unseen-00 validation deck (53 cards, 106 indices: 4,240 views beside 2,000 crops
of generated photos; 3 s to draw), the reader fine-tuned 4 minutes on both read 0.944
of the located indices of 40 validation photos right against 0.912 without them
(table distance 0.940 against 0.900; docs/decks.md, 2026-12-02)."""


HALF_TURNED = 0.5
"""Share of the reader's training crops turned half a turn (`crops.half_turn`): the
runtime reads every crop both ways up, and the deck's photos show few indices upside
down. Measured by retraining a kept validation deck's reader alone on the same crops
(80 validation photos each, docs/decks.md, 2026-12-05), of the located true indices
read right and kept by the floor / kept wrong: rook-teach-band (538) 470-474 / 6-8
before, 479-481 / 6-7 with half turned; code-unseen-00 (550) 499-504 / 4-5 before,
502 / 4-5 after (a standard deck's reader already read both ways alike)."""


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
    reader_minutes: float = READER_MINUTES
    """The reader's fine-tune budget after the locator's (0: the head alone reads)."""
    overhead_minutes: float = OVERHEAD_MINUTES
    """What the step allows the parts with no time budget (scenes, exports, the check):
    it ends within `minutes + reader_minutes + overhead_minutes`, the two training
    budgets shrinking when the other parts run long (`step_budget`)."""
    half_turned: float = HALF_TURNED
    """Share of the reader's training crops turned half a turn (`HALF_TURNED`)."""
    class_photos: int = 24
    """Photos of the training looks' cards, every class in them, for the reader."""
    enrolled_views: int = ENROLLED_VIEWS
    """Reader crops drawn from each enrolled index as a distant camera sees it
    (`enrolled_crops.small_view`), added to the reader's training crops (0: none)."""
    tile: int = 416
    seed: int = 0
    check_scenes: int = CHECK_SCENES
    """Photos the deck's sure level is chosen on (`deck_check`; 0: none, and the
    shipped level stands)."""


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
    look: EnrolledLook,
    root: Path,
    plan: LocatorPlan,
    progress: Progress = _no_progress,
    crops: Path | None = None,
) -> Path:
    """Write training tiles of the taught deck (and of the training looks) under `root`;
    returns the ultralytics `data.yaml`. With `crops`, also the reader's crops of every
    visible index of the same photos (and of `plan.class_photos` more: `class_photos`)
    in ultralytics' classify layout there."""
    rng = np.random.default_rng([plan.seed, 1])
    cards = list(look.cards())
    # The looks drawn in Debian fonts exist only where those are installed: leaving them
    # out keeps a deck's step the same on every machine.
    training = [lk for lk in all_looks() if not lk.held_out and not lk.system_fonts]
    total = plan.scenes + plan.other_scenes
    # The reader's class photos are drawn after the scenes and count in the same bar.
    shown = total + (plan.class_photos if crops is not None else 0)
    for i in range(total):
        split = "val" if i % 10 == 9 or i == total - 1 else "train"
        if i < plan.scenes:
            size = int(rng.integers(1, min(11, len(cards)) + 1))
            hand = [cards[int(k)] for k in rng.choice(len(cards), size=size, replace=False)]
            rendered, _ = photo_of_cards(rng, "train", look, hand)
        else:
            rendered = sample_scene(rng, "train", training)
        _write_tiles(root, split, f"s{i:05d}", rendered, rng, plan.tile)
        if crops is not None:
            write_index_crops(crops, split, f"s{i:05d}", rendered, rng)
        progress("scenes", i + 1, shown)
    if crops is not None:
        class_photos(
            crops,
            training,
            plan,
            rng,
            lambda done: progress("scenes", min(shown, total + done), shown),
        )
    return write_data_yaml(root)


def class_photos(
    root: Path,
    looks: list[DeckLook],
    plan: LocatorPlan,
    rng: np.random.Generator,
    drawn: Callable[[int], None] | None = None,
) -> None:
    """Reader crops of `plan.class_photos` photos of the training looks whose hands hold
    the card classes seen least so far (more, each holding the rarest class, until every
    class has two crops): ultralytics reads a classify folder's classes from its
    subfolders and refuses an empty one, and the fine-tuned reader must keep every class
    of the shipped one. A class one split lacks gets a copy of a crop from the other
    (its validation figure means nothing; the deck's cards are what is validated).
    `drawn` hears how many photos are drawn so far (the progress bar)."""
    seen = Counter({name: 0 for name in CARD_CLASSES})
    for folder in root.glob("*/*"):
        seen[folder.name] += sum(1 for _ in folder.glob("*.png"))
    for i in range(plan.class_photos + len(CARD_CLASSES)):
        least = min(seen.values())
        if i >= plan.class_photos and least >= 2:
            break
        rarest = rng.choice(sorted(n for n, k in seen.items() if k == least))
        holding = [lk for lk in looks if any(str(c) == rarest for c in lk.cards())]
        look = holding[int(rng.integers(len(holding)))]
        have = sorted(look.cards(), key=lambda c: (seen[str(c)], rng.random()))
        rendered, _ = photo_of_cards(rng, "train", look, have[:11])
        seen.update(write_index_crops(root, "train", f"c{i:05d}", rendered, rng))
        if drawn is not None:
            drawn(i + 1)
    for name in CARD_CLASSES:
        folders = [root / split / name for split in ("train", "val")]
        for folder in folders:
            folder.mkdir(parents=True, exist_ok=True)
        found = [next(folder.glob("*.png"), None) for folder in folders]
        if found[0] is None and found[1] is None:
            raise RuntimeError(f"no reader crop was drawn for {name}: draw more class photos")
        for folder, crop in zip(folders, found, strict=True):
            if crop is None:
                source = found[0] or found[1]
                assert source is not None
                shutil.copyfile(source, folder / f"copy-{source.name}")


class _TrainClock:
    """Training progress as (`stage`, seconds so far, seconds budgeted), at most once a
    second: ultralytics fits the epochs to the time budget, so time is the honest
    measure of how far along it is."""

    def __init__(self, progress: Progress, minutes: float, stage: str = "train") -> None:
        self.progress = progress
        self.stage = stage
        self.budget = max(1, round(minutes * 60))
        self.started = time.monotonic()
        self.said = -1

    def __call__(self) -> None:
        elapsed = min(self.budget - 1, int(time.monotonic() - self.started))
        if elapsed > self.said:
            self.said = elapsed
            self.progress(self.stage, elapsed, self.budget)

    def done(self) -> None:
        self.progress(self.stage, self.budget, self.budget)


def teach_locator(
    deck: StoredDeck,
    models: CardModels,
    plan: LocatorPlan = LocatorPlan(),
    *,
    progress: Progress = _no_progress,
    work: Path | None = None,
) -> Path:
    """Adapt the shipped locator to `deck` and, with `plan.reader_minutes`, the shipped
    reader too; choose the sure level for them on photos of the deck's own cards
    (`deck_check`, `plan.check_scenes`); write the models, int8 as the shipped ones,
    and the level to the deck's folder (all or none; a deck taught again
    with no reader time loses the reader it had); returns the locator's path.
    The step ends within `plan`'s two budgets and its overhead (`step_budget`): the
    "train" and "reader" progress totals are the budgets it gave them.
    Progress stages: "scenes", "train", "reader", "export", "check". The scenes and
    the training runs live in `work` (a temporary folder by default) and are not kept;
    an interruption (an exception from `progress`, a signal turned into `SystemExit`)
    leaves the deck as it was. Needs the `train` extra."""
    from .quantize import calibration_images, quantize_detector, quantize_reader
    from .training import DetectorConfig, ReaderConfig, export_onnx, train_detector, train_reader

    weights = shipped_locator_weights()
    reader_weights = shipped_reader_weights()
    for path in (weights, reader_weights) if plan.reader_minutes > 0 else (weights,):
        if not path.is_file():
            raise FileNotFoundError(f"{path}: the shipped model's weights are not installed")
    started = time.monotonic()
    budget = StepBudget(plan.minutes, plan.reader_minutes, plan.overhead_minutes)
    look = enrolled_look(deck, models)
    targets = [deck.locator_path] + ([deck.reader_path] if plan.reader_minutes > 0 else [])
    partials = [target.with_suffix(".partial") for target in targets]
    with tempfile.TemporaryDirectory(dir=work) as tmp:
        root = Path(tmp)
        crops = root / "crops" if plan.reader_minutes > 0 else None
        data = deck_tiles(look, root / "tiles", plan, progress, crops)
        if crops is not None and plan.enrolled_views > 0:
            rng = np.random.default_rng([plan.seed, 2])
            write_enrolled_crops(deck, crops, rng, plan.enrolled_views)
        if crops is not None and plan.half_turned > 0:
            half_turn(crops / "train", plan.half_turned, np.random.default_rng([plan.seed, 3]))
        scenes = time.monotonic() - started
        minutes = budget.locator_seconds(scenes, scenes) / 60
        clock = _TrainClock(progress, minutes)
        clock()
        config = DetectorConfig(
            data=data,
            out=root / "runs",
            name="deck",
            epochs=max(1, int(minutes)),
            hours=minutes / 60,
            workers=0,
            seed=plan.seed,
            init_from=weights,
            extra={"warmup_epochs": 0.0, "optimizer": "AdamW", "lr0": 0.0005},
        )
        best = train_detector(config, on_batch=clock)
        clock.done()
        best_reader = None
        if crops is not None:
            minutes = budget.reader_seconds(time.monotonic() - started, scenes) / 60
            clock = _TrainClock(progress, minutes, stage="reader")
            clock()
            reader_config = ReaderConfig(
                data=crops,
                out=root / "runs",
                name="reader",
                epochs=max(1, int(minutes * 4)),
                hours=minutes / 60,
                workers=0,
                seed=plan.seed,
                init_from=reader_weights,
                extra={"warmup_epochs": 0.0, "lr0": 0.0005},
            )
            best_reader = train_reader(reader_config, on_batch=clock)
            clock.done()
        progress("export", 0, 1)
        try:
            float_model = export_onnx(best, imgsz=plan.tile, dynamic=True, to=root / "float.onnx")
            images = calibration_images(root / "tiles" / "train" / "images")
            quantize_detector(float_model, partials[0], images, imgsz=plan.tile)
            if best_reader is not None and crops is not None:
                float_reader = export_onnx(
                    best_reader, imgsz=CROP_SIZE, dynamic=True, to=root / "reader.onnx"
                )
                samples = calibration_images(crops / "train", 256, suffix=".png")
                quantize_reader(float_reader, partials[1], samples)
            progress("export", 1, 1)
            level = None
            if plan.check_scenes > 0:
                new = replace(
                    deck.head(),
                    locator=partials[0],
                    own_reader=partials[1] if best_reader is not None else None,
                    sure_read=None,
                )
                level, evidence = check_deck(
                    deck, models, plan.check_scenes, head=new, look=look, progress=progress
                )
            # The old level was chosen for the old models: gone before the new ones land.
            deck.levels_path.unlink(missing_ok=True)
            for partial, target in zip(partials, targets, strict=True):
                shutil.move(partial, target)
            if plan.reader_minutes <= 0:
                deck.reader_path.unlink(missing_ok=True)
            if level is not None:
                deck.write_levels(level, evidence)
        finally:
            for partial in partials:
                partial.unlink(missing_ok=True)
    return targets[0]
