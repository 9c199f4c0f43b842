"""Training the card locator and reader with ultralytics, and exporting them to ONNX.

This module is the only place that imports ultralytics/PyTorch (the optional `train`
extra), and it does so inside functions, so the rest of the project imports cleanly
without them. Everything runs offline: models are built from ultralytics' packaged
YOLO11 architecture with our own scale (width/depth), never from downloaded weights,
and `plots=False` keeps ultralytics from fetching fonts.

Why narrower than YOLO11n: the locator has two classes (`card`, `index`) of simple
shapes, and training costs scale with width; see models/MODEL_CARD.md for the
measurements behind the chosen scale.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .labels import CLASS_NAMES

__all__ = [
    "DetectorConfig",
    "OnBatch",
    "ReaderConfig",
    "TrainConfig",
    "export_onnx",
    "mixed_crops",
    "mixed_data_yaml",
    "model_yaml",
    "train_detector",
    "train_reader",
]


@dataclass(frozen=True, kw_only=True)
class TrainConfig:
    """What both trainings share: where data and runs live, and ultralytics' knobs."""

    data: Path
    out: Path = Path("runs")
    name: str
    imgsz: int
    epochs: int
    batch: int
    width: float
    depth: float
    workers: int = 2
    seed: int = 0
    device: str = "cpu"
    fraction: float = 1.0
    patience: int = 100
    init_from: Path | None = None
    """Start from these weights (e.g. the shipped `.pt`) instead of from scratch."""
    hours: float | None = None
    """A wall-clock budget: ultralytics then fits the epoch count (and the learning-rate
    schedule with it) to the time, so a CPU session ends with a finished schedule."""
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class DetectorConfig(TrainConfig):
    """The locator; `data` is the ultralytics `data.yaml` of the `tiles` kind."""

    name: str = "detector"
    imgsz: int = 416
    epochs: int = 30
    batch: int = 16
    width: float = 0.125
    depth: float = 0.33


@dataclass(frozen=True, kw_only=True)
class ReaderConfig(TrainConfig):
    """The reader; `data` holds `train/<class>/*.png` and `val/<class>/*.png` crops."""

    name: str = "reader"
    imgsz: int = 64
    epochs: int = 10
    batch: int = 64
    width: float = 0.25
    depth: float = 0.5


def model_yaml(task: str, *, nc: int, width: float, depth: float, folder: Path) -> Path:
    """Write a YOLO11 architecture with our scale into `folder` and return its path.

    The layer list comes from the installed ultralytics package; only the scale is
    ours. The file name ends in `yolo11n` so ultralytics picks the single scale `n`.
    """
    from ultralytics.nn.tasks import yaml_model_load
    from ultralytics.utils import YAML

    base = "yolo11n-cls.yaml" if task == "classify" else "yolo11n.yaml"
    cfg = yaml_model_load(base)  # type: ignore[no-untyped-call]
    for key in ("scale", "yaml_file"):
        cfg.pop(key, None)
    max_channels = 1024
    cfg["scales"] = {"n": [depth, width, max_channels]}
    cfg["nc"] = nc
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"cards-{task}-w{width:g}-d{depth:g}-yolo11n.yaml"
    YAML.save(path, cfg)  # type: ignore[no-untyped-call]
    return path


LOCATOR_KINDS = ("tiles", "photo-tiles")
"""The kinds of `shanghai data generate` the locator trains on (tiles at the locator's
native scale), as sub-folders of a data folder (`<folder>/<kind>/<split>/images/`)."""


def mixed_data_yaml(folders: Sequence[Path], to: Path) -> Path:
    """One ultralytics dataset of the locator kinds found in several data folders.

    A training stage mixes data of several kinds and seeds (table tiles, photo tiles,
    fresh seeds each session, the same val every time so stages compare): list files
    of absolute image paths, `train.txt` and `val.txt`, and a `data.yaml` naming them
    are written into `to` (labels are found beside the images, as ultralytics does).
    Raises `FileNotFoundError` for a folder without locator data and `ValueError` when
    the mix has no train or no val images."""
    splits: dict[str, list[str]] = {"train": [], "val": []}
    for folder in folders:
        kinds = [folder / kind for kind in LOCATOR_KINDS if (folder / kind / "data.yaml").is_file()]
        if not kinds:
            raise FileNotFoundError(
                f"{folder}: no locator data (generate --kind {' or '.join(LOCATOR_KINDS)})"
            )
        for kind in kinds:
            for split, images in splits.items():
                images += sorted(str(p.resolve()) for p in (kind / split / "images").glob("*.jpg"))
    for split, images in splits.items():
        if not images:
            raise ValueError(f"no {split} images in {', '.join(map(str, folders))}")
    to.mkdir(parents=True, exist_ok=True)
    lines = []
    for split, images in splits.items():
        (to / f"{split}.txt").write_text("\n".join(images) + "\n")
        lines.append(f"{split}: {(to / f'{split}.txt').resolve()}")
    lines.append("names:")
    lines += [f"  {i}: {name}" for i, name in enumerate(CLASS_NAMES)]
    path = to / "data.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


