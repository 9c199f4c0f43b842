"""Model benchmark: accuracy of the shipped locator + reader on the held-out test split,
and latency against plain ultralytics predict of the same weights. Prints figures;
asserts nothing about them.

    python tests/benchmarks/model_eval.py [--data data/eval] [--n 200] [--models models]
                                          [--zoom 2] [--baseline-reader FILE.onnx]

The test split (generated if missing: `data generate --kind scenes --split test`) holds
deck looks and a table family that training never sees.

- card identity: every visible index in the ground truth (>= 75% visible, see
  docs/datasets.md) should be found (IoU >= 0.5) and read as the right card.
  Precision = right reads / predictions not on an unlabelled partial index;
  recall = right reads / visible indices. Overall, per deck family (standard cards,
  jokers, Rook incl. the bird) and per scene kind (card height at the camera's target:
  close-up >= 220 px, table 90-220 px, whole table < 90 px).
- the reader alone on the ground-truth boxes of those visible indices (top-1 per deck
  family): what reading loses when locating is perfect; `--baseline-reader` (e.g. the
  float reader an int8 one was quantized from) is scored in the same run beside it.
- cards as the runtime pipeline returns them for photos (what a player gets): card
  precision and recall per scene kind, after the zoom pass, the two reads per index,
  `MIN_READ` and the corner merging.
- locating: mAP50 and mAP50-95 of `card` and `index` boxes (COCO-style, 101-point
  interpolated precision, IoU 0.50:0.95), computed here from the YOLO labels.
- latency per 1280x720 frame, median: our ONNX Runtime locator alone, locator + reader,
  and ultralytics predict of the `.pt` weights at the same input size.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from shanghai.datasets.camera import scale_kind
from shanghai.engine.cards import Card, DeckFamily
from shanghai.vision.crops import square_crop
from shanghai.vision.onnx_models import OnnxClassifier, OnnxDetector
from shanghai.vision.zoom import ZoomPass

NO_ZOOM = ZoomPass(zoom=1.0)
Boxes = npt.NDArray[np.float32]


def scene_kind(meta: dict[str, Any]) -> str:
    return scale_kind(meta["camera"])


def deck_group(name: str) -> str:
    card = Card.parse(name)
    if card.family is DeckFamily.ROOK:
        return "rook"
    return "joker" if card.is_suitless else "standard"


def quad_box(quad: list[list[float]]) -> list[float]:
    points = np.asarray(quad)
    return [*points.min(0).tolist(), *points.max(0).tolist()]


def iou_matrix(a: Boxes, b: Boxes) -> npt.NDArray[np.float64]:
    if len(a) == 0 or len(b) == 0:
        return np.zeros((len(a), len(b)))
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = (rb - lt).clip(0).prod(2)
    area_a = (a[:, 2:] - a[:, :2]).prod(1)
    area_b = (b[:, 2:] - b[:, :2]).prod(1)
    return np.asarray(inter / (area_a[:, None] + area_b[None, :] - inter + 1e-9))


@dataclass
class Tally:
    right: int = 0
    predicted: int = 0
    truth: int = 0

    def line(self, name: str) -> str:
        p = self.right / self.predicted if self.predicted else float("nan")
        r = self.right / self.truth if self.truth else float("nan")
        return f"{name:<24} precision {p:6.3f}  recall {r:6.3f}  (indices: {self.truth})"


@dataclass
class ApData:
    """Per class: (confidence, matched at each IoU threshold) of predictions; # truths."""

    scores: list[float] = field(default_factory=list)
    hits: list[npt.NDArray[np.bool_]] = field(default_factory=list)
    truths: int = 0


THRESHOLDS = np.linspace(0.5, 0.95, 10)


