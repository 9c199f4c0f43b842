"""Scan evaluation: how often `PhotoScanner` scores a hand wrong without a warning.

    python tests/benchmarks/scan_eval.py [--split val|val-unseen|test] [--n 200]
                                         [--seed S[,S...]]
                                         [--models DIR] [--sweep] [--data DIR]
                                         [--threads T] [--repeats 3]

Renders `--n` hand photos and `--n / 2` lay-down photos (`datasets.hand_photos`) into
`data/scan_eval/<split>-<seed>/` (kept: a rerun reads the files back; `data/` is
git-ignored), scans each as `shanghai scan` does (`PhotoScanner.scan` with the variant's
rules and the photo's kind), and sorts every photo into one of four outcomes:

- `exact`: right, and no warning;
- `right, flagged`: right, with a warning (a person checks for nothing: a cost);
- `wrong, flagged`: wrong, and a warning says so (a person fixes it);
- `wrong, silent`: wrong and no warning: a score entered wrong. The one that matters.

A hand is right when its cards (as a multiset) and its points are. A lay-down is right
when its melds (each in table order), its loose cards and the contract verdict are; the
`loose` warning naming exactly the photo's loose card is the right answer there, not a
flag. Hands are also shown by distance (close-up / table) and deck family, lay-downs by
their true verdict (and both by seed when `--seed` names several, whose photos are
pooled: in 200 photos one photo is 0.5%); then the warnings that fired, the median time
per photo, scans of the first table-distance hand photo (cards small enough for the
zoom pass) cropped to 4:3 and resized to 1, 4 and 12 MP (each size in a fresh process:
median of three runs, peak resident memory, see `peak_rss_mb`), and the silent errors
one by one: what was missed or read in excess, and whether the missed card's index
could be seen at all; and how many hands' points are wrong without a warning (a silent
hand whose only error is a name swapped for one worth the same still counts as silent above).

`--sweep`: the four outcomes again for each candidate sure level (0.45-0.95), cards
below the level re-marked unsure (the `unsure` warning) through the same
`PhotoScanner.scan` with the models' reads of each photo replayed, not re-run.
`--sure-name P` (or `off`) scans with another name level than the models' `sure_name`
(a read the reader gives at least P is sure unless its name is read twice);
`--named-read P` (or `off`) with another level than the models' `named_read` (an
index under the read floor the reader gives at least P names a card, proposed unsure);
`--face-sweep`, `--joker-sweep` and `--stray-sweep` re-mark the same way at each level
of the face check (`FACE_LEVELS`), of its joker check (`JOKER_LEVELS`) and of the stray
check (`STRAY_LEVELS`). Choose the
levels (`sure_read`, `sure_name` in the models' `models.toml`) on `--split val` only,
never on test: the test split's held-out decks and tables are there to say how the
chosen levels do on photos they were not chosen on. Asserts nothing.

`--split val-unseen` (`datasets.splits.UNSEEN_VAL`): validation photos where about half
the tables use decks no model trained on and the test never shows
(`datasets.decks.unseen_val_looks`). The validation split's decks are the training
decks, so a choice meant for decks the models never saw is made on this split.

`--keep-reads`: keep the models' reads of each photo in the photos' folder
(`reads-<digest>.pkl`, the digest of the model files, their levels and the reading
code: `vision/pipeline.py` and what it reads with) and replay them on the next run, so
a change to the scan's rules (placement, warnings, levels) is measured on 600 photos in
seconds instead of minutes. `--no-timing` skips the 1/4/12 MP timings.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import resource
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from shanghai.datasets.hand_photos import render_photo
from shanghai.datasets.splits import UNSEEN_VAL, split_looks
from shanghai.engine.errors import ShanghaiError
from shanghai.engine.variant_files import find_variant
from shanghai.engine.variants import Rules
from shanghai.vision.model_files import ModelFiles
from shanghai.vision.pipeline import FrameReads, Passes, models_installed
from shanghai.vision.scan import FrameReader, PhotoKind, PhotoScanner
from shanghai.vision.snapshot import TableSnapshot
from shanghai.vision.sources import read_image

ROOT = Path(__file__).resolve().parents[2]
SEEDS = {"val": 3101, UNSEEN_VAL: 3301, "test": 3202}
OUTCOMES = ("exact", "right, flagged", "wrong, flagged", "wrong, silent")
TARGETS = (">= 95%", "<= 10%", "", "<= 1%")
LEVELS = (0.45, 0.5, 0.55, 0.6, 0.62, 0.65, 0.68, 0.7, 0.72, 0.75, 0.8, 0.85, 0.9, 0.95)
"""Sure levels the sweep tries: finer where the choice has fallen (0.6-0.75)."""
FACE_LEVELS = (0.0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3)
"""Face check levels `--face-sweep` tries (`face_kind.FaceCheck.least`; 0: no check)."""
JOKER_LEVELS = (0.0, 0.002, 0.005, 0.01, 0.02, 0.05)
"""The face check's joker levels `--joker-sweep` tries (`FaceCheck.joker_least`; 0: jokers
not checked)."""
STRAY_LEVELS = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)
"""Stray check levels `--stray-sweep` tries (`stray_check.StrayCheck.least`; 0: every
stray is warned of)."""
SIZES = {"1 MP": (1152, 864), "4 MP": (2304, 1728), "12 MP": (4032, 3024)}
SILENT_SHOWN = 20


class RememberedReads:
    """A `FrameReader` that runs the models once per frame and gives the same reads back
    while it is handed the same frame: a sweep re-marks one scan at every sure level
    through `PhotoScanner.scan` itself, paying for the models once."""

    def __init__(
        self,
        models: FrameReader,
        sure_name: float | str | None = "models",
        kept: dict[str, FrameReads] | None = None,
        named_read: float | str | None = "models",
    ) -> None:
        self.models = models
        self._sure_name = sure_name
        self._named_read = named_read
        """The level for naming a card under the floor: the models' (`"models"`), or
        another (None: off)."""
        """The name level to scan with: the models' (`"models"`), or another (None: off)."""
        self._frame: np.ndarray | None = None
        self._reads: FrameReads | None = None
        self.kept = kept
        """Reads by photo kept from an earlier run (`--keep-reads`), filled as it goes."""
        self.photo: str | None = None
        """The photo being scanned: its key in `kept`."""

    @property
    def name(self) -> str:
        return self.models.name

    @property
    def sure_read(self) -> float:
        return self.models.sure_read

    @property
    def sure_name(self) -> float | None:
        if isinstance(self._sure_name, str):
            return self.models.sure_name
        return self._sure_name

    @property
    def min_read(self) -> float:
        return self.models.min_read

    @property
    def named_read(self) -> float | None:
        if isinstance(self._named_read, str):
            return self.models.named_read
        return self._named_read

    @property
    def taught(self) -> bool:
        return self.models.taught

    @property
    def corner_span(self) -> float | None:
        return self.models.corner_span

    @property
    def own_cards(self) -> frozenset[str]:
        return self.models.own_cards

    def read_frame(
        self,
        frame: np.ndarray,
        rules: Rules | None = None,
        region: tuple[int, int, int, int] | None = None,
        like: Passes | None = None,
    ) -> FrameReads:
        if region is not None:
            return self.models.read_frame(frame, rules, region, like)
        if frame is not self._frame or self._reads is None:
            kept, photo = self.kept, self.photo
            reads = kept.get(photo) if kept is not None and photo is not None else None
            if reads is None:
                reads = self.models.read_frame(frame, rules)
                if kept is not None and photo is not None:
                    kept[photo] = reads
            self._reads = reads
            self._frame = frame
        return self._reads


