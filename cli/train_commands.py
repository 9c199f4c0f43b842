"""`shanghai train ...`: from generated data to the shipped ONNX models.

    shanghai data generate --out data/train --kind tiles --n 4000 --seed 1
    shanghai data generate --out data/train --kind crops --n 12000 --seed 2
    shanghai train all --data data/train --to models

`train all` trains the locator on `<data>/tiles/` (and `photo-tiles/`) and the reader on
`<data>/crops/`, exports both to ONNX and copies the `.pt` and `.onnx` files into
`--to`. `train detector` takes several data folders and mixes them (a stage going on
from the shipped weights, as the model card's ledger records them):

    shanghai train detector --data data/train data/photos171 data/photos132
        --det-init models/cards-detector.pt --det-width 0.25 --hours 1.5
        --det-optimizer AdamW --det-lr0 0.0008 --det-warmup 0.1   (one command line)

A reader stage mixes crop folders the same way (the shipped reader's last stage):

    shanghai train reader --data data/r/t1801 data/r/t1901 data/r/t1701 data/r/v1602
        data/r/v3311 --read-init models/cards-reader.pt --read-epochs 8
        --read-lr0 0.0005 --read-warmup 0.4 --read-cos-lr --read-lrf 0.05

Runs live under `--runs` and resume from their last epoch with `--resume`; `--hours`
fits the epochs (and the learning-rate schedule) into a wall-clock budget.
`train widen --detector X.pt --width W --to Y.pt` makes a wider locator that computes
what X computes (`datasets.widen`), to go on training with `--det-init Y.pt`.
Needs the `train` extra (ultralytics, PyTorch).
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

from shanghai.vision import model_files

from .errors import UsageError

DETECTOR_FILE = Path(model_files.DETECTOR_FILE).stem
READER_FILE = Path(model_files.READER_FILE).stem
SETTINGS_NOTE = """Written by `shanghai train`: the reading levels below are the shipped models'
(models/models.toml), not chosen for these models. Choose min_read with
tests/benchmarks/read_floor.py --models THIS_FOLDER, and sure_read and sure_name with
tests/benchmarks/scan_eval.py --split val --sweep --models THIS_FOLDER."""


def _write_settings(to: Path) -> None:
    """`models.toml` for models just exported to `to`: kept when one is there (a
    re-export of the same models), else the shipped models' levels with a note, and
    the shipped face check (`vision/face_kind.py`: it reads no index, so it serves any
    locator and reader), upright check (`vision/upright.py`: it splits any reader's
    6-or-9 doubt), upright reader (`vision/upright_reader.py`: a second witness to any
    reader of the same classes) and stray check (`vision/stray_check.py`: it tells an
    index from card art in the photo, whichever locator found the box; its level was
    chosen for the shipped locator's mistakes) copied beside them."""
    if (to / model_files.SETTINGS_FILE).is_file():
        return
    shipped = model_files.ModelFiles.load()
    for check in (shipped.face, shipped.upright, shipped.upright_reader, shipped.stray):
        if check is not None:
            shutil.copyfile(check, to / check.name)
    model_files.write_settings(
        to,
        min_read=shipped.min_read,
        sure_read=shipped.sure_read,
        sure_name=shipped.sure_name,
        named_read=shipped.named_read,
        note=SETTINGS_NOTE,
        face=None if shipped.face is None else shipped.face.name,
        face_least=shipped.face_least,
        face_joker_least=shipped.face_joker_least,
        upright=None if shipped.upright is None else shipped.upright.name,
        upright_reader=None if shipped.upright_reader is None else shipped.upright_reader.name,
        stray=None if shipped.stray is None else shipped.stray.name,
        stray_least=shipped.stray_least,
    )


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "train", help="train the card locator and reader (needs the `train` extra)"
    )
    group = parser.add_subparsers(dest="train_command", required=True)
    for name, help_text in (
        ("detector", "train the locator (cards and index corners)"),
        ("reader", "train the index reader (card identity)"),
        ("all", "train both and ship them as ONNX"),
    ):
        p = group.add_parser(name, help=help_text)
        kinds = {"detector": "tiles, photo-tiles", "reader": "crops"}.get(name, "all three")
        p.add_argument(
            "--data",
            type=Path,
            nargs="+",
            required=True,
            help=f"folders made by `data generate` ({kinds}): all their train and val "
            "data are mixed",
        )
        p.add_argument("--runs", type=Path, default=Path("runs"), help="training runs folder")
        p.add_argument("--resume", action="store_true", help="continue from the last epoch")
        p.add_argument("--device", default="cpu", help="'cpu' or a CUDA device such as 0")
        p.add_argument("--workers", type=int, default=2, help="data-loader processes")
        p.add_argument("--fraction", type=float, default=1.0, help="share of training data")
        p.add_argument(
            "--hours",
            type=float,
            help="wall-clock budget per model: the epoch count is fitted to it",
        )
        if name in ("detector", "all"):
            p.add_argument("--det-imgsz", type=int, default=416)
            p.add_argument("--det-epochs", type=int, default=30)
            p.add_argument("--det-batch", type=int, default=16)
            p.add_argument("--det-width", type=float, default=0.125)
            p.add_argument("--det-init", type=Path, help="start from these weights (.pt)")
            p.add_argument("--det-lr0", type=float, help="first learning rate (fine-tune: 0.0008)")
            p.add_argument("--det-optimizer", help="e.g. AdamW (default: ultralytics' auto)")
            p.add_argument("--det-warmup", type=float, help="warm-up epochs (a fine-tune: 0.1)")
        if name in ("reader", "all"):
            p.add_argument("--read-imgsz", type=int, default=64)
            p.add_argument("--read-epochs", type=int, default=10)
            p.add_argument("--read-batch", type=int, default=64)
            p.add_argument("--read-init", type=Path, help="start from these weights (.pt)")
            p.add_argument("--read-lr0", type=float, help="first learning rate (default 0.003)")
            p.add_argument("--read-optimizer", help="default AdamW")
            p.add_argument("--read-warmup", type=float, help="warm-up epochs (default 3)")
            p.add_argument(
                "--read-cos-lr",
                action="store_true",
                help="cosine learning-rate decay (default: linear)",
            )
            p.add_argument(
                "--read-lrf", type=float, help="last learning rate as a share of lr0 (0.01)"
            )
        if name == "all":
            p.add_argument("--to", type=Path, default=Path("models"), help="where to ship")
        p.set_defaults(func=cmd_train)

    p = group.add_parser("export", help="export trained .pt weights to the runtime's ONNX files")
    p.add_argument("--detector", type=Path, help="locator weights (.pt)")
    p.add_argument("--reader", type=Path, help="reader weights (.pt)")
    p.add_argument("--to", type=Path, default=Path("models"), help="output folder")
    p.add_argument("--det-imgsz", type=int, default=416)
    p.add_argument("--read-imgsz", type=int, default=64)
    p.add_argument(
        "--int8",
        action="store_true",
        help="quantize both models to int8 (smaller, faster on CPU; calibrated on "
        "--calibrate tiles and --calibrate-crops)",
    )
    p.add_argument(
        "--calibrate",
        type=Path,
        default=Path("data/train/tiles/train"),
        help="folder of generated tiles (.jpg) to calibrate the int8 locator on",
    )
    p.add_argument(
        "--calibrate-crops",
        type=Path,
        default=Path("data/train/crops/train"),
        help="folder of generated index crops (.png) to calibrate the int8 reader on",
    )
    p.set_defaults(func=cmd_export)

    p = group.add_parser(
        "widen", help="a wider locator computing what the given one does (to train on)"
    )
    p.add_argument("--detector", type=Path, required=True, help="locator weights (.pt)")
    p.add_argument("--width", type=float, required=True, help="the new width, e.g. 0.25")
    p.add_argument("--to", type=Path, required=True, help="the wider weights to write (.pt)")
    p.set_defaults(func=cmd_widen)


