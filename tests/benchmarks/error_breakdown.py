"""Where the index errors come from: every visible index of the generated scenes sorted
into read right, misread, located but under the read floor, or not located, broken
down by index size, deck, look, scene kind and sharpness. Prints figures and writes a
contact sheet of the worst errors; asserts nothing about them.

    python tests/benchmarks/error_breakdown.py [--data data/eval] [--n 100] [--models models]
                                               [--sheet out/error_sheet.png] [--threads T]

Scenes: the held-out test split of `model_eval.py` (`--seed 2026`, generated into
`--data` when missing). Each frame runs through `CardModels` as photos do: the locator
with its second pass (zoomed for small cards, half size for large ones), each located
index read upright and half-turned, the reads restricted to the frame's deck family,
and a read names a card at locating x reading >= `min_read` (the models' `models.toml`).
Index level: before corners are merged into cards.

Only indices whose truth state is `visible` are counted. One index is:
- located when a predicted index box overlaps the axis-aligned box of its true quad at
  IoU >= 0.5 (one-to-one, pairs taken greedily by IoU, highest first);
- right / misread when located and its read reaches the floor and names the true card
  / another card; under the floor when located and it does not reach it (right or not);
- not located otherwise.
Beside each row: the reader alone on the true boxes (same crops, same two reads and
family restriction; the floor on the reading alone): what reading loses when locating
is perfect. Bins: the true quad's longer side in frame pixels; deck family; deck look;
scene kind (`model_eval.scene_kind`); sharpness, the variance of the Laplacian of the
grey 64 x 64 reader crop of the true box (low for blur and for upscaled tiny indices).

The sheet shows the worst errors (misreads, surest first, then the indices not located,
largest first): the square 3x the index's longer side around the true box, true box in
green, the matched (or most overlapping) predicted box in red, labelled `truth>read
conf` or `truth missed`.
"""

from __future__ import annotations

import argparse
import json
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
from bench_scripts import load_script

from shanghai.vision.crops import square_crop
from shanghai.vision.pipeline import CardModels, CardPipeline
from shanghai.vision.readings import restrict_probabilities
from shanghai.vision.sources import read_image

model_eval = load_script("model_eval")

OUTCOMES = ("right", "misread", "under floor", "not located")
READER_OUTCOMES = OUTCOMES[:3]
MATCH_IOU = 0.5
HEIGHT_BINS = (10.0, 14.0, 20.0, 30.0)
SHARPNESS_BINS = (30.0, 100.0, 300.0, 1000.0)
TILE = 128
LABEL = 16
COLUMNS = 8


def bin_label(value: float, edges: Sequence[float]) -> str:
    """`<10`, `10-14`, ..., `>=30` for edges (10, 14, 20, 30)."""
    if value < edges[0]:
        return f"<{edges[0]:g}"
    for low, high in pairwise(edges):
        if value < high:
            return f"{low:g}-{high:g}"
    return f">={edges[-1]:g}"


def bin_order(edges: Sequence[float]) -> list[str]:
    return [bin_label(e - 1e-6, edges) for e in edges] + [bin_label(edges[-1], edges)]


def quad_long_side(quad: list[list[float]]) -> float:
    """The longer side of a quad: the mean of each pair of opposite sides, the larger."""
    p = np.asarray(quad, np.float64)
    sides = np.linalg.norm(p - np.roll(p, -1, axis=0), axis=1)
    return float(max((sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2))


def sharpness(crop: npt.NDArray[np.uint8]) -> float:
    """Variance of the Laplacian of a grey reader crop (64 x 64): blur in the scene and
    too few pixels upscaled both make it low, as both do for the reader."""
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float64)
    return float(cv2.Laplacian(grey, cv2.CV_64F).var())


def match_by_iou(iou: npt.NDArray[np.float64], threshold: float) -> dict[int, int]:
    """truth column -> prediction row, one-to-one, greedily by IoU (highest first)."""
    pairs = np.argwhere(iou >= threshold)
    order = np.argsort(-iou[pairs[:, 0], pairs[:, 1]], kind="stable") if len(pairs) else []
    rows: set[int] = set()
    out: dict[int, int] = {}
    for k in order:
        i, j = int(pairs[k, 0]), int(pairs[k, 1])
        if i not in rows and j not in out:
            rows.add(i)
            out[j] = i
    return out