READING_CODE = ("pipeline", "zoom", "crops", "detections", "readings", "onnx_models", "images")
"""The modules of `vision/` whose change changes the models' reads (`--keep-reads`)."""


def reads_file(folder: Path, models: Path | None) -> Path:
    """Where the reads of these models, read floor and reading code are kept (the sure
    levels only mark reads, so a new `sure_read` or `sure_name` replays the same reads)."""
    files = ModelFiles.load(models)
    digest = hashlib.sha256()
    for path in (files.detector, files.reader, *files.ensemble):
        digest.update(path.read_bytes())
    digest.update(f"min_read={files.min_read}".encode())
    if files.zooms:  # the reader's views change its reads (none: the digest as before)
        digest.update(f"zooms={files.zooms}".encode())
    vision = ROOT / "vision"
    for name in READING_CODE:
        digest.update((vision / f"{name}.py").read_bytes())
    return folder / f"reads-{digest.hexdigest()[:16]}.pkl"


@dataclass(frozen=True, slots=True)
class Judged:
    """One photo's scan against its truth: right or not, the warnings that count, and
    the cards missed and read in excess (engine notation)."""

    photo: str
    right: bool
    flags: tuple[str, ...]
    missing: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()
    answer_right: bool = False
    """What the photo is read for is right: a hand's points (a name swapped for one
    worth the same keeps them: still wrong here, as a listed card is, but not a score
    entered wrong), a lay-down's verdict (legal or not)."""

    @property
    def outcome(self) -> str:
        if self.right:
            return OUTCOMES[1] if self.flags else OUTCOMES[0]
        return OUTCOMES[2] if self.flags else OUTCOMES[3]


