"""`shanghai deck enroll | locator | refit | list | remove`: teach the scanner your deck.

    shanghai deck enroll NAME --labels FILE.csv [--family standard|rook] [--models DIR]
                                                [--locator [MINUTES]] [--reader-minutes 4]
    shanghai deck locator NAME [--minutes 6.5] [--reader-minutes 4]
    shanghai deck refit NAME [--models DIR]
    shanghai deck list [--json]
    shanghai deck remove NAME

`enroll` reads photos of the real cards lying apart, labelled in a CSV (rows
`image,cards`: a photo, relative to the CSV, and the cards in it in any order), finds
and matches every card (`vision.deck_enrol`), adapts the reading to the deck, and stores
the deck in the data folder (`vision.deck_store.decks_dir`), replacing a deck of the same
name; bad input names the photo and the card and stores nothing. With the train extra,
`--locator` (or `locator` later, for a deck taught on the page) also adapts the card
locator to the deck and then fine-tunes the reader on it (`datasets.deck_locator`);
the step ends within the two training times and `OVERHEAD_MINUTES`, the training giving
back what the other parts take beyond that (`datasets.step_budget`). `scan`, `score`,
`check` and `watch` read with a taught deck through `--deck NAME` (`deck_head_for`).
`refit` fits a deck taught before a new reader model again from its stored cards
(`vision.deck_enrol.refit`): the new reader refuses its old head.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shanghai.engine.cards import DeckFamily
from shanghai.vision.deck_head import DeckHead
from shanghai.vision.deck_store import (
    LOCATOR_MINUTES,
    LOCATOR_MINUTES_RANGE,
    READER_MINUTES,
    READER_MINUTES_RANGE,
    DeckError,
    DeckStore,
    StoredDeck,
)

if TYPE_CHECKING:
    from shanghai.vision.pipeline import CardModels

from .errors import UsageError

__all__ = ["add_deck_option", "deck_head_for", "register"]

STAGES = {
    "photos": "finding cards",
    "crops": "reading crops",
    "fit": "fitting the head",
    "scenes": "rendering scenes of the deck",
    "train": "adapting the locator (s)",
    "reader": "fine-tuning the reader (s)",
    "export": "writing the locator and reader",
    "check": "checking its reads (photos)",
}


def _levels(deck: StoredDeck) -> str:
    """The sure level chosen for a deck's own models, as words ("" without one)."""
    level = deck.sure_read if deck.has_locator else None
    return "" if level is None else f" (sure level {level:.2f})"


def _done(deck: StoredDeck) -> str:
    """What a taught deck's locator step gave it (said after the step)."""
    if deck.has_reader:
        said = "its own locator and reader are adapted: scans with --deck use them"
    else:
        said = "its own locator is adapted: scans with --deck locate with it"
    levels = _levels(deck)
    return said + (f"; its sure level chosen on photos of its cards{levels}" if levels else "")


def add_deck_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--deck", help="read with a taught deck (`shanghai deck list`)")


