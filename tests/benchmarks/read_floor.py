"""Choose `min_read` (the models' `models.toml`) for a model: right and wrong cards per read
floor on the validation split. Prints figures; asserts nothing.

    python tests/benchmarks/read_floor.py [--data data/dev] [--n 60] [--models models]

Scenes: `data generate --kind scenes --split val` for seeds 77 and 79 (`--n` each,
generated into `--data` when missing): validation looks, never the test split. Each
frame is located and read once as photos are (second locator passes, two reads per
index); then, for every floor, the reads under it are dropped and the rest goes
through the same reconstruction as the pipeline. A right card is one with a visible
index that comes back; a wrong card is one that is not on the table at all. The floor
to ship is the one with the most right minus wrong cards.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from shanghai.datasets.camera import scale_kind
from shanghai.vision.crops import CROP_SIZE, square_crop
from shanghai.vision.pipeline import CardPipeline
from shanghai.vision.readings import restrict_probabilities
from shanghai.vision.sources import read_image

SEEDS = (77, 79)
FLOORS = (0.0, 0.15, 0.2, 0.25, 0.28, 0.3, 0.32, 0.35, 0.4, 0.45, 0.5)


def scenes(root: Path, n: int) -> list[Path]:
    found: list[Path] = []
    for seed in SEEDS:
        out = root / f"s{seed}"
        meta = out / "scenes" / "val" / "meta"
        if not meta.is_dir() or len(list(meta.glob("*.json"))) < n:
            command = [sys.executable, "-m", "shanghai.cli.main", "data", "generate"]
            command += ["--out", str(out), "--kind", "scenes", "--split", "val"]
            command += ["--n", str(n), "--seed", str(seed), "--workers", "2", "--quiet"]
            subprocess.run(command, check=True)
        found += sorted(meta.glob("*.json"))[:n]
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("data/dev"))
    parser.add_argument("--n", type=int, default=60, help="scenes per seed")
    parser.add_argument("--models", type=Path, default=None)
    args = parser.parse_args(argv)
    pipeline = CardPipeline.load(args.models, min_read=0.0)
    models = pipeline.models
    located: list[tuple[dict[str, Any], tuple[int, int], Any, Any, Any, Any]] = []
    for path in scenes(args.data, args.n):
        meta = json.loads(path.read_text())
        frame = read_image(path.parent.parent / "images" / meta["image"])
        index_xyxy, index_conf, card_xyxy = models.locate(frame)
        crops = [square_crop(frame, tuple(map(float, b)), size=CROP_SIZE) for b in index_xyxy]
        probabilities = restrict_probabilities(models.classify(crops), models.reader.names, None)
        located.append((meta, frame.shape[:2], index_xyxy, index_conf, card_xyxy, probabilities))
    own = pipeline.models.files.min_read
    print(f"read floor on {len(located)} validation scenes (seeds {SEEDS}); the models' own: {own}")
    print("  floor | right - wrong | right / readable, wrong: close-up | table | whole table")
    for floor in FLOORS:
        tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        for meta, (h, w), xyxy, conf, cards, probabilities in located:
            readings = models.name_indices(xyxy, conf, probabilities, floor)
            got = Counter(str(c.card) for c in pipeline.reconstructor(readings, cards, w, h).cards)
            face_up = [c for c in meta["cards"] if c["face_up"]]
            readable = Counter(
                c["card"] for c in face_up if any(i["state"] == "visible" for i in c["indices"])
            )
            row = tally[scale_kind(meta["camera"])]
            row[0] += sum((got & readable).values())
            row[1] += sum(readable.values())
            row[2] += sum((got - Counter(c["card"] for c in face_up)).values())
        net = sum(r[0] - r[2] for r in tally.values())
        kinds = " | ".join(
            f"{tally[k][0]}/{tally[k][1]}, {tally[k][2]}"
            for k in ("close-up", "table", "whole table")
        )
        print(f"  {floor:5.2f} | {net:13d} | {kinds}")


if __name__ == "__main__":
    main()