def cmd_widen(args: argparse.Namespace) -> int:
    _ultralytics_or_fail()
    from shanghai.datasets.widen import widen_detector

    if not args.detector.is_file():
        raise UsageError(f"{args.detector}: no such weights file")
    try:
        out = widen_detector(args.detector, args.to, width=args.width)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    print(f"wrote {out}: width {args.width:g}, the same outputs as {args.detector}")
    return 0


def _ultralytics_or_fail() -> None:
    try:
        import ultralytics  # noqa: F401
    except ImportError:
        raise UsageError("training needs the `train` extra: pip install -e '.[train]'") from None


def cmd_export(args: argparse.Namespace) -> int:
    """ONNX files from `.pt` weights (e.g. after continuing training from `models/*.pt`).

    One of the two may be given alone (a reader stage leaves the locator as it is): the
    folder then gets the shipped file of the other, so the runtime can load it."""
    _ultralytics_or_fail()
    from shanghai.datasets.training import export_onnx

    given = {"detector": args.detector, "reader": args.reader}
    given = {what: weights for what, weights in given.items() if weights is not None}
    if not given:
        raise UsageError("give --detector, --reader or both")
    for weights in given.values():
        if not weights.is_file():
            raise UsageError(f"{weights}: no such weights file")
    to: Path = args.to
    onnx = {"detector": to / f"{DETECTOR_FILE}.onnx", "reader": to / f"{READER_FILE}.onnx"}
    imgsz = {"detector": args.det_imgsz, "reader": args.read_imgsz}
    if args.int8:  # fail on missing calibration data before the slow exports
        from shanghai.datasets.quantize import (
            calibration_images,
            quantize_detector,
            quantize_reader,
        )

        try:
            tiles = calibration_images(args.calibrate) if "detector" in given else []
            crops = (
                calibration_images(args.calibrate_crops, 256, suffix=".png")
                if "reader" in given
                else []
            )
        except FileNotFoundError as exc:
            raise UsageError(
                f"{exc} (generate data or pass --calibrate / --calibrate-crops DIR)"
            ) from None
    to.mkdir(parents=True, exist_ok=True)
    for what, weights in given.items():
        out = onnx[what].with_suffix(".float.onnx") if args.int8 else onnx[what]
        export_onnx(weights, imgsz=imgsz[what], dynamic=True, to=out)
        if args.int8:
            if what == "detector":
                quantize_detector(out, onnx[what], tiles, imgsz=imgsz[what])
            else:
                quantize_reader(out, onnx[what], crops)
            out.unlink()
    shipped = model_files.ModelFiles.load()
    for what, path in onnx.items():
        if what not in given and not path.is_file():
            shutil.copyfile(getattr(shipped, what), path)
            print(f"{path.name}: the shipped {what}")
    _write_settings(to)
    kind = "int8" if args.int8 else "float"
    names = " and ".join(onnx[what].name for what in given)
    print(f"exported {names} ({kind}) to {to}")
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    _ultralytics_or_fail()
    from shanghai.datasets.training import (
        DetectorConfig,
        ReaderConfig,
        export_onnx,
        mixed_crops,
        mixed_data_yaml,
        train_detector,
        train_reader,
    )

    folders: list[Path] = args.data if isinstance(args.data, list) else [args.data]
    for folder in folders:
        if not folder.is_dir():
            raise UsageError(f"{folder}: no such folder (run `shanghai data generate` first)")
    common = {
        "out": args.runs,
        "device": args.device,
        "workers": args.workers,
        "fraction": args.fraction,
        "hours": args.hours,
    }
    detector = reader = None
    if args.train_command in ("detector", "all"):
        try:
            data_yaml = mixed_data_yaml(folders, args.runs / "detector-data")
        except (FileNotFoundError, ValueError) as exc:
            raise UsageError(str(exc)) from exc
        knobs = {"lr0": args.det_lr0, "optimizer": args.det_optimizer}
        knobs["warmup_epochs"] = args.det_warmup
        detector = train_detector(
            DetectorConfig(
                data=data_yaml,
                imgsz=args.det_imgsz,
                epochs=args.det_epochs,
                batch=args.det_batch,
                width=args.det_width,
                init_from=args.det_init,
                extra={k: v for k, v in knobs.items() if v is not None},
                **common,
            ),
            resume=args.resume,
        )
    if args.train_command in ("reader", "all"):
        try:
            crops = mixed_crops(folders, args.runs / "reader-data")
        except (FileNotFoundError, ValueError) as exc:
            raise UsageError(f"{exc} (generate with --kind crops)") from exc
        knobs = {"lr0": args.read_lr0, "optimizer": args.read_optimizer, "lrf": args.read_lrf}
        knobs["warmup_epochs"] = args.read_warmup
        knobs["cos_lr"] = args.read_cos_lr or None
        reader = train_reader(
            ReaderConfig(
                data=crops,
                imgsz=args.read_imgsz,
                epochs=args.read_epochs,
                batch=args.read_batch,
                init_from=args.read_init,
                extra={k: v for k, v in knobs.items() if v is not None},
                **common,
            ),
            resume=args.resume,
        )
    if args.train_command == "all":
        assert detector is not None and reader is not None
        to: Path = args.to
        to.mkdir(parents=True, exist_ok=True)
        export_onnx(detector, imgsz=args.det_imgsz, dynamic=True, to=to / f"{DETECTOR_FILE}.onnx")
        export_onnx(reader, imgsz=args.read_imgsz, dynamic=True, to=to / f"{READER_FILE}.onnx")
        shutil.copyfile(detector, to / f"{DETECTOR_FILE}.pt")
        shutil.copyfile(reader, to / f"{READER_FILE}.pt")
        _write_settings(to)
        (to / "training.json").write_text(
            json.dumps(
                {
                    "data": [str(f) for f in folders],
                    "detector": {"imgsz": args.det_imgsz, "epochs": args.det_epochs},
                    "reader": {"imgsz": args.read_imgsz, "epochs": args.read_epochs},
                },
                indent=2,
            )
        )
        print(f"shipped {DETECTOR_FILE}.onnx and {READER_FILE}.onnx to {to}")
    return 0
