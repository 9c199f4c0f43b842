"""Is the live read cache (vision/read_cache.py) safe, and what does it save? Prints
figures; asserts nothing.

    python tests/benchmarks/read_cache_eval.py [--n 30] [--seed 83] [--frames 8]
        [--models DIR] [--max-change 8] [--min-sure 0.9]

`--n` validation scenes at 1280x720 are drawn here (`sample_table`, validation looks),
each twice from the same generator state: as drawn, and with every card swapped for a
look-alike in the same place (the same rank in the other suit of its colour, the next
rank of its suit, the same Rook number in another colour, in turn; a joker for the ace
of spades, the Rook bird for the black 1). A still camera's next frame is the first
drawing with sensor noise (sigma 3 levels) and an exposure gain in 0.9-1.1; the swapped
drawing gets the same treatment. A camera nudged by up to 0.4 px is shown for contrast
(the cache is meant to miss there and read again).

1. Pixels: `crop_change` of each visible index (true boxes) from the first frame to the
   next frame of a still camera (the cache should serve these) and to the swapped
   drawing (it should not serve them: each one served keeps the old card's read), and
   the share under each threshold.
2. Live: each scene as a still video of `--frames` frames through the live pipeline
   (one locator pass, one read per index), without and with the cache (`--max-change`,
   `--min-sure`) in the same run: median ms per frame (frames after the first), right
   cards (on the table) and wrong cards (not on it) over all frames, reads served. Then
   the swapped drawing as the next frame (every card replaced in place): swapped-in
   cards named, and swapped-out cards still named (what a stale cached read would show).
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from shanghai.datasets.decks import code_looks
from shanghai.datasets.layouts import Layout
from shanghai.datasets.sampling import sample_table
from shanghai.datasets.scene import Rendered, render_scene
from shanghai.engine.cards import ROOK_COLOURS, Card, Suit
from shanghai.vision.arrays import Frame
from shanghai.vision.pipeline import CardPipeline, models_installed
from shanghai.vision.read_cache import ReadCache, crop_change, reference_crop

THRESHOLDS = (4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 12.0, 16.0)
PARTNER = {Suit.CLUBS: Suit.SPADES, Suit.SPADES: Suit.CLUBS}
PARTNER |= {Suit.HEARTS: Suit.DIAMONDS, Suit.DIAMONDS: Suit.HEARTS}


def lookalike(card: Card, turn: int) -> Card:
    """A card easy to mistake for `card` at a glance (see the module doc)."""
    if card.suit is Suit.JOKER:
        return Card(Suit.SPADES, 1)
    if card.suit is Suit.BIRD:
        return Card(Suit.BLACK, 1)
    if card.suit in PARTNER:
        if turn % 2 == 0:
            return Card(PARTNER[card.suit], card.rank)
        return Card(card.suit, card.rank + 1 if card.rank < 13 else 12)
    if turn % 2 == 0:
        colours = [c for c in ROOK_COLOURS if c is not card.suit]
        return Card(colours[turn // 2 % len(colours)], card.rank)
    return Card(card.suit, card.rank + 1 if card.rank < 14 else 13)


def still_frame(image: Frame, rng: np.random.Generator, nudge: float = 0.0) -> Frame:
    """The next frame of a camera that did not move (see the module doc); `nudge`: one
    that moved by up to that many pixels each way."""
    if nudge:
        dx, dy = rng.uniform(-nudge, nudge, 2)
        shift = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
        h, w = image.shape[:2]
        image = cv2.warpAffine(image, shift, (w, h), borderMode=cv2.BORDER_REPLICATE)
    noisy = image.astype(np.float32) * rng.uniform(0.9, 1.1) + rng.normal(0, 3, image.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


def drawn_twice(seed: int, index: int) -> tuple[Rendered, Rendered]:
    """One validation table at 1280x720, and the same with every card swapped."""
    rng = np.random.default_rng([seed, index])
    layout, camera, background = sample_table(rng, "val", code_looks(), size=(1280, 720))
    again = copy.deepcopy(rng)
    swapped = Layout(
        placements=[replace(p, card=lookalike(p.card, k)) for k, p in enumerate(layout.placements)],
        clutter=layout.clutter,
        focus_mm=layout.focus_mm,
    )
    return render_scene(layout, camera, background, rng), render_scene(
        swapped, camera, background, again
    )


def index_boxes(rendered: Rendered) -> Iterator[tuple[int, npt.NDArray[np.float32]]]:
    """(placement number, xyxy) of every visible index."""
    for label in rendered.labels():
        for index in label.indices:
            if index.state == "visible":
                quad = index.quad
                box = [*quad.min(axis=0), *quad.max(axis=0)]
                yield label.ident, np.array(box, np.float32)


def pixels(scenes: list[tuple[Rendered, Rendered]], rng: np.random.Generator) -> None:
    same: list[float] = []
    nudged: list[float] = []
    swapped: list[float] = []
    for first, other in scenes:
        nxt, other_nxt = still_frame(first.image, rng), still_frame(other.image, rng)
        moved = still_frame(first.image, rng, nudge=0.4)
        for _, box in index_boxes(first):
            ref = reference_crop(first.image, box)
            same.append(crop_change(ref, reference_crop(nxt, box)))
            nudged.append(crop_change(ref, reference_crop(moved, box)))
            swapped.append(crop_change(ref, reference_crop(other_nxt, box)))
    print(f"\n1. pixels: {len(same)} visible indices (true boxes)")
    rows = (
        ("same card, still camera", same),
        ("same card, moved 0.4 px", nudged),
        ("look-alike laid there", swapped),
    )
    for name, values in rows:
        p = np.percentile(values, [0, 5, 50, 95, 100])
        print(
            f"   {name:23s} crop_change min {p[0]:5.1f}, 5% {p[1]:5.1f}, median {p[2]:5.1f}, "
            f"95% {p[3]:5.1f}, max {p[4]:5.1f}"
        )
    default = ReadCache.max_change
    print("   threshold | served: still camera | moved 0.4 px | look-alike (should be 0)")
    for t in THRESHOLDS:
        mark = "  <- max_change" if t == default else ""
        still = sum(v <= t for v in same) / len(same)
        moved_share = sum(v <= t for v in nudged) / len(nudged)
        wrong = sum(v <= t for v in swapped)
        print(
            f"   {t:9.1f} | {still:20.3f} | {moved_share:12.3f} | {wrong} of {len(swapped)}{mark}"
        )


@dataclass
class Tally:
    """Cards a pipeline named over a run: on the table (right) or not (wrong), and time."""

    right: int = 0
    wrong: int = 0
    ms: list[float] = field(default_factory=list)

    def add(
        self, pipeline: CardPipeline, frame: Frame, table: Counter[str], timed: bool
    ) -> set[str]:
        start = time.perf_counter()
        named = Counter(str(c.card) for c in pipeline(frame).cards)
        if timed:
            self.ms.append((time.perf_counter() - start) * 1000)
        right = sum((named & table).values())
        self.right += right
        self.wrong += sum(named.values()) - right
        return set(named)


def live(
    scenes: list[tuple[Rendered, Rendered]],
    frames: int,
    models: Path | None,
    rng: np.random.Generator,
    cache: ReadCache,
) -> None:
    plain = CardPipeline.load(models, zoom=1.0, turned=False)
    cached = CardPipeline.load(models, zoom=1.0, turned=False)
    cached.models.read_cache = cache
    still = {"plain": Tally(), "cached": Tally()}
    laid = {"plain": Tally(), "cached": Tally()}
    new_named = {"plain": 0, "cached": 0}
    old_named = {"plain": 0, "cached": 0}
    for first, other in scenes:
        cache.clear()
        table = Counter(str(p.card) for p in first.placements)
        after = Counter(str(p.card) for p in other.placements)
        video = [still_frame(first.image, rng) for _ in range(frames)]
        next_frame = still_frame(other.image, rng)
        for name, pipeline in (("plain", plain), ("cached", cached)):
            for k, frame in enumerate(video):
                still[name].add(pipeline, frame, table, timed=k > 0)
            named = laid[name].add(pipeline, next_frame, after, timed=False)
            new_named[name] += len(named & set(after - table))
            old_named[name] += len(named & set(table - after))
    total = cache.hits + cache.misses
    print(
        f"\n2. live: {len(scenes)} still videos of {frames} frames, 1280x720; cache "
        f"max_change {cache.max_change:g}, min_sure {cache.min_sure:g}"
    )
    print("   pipeline | ms per frame (median, after the first) | right cards | wrong cards")
    for name in ("plain", "cached"):
        t = still[name]
        print(f"   {name:8s} | {statistics.median(t.ms):38.1f} | {t.right:11d} | {t.wrong:11d}")
    print(
        f"   reads served from the cache: {cache.hits} of {total} index boxes "
        f"({cache.hits / max(total, 1):.3f}, first frames included)"
    )
    print("   then every card swapped for a look-alike in place, as the next frame:")
    for name in ("plain", "cached"):
        t = laid[name]
        print(
            f"   {name:8s} | right {t.right}, wrong {t.wrong}; swapped-in cards named "
            f"{new_named[name]}, swapped-out cards still named {old_named[name]}"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=30, help="scenes")
    parser.add_argument("--seed", type=int, default=83)
    parser.add_argument("--frames", type=int, default=8, help="frames per still video")
    parser.add_argument("--models", type=Path, default=None)
    parser.add_argument("--max-change", type=float, default=ReadCache.max_change)
    parser.add_argument("--min-sure", type=float, default=ReadCache.min_sure)
    args = parser.parse_args(argv)
    cache = ReadCache(max_change=args.max_change, min_sure=args.min_sure)
    rng = np.random.default_rng(args.seed)
    scenes = [drawn_twice(args.seed, i) for i in range(args.n)]
    print(f"read cache on {args.n} validation scenes (seed {args.seed}), each drawn twice")
    pixels(scenes, rng)
    if models_installed(args.models):
        live(scenes, args.frames, args.models, rng, cache)
    else:
        print("\n2. live: models not installed (models/cards-*.onnx)")


if __name__ == "__main__":
    main()