@dataclass(frozen=True, kw_only=True, slots=True)
class IndexCase:
    """One visible true index and what the pipeline and the reader alone made of it."""

    scene: str
    truth: str
    outcome: str
    read: str | None
    confidence: float
    reader_outcome: str
    height_px: float
    family: str
    look: str
    kind: str
    sharpness: float
    loose_box: bool
    """Not located, but a predicted box overlaps it at IoU 0.1-0.5 (a misplaced box)."""
    tile: npt.NDArray[np.uint8] | None = None


def outcome(name: str, truth: str, confidence: float, floor: float) -> str:
    if confidence < floor:
        return "under floor"
    return "right" if name == truth else "misread"


def scene_cases(
    models: CardModels, meta: dict[str, Any], frame: npt.NDArray[np.uint8]
) -> list[IndexCase]:
    """Every visible index of one scene, judged (see the module docstring)."""
    truths: list[tuple[dict[str, Any], dict[str, Any]]] = [
        (card, index)
        for card in meta["cards"]
        if card["face_up"]
        for index in card["indices"]
        if index["state"] == "visible"
    ]
    if not truths:
        return []
    names = models.reader.names
    true_xyxy = np.asarray([model_eval.quad_box(i["quad"]) for _, i in truths], np.float32)
    index_xyxy, index_conf, _ = models.locate(frame)
    crops = [square_crop(frame, tuple(map(float, b))) for b in index_xyxy]
    probabilities = restrict_probabilities(models.classify(crops), names, None)
    true_crops = [square_crop(frame, tuple(map(float, b))) for b in true_xyxy]
    alone = restrict_probabilities(models.classify(true_crops), names, None)
    iou = model_eval.iou_matrix(index_xyxy, true_xyxy)
    matched = match_by_iou(iou, MATCH_IOU)
    kind = model_eval.scene_kind(meta)
    floor = models.min_read
    cases = []
    for j, (card, index) in enumerate(truths):
        truth = card["card"]
        alone_best = int(alone[j].argmax())
        reader_outcome = outcome(names[alone_best], truth, float(alone[j, alone_best]), floor)
        read, confidence, shown = None, 0.0, None
        if j in matched:
            i = matched[j]
            best = int(probabilities[i].argmax())
            read, confidence = names[best], float(index_conf[i] * probabilities[i, best])
            result, shown = outcome(read, truth, confidence, floor), i
        else:
            result = "not located"
            if iou.shape[0] and iou[:, j].max() > 0:
                shown = int(iou[:, j].argmax())
        loose = result == "not located" and iou.shape[0] > 0 and iou[:, j].max() >= 0.1
        tile = None
        if result in ("misread", "not located"):
            other = index_xyxy[shown] if shown is not None else None
            tile = error_tile(frame, true_xyxy[j], other)
        cases.append(
            IndexCase(
                scene=meta["image"],
                truth=truth,
                outcome=result,
                read=read,
                confidence=confidence,
                reader_outcome=reader_outcome,
                height_px=quad_long_side(index["quad"]),
                family=model_eval.deck_group(truth),
                look=card["look"],
                kind=kind,
                sharpness=sharpness(true_crops[j]),
                loose_box=bool(loose),
                tile=tile,
            )
        )
    return cases


def error_tile(
    frame: npt.NDArray[np.uint8],
    truth_xyxy: npt.NDArray[np.float32],
    found_xyxy: npt.NDArray[np.float32] | None,
) -> npt.NDArray[np.uint8]:
    """The square 3x the index's longer side around its true box, TILE px, with the true
    box in green and `found_xyxy` (if any) in red."""
    context = 3.0
    box = tuple(float(v) for v in truth_xyxy)
    tile = square_crop(frame, box, size=TILE, context=context).copy()
    side = max(box[2] - box[0], box[3] - box[1]) * context
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    scale = TILE / max(side, 1e-3)

    def draw(xyxy: Sequence[float], colour: tuple[int, int, int]) -> None:
        x0, y0 = (xyxy[0] - cx) * scale + TILE / 2, (xyxy[1] - cy) * scale + TILE / 2
        x1, y1 = (xyxy[2] - cx) * scale + TILE / 2, (xyxy[3] - cy) * scale + TILE / 2
        cv2.rectangle(tile, (round(x0), round(y0)), (round(x1), round(y1)), colour, 1)

    draw(box, (0, 200, 0))
    if found_xyxy is not None:
        draw([float(v) for v in found_xyxy], (0, 0, 255))
    return tile