def ap_update(data: ApData, pred: Boxes, conf: npt.NDArray[np.float32], truth: Boxes) -> None:
    """Match one image's predictions to its truths, greedily by confidence, at every
    IoU threshold (a truth is matched at most once per threshold)."""
    data.truths += len(truth)
    order = np.argsort(-conf, kind="stable")
    iou = iou_matrix(pred[order], truth)
    used = [set[int]() for _ in THRESHOLDS]
    for k, i in enumerate(order):
        hit = np.zeros(len(THRESHOLDS), bool)
        for t, threshold in enumerate(THRESHOLDS):
            free = [j for j in np.flatnonzero(iou[k] >= threshold) if j not in used[t]]
            if free:
                used[t].add(max(free, key=lambda j: iou[k, j]))
                hit[t] = True
        data.scores.append(float(conf[i]))
        data.hits.append(hit)


def average_precision(data: ApData) -> npt.NDArray[np.float64]:
    """AP at each IoU threshold (COCO 101-point interpolation)."""
    if not data.truths:
        return np.full(len(THRESHOLDS), np.nan)
    if not data.scores:
        return np.zeros(len(THRESHOLDS))
    order = np.argsort(-np.asarray(data.scores), kind="stable")
    hits = np.stack(data.hits)[order]
    out = []
    for t in range(len(THRESHOLDS)):
        tp = np.cumsum(hits[:, t])
        fp = np.cumsum(~hits[:, t])
        recall = tp / data.truths
        precision = tp / np.maximum(tp + fp, 1)
        envelope = np.maximum.accumulate(precision[::-1])[::-1]
        points = np.linspace(0, 1, 101)
        idx = np.searchsorted(recall, points, side="left")
        out.append(np.mean([envelope[i] if i < len(envelope) else 0.0 for i in idx]))
    return np.asarray(out)


def ensure_data(root: Path, n: int) -> Path:
    scenes = root / "scenes" / "test"
    if not (scenes / "meta").is_dir() or len(list((scenes / "meta").glob("*.json"))) < n:
        cmd = [sys.executable, "-m", "shanghai.cli.main", "data", "generate", "--out", str(root)]
        cmd += ["--kind", "scenes", "--split", "test", "--n", str(n), "--seed", "2026"]
        subprocess.run([*cmd, "--workers", "2", "--quiet"], check=True)
    return scenes


def read_indices(
    image: npt.NDArray[np.uint8],
    detector: OnnxDetector,
    reader: OnnxClassifier,
    zoom: ZoomPass = NO_ZOOM,
) -> tuple[Boxes, npt.NDArray[np.float32], list[str]]:
    """Index boxes found (confidence >= 0.25), their scores and the names read; with
    the pipeline's small-card second pass when `zoom` is on."""
    found = detector(image, conf=0.25, iou=0.7)
    if zoom.wanted(found):
        size = int(max(image.shape[:2]) * zoom.zoom)
        found = zoom.merge(found, detector(image, conf=0.25, iou=0.7, imgsz=size))
    index = found.of_class("index")
    crops = [square_crop(image, tuple(box), size=reader.size) for box in index.xyxy]
    probs = reader(crops)
    names = [reader.names[int(p.argmax())] for p in probs]
    return index.xyxy, index.confidence, names