def photo_paths(folder: Path, kind: str, n: int, seed: int, split: str) -> list[Path]:
    """Truth files of photos 0..n-1 of a kind, rendered where missing."""
    looks = None
    out = []
    for index in range(n):
        meta = folder / f"{kind}-{index:04d}.json"
        if not meta.is_file() or not meta.with_suffix(".jpg").is_file():
            if looks is None:
                cache = ROOT / "data" / "cache"
                looks = split_looks(split, cache if cache.is_dir() else None)
            rendered, truth = render_photo(kind, seed, index, split, looks)
            folder.mkdir(parents=True, exist_ok=True)
            meta.with_suffix(".jpg").write_bytes(rendered.jpeg)
            meta.write_text(json.dumps({"image": f"{meta.stem}.jpg", **truth}, indent=1))
        out.append(meta)
    return out


def truth_rules(truth: dict[str, Any]) -> Rules:
    return find_variant(truth["variant"]).rules(truth["players"])


def judge(snapshot: TableSnapshot, truth: dict[str, Any], photo: str) -> Judged:
    """Right or wrong, flagged or silent (see the module docstring)."""
    seat = snapshot.seats[0]
    codes = [w.code for w in snapshot.warnings]
    if truth["kind"] == "hand":
        got = Counter(str(c) for c in snapshot.hand_cards(seat))
        want = Counter(truth["hand"])
        try:
            points: int | None = snapshot.hand_score(seat).points
        except ShanghaiError:
            points = None
        answer_right = points == truth["hand_points"]
        right = got == want and answer_right
    else:
        loose = Counter(str(snapshot.cards[i].card) for i in snapshot.loose)
        melds = sorted(tuple(str(c) for c in m) for m in snapshot.meld_cards(seat))
        valid = snapshot.lay_down(seat, truth["round_number"]).valid
        answer_right = valid == truth["verdict"]["valid"]
        right = (
            melds == sorted(tuple(m) for m in truth["melds"])
            and loose == Counter(truth["loose"])
            and valid == truth["verdict"]["valid"]
        )
        if truth["loose"] and loose == Counter(truth["loose"]):
            codes.remove("loose")  # the right answer for a photo with a loose card
        got = Counter(c for m in melds for c in m) + loose
        want = Counter(card for card, _ in truth_cards(truth))
    return Judged(
        photo,
        right,
        tuple(codes),
        tuple(sorted((want - got).elements())),
        tuple(sorted((got - want).elements())),
        answer_right,
    )


def shares(judged: Sequence[Judged]) -> list[float]:
    counts = Counter(j.outcome for j in judged)
    return [100 * counts[o] / max(1, len(judged)) for o in OUTCOMES]


def row(label: str, judged: Sequence[Judged]) -> str:
    cells = " | ".join(f"{s:13.1f}%" for s in shares(judged))
    return f"  {label:<17} {len(judged):6d} | {cells}"


def print_outcomes(title: str, groups: dict[str, list[Judged]]) -> None:
    print(f"\n{title:<19} photos | " + " | ".join(f"{o:>14}" for o in OUTCOMES))
    print(f"  {'target':<24} | " + " | ".join(f"{t:>14}" for t in TARGETS))
    for label, judged in groups.items():
        if judged:
            print(row(label, judged))