def worst_errors(cases: Sequence[IndexCase], count: int) -> list[IndexCase]:
    """Misreads, surest first, then indices not located, largest first."""
    misreads = sorted((c for c in cases if c.outcome == "misread"), key=lambda c: -c.confidence)
    missed = sorted((c for c in cases if c.outcome == "not located"), key=lambda c: -c.height_px)
    return (misreads + missed)[:count]


def write_sheet(path: Path, errors: Sequence[IndexCase]) -> tuple[int, int]:
    """A grid of labelled tiles, COLUMNS wide; (rows, columns). No error: one blank
    tile saying so."""
    columns = max(1, min(COLUMNS, len(errors)))
    rows = max(1, math.ceil(len(errors) / columns))
    sheet = np.full((rows * (TILE + LABEL), columns * TILE, 3), 255, np.uint8)
    for k, case in enumerate(errors):
        r, c = divmod(k, columns)
        y, x = r * (TILE + LABEL), c * TILE
        assert case.tile is not None
        sheet[y + LABEL : y + LABEL + TILE, x : x + TILE] = case.tile
        if case.outcome == "misread":
            text = f"{case.truth}>{case.read} {case.confidence:.2f}"
        else:
            text = f"{case.truth} missed {case.height_px:.0f}px"
        font = cv2.FONT_HERSHEY_SIMPLEX
        cv2.putText(sheet, text, (x + 2, y + LABEL - 4), font, 0.4, (0, 0, 0), 1, cv2.LINE_AA)
    if not errors:
        cv2.putText(sheet, "no errors", (4, 40), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 1)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(path), sheet):
        raise OSError(f"could not write {path}")
    return rows, columns


def shares(outcomes: Sequence[str], names: Sequence[str]) -> list[float]:
    """Percent of `outcomes` that are each of `names`."""
    counts = Counter(outcomes)
    return [100.0 * counts[o] / len(outcomes) for o in names]


def print_breakdown(
    title: str, cases: Sequence[IndexCase], key: Callable[[IndexCase], str], order: Sequence[str]
) -> None:
    groups: dict[str, list[IndexCase]] = defaultdict(list)
    for case in cases:
        groups[key(case)].append(case)
    head = " | ".join(f"{o:>11}" for o in OUTCOMES)
    alone = " | ".join(f"{o:>11}" for o in READER_OUTCOMES)
    print(f"by {title}:")
    print(f"  {'':<20} | {'n':>4} | {head} || reader alone: {alone}")
    for name in [*order, *sorted(set(groups) - set(order))]:
        group = groups.get(name)
        if not group:
            continue
        ours = shares([c.outcome for c in group], OUTCOMES)
        theirs = shares([c.reader_outcome for c in group], READER_OUTCOMES)
        ours_text = " | ".join(f"{v:10.1f}%" for v in ours)
        theirs_text = " | ".join(f"{v:10.1f}%" for v in theirs)
        print(f"  {name:<20} | {len(group):4d} | {ours_text} || {'':>13} {theirs_text}")


BREAKDOWNS: tuple[tuple[str, Callable[[IndexCase], str], Sequence[str]], ...] = (
    ("nothing (all indices)", lambda c: "all", ["all"]),
    (
        "index height (px, quad's longer side)",
        lambda c: bin_label(c.height_px, HEIGHT_BINS),
        bin_order(HEIGHT_BINS),
    ),
    ("deck family", lambda c: c.family, ["standard", "rook", "joker"]),
    ("deck look", lambda c: c.look, []),
    ("scene kind", lambda c: c.kind, ["close-up", "table", "whole table"]),
    (
        "sharpness (variance of the Laplacian, grey reader crop)",
        lambda c: bin_label(c.sharpness, SHARPNESS_BINS),
        bin_order(SHARPNESS_BINS),
    ),
)


def weakest_rows(cases: Sequence[IndexCase], least: int = 20) -> list[str]:
    """Per breakdown, the row of at least `least` indices with the lowest right share."""
    out = []
    for title, key, _ in BREAKDOWNS[1:]:
        groups: dict[str, list[bool]] = defaultdict(list)
        for case in cases:
            groups[key(case)].append(case.outcome == "right")
        rows = {k: sum(v) / len(v) for k, v in groups.items() if len(v) >= least}
        if rows:
            name = min(rows, key=lambda k: rows[k])
            out.append(f"{title.split(' (')[0]} {name} {100 * rows[name]:.1f}%")
    return out