READER_KIND = "crops"
"""The kind of `shanghai data generate` the reader trains on, as a sub-folder of a data
folder (`<folder>/crops/<split>/<class>/*.png`)."""


def mixed_crops(folders: Sequence[Path], to: Path) -> Path:
    """One reader dataset (`to/<split>/<class>/`) of the crops of several data folders.

    Why: a reader stage trains on crops of several seeds and looks (the reader line
    mixed three train seeds with val crops of the fixed and the unseen looks), and
    ultralytics' classifier reads one folder tree. Crops of the unseen looks' val split
    join `val` (they choose the best epoch); test crops never join. The crops are
    linked, not copied (90k crops are 1.5 GB), each named after its folder so two
    seeds' `000001.png` stay apart. `to` is made afresh: links of an earlier mix would
    train along. Raises `FileNotFoundError` for a folder without crops and
    `ValueError` when the mix has no train or no val crops."""
    from .splits import UNSEEN_VAL

    into = {"train": "train", "val": "val", UNSEEN_VAL: "val"}
    counts = {"train": 0, "val": 0}
    if to.is_dir():
        shutil.rmtree(to)
    for n, folder in enumerate(folders):
        crops = folder / READER_KIND
        splits = [s for s in into if (crops / s).is_dir()]
        if not splits:
            raise FileNotFoundError(f"{folder}: no train or val reader crops")
        tag = f"{n}-{folder.resolve().name}"
        for split in splits:
            for crop in sorted((crops / split).glob("*/*.png")):
                link = to / into[split] / crop.parent.name / f"{tag}_{crop.name}"
                link.parent.mkdir(parents=True, exist_ok=True)
                link.symlink_to(crop.resolve())
                counts[into[split]] += 1
    for split, count in counts.items():
        if not count:
            raise ValueError(f"no {split} crops in {', '.join(map(str, folders))}")
    return to


def _run_dir(out: Path, name: str) -> Path:
    return (out / name).resolve()


def _results_without_polars() -> None:
    """Let ultralytics save checkpoints where `polars` is missing.

    Its trainer reads `results.csv` back with polars (a 55 MB wheel) to store the
    history in each checkpoint; nothing else in training needs it. The lent GPU
    machine cannot fetch packages and carries at most 64 MB, so there the history is
    read with the standard library instead.
    """
    if importlib.util.find_spec("polars") is not None:
        return
    from ultralytics.engine.trainer import BaseTrainer

    def read_results_csv(trainer: Any) -> dict[str, list[Any]]:
        try:
            with open(trainer.csv, newline="") as handle:
                rows = list(csv.DictReader(handle, skipinitialspace=True))
        except OSError:
            return {}
        return {key.strip(): [_number(row[key]) for row in rows] for key in rows[0]} if rows else {}

    BaseTrainer.read_results_csv = read_results_csv  # type: ignore[method-assign]


def _number(text: str) -> float | str:
    try:
        return float(text)
    except ValueError:
        return text


def _every_core() -> None:
    """Let ultralytics train on every core of a CPU.

    It sets PyTorch's threads to one less than the cores (`NUM_THREADS`) when it picks
    the CPU, and loads data in the training process there (`workers` 0): on this 2-core
    machine every training so far ran on one thread with the other core idle (load
    average 1.0). Training is the only thing this process does, so it may have all.

    `SHANGHAI_TRAIN_THREADS` sets the count instead, for two trainings side by side: each
    taking both cores, the locator's batch took 8.5 s instead of 1.7 (threads waiting on
    each other), more than twice its one-thread 2.3 s."""
    import ultralytics.utils.torch_utils as torch_utils

    wanted = os.environ.get("SHANGHAI_TRAIN_THREADS", "").strip()
    threads = int(wanted) if wanted.isdigit() and int(wanted) > 0 else os.cpu_count() or 1
    torch_utils.NUM_THREADS = max(1, threads)  # type: ignore[attr-defined]


def _resume_or_new(
    run: Path, cfg_path: Path, task: str, resume: bool, init_from: Path | None
) -> tuple[Any, bool]:
    """The model to train: the run's last epoch (resume), given weights (a later
    session continuing from the shipped model), or a fresh network."""
    from ultralytics.models import YOLO

    _results_without_polars()
    _every_core()
    last = run / "weights" / "last.pt"
    if resume and last.is_file():
        return YOLO(str(last), task=task), True
    if init_from is not None:
        if not init_from.is_file():
            raise FileNotFoundError(f"{init_from}: no such weights file")
        return YOLO(str(init_from), task=task), False
    return YOLO(str(cfg_path), task=task), False