def truth_cards(truth: dict[str, Any]) -> list[tuple[str, bool]]:
    """Every card of a photo, and whether any of its indices shows (a card hidden under
    others cannot be read by anyone)."""
    if truth["kind"] == "hand":
        return list(zip(truth["hand"], truth["readable"], strict=True))
    cards = [c for m in truth["melds"] for c in m] + truth["loose"]
    flags = [r for m in truth["readable"] for r in m] + truth["loose_readable"]
    return list(zip(cards, flags, strict=True))


def what_went_wrong(j: Judged, truth: dict[str, Any]) -> str:
    """A silent error in words: misread, missed (index shown or hidden), read twice or
    not there at all, or the cards right and their grouping wrong."""
    held = Counter(card for card, _ in truth_cards(truth))
    hidden = Counter(card for card, shows in truth_cards(truth) if not shows)
    if j.missing and j.extra:
        return f"misread ({' '.join(j.missing)} -> {' '.join(j.extra)})"
    if j.missing:
        return "missed " + " ".join(c + (" (index hidden)" if hidden[c] else "") for c in j.missing)
    if j.extra:
        twice = any(held[c] for c in j.extra)
        return ("read twice " if twice else "not there ") + " ".join(j.extra)
    return "cards right, melds or verdict wrong"


def time_photo(
    path: Path, size: tuple[int, int], repeats: int, models: Path | None, threads: int | None
) -> None:
    """In a fresh process: scan one photo (its truth file `path`) resized to `size`;
    print the median seconds and the peak memory as JSON."""
    truth = json.loads(path.read_text())
    image = read_image(path.with_suffix(".jpg"))
    h, w = image.shape[:2]
    if h > w:
        size = (size[1], size[0])
    # Centre-cropped to the size's shape first, so the cards keep their proportions.
    cw, ch = min(w, round(h * size[0] / size[1])), min(h, round(w * size[1] / size[0]))
    x0, y0 = (w - cw) // 2, (h - ch) // 2
    image = cv2.resize(image[y0 : y0 + ch, x0 : x0 + cw], size, interpolation=cv2.INTER_LINEAR)
    scanner = PhotoScanner.load(models, threads=threads)
    rules = truth_rules(truth)
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        scanner.scan(image, rules=rules, kind=PhotoKind(truth["kind"]))
        samples.append(time.perf_counter() - start)
    print(json.dumps({"seconds": statistics.median(samples), "rss_mb": peak_rss_mb()}))


def peak_rss_mb() -> float:
    """This process's peak resident memory. On Linux `ru_maxrss` keeps the peak of the
    process image an `exec` replaced, so a child started from this benchmark (1.2 GB after
    its scans) reported the parent's peak at every size; the kernel's high-water mark of
    the process's own memory (`VmHWM`) is what was meant."""
    status = Path("/proc/self/status")
    if status.is_file():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def print_timing(photo: Path, repeats: int, models: Path | None, threads: int | None) -> None:
    print(f"\ntiming: {photo.stem} resized, each size scanned in a fresh process")
    print(f"  {'size':<17} | median s ({repeats} runs) | peak RSS")
    for label, (w, h) in SIZES.items():
        command = [sys.executable, __file__, "--time-photo", str(photo), "--size", f"{w}x{h}"]
        command += ["--repeats", str(repeats)]
        command += ["--models", str(models)] if models else []
        command += ["--threads", str(threads)] if threads else []
        done = subprocess.run(command, check=True, capture_output=True, text=True)
        got = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"  {label:>5} {f'{w}x{h}':<11} | {got['seconds']:16.2f} s | {got['rss_mb']:5.0f} MB")


def print_sweep(
    sweep: dict[float, dict[str, list[Judged]]], shipped: float, what: str = "sure level"
) -> None:
    print(f"\n{what} sweep (choose on a validation split, never on test)")
    short = ("exact", "r-flag", "w-flag", "silent")
    print("  level | hands: " + " ".join(f"{s:>6}" for s in short), end="")
    print(" | lay-downs: " + " ".join(f"{s:>6}" for s in short))
    for level, by_kind in sweep.items():
        mark = " <- the models' level" if abs(level - shipped) < 1e-9 else ""
        cells = [" ".join(f"{s:5.1f}%" for s in shares(by_kind[k])) for k in ("hand", "lay-down")]
        print(f"  {level:<5g} |        {cells[0]} |            {cells[1]}{mark}")


