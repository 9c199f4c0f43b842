"""`shanghai data generate`: render N items of one kind, deterministically for a seed.

Kinds (each writes under `<out>/<kind>/`):
- `scenes`: whole frames (640x480 to 1920x1080, landscape and portrait) with YOLO
  labels and JSON truth: evaluation, or detector training at full frame;
- `tiles`: square crops of such frames at native scale (`--tile`, default 416),
  several per frame, mostly around cards: cheap detector training (DESIGN.md);
- `crops`: every visible index of each frame, cut out square for the reader, in
  ultralytics classify folders named by engine card notation;
- `roundend`: round-end tables from simulated games, with the cards, melds and
  expected scores of every player in the JSON (the end-to-end test set);
- `photo-tiles`: tiles, as `tiles`, of the scan's kind of photo (`hand_photos`: one
  hand close up or across the table, or one player's lay-down, half each): the
  locator trained on table scenes alone gained tile mAP but lost hands on the scan's
  validation photos, whose fans and close-ups the table scenes rarely show;
- `face-crops`: the face crop around every visible index (`shanghai.vision.face_kind`), in
  folders named by the card's face kind, for the face classifier: half from table
  scenes, half from the scan's hand and lay-down photos, whose fans hide most of a
  card's face.
- `upright-crops`: every visible index of a Rook 6 or 9 turned upright by its card's
  pose (`shanghai.vision.upright`), in folders `6/` and `9/`, for the upright
  classifier; half from table scenes (`--rook-share 1` makes them all Rook), half from
  the scan's photos.
- `upright-index-crops`: every visible index turned upright the same way, in folders
  named by engine card notation, for the upright reader (`shanghai.vision.upright`).
- `stray-crops`: the boxes the shipped models locate but cannot read on the scan's
  photos, cut for the stray check (`shanghai.vision.stray_check`), in folders `index/`
  (the box lies on a card's index, covered or not) and `other/` (it meets none).

Item `i` is drawn from its own generator seeded by (seed, kind, i) and written under a
name holding the seed and `i`, so results do not depend on `--workers`, and a
larger run with the same seed extends a smaller one.
"""

from __future__ import annotations

import functools
import json
import multiprocessing
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Never

import numpy as np
from tqdm import tqdm

from shanghai.vision.face_kind import FACE_KINDS
from shanghai.vision.stray_check import STRAY_CLASSES
from shanghai.vision.upright import UPRIGHT_CLASSES

from .backgrounds import HELD_OUT_FAMILIES, TRAIN_FAMILIES
from .crops import (
    CROP_SIZE,
    write_face_crops,
    write_index_crops,
    write_upright_crops,
    write_upright_index_crops,
)
from .faces import DeckLook
from .fonts import require_system_fonts
from .labels import CLASS_NAMES, CardLabel, yolo_lines
from .sampling import ROOK_SHARE, sample_scene
from .scene import Rendered
from .splits import SPLITS, UNSEEN_VAL, split_for_index, split_looks
from .writer import (
    encode_jpeg,
    labels_json,
    scene_header,
    write_data_yaml,
    write_detect_item,
)

__all__ = ["KINDS", "GenerateConfig", "GenerateSummary", "generate", "item_rng", "make_item"]