def _common_args(config: TrainConfig) -> dict[str, Any]:
    return {
        "epochs": config.epochs,
        "imgsz": config.imgsz,
        "batch": config.batch,
        "workers": config.workers,
        "seed": config.seed,
        "deterministic": True,
        "device": config.device,
        "project": str(config.out.resolve()),
        "name": config.name,
        "exist_ok": True,
        "plots": False,
        "pretrained": bool(config.init_from),
        "amp": False,
        "fraction": config.fraction,
        "patience": config.patience,
        "verbose": False,
        **({"time": config.hours} if config.hours else {}),
    }


def _detector_args(config: DetectorConfig) -> dict[str, Any]:
    """ultralytics `train` arguments of the locator; `config.extra` overrides any."""
    return {
        "data": str(config.data.resolve()),
        "mosaic": 0.5,
        "degrees": 0.0,
        "fliplr": 0.0,
        "close_mosaic": 2,
        **_common_args(config),
        **config.extra,
    }


def _reader_args(config: ReaderConfig) -> dict[str, Any]:
    """ultralytics `train` arguments of the reader; `config.extra` overrides any (e.g. a
    lower `lr0` to fine-tune a trained reader)."""
    return {
        "data": str(config.data.resolve()),
        # ultralytics' "auto" optimizer would pick lr = 0.002 * 5 / (4 + classes),
        # 9e-5 for 110 classes: far too slow from scratch (2% top-1 after 2 epochs).
        "optimizer": "AdamW",
        "lr0": 0.003,
        # Random-resized crops keep >= 90% of the area: a smaller crop can cut the
        # rank or the suit out of the index.
        "scale": 0.1,
        "fliplr": 0.0,
        "hsv_h": 0.0,
        "hsv_s": 0.2,
        "hsv_v": 0.3,
        "erasing": 0.1,
        "auto_augment": None,
        **_common_args(config),
        **config.extra,
    }


OnBatch = Callable[[], None]
"""Called after every training batch (progress; raising from it stops the training)."""


def train_detector(
    config: DetectorConfig, *, resume: bool = False, on_batch: OnBatch | None = None
) -> Path:
    """Train (or resume) the locator; returns the path of `best.pt`."""
    if not config.data.is_file():
        raise FileNotFoundError(f"{config.data}: no such data.yaml (generate data first)")
    run = _run_dir(config.out, config.name)
    cfg_path = model_yaml("detect", nc=2, width=config.width, depth=config.depth, folder=run)
    model, resuming = _resume_or_new(run, cfg_path, "detect", resume, config.init_from)
    if on_batch is not None:
        model.add_callback("on_train_batch_end", lambda trainer: on_batch())
    started = time.time()
    if resuming:
        model.train(resume=True)
    else:
        model.train(**_detector_args(config))
    _write_log(run, "detector", config, started)
    return run / "weights" / "best.pt"


def train_reader(
    config: ReaderConfig, *, resume: bool = False, on_batch: OnBatch | None = None
) -> Path:
    """Train (or resume) the index reader; returns the path of `best.pt`.

    Flips would turn a 6 into a mirrored glyph and colours carry the suit and the Rook
    colour, so those augmentations are off; rotation is in the data already.
    """
    train_dir = config.data / "train"
    if not train_dir.is_dir():
        raise FileNotFoundError(f"{train_dir}: no such folder (generate reader crops first)")
    nc = sum(1 for p in train_dir.iterdir() if p.is_dir())
    run = _run_dir(config.out, config.name)
    cfg_path = model_yaml("classify", nc=nc, width=config.width, depth=config.depth, folder=run)
    model, resuming = _resume_or_new(run, cfg_path, "classify", resume, config.init_from)
    if on_batch is not None:
        model.add_callback("on_train_batch_end", lambda trainer: on_batch())
    started = time.time()
    if resuming:
        model.train(resume=True)
    else:
        model.train(**_reader_args(config))
    _write_log(run, "reader", config, started)
    return run / "weights" / "best.pt"


def _write_log(run: Path, what: str, config: TrainConfig, started: float) -> None:
    record = {k: str(v) if isinstance(v, Path) else v for k, v in asdict(config).items()}
    record["seconds"] = round(time.time() - started, 1)
    (run / f"{what}-training.json").write_text(json.dumps(record, indent=2))


def export_onnx(weights: Path, *, imgsz: int, dynamic: bool, to: Path) -> Path:
    """Export `weights` to ONNX (opset chosen by ultralytics) and copy it to `to`."""
    from ultralytics.models import YOLO

    model = YOLO(str(weights))
    exported = Path(model.export(format="onnx", imgsz=imgsz, dynamic=dynamic, simplify=True))
    to.parent.mkdir(parents=True, exist_ok=True)
    if exported.resolve() != to.resolve():  # exporting next to the weights is already there
        shutil.copyfile(exported, to)
    return to