Sweep = tuple[Sequence[float], float, Callable[[float], PhotoScanner]]
"""A check's levels to try, the level the models chose, and the scanner at a level."""


def level_sweeps(scanner: PhotoScanner, args: argparse.Namespace) -> dict[str, Sweep]:
    """The check levels asked for (`--face-sweep`, `--joker-sweep`, `--stray-sweep`),
    by the title their table is printed under: each re-marks the same scan."""
    checks: dict[str, Sweep] = {}
    faces, strays = scanner.faces, scanner.strays
    if args.face_sweep and faces is not None:
        checks["face check level (sure level as above)"] = (
            FACE_LEVELS,
            faces.least,
            lambda level: replace(scanner, faces=replace(faces, least=level)),
        )
    if args.joker_sweep and faces is not None:
        checks["face check joker level (0: not checked)"] = (
            JOKER_LEVELS,
            faces.joker_least or 0.0,
            lambda level: replace(scanner, faces=replace(faces, joker_least=level or None)),
        )
    if args.stray_sweep and strays is not None:
        checks["stray check level (0: every stray warned of)"] = (
            STRAY_LEVELS,
            strays.least,
            lambda level: replace(scanner, strays=replace(strays, least=level)),
        )
    return checks


def main(argv: list[str] | None = None) -> dict[str, list[float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=tuple(SEEDS), default="val")
    parser.add_argument("--n", type=int, default=200, help="hand photos (lay-downs: half)")
    parser.add_argument(
        "--seed",
        type=lambda v: [int(s) for s in v.split(",")],
        default=None,
        help="default: val 3101, test 3202; several (3202,3204) are pooled, each also shown",
    )
    parser.add_argument("--models", type=Path, default=None)
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument(
        "--face-least",
        type=lambda v: 0.0 if v == "off" else float(v),
        default=None,
        help="face check level to scan with (default: the models'; 'off': no check)",
    )
    parser.add_argument(
        "--face-sweep", action="store_true", help="also try the face check levels FACE_LEVELS"
    )
    parser.add_argument(
        "--joker-sweep",
        action="store_true",
        help="also try the face check's joker levels JOKER_LEVELS",
    )
    parser.add_argument(
        "--stray-sweep",
        action="store_true",
        help="also try the stray check levels STRAY_LEVELS",
    )
    parser.add_argument(
        "--sure-name",
        type=lambda v: None if v == "off" else v if v == "models" else float(v),
        default="models",
        help="name level to scan with (default: the models' sure_name; 'off': none)",
    )
    parser.add_argument(
        "--named-read",
        type=lambda v: None if v == "off" else v if v == "models" else float(v),
        default="models",
        help="level naming a card under the read floor (default: the models' named_read;"
        " 'off': none)",
    )
    parser.add_argument("--data", type=Path, default=ROOT / "data" / "scan_eval")
    parser.add_argument("--threads", type=int, default=None, help="ONNX Runtime threads")
    parser.add_argument("--repeats", type=int, default=3, help="timed scans per size")
    parser.add_argument("--keep-reads", action="store_true", help="keep and replay reads")
    parser.add_argument("--no-timing", action="store_true", help="skip the 1/4/12 MP timings")
    parser.add_argument("--time-photo", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--size", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.time_photo is not None:
        w, h = (int(v) for v in args.size.split("x"))
        time_photo(args.time_photo, (w, h), args.repeats, args.models, args.threads)
        return {}
    if not models_installed(args.models):
        print("scan evaluation: card models not installed (models/cards-*.onnx)")
        return {}
    seeds = [SEEDS[args.split]] if args.seed is None else args.seed
    folders = {seed: args.data / f"{args.split}-{seed}" for seed in seeds}
    folder = folders[seeds[0]]
    base = PhotoScanner.load(args.models, threads=args.threads)
    remembered = RememberedReads(base.models, args.sure_name, named_read=args.named_read)
    scanner = replace(base, models=remembered)
    if args.face_least is not None and scanner.faces is not None:
        scanner = replace(scanner, faces=replace(scanner.faces, least=args.face_least))
    if (args.face_sweep or args.joker_sweep) and scanner.faces is None:
        parser.error("--face-sweep: these models have no face check ([face] in models.toml)")
    if args.stray_sweep and scanner.strays is None:
        parser.error("--stray-sweep: these models have no stray check ([stray] in models.toml)")
    checks = level_sweeps(scanner, args)
    swept: dict[str, dict[float, dict[str, list[Judged]]]] = {
        title: {level: {"hand": [], "lay-down": []} for level in levels}
        for title, (levels, _, _) in checks.items()
    }
    judged: dict[str, list[Judged]] = {"hand": [], "lay-down": []}
    truths: dict[str, dict[str, Any]] = {}
    seconds: dict[str, list[float]] = {"hand": [], "lay-down": []}
    fired: dict[str, Counter[str]] = {"hand": Counter(), "lay-down": Counter()}
    sweep: dict[float, dict[str, list[Judged]]] = {
        level: {"hand": [], "lay-down": []} for level in LEVELS
    }
    counts = {"hand": args.n, "lay-down": max(1, args.n // 2)}
    for seed, at in folders.items():
        kept_at = reads_file(at, args.models) if args.keep_reads else None
        if kept_at is not None:
            remembered.kept = pickle.loads(kept_at.read_bytes()) if kept_at.is_file() else {}
            print(f"reads kept in {kept_at} ({len(remembered.kept)} photos read before)")
        for kind, n in counts.items():
            for path in photo_paths(at, kind, n, seed, args.split):
                # one seed: the photo's file name; several: its seed too, to tell them apart
                photo = path.stem if len(seeds) == 1 else f"{seed}/{path.stem}"
                truth = json.loads(path.read_text())
                truths[photo] = truth
                image = read_image(path.with_suffix(".jpg"))
                rules, photo_kind = truth_rules(truth), PhotoKind(kind)
                remembered.photo = path.stem
                start = time.perf_counter()
                snapshot = scanner.scan(image, rules=rules, kind=photo_kind)
                seconds[kind].append(time.perf_counter() - start)
                judged[kind].append(judge(snapshot, truth, photo))
                fired[kind].update({w.code for w in snapshot.warnings})
                if args.sweep:
                    for level in LEVELS:
                        again = replace(scanner, sure=level).scan(
                            image, rules=rules, kind=PhotoKind(kind)
                        )
                        sweep[level][kind].append(judge(again, truth, photo))
                for title, (_, _, at_level) in checks.items():
                    for level, outcomes in swept[title].items():
                        again = at_level(level).scan(image, rules=rules, kind=PhotoKind(kind))
                        outcomes[kind].append(judge(again, truth, photo))
        if kept_at is not None and remembered.kept is not None:
            kept_at.write_bytes(pickle.dumps(remembered.kept))

    hands, lay_downs = judged["hand"], judged["lay-down"]
    where = ", ".join(str(f) for f in folders.values())
    print(
        f"scan evaluation, split {args.split}, seed {','.join(map(str, seeds))}: "
        f"{len(hands)} hand and {len(lay_downs)} lay-down photos in {where}"
    )
    threads = args.threads or "all"
    name_level = remembered.sure_name
    face_level = "off" if scanner.faces is None else f"{scanner.faces.least:g}"
    print(
        f"models {scanner.name}, sure level {scanner.sure_level:.2f}, name level "
        f"{'off' if name_level is None else name_level}, face level {face_level}, "
        f"named under the floor from {remembered.named_read or 'off'}, "
        f"threads {threads}"
    )
    by = {j.photo: truths[j.photo] for j in [*hands, *lay_downs]}
    print_outcomes(
        "hands",
        {
            "all": hands,
            "close-up": [j for j in hands if by[j.photo]["distance"] == "close-up"],
            "table": [j for j in hands if by[j.photo]["distance"] == "table"],
            "standard": [j for j in hands if by[j.photo]["family"] == "standard"],
            "rook": [j for j in hands if by[j.photo]["family"] == "rook"],
        },
    )
    if len(seeds) > 1:
        print_outcomes(
            "hands by seed",
            {str(seed): [j for j in hands if j.photo.startswith(f"{seed}/")] for seed in seeds},
        )
    print_outcomes(
        "lay-downs",
        {
            "all": lay_downs,
            "truly valid": [j for j in lay_downs if by[j.photo]["verdict"]["valid"]],
            "truly invalid": [j for j in lay_downs if not by[j.photo]["verdict"]["valid"]],
        },
    )
    if len(seeds) > 1:
        print_outcomes(
            "lay-downs by seed",
            {str(seed): [j for j in lay_downs if j.photo.startswith(f"{seed}/")] for seed in seeds},
        )
    print("\nwarnings (photos where each fires):")
    for kind, label in (("hand", "hands"), ("lay-down", "lay-downs")):
        codes = ", ".join(f"{c} {k}" for c, k in fired[kind].most_common()) or "none"
        print(f"  {label:<9} {codes}")
    print("warnings on photos read right (the cost of a flag; a photo counts once a code):")
    for kind, label in (("hand", "hands"), ("lay-down", "lay-downs")):
        costly = Counter(c for j in judged[kind] if j.right for c in set(j.flags))
        codes = ", ".join(f"{c} {k}" for c, k in costly.most_common()) or "none"
        print(f"  {label:<9} {codes}")
    print(
        "warnings alone (a photo whose only warning it is): right photos it flags / wrong "
        "photos it alone keeps from silence:"
    )
    for kind, label in (("hand", "hands"), ("lay-down", "lay-downs")):
        alone = [j for j in judged[kind] if len(set(j.flags)) == 1]
        costs = Counter(j.flags[0] for j in alone if j.right)
        saves = Counter(j.flags[0] for j in alone if not j.right)
        codes = ", ".join(f"{c} {costs[c]}/{saves[c]}" for c in sorted({*costs, *saves}))
        print(f"  {label:<9} {codes or 'none'}")
    loose_photos = sum(bool(by[j.photo]["loose"]) for j in lay_downs)
    print(f"  ({loose_photos} lay-down photos hold a loose card: `loose` is right there)")
    median = {k: statistics.median(v) if v else 0.0 for k, v in seconds.items()}
    print(
        f"\ntime per photo (median): hands {median['hand']:.2f} s, "
        f"lay-downs {median['lay-down']:.2f} s"
    )
    table_shots = [j.photo for j in hands if by[j.photo]["distance"] == "table"]
    timed = folder / f"{Path((table_shots or [hands[0].photo])[0]).name}.json"
    if not args.no_timing:
        print_timing(timed, args.repeats, args.models, args.threads)
    silent = [j for j in [*hands, *lay_downs] if j.outcome == "wrong, silent"]
    scored_wrong = [j for j in hands if j.outcome == "wrong, silent" and not j.answer_right]
    judged_wrong = [j for j in lay_downs if j.outcome == "wrong, silent" and not j.answer_right]
    print(
        f"\nhands whose points are wrong without a warning: {len(scored_wrong)} of "
        f"{len(hands)} ({100 * len(scored_wrong) / max(len(hands), 1):.1f}%; the silent "
        "hands above also count a card listed as another worth the same)"
    )
    print(
        f"lay-downs whose verdict is wrong without a warning: {len(judged_wrong)} of "
        f"{len(lay_downs)} ({100 * len(judged_wrong) / max(len(lay_downs), 1):.1f}%; the "
        "silent lay-downs above also count one whose cards are wrong and verdict right)"
    )
    print(f"\nsilent errors ({len(silent)}; the first {min(len(silent), SILENT_SHOWN)}):")
    for j in silent[:SILENT_SHOWN]:
        truth = by[j.photo]
        note = f" ({'points' if truth['kind'] == 'hand' else 'verdict'} right)" * j.answer_right
        print(
            f"  {j.photo} ({truth['distance']}, {truth['variant']}, "
            f"{truth.get('arrangement') or truth.get('spoilt') or 'as laid'}): "
            f"{what_went_wrong(j, truth)}{note}"
        )
    if args.sweep:
        print_sweep(sweep, scanner.sure_level)
    for title, (_, chosen, _) in checks.items():
        print_sweep(swept[title], chosen, title)
    return {"hand": shares(hands), "lay-down": shares(lay_downs)}


if __name__ == "__main__":
    main()