def deck_head_for(name: str | None, store: DeckStore | None = None) -> DeckHead | None:
    """The adapted reading of a stored deck by name (None: no deck); a usage error for
    a deck that is not stored or not adapted."""
    if not name:
        return None
    try:
        deck = (store or DeckStore()).get(name)
        return deck.head()
    except DeckError as exc:
        raise UsageError(str(exc)) from None


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "deck", help="teach the scanner your own deck (enroll, locator, refit, list, remove)"
    )

    def usage(args: argparse.Namespace) -> int:
        parser.print_help()
        return 0

    parser.set_defaults(func=usage)
    deck_sub = parser.add_subparsers(dest="deck_command", parser_class=type(parser))
    p = deck_sub.add_parser("enroll", help="enrol a deck from labelled photos of its cards")
    p.add_argument("name", help="the deck's name (letters, digits, '_', '.', '-')")
    p.add_argument("--labels", type=Path, required=True, help="CSV of rows image,cards")
    p.add_argument(
        "--family",
        choices=[f.value for f in DeckFamily],
        default=DeckFamily.STANDARD.value,
        help="deck family (standard: 52 cards and jokers; rook: 1-14 in four colours and the bird)",
    )
    p.add_argument("--models", type=Path, help="folder of the ONNX models (default: shipped)")
    p.add_argument(
        "--locator",
        type=float,
        nargs="?",
        const=LOCATOR_MINUTES,
        metavar="MINUTES",
        help="also adapt the card locator to the deck, training for MINUTES "
        f"(default {LOCATOR_MINUTES:g}) on generated photos of its cards, then the reader "
        "(--reader-minutes): finds and reads more of its cards; needs the train extra "
        "(pip install -e '.[train]')",
    )
    _add_reader_minutes(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_enroll)
    p = deck_sub.add_parser(
        "locator",
        help="adapt the card locator and reader to a taught deck (train extra; see "
        "enroll --locator)",
    )
    p.add_argument("name")
    p.add_argument(
        "--minutes",
        type=float,
        default=LOCATOR_MINUTES,
        help=f"the locator's training time (default {LOCATOR_MINUTES:g})",
    )
    _add_reader_minutes(p)
    p.add_argument("--models", type=Path, help="folder of the ONNX models (default: shipped)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--json-progress",
        action="store_true",
        help='progress as JSON lines on stdout ({"stage", "done", "total"}), for the server',
    )
    p.set_defaults(func=cmd_locator)
    p = deck_sub.add_parser(
        "refit",
        help="fit a taught deck again from its stored cards, for a new reader model "
        "(no photos; seconds)",
    )
    p.add_argument("name")
    p.add_argument("--models", type=Path, help="folder of the ONNX models (default: shipped)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_refit)
    p = deck_sub.add_parser("list", help="the decks taught here")
    p.add_argument("--json", action="store_true", help="one JSON array")
    p.set_defaults(func=cmd_list)
    p = deck_sub.add_parser("remove", help="forget a taught deck")
    p.add_argument("name")
    p.set_defaults(func=cmd_remove)


class _JsonLines:
    """Progress as one JSON object a line on stdout: the server's locator job reads it."""

    def __call__(self, stage: str, done: int, total: int) -> None:
        print(json.dumps({"stage": stage, "done": done, "total": total}), flush=True)

    def close(self) -> None:
        """Nothing to close (the same shape as `_Bars`)."""


class _Bars:
    """One progress bar per stage of a long job (`STAGES` names them); none when quiet."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.bars: dict[str, Any] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self.quiet:
            return
        from tqdm import tqdm

        bar = self.bars.get(stage)
        if bar is None:
            bar = self.bars[stage] = tqdm(total=total, desc=STAGES.get(stage, stage), unit="")
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    def close(self) -> None:
        for bar in self.bars.values():
            bar.close()


def cmd_enroll(args: argparse.Namespace) -> int:
    from shanghai.vision.deck_enrol import enrol, read_labels

    store = DeckStore()
    if args.locator is None and args.reader_minutes is not None:
        raise UsageError("--reader-minutes goes with --locator (the reader is fine-tuned after it)")
    if args.locator is not None:
        _check_locator_training(args.locator, _reader_minutes(args))
    try:
        photos = read_labels(args.labels)
    except DeckError as exc:
        raise UsageError(str(exc)) from None
    models = _models(args.models)
    progress = _Bars(args.quiet)
    started = time.perf_counter()
    try:
        deck = enrol(store, args.name, DeckFamily(args.family), photos, models, progress=progress)
    except DeckError as exc:
        raise UsageError(str(exc)) from None
    finally:
        progress.close()
    if args.locator is not None:
        _teach_locator(deck, models, args.locator, _reader_minutes(args), progress)
    seconds = time.perf_counter() - started
    missing = deck.missing()
    print(
        f"deck {deck.name}: {len(deck.cards)} {deck.family} cards enrolled from "
        f"{deck.photos} photo{'s' if deck.photos != 1 else ''} in {seconds:.0f} s"
        + (f"; not enrolled (read as shipped): {' '.join(map(str, missing))}" if missing else "")
    )
    if deck.read_as:
        misread = ", ".join(f"{card} (read {read})" for card, read in deck.read_as.items())
        print(
            f"matched by elimination, the shipped reader read them otherwise (check their "
            f"labels): {misread}"
        )
    if deck.has_locator:
        print(_done(deck))
    print(f"stored in {deck.folder}")
    return 0


def cmd_locator(args: argparse.Namespace) -> int:
    """Adapt the locator of a deck taught already (on the page, or before the extra)."""
    _check_locator_training(args.minutes, _reader_minutes(args))
    try:
        deck = DeckStore().get(args.name)
    except DeckError as exc:
        raise UsageError(str(exc)) from None
    if not deck.adapted:
        raise UsageError(f"deck {deck.name} is not adapted: enrol it again")
    # Stopped with SIGTERM (the server's Stop): unwind, so the scenes and any half-written
    # locator are removed and the deck stays as it was.
    signal.signal(signal.SIGTERM, _exit_on_term)
    started = time.perf_counter()
    progress = _JsonLines() if args.json_progress else _Bars(args.quiet)
    _teach_locator(deck, _models(args.models), args.minutes, _reader_minutes(args), progress)
    what = "locator and reader" if deck.has_reader else "locator"
    print(f"deck {deck.name}: {what} adapted in {time.perf_counter() - started:.0f} s")
    print(_done(deck))
    return 0


def cmd_refit(args: argparse.Namespace) -> int:
    """Fit a deck's head again for the models' reader (`deck_enrol.refit`)."""
    from shanghai.vision.deck_enrol import refit

    store = DeckStore()
    models = _models(args.models)
    bars = _Bars(args.quiet)
    started = time.perf_counter()
    try:
        deck = refit(store, args.name, models, progress=bars)
    except DeckError as exc:
        raise UsageError(str(exc)) from None
    finally:
        bars.close()
    print(
        f"deck {deck.name}: fitted again for {models.files.reader.name} on its stored "
        f"cards in {time.perf_counter() - started:.0f} s"
    )
    return 0


def _exit_on_term(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _models(folder: Path | None) -> CardModels:
    from shanghai.vision.pipeline import CardPipeline, ModelMissingError

    try:
        return CardPipeline.load(folder).models
    except ModelMissingError as exc:
        raise UsageError(str(exc)) from None


def _teach_locator(
    deck: StoredDeck,
    models: CardModels,
    minutes: float,
    reader_minutes: float,
    progress: _Bars | _JsonLines,
) -> None:
    from shanghai.datasets.deck_locator import LocatorPlan, teach_locator

    plan = LocatorPlan(minutes=minutes, reader_minutes=reader_minutes)
    try:
        teach_locator(deck, models, plan, progress=progress)
    except (DeckError, FileNotFoundError) as exc:
        raise UsageError(str(exc)) from None
    finally:
        progress.close()


def _add_reader_minutes(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--reader-minutes",
        type=float,
        metavar="MINUTES",
        help=f"after the locator, fine-tune the reader on the deck this long (default "
        f"{READER_MINUTES:g}; 0: read with the taught head alone)",
    )


def _reader_minutes(args: argparse.Namespace) -> float:
    return READER_MINUTES if args.reader_minutes is None else float(args.reader_minutes)


def _check_locator_training(minutes: float, reader_minutes: float) -> None:
    """Refuse `--locator` before any work when it cannot run."""
    from shanghai.vision.model_files import locator_training_missing

    low, high = LOCATOR_MINUTES_RANGE
    if not low <= minutes <= high:
        raise UsageError(f"the locator's training MINUTES must be between {low:g} and {high:g}")
    low, high = READER_MINUTES_RANGE
    if not low <= reader_minutes <= high:
        raise UsageError(f"--reader-minutes must be between {low:g} and {high:g}")
    missing = locator_training_missing()
    if missing is not None:
        raise UsageError(missing)


def cmd_list(args: argparse.Namespace) -> int:
    try:
        decks = DeckStore().decks()
    except DeckError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps([d.to_json() for d in decks], indent=1))
        return 0
    if not decks:
        print("no decks taught yet (shanghai deck enroll NAME --labels FILE.csv)", file=sys.stderr)
    reader = _shipped_reader_fingerprint()
    for deck in decks:
        state = "" if deck.adapted else " (not adapted: enrol it again)"
        if deck.adapted and reader is not None and _fitted_for(deck) != reader:
            state += f" (taught for another reader model: shanghai deck refit {deck.name})"
        state += ", own locator" if deck.has_locator else ""
        state += " and reader" if deck.has_reader else ""
        state += _levels(deck)
        print(f"{deck.name}  {deck.family}, {len(deck.cards)} cards{state}")
    return 0


def _shipped_reader_fingerprint() -> str | None:
    """The shipped reader's fingerprint (None when its files are missing here)."""
    from shanghai.vision.deck_head import reader_fingerprint
    from shanghai.vision.model_files import ModelFiles, ModelSettingsError

    try:
        return reader_fingerprint(ModelFiles.load().reader)
    except (ModelSettingsError, OSError):
        return None


def _fitted_for(deck: StoredDeck) -> str | None:
    """The fingerprint of the reader a deck's head was fitted for (None: unreadable)."""
    try:
        return deck.head().reader
    except DeckError:
        return None


def cmd_remove(args: argparse.Namespace) -> int:
    try:
        DeckStore().remove(args.name)
    except DeckError as exc:
        raise UsageError(str(exc)) from None
    print(f"deck {args.name} removed")
    return 0
