"""Train the face check's classifier (`vision/face_kind.py`) and export it int8.

    .venv/bin/shanghai data generate --kind face-crops --out data/face/train --n 4000 \\
        --seed 4101 --split train --workers 2 --rook-share 0.15 --extra-jokers 1
    .venv/bin/shanghai data generate --kind face-crops --out data/face/val --n 400 \\
        --seed 4201 --split val --workers 2 --rook-share 0.15
    .venv/bin/shanghai data generate --kind face-crops --out data/face/unseen --n 600 \\
        --seed 4301 --split val-unseen --workers 2 --rook-share 0.15
    .venv/bin/python tools/train_face.py train --name face1 --epochs 12
    .venv/bin/python tools/train_face.py export runs/face1/weights/best.pt models

The validation folder joins the fixed looks' val crops and the unseen looks' so the
epoch kept (`best.pt`) reads both. `export` writes `cards-face.onnx` (7-bit int8 weights,
calibrated on training crops, as the reader: `datasets/quantize.py`) into a models
folder; name it in that folder's `models.toml` (`[face] file`, `least`) and choose
`least` on validation (`tests/benchmarks/scan_eval.py --face-sweep`). Needs the `train`
extra. Figures: models/MODEL_CARD.md, "Face check".
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from shanghai.datasets.quantize import calibration_images, quantize_reader
from shanghai.datasets.training import ReaderConfig, export_onnx, train_reader
from shanghai.vision.face_kind import FACE_SIZE

FACE_FILE = "cards-face.onnx"


def link_split(sources: list[Path], to: Path) -> None:
    """One classify split from several generated ones: `to/KIND/` links to every crop
    of `source/KIND/`, named by the source's data folder so none collide."""
    for source in sources:
        if not source.is_dir():
            raise SystemExit(f"{source}: no such folder (generate the face crops first)")
        for kind in sorted(p for p in source.iterdir() if p.is_dir()):
            folder = to / kind.name
            folder.mkdir(parents=True, exist_ok=True)
            for crop in kind.iterdir():
                link = folder / f"{source.parts[-3]}-{crop.name}"
                if not link.exists():
                    os.symlink(crop.resolve(), link)


def train(args: argparse.Namespace) -> None:
    link_split([args.data / "train/face-crops/train"], args.linked / "train")
    val = [args.data / "val/face-crops/val", args.data / "unseen/face-crops/val-unseen"]
    link_split(val, args.linked / "val")
    config = ReaderConfig(
        data=args.linked,
        out=args.runs,
        name=args.name,
        imgsz=FACE_SIZE,
        epochs=args.epochs,
        workers=2,
        seed=3,
        # A court mirrored is still a court: unlike an index, a face may be flipped.
        extra={"save_period": 1, "fliplr": 0.5},
    )
    print(train_reader(config))


def export(args: argparse.Namespace) -> None:
    to: Path = args.to / FACE_FILE
    float_model = to.with_suffix(".float.onnx")
    export_onnx(args.weights, imgsz=FACE_SIZE, dynamic=True, to=float_model)
    crops = calibration_images(args.data / "train/face-crops/train", 256, suffix=".png")
    quantize_reader(float_model, to, crops)
    float_model.unlink()
    print(f"exported {to}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("data/face"))
    sub = parser.add_subparsers(dest="command", required=True)
    fit = sub.add_parser("train", help="train from the generated face crops")
    fit.add_argument("--name", default="face1")
    fit.add_argument("--epochs", type=int, default=12)
    fit.add_argument("--runs", type=Path, default=Path("runs"))
    fit.add_argument("--linked", type=Path, default=Path("data/face/all"))
    out = sub.add_parser("export", help="int8 ONNX into a models folder")
    out.add_argument("weights", type=Path)
    out.add_argument("to", type=Path)
    args = parser.parse_args()
    train(args) if args.command == "train" else export(args)


if __name__ == "__main__":
    main()