def evaluate(
    scenes: Path, detector: OnnxDetector, reader: OnnxClassifier, n: int, zoom: ZoomPass
) -> None:
    tallies: dict[str, Tally] = defaultdict(Tally)
    ap = {"card": ApData(), "index": ApData()}
    metas = sorted((scenes / "meta").glob("*.json"))[:n]
    for meta_path in metas:
        meta = json.loads(meta_path.read_text())
        image = cv2.imread(str(scenes / "images" / meta["image"]))
        kind = scene_kind(meta)
        visible, visible_names, ignored = [], [], []
        for card in meta["cards"]:
            if not card["face_up"]:
                continue
            for index in card["indices"]:
                box = quad_box(index["quad"])
                if index["state"] == "visible":
                    visible.append(box)
                    visible_names.append(card["card"])
                elif index["state"] == "partial":
                    ignored.append(box)
        idx_boxes, idx_conf, names = read_indices(image, detector, reader, zoom)
        # mAP over all scores down to 0.001, as ultralytics' val does
        dets = detector(image, conf=0.001, iou=0.7)
        labels = _yolo_labels(scenes, meta["image"], image.shape)
        for cls in ("card", "index"):
            sub = dets.of_class(cls)
            ap_update(ap[cls], sub.xyxy, sub.confidence, labels[cls])
        truth = np.asarray(visible, np.float32).reshape(-1, 4)
        iou = iou_matrix(idx_boxes, truth)
        skip = iou_matrix(idx_boxes, np.asarray(ignored, np.float32).reshape(-1, 4))
        matched: set[int] = set()
        for i in np.argsort(-idx_conf):
            j = int(iou[i].argmax()) if iou.shape[1] else -1
            if j >= 0 and iou[i, j] >= 0.5 and j not in matched:
                matched.add(j)
                group = deck_group(visible_names[j])
                right = names[i] == visible_names[j]
                for key in ("all", f"deck: {group}", f"scene: {kind}"):
                    tallies[key].predicted += 1
                    tallies[key].right += right
            elif skip.shape[1] and skip[i].max() >= 0.5:
                continue  # a read of an index the labels leave out: neither right nor wrong
            else:
                for key in ("all", f"scene: {kind}"):
                    tallies[key].predicted += 1
        for name in visible_names:
            for key in ("all", f"deck: {deck_group(name)}", f"scene: {kind}"):
                tallies[key].truth += 1
    passes = f"zoomed pass {zoom.zoom:g}x for small cards" if zoom.enabled else "one pass"
    print(f"card identity on {len(metas)} held-out test scenes, {passes} (target >= 0.99):")
    for key in sorted(tallies, key=lambda k: (k != "all", k)):
        print("  " + tallies[key].line(key))
    print("locating (target mAP50-95 >= 0.85):")
    for cls, data in ap.items():
        values = average_precision(data)
        m50, m5095 = values[0], np.nanmean(values)
        print(f"  {cls:<6} mAP50 {m50:.3f}  mAP50-95 {m5095:.3f}  ({data.truths} boxes)")


def reader_on_truth(scenes: Path, readers: dict[str, OnnxClassifier], n: int) -> None:
    """Top-1 of each reader on crops of the visible indices' true boxes."""
    crops: list[npt.NDArray[np.uint8]] = []
    names: list[str] = []
    for meta_path in sorted((scenes / "meta").glob("*.json"))[:n]:
        meta = json.loads(meta_path.read_text())
        image = cv2.imread(str(scenes / "images" / meta["image"]))
        for card in meta["cards"]:
            for index in card["indices"] if card["face_up"] else ():
                if index["state"] == "visible":
                    box = quad_box(index["quad"])
                    crops.append(square_crop(image, tuple(box)))
                    names.append(card["card"])
    groups = [deck_group(name) for name in names]
    print(f"reader alone on the {len(names)} visible indices' true boxes (top-1):")
    for label, reader in readers.items():
        read = [reader.names[int(p.argmax())] for p in reader(crops)]
        hits = np.asarray([a == b for a, b in zip(read, names, strict=True)])
        parts = [f"all {hits.mean():.3f}"]
        for group in sorted(set(groups)):
            mask = np.asarray([g == group for g in groups])
            parts.append(f"{group} {hits[mask].mean():.3f} ({int(mask.sum())})")
        print(f"  {label:<34} " + "  ".join(parts))


def _yolo_labels(scenes: Path, image_name: str, shape: tuple[int, ...]) -> dict[str, Boxes]:
    h, w = shape[:2]
    out: dict[str, list[list[float]]] = {"card": [], "index": []}
    path = scenes / "labels" / (Path(image_name).stem + ".txt")
    for line in path.read_text().splitlines() if path.exists() else []:
        cls, cx, cy, bw, bh = line.split()
        x, y, ww, hh = float(cx) * w, float(cy) * h, float(bw) * w, float(bh) * h
        out[("card", "index")[int(cls)]].append([x - ww / 2, y - hh / 2, x + ww / 2, y + hh / 2])
    return {k: np.asarray(v, np.float32).reshape(-1, 4) for k, v in out.items()}


