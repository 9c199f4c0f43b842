"""`shanghai scan | watch`, and `score` / `check` of photos: the cards in images and
live video.

    shanghai scan IMAGE... [--variant V] [--players N] [--photo hand|lay-down|table]
                  [--seats N | --zones FILE] [--json] [--annotate DIR]
    shanghai watch SOURCE [--variant V] [--players N] [--seats N | --zones FILE]
                  [--hold SECONDS] [--settle SECONDS] [--every-frame] [--show] [--json]
                  [--deck NAME]

The models load once for all the images. Every photo goes through the scan contract
(`vision.scan.PhotoScanner`), as the server's scans do, so a photo gives the same cards
here and on the page. A missing model, a camera that cannot be opened: one line on
stderr, exit 2; an unreadable image: one line on stderr, the other images go on, exit 2.
`score` and `check` (engine commands) come here when they are given photos instead of
card text: one result per photo (with `--json`, one object a line).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from shanghai.engine.scoring import score_hand
from shanghai.engine.variants import Rules
from shanghai.vision.deck_store import DeckError, DeckReaderChanged
from shanghai.vision.pipeline import CardPipeline, ModelMissingError
from shanghai.vision.regions import Reread
from shanghai.vision.scan import PhotoKind, PhotoScanner, ScanInputError
from shanghai.vision.snapshot import TableSnapshot
from shanghai.vision.sources import SourceError, is_image_path, read_image, timed_frames
from shanghai.vision.zones import ZoneConfig

from .deck_commands import add_deck_option, deck_head_for
from .errors import UsageError
from .rules_options import print_report, report_json, resolve_rules

__all__ = [
    "check_photos",
    "looks_like_image",
    "photo_scanner",
    "register",
    "score_photos",
    "snapshot_json",
]

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_BAD_INPUT = 2


def looks_like_image(text: str) -> bool:
    """An argument `score`/`check` should read as a photo rather than card text."""
    return is_image_path(text) or (len(text) < 4096 and Path(text).is_file())


def _rules(args: argparse.Namespace) -> Rules | None:
    if not getattr(args, "variant", None):
        return None
    return resolve_rules(args.variant, getattr(args, "players", None))


def _zones(args: argparse.Namespace) -> ZoneConfig | None:
    path = getattr(args, "zones", None)
    if path is None:
        return None
    try:
        return ZoneConfig.load(path)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _pipeline(
    args: argparse.Namespace, rules: Rules | None, *, role: str = "auto", video: bool = False
) -> CardPipeline:
    """`video`: one read per index (no half-turned second read), as every frame counts;
    with `--cache-reads`, sure reads of indices that lie still are carried from frame to
    frame (`ReadCache`); with `--deck`, read with the taught deck (`deck_head_for`)."""
    if args.zoom < 1:
        raise UsageError("--zoom must be >= 1 (1 turns the small-card pass off)")
    try:
        return CardPipeline.load(
            getattr(args, "models", None),
            rules=rules,
            players=getattr(args, "seats", 1) or 1,
            zones=_zones(args),
            role=role,
            zoom=args.zoom,
            turned=not video,
            cache_reads=video and getattr(args, "cache_reads", False),
            deck=deck_head_for(getattr(args, "deck", None)),
        )
    except (ModelMissingError, DeckError) as exc:
        raise UsageError(_said(exc, getattr(args, "deck", None))) from None


def photo_scanner(
    models: str | Path | None = None, *, zoom: float = 2.0, deck: str | None = None
) -> PhotoScanner:
    """The scan contract's scanner for still photos, reading with the taught deck
    `deck` if named; a missing model or deck is a usage error."""
    if zoom < 1:
        raise UsageError("--zoom must be >= 1 (1 turns the small-card pass off)")
    try:
        return PhotoScanner.load(models, zoom=zoom, deck=deck_head_for(deck))
    except (ModelMissingError, DeckError) as exc:
        raise UsageError(_said(exc, deck)) from None


def _said(exc: Exception, deck: str | None) -> str:
    """What a person is told when the models or the deck cannot be loaded: a deck taught
    before this reader model is named with the command that fits it again."""
    if isinstance(exc, DeckReaderChanged) and deck:
        return (
            f"deck {deck} was taught for another reader model: fit it again from its "
            f"stored cards with `shanghai deck refit {deck}` (seconds)"
        )
    return str(exc)


def scanned(
    paths: list[str],
    scanner: PhotoScanner,
    *,
    rules: Rules | None,
    kind: PhotoKind,
    seats: int = 1,
    zones: ZoneConfig | None = None,
) -> Iterator[tuple[str, TableSnapshot | None]]:
    """Each photo's scan, or None after printing why it could not be read (one line
    on stderr): one bad file among many stops nothing."""
    for path in paths:
        try:
            frame = read_image(path)
            yield path, scanner.scan(frame, rules=rules, kind=kind, seats=seats, zones=zones)
        except (SourceError, ScanInputError) as exc:
            message = str(exc) if str(exc).startswith(path) else f"{path}: {exc}"
            print(f"shanghai: error: {message}", file=sys.stderr)
            yield path, None


def _card_list(snapshot: TableSnapshot, positions: tuple[int, ...]) -> str:
    """Card names, an unsure read marked with '?'."""
    return " ".join(
        f"{snapshot.cards[i].card}{'' if snapshot.cards[i].sure else '?'}" for i in positions
    )


def _print_warnings(snapshot: TableSnapshot) -> None:
    for warning in snapshot.warnings:
        print(f"  warning: {warning.message}")


def _print_photo_json(path: str, result: dict[str, Any], snapshot: TableSnapshot) -> None:
    """One photo's line of `score`/`check --json`: the result, then what was read."""
    data = snapshot.to_json()
    keys = ("cards", "unread", "warnings")
    print(json.dumps({"image": path, **result, **{k: data[k] for k in keys}}), flush=True)


