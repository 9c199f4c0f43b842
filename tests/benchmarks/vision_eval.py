"""Vision evaluation: round-end scenes scored through the pipeline; prints figures.

    python tests/benchmarks/vision_eval.py [--data data/eval] [--n 100] [--seed 7]
                                           [--models DIR] [--oracle-only] [--zoom 2]

On simulated round-end scenes (`shanghai data generate --kind roundend --split test`,
generated into `--data` when missing; `data/` is git-ignored), for each player a scene
is about (every seat of a whole-table view, the one seat of a player view):
- hand score exactly right (target >= 97%), also among the players whose every card
  shows a readable index;
- meld reconstruction (every meld's cards, in table order);
- contract verdict (the seat's melds through `check_lay_down`, compared with the
  verdict on the true melds);
broken down by scene kind (`table`: the whole table from above; `player`: one player's
area, close). Two modes in the same run: `oracle` (ground-truth boxes and names: the
card logic alone, no model) and `model` (the shipped ONNX models, when installed).
Latency per 1280x720 frame (median): the whole model pipeline next to the detector
alone; in oracle mode the reconstruction alone. Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from shanghai.datasets.oracle import truth_readings
from shanghai.datasets.roundend_check import (
    PlayerCheck,
    check_round_end,
    scene_players,
    scene_rules,
)
from shanghai.vision.pipeline import CardPipeline, models_installed
from shanghai.vision.reconstruct import Reconstructor
from shanghai.vision.snapshot import TableSnapshot
from shanghai.vision.sources import read_image

ROOT = Path(__file__).resolve().parents[2]


def ensure_scenes(data: Path, n: int, seed: int) -> list[Path]:
    """The first `n` round-end test scenes under `data`, generating them if missing."""
    meta = data / "roundend" / "test" / "meta"
    found = sorted(meta.glob("*.json")) if meta.is_dir() else []
    if len(found) < n:
        command = [
            sys.executable,
            "-m",
            "shanghai.cli.main",
            "data",
            "generate",
            "--out",
            str(data),
            "--kind",
            "roundend",
            "--n",
            str(n),
            "--seed",
            str(seed),
            "--split",
            "test",
            "--workers",
            "1",
            "--quiet",
        ]
        subprocess.run(command, check=True, cwd=ROOT)
        found = sorted(meta.glob("*.json"))
    return found[:n]


def _share(values: Sequence[bool]) -> str:
    if not values:
        return "     -"
    return f"{100 * sum(values) / len(values):5.1f}%"


def summarise(checks: Sequence[PlayerCheck]) -> dict[str, float]:
    readable = [c for c in checks if c.readable]
    verdicts = [bool(c.verdict_right) for c in checks if c.verdict_right is not None]
    n = max(1, len(checks))
    return {
        "players": float(len(checks)),
        "hand": sum(c.hand_right for c in checks) / n,
        "hand_readable": sum(c.hand_right for c in readable) / max(1, len(readable)),
        "readable": float(len(readable)),
        "melds": sum(c.melds_right for c in checks) / n,
        "verdict": sum(verdicts) / max(1, len(verdicts)),
    }


def print_table(mode: str, checks: Sequence[PlayerCheck]) -> None:
    print(f"\n{mode}: players | hand exact | hand exact (readable) | melds right | verdict right")
    for kind in ("table", "player", "all"):
        sub = [c for c in checks if kind == "all" or c.kind == kind]
        readable = [c.hand_right for c in sub if c.readable]
        verdicts = [bool(c.verdict_right) for c in sub if c.verdict_right is not None]
        print(
            f"  {kind:<6} {len(sub):4d} | {_share([c.hand_right for c in sub])} | "
            f"{_share(readable)} of {len(readable):3d} | {_share([c.melds_right for c in sub])} | "
            f"{_share(verdicts)}"
        )


def _frame_1280x720(image: np.ndarray) -> np.ndarray:
    """Centre-crop to 16:9, resize to 1280x720 (a webcam frame of the same scene)."""
    h, w = image.shape[:2]
    if w / h > 16 / 9:
        cw, ch = round(h * 16 / 9), h
    else:
        cw, ch = w, round(w * 9 / 16)
    x0, y0 = (w - cw) // 2, (h - ch) // 2
    return cv2.resize(image[y0 : y0 + ch, x0 : x0 + cw], (1280, 720), interpolation=cv2.INTER_AREA)


def median_ms(fn: Callable[[], object], repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main(
    data: Path = ROOT / "data" / "eval",
    n: int = 100,
    seed: int = 7,
    models: Path | None = None,
    oracle_only: bool = False,
    latency_frames: int = 10,
    zoom: float = 2.0,
) -> dict[str, float]:
    scenes = ensure_scenes(data, n, seed)
    use_model = not oracle_only and models_installed(models)
    pipeline = CardPipeline.load(models, zoom=zoom) if use_model else None
    oracle_checks: list[PlayerCheck] = []
    model_checks: list[PlayerCheck] = []
    oracle_ms: list[float] = []
    for path in scenes:
        meta: dict[str, Any] = json.loads(path.read_text())
        rules = scene_rules(meta)
        players = scene_players(meta)
        readings, boxes = truth_readings(meta)
        reconstruct = Reconstructor(rules, players)
        start = time.perf_counter()
        snapshot: TableSnapshot = reconstruct(readings, boxes, meta["width"], meta["height"])
        oracle_ms.append((time.perf_counter() - start) * 1000)
        oracle_checks += check_round_end(snapshot, meta, path.stem)
        if pipeline is not None:
            image = read_image(path.parent.parent / "images" / meta["image"])
            table = pipeline.with_table(rules=rules, players=players)
            model_checks += check_round_end(table(image), meta, path.stem)
    print(f"vision evaluation: {len(scenes)} round-end scenes from {data}")
    print_table("oracle (ground-truth boxes and names, no model)", oracle_checks)
    figures = {f"oracle_{k}": v for k, v in summarise(oracle_checks).items()}
    figures["oracle_reconstruct_ms"] = statistics.median(oracle_ms) if oracle_ms else 0.0
    ms = figures["oracle_reconstruct_ms"]
    print(f"\nreconstruction alone (oracle), median per scene: {ms:.2f} ms")
    if pipeline is None:
        print("\nmodel: not installed (models/cards-detector.onnx, models/cards-reader.onnx)")
        return figures
    print_table(f"model (shipped ONNX models, --zoom {zoom:g})", model_checks)
    figures.update({f"model_{k}": v for k, v in summarise(model_checks).items()})
    frames = [
        _frame_1280x720(read_image(p.parent.parent / "images" / json.loads(p.read_text())["image"]))
        for p in scenes[:latency_frames]
    ]
    live = CardPipeline.load(models, zoom=1.0, turned=False)
    whole = statistics.median(median_ms(lambda f=f: live(f), 3) for f in frames)
    still = statistics.median(median_ms(lambda f=f: pipeline(f), 3) for f in frames)
    detector = statistics.median(median_ms(lambda f=f: live.models.detector(f), 3) for f in frames)
    figures["pipeline_ms"] = whole
    figures["still_ms"] = still
    figures["detector_ms"] = detector
    print(
        f"\nlatency per 1280x720 frame (median of {len(frames)} frames): whole pipeline "
        f"{whole:.1f} ms as live video (one locator pass, one read per index), {still:.1f} "
        f"ms as a photo (--zoom {zoom:g}, each index read twice), detector alone "
        f"{detector:.1f} ms (target: pipeline <= 80 ms)"
    )
    print("hand target: >= 97% exact")
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "data" / "eval")
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--models", type=Path)
    parser.add_argument("--oracle-only", action="store_true")
    parser.add_argument("--zoom", type=float, default=2.0, help="small-card pass (1 = off)")
    args = parser.parse_args()
    main(args.data, args.n, args.seed, args.models, args.oracle_only, zoom=args.zoom)
