"""Train the scan's second-look classifiers (the face check, the upright 6-or-9 check,
the upright reader) and export them int8.

The face check (`vision/face_kind.py`):

    .venv/bin/shanghai data generate --kind face-crops --out data/face/train --n 4000 \\
        --seed 4101 --split train --workers 2 --rook-share 0.15 --extra-jokers 1
    .venv/bin/shanghai data generate --kind face-crops --out data/face/val --n 400 \\
        --seed 4201 --split val --workers 2 --rook-share 0.15
    .venv/bin/shanghai data generate --kind face-crops --out data/face/unseen --n 600 \\
        --seed 4301 --split val-unseen --workers 2 --rook-share 0.15
    .venv/bin/python tools/train_face.py train --name face1 --epochs 12
    .venv/bin/python tools/train_face.py export runs/face1/weights/best.pt models

The upright check (`vision/upright.py`), the same with `--check upright`:

    .venv/bin/shanghai data generate --kind upright-crops --out data/upright/train \\
        --n 3000 --seed 5101 --split train --workers 2 --rook-share 1
    .venv/bin/shanghai data generate --kind upright-crops --out data/upright/val \\
        --n 400 --seed 5201 --split val --workers 2 --rook-share 1
    .venv/bin/shanghai data generate --kind upright-crops --out data/upright/unseen \\
        --n 400 --seed 5301 --split val-unseen --workers 2 --rook-share 1
    .venv/bin/python tools/train_face.py --check upright train --name upright1 --epochs 8
    .venv/bin/python tools/train_face.py --check upright export \\
        runs/upright1/weights/best.pt models

The upright reader (`vision/upright_reader.py`), a reader of every card fine-tuned from
the shipped reader on index crops turned upright:

    .venv/bin/shanghai data generate --kind upright-index-crops --out data/upread/train \\
        --n 4000 --seed 6101 --split train --workers 2 --rook-share 0.35 --extra-jokers 1
    (and --n 2000 --seed 6102 into the same folder; val: --n 300 --seed 6201 --split val
    into data/upread/val, unseen: --n 300 --seed 6301 --split val-unseen into
    data/upread/unseen, both --rook-share 0.35)
    .venv/bin/python tools/train_face.py --check upright-reader --data data/upread \\
        train --name upread1 --epochs 8 --init models/cards-reader.pt --lr0 0.001
    .venv/bin/python tools/train_face.py --check upright-reader --data data/upread \\
        export runs/upread1/weights/best.pt models

The stray check (`vision/stray_check.py`), whose crops are what the shipped models
locate but leave unread on generated hand and lay-down photos (so the shipped locator
and reader must be installed; ~1 s a photo per worker):

    .venv/bin/shanghai data generate --kind stray-crops --out data/stray/train \
        --n 3000 --seed 7101 --split train --workers 2
    (val: --n 400 --seed 7201 --split val into data/stray/val; unseen: --n 300
    --seed 7301 --split val-unseen into data/stray/unseen; more train photos with other
    seeds into other folders, each passed to `train` as --also FOLDER)
    .venv/bin/python tools/train_face.py --check stray train --name stray1 \
        --epochs 12 --init models/cards-reader.pt --lr0 0.002
    .venv/bin/python tools/train_face.py --check stray export \
        runs/stray1/weights/best.pt models

The validation folder joins the fixed looks' val crops and the unseen looks' so the
epoch kept (`best.pt`) reads both. `export` writes the check's file (7-bit int8
weights, calibrated on training crops, as the reader: `datasets/quantize.py`) into a
models folder; name it in that folder's `models.toml` (`[face] file` and `least`,
chosen on validation with `tests/benchmarks/scan_eval.py --face-sweep`; `[upright]
file` and `reader`; `[stray] file` and `least`). Needs the `train` extra. Figures:
models/MODEL_CARD.md, "Face check", "Upright check", "Upright reader" and "Stray
check".
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shanghai.datasets.quantize import calibration_images, quantize_reader
from shanghai.datasets.training import ReaderConfig, export_onnx, train_reader
from shanghai.vision.crops import CROP_SIZE
from shanghai.vision.face_kind import FACE_SIZE
from shanghai.vision.model_files import (
    FACE_FILE,
    STRAY_FILE,
    UPRIGHT_FILE,
    UPRIGHT_READER_FILE,
)
from shanghai.vision.stray_check import STRAY_SIZE


@dataclass(frozen=True)
class Check:
    """What differs between the checks: the generator's kind, the file and the input."""

    kind: str
    file: str
    size: int
    extra: dict[str, Any]