def score_photos(paths: list[str], rules: Rules, args: argparse.Namespace) -> int:
    """`shanghai score PHOTO...`: each photo is one player's hand; its points."""
    scanner = photo_scanner(getattr(args, "models", None), deck=getattr(args, "deck", None))
    status = EXIT_OK
    for path, snapshot in scanned(paths, scanner, rules=rules, kind=PhotoKind.HAND):
        if snapshot is None:
            status = EXIT_BAD_INPUT
            continue
        seat = snapshot.seats[0]
        hand = score_hand(snapshot.hand_cards(seat), rules)
        if args.json:
            result = {
                "points": hand.points,
                "variant": rules.variant.name,
                "hand": [str(c) for c in hand.cards],
                "per_card": list(hand.per_card),
            }
            _print_photo_json(path, result, snapshot)
            continue
        cards = _card_list(snapshot, seat.hand)
        print(f"{path}: {hand.points} points" + (f" ({cards})" if cards else ""))
        _print_warnings(snapshot)
    return status


def check_photos(paths: list[str], rules: Rules, number: int, args: argparse.Namespace) -> int:
    """`shanghai check PHOTO...`: each photo is one player's lay-down; its verdict. Exit
    1 when a lay-down is not legal, 2 when a photo could not be read."""
    scanner = photo_scanner(getattr(args, "models", None), deck=getattr(args, "deck", None))
    status = EXIT_OK
    for path, snapshot in scanned(paths, scanner, rules=rules, kind=PhotoKind.LAY_DOWN):
        if snapshot is None:
            status = EXIT_BAD_INPUT
            continue
        report = snapshot.lay_down(snapshot.seats[0], number)
        if not report.valid and status == EXIT_OK:
            status = EXIT_INVALID
        if args.json:
            result = report_json(report, rules, True)
            _print_photo_json(path, {**result, "loose": snapshot.to_json()["loose"]}, snapshot)
            continue
        print(f"{path}:")
        print_report(report, rules)
        _print_warnings(snapshot)
    return status


def _add_table_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--variant", help="variant name or house-rule .toml file (enables verdicts)")
    p.add_argument("--players", type=int, help="players at the table (deck set-up); default 4")
    p.add_argument(
        "--seats",
        type=int,
        default=1,
        help="seats in view: 1 (default) = one player's area; N = the whole table, N sectors",
    )
    p.add_argument("--zones", type=Path, help="seat zones as JSON polygons (see docs/vision.md)")
    p.add_argument("--models", type=Path, help="folder holding the ONNX models (default: shipped)")
    p.add_argument("--json", action="store_true", help="one JSON object per line")


