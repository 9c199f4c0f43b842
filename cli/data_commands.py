"""`shanghai data ...`: synthetic training and test data.

    shanghai data generate --out DIR --n N --seed S [--workers W] [--kind KIND]
    shanghai data preview --out FILE.png --seed S [--kind scenes|roundend|crops|faces]
    shanghai data fetch-decks [--cache DIR]

See docs/datasets.md for what each kind writes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .errors import UsageError

PREVIEW_KINDS = ("scenes", "roundend", "crops", "faces")


def register(sub: Any) -> None:
    """Add the `data` command group to the top-level parser."""
    from shanghai.datasets.generate import KINDS
    from shanghai.datasets.splits import SPLITS, UNSEEN_VAL

    parser: argparse.ArgumentParser = sub.add_parser("data", help="generate synthetic card data")

    def usage(args: argparse.Namespace) -> int:
        parser.print_help()
        return 0

    parser.set_defaults(func=usage)
    data_sub = parser.add_subparsers(dest="data_command", parser_class=type(parser))

    gen = data_sub.add_parser(
        "generate", help="render N items of one kind (deterministic for a seed)"
    )
    gen.add_argument("--out", type=Path, required=True, help="output folder (KIND/ is made in it)")
    gen.add_argument("--n", type=int, required=True, help="number of scenes to render")
    gen.add_argument("--seed", type=int, required=True, help="same seed, same files")
    gen.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    gen.add_argument(
        "--kind", choices=KINDS, default="scenes", help="what to write (default scenes)"
    )
    gen.add_argument(
        "--split",
        choices=(*SPLITS, UNSEEN_VAL),
        default=None,
        help="put everything in one split (default: 80/10/10 by item index); "
        f"{UNSEEN_VAL}: validation with decks no model trained on (docs/datasets.md)",
    )
    gen.add_argument("--tile", type=int, default=416, help="tile side for --kind tiles (px)")
    gen.add_argument("--tiles-per-scene", type=int, default=3, help="tiles cut from each scene")
    gen.add_argument("--crop-size", type=int, default=64, help="side of reader crops (px)")
    gen.add_argument(
        "--rook-share",
        type=float,
        default=0.25,
        help="share of tables dealt Rook decks (default 0.25; e.g. 1 for Rook-only crops)",
    )
    gen.add_argument(
        "--extra-jokers",
        type=int,
        default=0,
        help="jokers added to each standard deck (default 0; e.g. 8 for joker-heavy tiles)",
    )
    gen.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="folder of fetched npm decks (default data/cache if present)",
    )
    gen.add_argument("--quiet", action="store_true", help="no progress bar")
    gen.set_defaults(func=_generate)

    pre = data_sub.add_parser("preview", help="a contact sheet PNG of generated items with labels")
    pre.add_argument("--out", type=Path, required=True, help="PNG file to write")
    pre.add_argument("--seed", type=int, required=True, help="shows items 0.. of that seed")
    pre.add_argument("--kind", choices=PREVIEW_KINDS, default="scenes", help="what to show")
    pre.add_argument("--count", type=int, default=12, help="number of scenes (or crops)")
    pre.add_argument("--cache", type=Path, default=None, help="folder of fetched npm decks")
    pre.set_defaults(func=_preview)

    fetch = data_sub.add_parser("fetch-decks", help="npm pack the pinned SVG decks into the cache")
    fetch.add_argument("--cache", type=Path, default=None, help="cache folder (default data/cache)")
    fetch.set_defaults(func=_fetch)


def _cache(args: argparse.Namespace) -> Path | None:
    from shanghai.datasets.decks import DEFAULT_CACHE

    given: Path | None = args.cache
    if given is not None:
        if not given.is_dir():
            raise UsageError(f"--cache {given}: no such folder (run `shanghai data fetch-decks`)")
        return given.resolve()
    cache: Path = DEFAULT_CACHE
    return cache.resolve() if cache.is_dir() else None


def _generate(args: argparse.Namespace) -> int:
    from shanghai.datasets.generate import CROP_KINDS, GenerateConfig, generate

    try:
        cfg = GenerateConfig(
            out=args.out,
            n=args.n,
            seed=args.seed,
            kind=args.kind,
            workers=args.workers,
            split=args.split,
            cache_dir=_cache(args),
            tile_size=args.tile,
            tiles_per_scene=args.tiles_per_scene,
            crop_size=args.crop_size,
            rook_share=args.rook_share,
            extra_jokers=args.extra_jokers,
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    if args.tiles_per_scene < 1:
        raise UsageError("--tiles-per-scene must be at least 1")
    try:
        summary = generate(cfg, progress=not args.quiet)
    except RuntimeError as exc:
        raise UsageError(str(exc)) from None
    written = (
        f"{summary.crops} crops"
        if args.kind == "crops" or args.kind in CROP_KINDS
        else f"{summary.images} images"
    )
    splits = ", ".join(f"{k} {v}" for k, v in sorted(summary.per_split.items()))
    print(f"wrote {written} ({splits}) to {cfg.root}")
    print(
        f"{summary.items} scenes in {summary.seconds:.1f} s: "
        f"{summary.items_per_second:.2f} scenes/s with {args.workers} worker(s)"
    )
    return 0


def _preview(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from shanghai.datasets.decks import all_looks
    from shanghai.datasets.preview import crops_sheet, faces_sheet, scenes_sheet

    if args.out.suffix.lower() != ".png":
        raise UsageError(f"--out {args.out}: the contact sheet is a .png file")
    if not 1 <= args.count <= 400:
        raise UsageError("--count must be between 1 and 400")
    looks = all_looks(_cache(args))
    if args.kind == "faces":
        sheets = [faces_sheet(look) for look in looks]
        width = max(s.shape[1] for s in sheets)
        sheet = np.vstack([np.pad(s, ((0, 0), (0, width - s.shape[1]), (0, 0))) for s in sheets])
    elif args.kind == "crops":
        sheet = crops_sheet(args.seed, args.count, looks)
    else:
        sheet = scenes_sheet(args.seed, args.count, looks, kind=args.kind)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(args.out), sheet):
        raise UsageError(f"--out {args.out}: could not write the PNG")
    print(f"wrote {args.out} ({sheet.shape[1]}x{sheet.shape[0]})")
    return 0


def _fetch(args: argparse.Namespace) -> int:
    from shanghai.datasets.decks import DEFAULT_CACHE
    from shanghai.datasets.fetch import fetch_decks

    cache = args.cache or DEFAULT_CACHE
    for deck, path in fetch_decks(cache):
        print(f"{deck.spec} ({deck.licence}) -> {path}")
    print("licences: datasets/THIRD_PARTY.md", file=sys.stderr)
    return 0