def summary(cases: Sequence[IndexCase], floor: float) -> str:
    n = len(cases)
    if not n:
        return "Summary: no visible index in these scenes."
    count = Counter(c.outcome for c in cases)
    alone = Counter(c.reader_outcome for c in cases)
    lost = n - count["right"]
    if not lost:
        return f"Summary: all {n} visible indices were read right."
    missed = [c for c in cases if c.outcome == "not located"]
    small_missed = sum(c.height_px < HEIGHT_BINS[1] for c in missed)
    loose = sum(c.loose_box for c in missed)
    per_scene = Counter(c.scene for c in missed).most_common()
    alone_dropped = sum(
        c.reader_outcome == "misread" and c.outcome in ("not located", "under floor") for c in cases
    )
    under_right = sum(c.outcome == "under floor" and c.read == c.truth for c in cases)
    confusions = Counter(
        f"{c.truth}>{c.read}" for c in cases if c.outcome == "misread"
    ).most_common(3)

    def share(k: int, of: int) -> str:
        return f"{100 * k / of:.0f}%" if of else "-"

    return (
        f"Summary: of {n} visible indices the pipeline reads {100 * count['right'] / n:.1f}% "
        f"right. The {lost} others: {count['not located']} not located "
        f"({share(count['not located'], lost)}), {count['under floor']} located but under "
        f"the floor {floor:.2f} ({share(count['under floor'], lost)}; {under_right} of them "
        f"with the right card as best guess) and {count['misread']} misread "
        f"({share(count['misread'], lost)}). Of those not located {small_missed} are under "
        f"{HEIGHT_BINS[1]:g} px, {loose} had a predicted box at IoU 0.1-0.5 (a misplaced box "
        f"rather than none), and they come from {len(per_scene)} scenes"
        + (f" (the worst holds {per_scene[0][1]})" if per_scene else "")
        + f". The reader alone on the true boxes reads {100 * alone['right'] / n:.1f}% right "
        f"({100 * alone['misread'] / n:.1f}% misread, {100 * alone['under floor'] / n:.1f}% "
        f"under the floor on its reading): the pipeline is "
        f"{100 * (alone['right'] - count['right']) / n:.1f} points below it, the cost of "
        "locating (boxes not found, and locating confidence pulling reads under the floor); "
        f"of the reader's {alone['misread']} misreads on true boxes {alone_dropped} are "
        "indices the pipeline does not locate or leaves under the floor. Weakest rows: "
        + "; ".join(weakest_rows(cases))
        + ". Most frequent misreads: "
        + (", ".join(f"{k} ({v})" for k, v in confusions) if confusions else "none")
        + "."
    )


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("data/eval"))
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--models", type=Path, default=Path("models"))
    parser.add_argument("--sheet", type=Path, default=Path("out/error_sheet.png"))
    parser.add_argument("--tiles", type=int, default=64, help="errors on the sheet")
    parser.add_argument("--threads", type=int, default=None, help="ONNX Runtime threads")
    args = parser.parse_args(argv)
    if args.threads:
        cv2.setNumThreads(args.threads)
    models = CardPipeline.load(args.models, threads=args.threads).models
    scenes = model_eval.ensure_data(args.data, args.n)
    metas = sorted((scenes / "meta").glob("*.json"))[: args.n]
    cases: list[IndexCase] = []
    for path in metas:
        meta = json.loads(path.read_text())
        frame = read_image(scenes / "images" / meta["image"])
        cases += scene_cases(models, meta, frame)
    floor = models.min_read
    print(
        f"error breakdown on {len(metas)} test scenes ({scenes}): {len(cases)} visible "
        f"indices, models {models.name}"
    )
    print(
        "  photo pass: locator + zoomed/half-size second pass, two reads per index, "
        f"floor min_read {floor:.2f} on locating x reading (reader alone: on reading)"
    )
    print(
        f"  located: a predicted index box at IoU >= {MATCH_IOU} with the true quad's box "
        "(one-to-one, greedy by IoU); shares of each row's indices"
    )
    for title, key, order in BREAKDOWNS:
        print_breakdown(title, cases, key, order)
    errors = worst_errors(cases, args.tiles)
    rows, columns = write_sheet(args.sheet, errors)
    print(
        f"sheet: {args.sheet}, {len(errors)} tile{'' if len(errors) == 1 else 's'} "
        f"({rows} x {columns}): misreads surest "
        "first, then not located, largest first; true box green, predicted box red"
    )
    print(summary(cases, floor))
    counts = Counter(c.outcome for c in cases)
    return {
        "indices": len(cases),
        "outcomes": {o: counts[o] for o in OUTCOMES},
        "tiles": len(errors),
        "grid": (rows, columns),
    }


if __name__ == "__main__":
    main()