def register(sub: Any) -> None:
    """Add `scan` and `watch` to the top-level parser."""
    p = sub.add_parser("scan", help="find and read the cards in images")
    p.add_argument("images", nargs="+", help="image files (JPEG, PNG, WebP, BMP, TIFF)")
    _add_table_options(p)
    p.add_argument("--annotate", type=Path, help="write each image with overlays into DIR")
    p.add_argument(
        "--photo",
        choices=[k.value for k in PhotoKind],
        default=PhotoKind.TABLE.value,
        help="what the photos show: one player's hand, a lay-down, or the table (default; "
        "one player's area, or --seats N around the table)",
    )
    _add_zoom(p, 2.0, "small cards: a second locator pass at this upscale (2; 1 = off)")
    add_deck_option(p)
    p.set_defaults(func=cmd_scan)

    p = sub.add_parser("watch", help="live: print the stable table state as it changes")
    p.add_argument("source", help="camera index (0), video file, or stream URL")
    _add_table_options(p)
    p.add_argument(
        "--hold",
        type=float,
        help="seconds a card set must hold before it is the stable state (0: at once; 1.0 with "
        "--every-frame)",
    )
    p.add_argument(
        "--settle",
        type=float,
        default=0.2,
        help="seconds the picture must stay still after a change before it is read (0.2)",
    )
    p.add_argument(
        "--every-frame",
        action="store_true",
        help="read every frame in full instead of only where the table changed (slow)",
    )
    p.add_argument("--show", action="store_true", help="open a window with overlays")
    p.add_argument("--max-frames", type=int, help="stop after this many frames")
    p.add_argument(
        "--cache-reads",
        action="store_true",
        help="with --every-frame: reuse sure reads of indices that did not change (see "
        "docs/vision.md)",
    )
    _add_zoom(
        p,
        None,
        "small cards: a second locator pass at this upscale (2 as scan; 1 = off, the "
        "default with --every-frame)",
    )
    add_deck_option(p)
    p.set_defaults(func=cmd_watch)


def _add_zoom(p: argparse.ArgumentParser, default: float | None, text: str) -> None:
    """`--zoom`: on by default for photos, off for video, where a second pass at 2x
    would cost four times the first on every frame (`vision/zoom.py`)."""
    p.add_argument("--zoom", type=float, default=default, help=text)


def snapshot_json(snapshot: TableSnapshot) -> dict[str, Any]:
    """`cards`, `melds` and `hands` as the CLI reports them (plus the per-seat detail)."""
    data = snapshot.to_json()
    melds = []
    hands = []
    for seat in data["seats"]:
        for meld in seat["melds"]:
            melds.append({"seat": seat["seat"], **meld})
        hand = {"seat": seat["seat"], "cards": seat["hand"], "positions": seat["hand_positions"]}
        if "points" in seat:
            hand["points"] = seat["points"]
        hands.append(hand)
    return {
        "kind": data["kind"],
        "cards": data["cards"],
        "melds": melds,
        "hands": hands,
        "loose": data["loose"],
        "unread": data["unread"],
        "warnings": data["warnings"],
        "variant": data["variant"],
        "width": data["width"],
        "height": data["height"],
    }


def _print_snapshot(label: str, snapshot: TableSnapshot) -> None:
    data = snapshot_json(snapshot)
    names = " ".join(c["card"] for c in data["cards"])
    count = len(data["cards"])
    print(f"{label}: {count} card{'s' if count != 1 else ''}" + (f": {names}" if names else ""))
    for meld in data["melds"]:
        verdict = ""
        if "valid" in meld:
            verdict = (
                f" — ok, {meld['description']}"
                if meld["valid"]
                else f" — NOT LEGAL: {'; '.join(meld['reasons'])}"
            )
        print(f"  seat {meld['seat']} meld: {' '.join(meld['cards'])}{verdict}")
    for hand in data["hands"]:
        if not hand["cards"]:
            continue
        points = f" ({hand['points']} points)" if hand.get("points") is not None else ""
        print(f"  seat {hand['seat']} hand: {' '.join(hand['cards'])}{points}")
    if data["loose"]:
        print(f"  not part of a meld: {' '.join(data['loose'])}")
    _print_warnings(snapshot)