CHECKS = {
    # A court mirrored is still a court: unlike an index, a face may be flipped.
    "face": Check("face-crops", FACE_FILE, FACE_SIZE, {"save_period": 1, "fliplr": 0.5}),
    # A 6 mirrored is no 6; the reader's own settings (no flips) apply.
    "upright": Check("upright-crops", UPRIGHT_FILE, CROP_SIZE, {"save_period": 1}),
    # The upright reader: every card, fine-tuned from the shipped reader (`--init`).
    "upright-reader": Check(
        "upright-index-crops", UPRIGHT_READER_FILE, CROP_SIZE, {"save_period": 1}
    ),
    # Whether a box is an index does not hang on which way it faces.
    "stray": Check("stray-crops", STRAY_FILE, STRAY_SIZE, {"save_period": 1, "fliplr": 0.5}),
}


def link_split(sources: list[Path], to: Path) -> None:
    """One classify split from several generated ones: `to/CLASS/` links to every crop
    of `source/CLASS/`, named by the source's data folder so none collide."""
    for source in sources:
        if not source.is_dir():
            raise SystemExit(f"{source}: no such folder (generate the crops first)")
        for kind in sorted(p for p in source.iterdir() if p.is_dir()):
            folder = to / kind.name
            folder.mkdir(parents=True, exist_ok=True)
            for crop in kind.iterdir():
                link = folder / f"{source.parts[-3]}-{crop.name}"
                if not link.exists():
                    os.symlink(crop.resolve(), link)


def train(args: argparse.Namespace, check: Check) -> None:
    linked = args.linked or args.data / "all"
    more = [folder / f"{check.kind}/train" for folder in args.also]
    link_split([args.data / f"train/{check.kind}/train", *more], linked / "train")
    val = [args.data / f"val/{check.kind}/val", args.data / f"unseen/{check.kind}/val-unseen"]
    link_split(val, linked / "val")
    config = ReaderConfig(
        data=linked,
        out=args.runs,
        name=args.name,
        imgsz=check.size,
        epochs=args.epochs,
        workers=2,
        seed=3,
        init_from=args.init,
        hours=args.hours,
        extra={
            **check.extra,
            **({"lr0": args.lr0} if args.lr0 is not None else {}),
            **({"warmup_epochs": args.warmup} if args.warmup is not None else {}),
        },
    )
    print(train_reader(config))


def export(args: argparse.Namespace, check: Check) -> None:
    to: Path = args.to / check.file
    float_model = to.with_suffix(".float.onnx")
    export_onnx(args.weights, imgsz=check.size, dynamic=True, to=float_model)
    crops = calibration_images(args.data / f"train/{check.kind}/train", 256, suffix=".png")
    quantize_reader(float_model, to, crops)
    float_model.unlink()
    print(f"exported {to}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", choices=tuple(CHECKS), default="face")
    parser.add_argument("--data", type=Path, default=None, help="default data/CHECK")
    sub = parser.add_subparsers(dest="command", required=True)
    fit = sub.add_parser("train", help="train from the generated crops")
    fit.add_argument("--name", default=None, help="default CHECK1")
    fit.add_argument("--epochs", type=int, default=12)
    fit.add_argument("--runs", type=Path, default=Path("runs"))
    fit.add_argument("--linked", type=Path, default=None, help="default DATA/all")
    fit.add_argument("--init", type=Path, default=None, help="start from these weights")
    fit.add_argument("--lr0", type=float, default=None, help="default the reader's 0.003")
    fit.add_argument("--hours", type=float, default=None, help="a wall-clock budget")
    fit.add_argument(
        "--warmup", type=float, default=None, help="warm-up epochs (default ultralytics' 3)"
    )
    fit.add_argument(
        "--also",
        type=Path,
        action="append",
        default=[],
        help="another generated train folder (--out of `data generate`) to learn from",
    )
    out = sub.add_parser("export", help="int8 ONNX into a models folder")
    out.add_argument("weights", type=Path)
    out.add_argument("to", type=Path)
    args = parser.parse_args()
    if args.data is None:
        args.data = Path("data") / args.check
    if args.command == "train" and args.name is None:
        args.name = f"{args.check}1"
    check = CHECKS[args.check]
    train(args, check) if args.command == "train" else export(args, check)


if __name__ == "__main__":
    main()