def latency(models: Path, detector: OnnxDetector, reader: OnnxClassifier, runs: int) -> None:
    rng = np.random.default_rng(0)
    scenes = sorted((Path("data/eval/scenes/test/images")).glob("*.jpg"))
    frame = (
        cv2.resize(cv2.imread(str(scenes[0])), (1280, 720))
        if scenes
        else rng.integers(0, 255, (720, 1280, 3), dtype=np.uint8)
    )

    def timed(fn: Any) -> float:
        fn()
        samples = []
        for _ in range(runs):
            start = time.perf_counter()
            fn()
            samples.append((time.perf_counter() - start) * 1000)
        return statistics.median(samples)

    ours_det = timed(lambda: detector(frame, conf=0.25))
    ours_all = timed(lambda: read_indices(frame, detector, reader))
    print(f"latency per 1280x720 frame, median of {runs} (target: ours <= 80 ms, >= 1.5x):")
    print(f"  ours, locator only (ONNX Runtime)     {ours_det:8.1f} ms")
    print(f"  ours, locator + reader                {ours_all:8.1f} ms")
    try:
        from ultralytics import YOLO
    except ImportError:
        print("  ultralytics not installed: no baseline (pip install -e '.[train]')")
        return
    weights = models / "cards-detector.pt"
    if not weights.is_file():
        print(f"  {weights} missing: no ultralytics baseline")
        return
    model = YOLO(str(weights))
    size = detector.size_for(frame.shape)[0]
    theirs = timed(lambda: model.predict(frame, imgsz=size, conf=0.25, verbose=False))
    print(f"  ultralytics predict, same .pt weights {theirs:8.1f} ms")
    print(f"  ours (locator) is {theirs / ours_det:.2f}x faster than ultralytics")


def evaluate_pipeline(scenes: Path, models: Path, n: int) -> None:
    """Cards as a player gets them: the runtime pipeline as photos run it (zoom pass,
    two reads per index, `MIN_READ`, corners merged into cards). Per scene kind:
    recall = right cards / cards with a visible index; precision = right cards / (right +
    cards that are not on the table at all); a read of a card whose indices are all
    partly hidden is neither."""
    from collections import Counter

    from shanghai.vision.pipeline import CardPipeline

    pipeline = CardPipeline.load(models)
    tallies: dict[str, Tally] = defaultdict(Tally)
    metas = sorted((scenes / "meta").glob("*.json"))[:n]
    for meta_path in metas:
        meta = json.loads(meta_path.read_text())
        image = cv2.imread(str(scenes / "images" / meta["image"]))
        face_up = [c for c in meta["cards"] if c["face_up"]]
        readable = Counter(
            c["card"] for c in face_up if any(i["state"] == "visible" for i in c["indices"])
        )
        got = Counter(str(c.card) for c in pipeline(image).cards)
        right = sum((got & readable).values())
        wrong = sum((got - Counter(c["card"] for c in face_up)).values())
        for key in ("all", f"scene: {scene_kind(meta)}"):
            tallies[key].right += right
            tallies[key].predicted += right + wrong
            tallies[key].truth += sum(readable.values())
    print(f"cards as the pipeline returns them for photos, {len(metas)} scenes:")
    for key in sorted(tallies, key=lambda k: (k != "all", k)):
        print("  " + tallies[key].line(key).replace("(indices:", "(cards:"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("data/eval"))
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--models", type=Path, default=Path("models"))
    parser.add_argument("--latency-runs", type=int, default=30)
    parser.add_argument("--zoom", type=float, default=1.0, help="small-card pass (scans: 2)")
    parser.add_argument(
        "--baseline-reader", type=Path, help="another reader .onnx to score beside the shipped one"
    )
    args = parser.parse_args(argv)
    detector = OnnxDetector(args.models / "cards-detector.onnx")
    reader = OnnxClassifier(args.models / "cards-reader.onnx")
    scenes = ensure_data(args.data, args.n)
    evaluate(scenes, detector, reader, args.n, ZoomPass(zoom=args.zoom))
    readers = {str(args.models / "cards-reader.onnx"): reader}
    if args.baseline_reader:
        readers[str(args.baseline_reader)] = OnnxClassifier(args.baseline_reader)
    reader_on_truth(scenes, readers, args.n)
    evaluate_pipeline(scenes, args.models, args.n)
    latency(args.models, detector, reader, args.latency_runs)


if __name__ == "__main__":
    main()