KINDS: tuple[str, ...] = (
    "scenes",
    "tiles",
    "crops",
    "roundend",
    "photo-tiles",
    "face-crops",
    "upright-crops",
    "upright-index-crops",
    "stray-crops",
)
_KIND_CODES = {kind: i + 1 for i, kind in enumerate(KINDS)}
DETECT_KINDS = ("scenes", "tiles", "roundend", "photo-tiles")
CROP_KINDS = {
    "face-crops": write_face_crops,
    "upright-crops": write_upright_crops,
    "upright-index-crops": write_upright_index_crops,
}
"""Kinds of classifier crops drawn half from table scenes, half from the scan's photos."""
WORKER_TASKS = 100
"""Items a worker process renders before it is replaced."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GenerateConfig:
    """One generation run. `split=None` assigns splits by item index (80/10/10)."""

    out: Path
    n: int
    seed: int
    kind: str = "scenes"
    workers: int = 1
    split: str | None = None
    cache_dir: Path | None = None
    tile_size: int = 416
    tiles_per_scene: int = 3
    crop_size: int = CROP_SIZE
    rook_share: float = ROOK_SHARE
    """Share of tables dealt Rook decks; raised for a Rook-heavy batch of reader crops."""
    extra_jokers: int = 0
    """Jokers added to each standard deck beyond its own (a joker-heavy training batch)."""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown kind {self.kind!r}; choose one of {', '.join(KINDS)}")
        if self.n < 1:
            raise ValueError("--n must be at least 1")
        if self.workers < 1:
            raise ValueError("--workers must be at least 1")
        if self.split is not None and self.split not in (*SPLITS, UNSEEN_VAL):
            raise ValueError(
                f"unknown split {self.split!r}; choose one of {', '.join(SPLITS)}, {UNSEEN_VAL}"
            )
        if not 64 <= self.tile_size <= 2048:
            raise ValueError("--tile must be between 64 and 2048 pixels")
        if not 16 <= self.crop_size <= 512:
            raise ValueError("--crop-size must be between 16 and 512 pixels")
        if not 0.0 <= self.rook_share <= 1.0:
            raise ValueError("--rook-share must be between 0 and 1")
        if not 0 <= self.extra_jokers <= 52:
            raise ValueError("--extra-jokers must be between 0 and 52")

    @property
    def root(self) -> Path:
        return self.out / self.kind


@dataclass(slots=True)
class ItemResult:
    """What one item wrote."""

    split: str
    images: int = 0
    crops: int = 0
    boxes: Counter[str] = field(default_factory=Counter)
    classes: Counter[str] = field(default_factory=Counter)


@dataclass(slots=True)
class GenerateSummary:
    """Totals of a run, and its speed in rendered items per second."""

    kind: str
    items: int
    seconds: float
    images: int = 0
    crops: int = 0
    per_split: Counter[str] = field(default_factory=Counter)
    boxes: Counter[str] = field(default_factory=Counter)
    classes: Counter[str] = field(default_factory=Counter)

    @property
    def items_per_second(self) -> float:
        return self.items / self.seconds if self.seconds > 0 else float("inf")


def item_rng(seed: int, kind: str, index: int) -> np.random.Generator:
    """The generator for item `index`: independent of every other item and of workers."""
    return np.random.default_rng(np.random.SeedSequence([seed, _KIND_CODES[kind], index]))


def _count(result: ItemResult, labels: list[CardLabel], lines: list[str]) -> None:
    for line in lines:
        result.boxes[CLASS_NAMES[int(line.split()[0])]] += 1
    for label in labels:
        for ix in label.indices:
            if ix.state == "visible":
                result.classes[str(label.placement.card)] += 1


def _detect_item(
    cfg: GenerateConfig,
    stem: str,
    split: str,
    rendered: Rendered,
    extra: dict[str, Any] | None = None,
) -> ItemResult:
    result = ItemResult(split=split)
    h, w = rendered.image.shape[:2]
    labels = rendered.labels()
    lines = yolo_lines(labels, w, h)
    meta = {"image": f"{stem}.jpg", "split": split, **scene_header(rendered, width=w, height=h)}
    meta.update(extra or {})
    meta["cards"] = labels_json(labels)
    write_detect_item(cfg.root, split, stem, rendered.jpeg, lines, meta)
    result.images = 1
    _count(result, labels, lines)
    return result


def tile_windows(
    rng: np.random.Generator, rendered: Rendered, size: int, count: int
) -> list[tuple[int, int, int, int]]:
    """Square windows at native scale: most centred near a card, some anywhere."""
    h, w = rendered.image.shape[:2]
    side = min(size, w, h)
    centres = [q.mean(axis=0) for q in rendered.card_quads if q is not None]
    windows = []
    for _ in range(count):
        if centres and rng.random() < 0.8:
            cx, cy = centres[int(rng.integers(len(centres)))] + rng.normal(0, side / 4, 2)
        else:
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        x0 = int(np.clip(cx - side / 2, 0, w - side))
        y0 = int(np.clip(cy - side / 2, 0, h - side))
        windows.append((x0, y0, x0 + side, y0 + side))
    return windows


def _tile_item(
    cfg: GenerateConfig, stem: str, split: str, rng: np.random.Generator, rendered: Rendered
) -> ItemResult:
    """`cfg.tiles_per_scene` tiles of one frame with their labels (`tile_windows`)."""
    result = ItemResult(split=split)
    for k, window in enumerate(tile_windows(rng, rendered, cfg.tile_size, cfg.tiles_per_scene)):
        x0, y0, x1, y1 = window
        labels = rendered.labels(window)
        lines = yolo_lines(labels, x1 - x0, y1 - y0)
        meta = {
            "image": f"{stem}-{k}.jpg",
            "split": split,
            "window": list(window),
            **scene_header(rendered, width=x1 - x0, height=y1 - y0),
            "cards": labels_json(labels),
        }
        jpeg = encode_jpeg(rendered.image[y0:y1, x0:x1], quality=95)
        write_detect_item(cfg.root, split, f"{stem}-{k}", jpeg, lines, meta)
        result.images += 1
        _count(result, labels, lines)
    return result


def make_item(cfg: GenerateConfig, index: int) -> ItemResult:
    """Render and write item `index` of the run (called in worker processes)."""
    rng = item_rng(cfg.seed, cfg.kind, index)
    split = cfg.split or split_for_index(index)
    stem = f"{cfg.kind}-s{cfg.seed}-{index:06d}"
    looks = split_looks(cfg.split or "", cfg.cache_dir)
    if cfg.kind == "roundend":
        from .roundend import render_round_end

        rendered, truth = render_round_end(rng, split, looks)
        return _detect_item(cfg, stem, split, rendered, {"round": truth})
    if cfg.kind == "stray-crops":
        return _stray_item(cfg, stem, split, rng, looks)
    if cfg.kind == "photo-tiles" or (cfg.kind in CROP_KINDS and rng.random() < 0.5):
        from .hand_photos import render_hand_photo, render_lay_down_photo

        render = render_hand_photo if rng.random() < 0.5 else render_lay_down_photo
        photo, _truth = render(rng, split, looks)
        if cfg.kind in CROP_KINDS:
            return _crops_item(cfg, stem, split, rng, photo)
        return _tile_item(cfg, stem, split, rng, photo)
    rendered = sample_scene(
        rng, split, looks, rook_share=cfg.rook_share, extra_jokers=cfg.extra_jokers
    )
    if cfg.kind == "scenes":
        return _detect_item(cfg, stem, split, rendered)
    if cfg.kind == "tiles":
        return _tile_item(cfg, stem, split, rng, rendered)
    if cfg.kind in CROP_KINDS:
        return _crops_item(cfg, stem, split, rng, rendered)
    # crops: every readable index of the frame, cut out for the reader
    result = ItemResult(split=split)
    made = write_index_crops(cfg.root, split, stem, rendered, rng, cfg.crop_size)
    result.crops += sum(made.values())
    result.classes.update(made)
    return result


def _crops_item(
    cfg: GenerateConfig, stem: str, split: str, rng: np.random.Generator, rendered: Rendered
) -> ItemResult:
    """The face or upright crops of one frame (`CROP_KINDS`)."""
    made = CROP_KINDS[cfg.kind](cfg.root, split, stem, rendered, rng)
    return ItemResult(split=split, crops=sum(made.values()), classes=made)


def _stray_item(
    cfg: GenerateConfig, stem: str, split: str, rng: np.random.Generator, looks: Sequence[DeckLook]
) -> ItemResult:
    """The stray crops of one scan photo (a hand or a lay-down, half each): the models
    must read it, so it is a photo, never a whole table scene."""
    from .hand_photos import render_hand_photo, render_lay_down_photo
    from .stray_crops import write_stray_crops

    render = render_hand_photo if rng.random() < 0.5 else render_lay_down_photo
    photo, truth = render(rng, split, looks)
    made = write_stray_crops(cfg.root, split, stem, photo, truth, rng)
    return ItemResult(split=split, crops=sum(made.values()), classes=made)


def _manifest(cfg: GenerateConfig, summary: GenerateSummary) -> dict[str, Any]:
    looks = split_looks(cfg.split or "", cfg.cache_dir)
    return {
        "kind": cfg.kind,
        "seed": cfg.seed,
        "n": cfg.n,
        "split": cfg.split or "auto (80/10/10 by index)",
        "rook_share": cfg.rook_share,
        "extra_jokers": cfg.extra_jokers,
        "classes": (
            list(CLASS_NAMES)
            if cfg.kind in DETECT_KINDS
            else list(FACE_KINDS)
            if cfg.kind == "face-crops"
            else list(UPRIGHT_CLASSES)
            if cfg.kind == "upright-crops"
            else list(STRAY_CLASSES)
            if cfg.kind == "stray-crops"
            else "engine CARD_CLASSES"
        ),
        "looks": [
            {
                "name": look.name,
                "family": look.family.value,
                "source": look.source,
                "held_out": look.held_out,
            }
            for look in looks
        ],
        "backgrounds": {"train": list(TRAIN_FAMILIES), "held_out": list(HELD_OUT_FAMILIES)},
        "per_split": dict(summary.per_split),
        "boxes": dict(summary.boxes),
        "index_classes": dict(sorted(summary.classes.items())),
        "seconds": round(summary.seconds, 2),
    }


def generate(cfg: GenerateConfig, *, progress: bool = True) -> GenerateSummary:
    """Run `cfg`; returns totals. Files already there with the same names are replaced.
    Refuses to draw training items without the Debian training fonts (their looks would
    be left out without a word)."""
    if cfg.split in (None, "train"):
        require_system_fonts()
    if cfg.kind in DETECT_KINDS:
        write_data_yaml(cfg.root)
    cfg.root.mkdir(parents=True, exist_ok=True)
    work = functools.partial(make_item, cfg)
    start = time.perf_counter()
    summary = GenerateSummary(kind=cfg.kind, items=cfg.n, seconds=0.0)
    bar = tqdm(total=cfg.n, desc=f"{cfg.kind}", unit="item", disable=not progress)
    if cfg.workers == 1:
        results = map(work, range(cfg.n))
        _collect(summary, results, bar)
    else:
        # Workers are replaced after every batch of WORKER_TASKS items each, so no process
        # grows without bound. A fresh pool per batch rather than `max_tasks_per_child`:
        # on Python 3.11 that option deadlocked when a worker was replaced (a run hung at
        # item 2 x 100 x 2 with idle workers). A worker that dies ends the run with an
        # error instead of a hang.
        context = multiprocessing.get_context("spawn")
        batch = cfg.workers * WORKER_TASKS
        for first in range(0, cfg.n, batch):
            items = range(first, min(cfg.n, first + batch))
            with ProcessPoolExecutor(cfg.workers, mp_context=context) as pool:
                try:
                    _collect(summary, pool.map(work, items, chunksize=2), bar)
                except BrokenProcessPool:
                    raise RuntimeError(
                        "a generator worker died (out of memory?); items are deterministic, "
                        "so rerun the same command, or use fewer --workers"
                    ) from None
    bar.close()
    summary.seconds = time.perf_counter() - start
    (cfg.root / "manifest.json").write_text(json.dumps(_manifest(cfg, summary), indent=1))
    return summary


def _collect(summary: GenerateSummary, results: Any, bar: tqdm[Never]) -> None:
    for result in results:
        summary.images += result.images
        summary.crops += result.crops
        summary.per_split[result.split] += max(result.images, result.crops)
        summary.boxes.update(result.boxes)
        summary.classes.update(result.classes)
        bar.update(1)