def cmd_scan(args: argparse.Namespace) -> int:
    rules = _rules(args)
    kind = PhotoKind(args.photo)
    seats = args.seats or 1
    zones = _zones(args)
    if kind is not PhotoKind.TABLE and (seats != 1 or zones is not None):
        raise UsageError("--seats and --zones go with --photo table")
    scanner = photo_scanner(args.models, zoom=args.zoom, deck=args.deck)
    overlay = None
    if args.annotate is not None:
        from shanghai.vision.overlay import SnapshotOverlay

        args.annotate.mkdir(parents=True, exist_ok=True)
        overlay = SnapshotOverlay()
    status = EXIT_OK
    for path, snapshot in scanned(
        args.images, scanner, rules=rules, kind=kind, seats=seats, zones=zones
    ):
        if snapshot is None:
            status = EXIT_BAD_INPUT
            continue
        if args.json:
            print(json.dumps({"image": path, **snapshot_json(snapshot)}), flush=True)
        else:
            _print_snapshot(path, snapshot)
        if overlay is not None:
            import cv2

            out = args.annotate / f"{Path(path).stem}.jpg"
            cv2.imwrite(str(out), overlay.annotate(read_image(path), snapshot))
    return status


def _window_available() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) or sys.platform in (
        "win32",
        "darwin",
    )


def cmd_watch(args: argparse.Namespace) -> int:
    """Only where the table changed is read (`vision.motion.MotionGate`): a settled
    change goes through the scan contract (`PhotoScanner`, as `scan --zoom Z` reads the
    same frame); `--every-frame` runs the live pipeline on every frame."""
    from shanghai.vision.live import LiveTable

    hold = args.hold if args.hold is not None else (1.0 if args.every_frame else 0.0)
    if hold < 0 or args.settle < 0:
        raise UsageError("--hold and --settle must be >= 0 seconds")
    if args.cache_reads and not args.every_frame:
        raise UsageError("--cache-reads goes with --every-frame")
    if args.zoom is None:
        args.zoom = 1.0 if args.every_frame else 2.0
    rules = _rules(args)
    pipeline = _pipeline(args, rules, video=args.every_frame)
    memory = Reread()
    live = (
        LiveTable.every_frame(pipeline, hold)
        if args.every_frame
        else LiveTable.gated(
            _settled_reader(pipeline, args, rules, memory), hold, args.settle, memory
        )
    )
    show = args.show and _window_available()
    if args.show and not show:
        print("shanghai: no display here; watching without a window", file=sys.stderr)
    overlay = None
    if show:
        from shanghai.vision.overlay import SnapshotOverlay

        overlay = SnapshotOverlay()
    count = 0
    try:
        for frame, timestamp in timed_frames(args.source, max_frames=args.max_frames):
            if frame.size == 0:
                raise SourceError(f"{args.source}: empty frame")
            count += 1
            state = live.update(frame, timestamp)
            if state.changed_and_stable:
                _print_live(state.snapshot, timestamp, state.smoothed.stability, args.json)
            if overlay is not None:
                show = _show(overlay.annotate(frame, state.snapshot))
                if not show:
                    overlay = None
    except (SourceError, ScanInputError) as exc:
        raise UsageError(str(exc)) from None
    if count == 0:
        raise UsageError(f"{args.source}: no frames")
    print(f"shanghai: {count} frames; the models read {live.reads} of them", file=sys.stderr)
    cache = pipeline.models.read_cache
    if cache is not None and cache.hits + cache.misses:
        total = cache.hits + cache.misses
        print(
            f"shanghai: {count} frames; {cache.hits} of {total} index reads served from "
            "the still-card cache",
            file=sys.stderr,
        )
    return EXIT_OK


def _settled_reader(
    pipeline: CardPipeline, args: argparse.Namespace, rules: Rules | None, memory: Reread
) -> Callable[[Any], TableSnapshot]:
    """A settled frame read by the scan contract, as `shanghai scan` reads a photo,
    located again only where it changed (`memory`: `regions.reread`)."""
    scanner = PhotoScanner.of(pipeline.models)
    seats = args.seats or 1
    zones = _zones(args)

    def read(frame: Any) -> TableSnapshot:
        return scanner.scan(
            frame, rules=rules, kind=PhotoKind.TABLE, seats=seats, zones=zones, reread=memory
        )

    return read


def _show(image: Any) -> bool:
    import cv2

    try:
        cv2.imshow("shanghai watch", image)
        cv2.waitKey(1)
    except cv2.error:
        print("shanghai: cannot open a window (OpenCV without GUI); watching on", file=sys.stderr)
        return False
    return True


def _print_live(snapshot: TableSnapshot, timestamp: float, stability: float, as_json: bool) -> None:
    if as_json:
        data = {"time": round(timestamp, 3), "stable": True, "stability": round(stability, 3)}
        print(json.dumps({**data, **snapshot_json(snapshot)}), flush=True)
    else:
        _print_snapshot(f"t={timestamp:.1f}s stable", snapshot)
        sys.stdout.flush()
