"""The scan on the team's only real photos: how often a real hand is scored wrong
without a warning. Prints figures; asserts nothing.

    python tests/benchmarks/real_photos.py [--folder ../shared/real-dev/edje_train]
        [--models DIR] [--deck NAME --data-dir DIR] [--teach K] [--only single|multi]
        [--show N]

Each photo of `real-dev/edje_train` (296 phone photos and webcam frames of one
pinochle deck, 1-5 cards, on real tables: see its README) is read as `shanghai scan`
reads a hand photo (`PhotoScanner.scan`, kind `hand`, Shanghai's rules), and judged as
`scan_eval.judge` judges a generated hand photo: the photo's labelled cards are the
hand, and it is right when the cards read (as a multiset) and the points are. The four
outcomes (`exact`, `right, flagged`, `wrong, flagged`, `wrong, silent`) are printed for
all photos, by the number of cards, and by camera; then the warnings that fired and
the silent errors one by one.

The shipped general model never saw these photos, this deck or these tables (the README
forbids training it on them), so this is the nearest thing to "photos it has never
seen" the team has. `--deck NAME` reads with a taught deck (`shanghai deck enroll`).
`--teach K` is the teach-a-deck development case: the deck is enrolled (as `shanghai
deck enroll` does, into a temporary folder) from the first K photos of each card that
show it alone, and every other photo is measured without and with it, in one run.

Labels are whole-card boxes drawn by hand, with the suits added by eye: a rare label
error, and a few photos with an unlabelled low card at the edge, count as scan errors
here.
"""

from __future__ import annotations

import argparse
import csv
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import cv2
from scan_eval import OUTCOMES, Judged, judge, print_outcomes

from shanghai.engine.cards import Card
from shanghai.engine.scoring import score_hand
from shanghai.engine.variant_files import find_variant
from shanghai.vision.deck_head import DeckHead
from shanghai.vision.scan import PhotoKind, PhotoScanner

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT.parent / "shared" / "real-dev" / "edje_train"
VARIANT, PLAYERS = "shanghai", 4
"""The game the hands are scored in: the deck's cards (9-A) are all in its shoe."""


def labelled_cards(folder: Path, image: str) -> list[str]:
    """The cards of a photo (engine notation) from its YOLO label file."""
    names = (folder / "classes.txt").read_text().split()
    label = folder / "labels" / (Path(image).stem + ".txt")
    return [names[int(line.split()[0])] for line in label.read_text().splitlines() if line.strip()]


def photos(folder: Path) -> list[dict[str, str]]:
    with (folder / "manifest.csv").open(newline="") as handle:
        return list(csv.DictReader(handle))


def teach(
    folder: Path, rows: list[dict[str, str]], k: int, data_dir: Path, locator: float | None
) -> set[str]:
    """Enrol deck `real` from the first `k` single-card photos of each card into
    `data_dir` (with `locator` minutes, then adapt its locator and reader as `shanghai
    deck locator` does, for the default reader time); returns the photos used. A photo
    enrolment refuses (a blurred index, no card found) is passed over for the card's
    next one, as a person would take it again."""
    from shanghai.engine.cards import DeckFamily
    from shanghai.vision.deck_enrol import LabelledPhoto, enrol, enrol_photo
    from shanghai.vision.deck_store import DeckError, DeckStore, decks_dir
    from shanghai.vision.pipeline import CardModels
    from shanghai.vision.sources import read_image

    models = CardModels()
    seen: Counter[str] = Counter()
    chosen: list[LabelledPhoto] = []
    for row in rows:
        hand = labelled_cards(folder, row["image"])
        if len(hand) == 1 and seen[hand[0]] < k:
            path = folder / "images" / row["image"]
            photo = LabelledPhoto(path, (Card.parse(hand[0]),), len(chosen) + 1)
            try:
                enrol_photo(models, read_image(path), photo, DeckFamily.STANDARD)
            except DeckError as exc:
                print(f"  passed over: {exc}")
                continue
            seen[hand[0]] += 1
            chosen.append(photo)
    start = time.perf_counter()
    deck = enrol(DeckStore(decks_dir(data_dir)), "real", DeckFamily.STANDARD, chosen, models)
    print(
        f"taught deck 'real': {len(deck.cards)} cards from {len(chosen)} single-card photos "
        f"in {time.perf_counter() - start:.1f} s"
    )
    if locator is not None:
        from shanghai.datasets.deck_locator import LocatorPlan, teach_locator

        start = time.perf_counter()
        teach_locator(deck, models, LocatorPlan(minutes=locator), work=data_dir)
        print(f"its locator and reader adapted in {time.perf_counter() - start:.0f} s")
    return {p.path.name for p in chosen}


def main(argv: list[str] | None = None) -> dict[str, list[Judged]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, default=FOLDER)
    parser.add_argument("--models", type=Path)
    parser.add_argument("--deck", help="read with this taught deck")
    parser.add_argument(
        "--data-dir", type=Path, help="where the taught deck is kept (with --teach: kept there)"
    )
    parser.add_argument("--teach", type=int, help="enrol from K single-card photos a card")
    parser.add_argument(
        "--locator",
        type=float,
        metavar="MINUTES",
        help="with --teach, also adapt the deck's locator and reader (train extra)",
    )
    parser.add_argument("--only", choices=("single", "multi"), help="photos of 1 card, or 2+")
    parser.add_argument("--show", type=int, default=20, help="silent errors to list")
    args = parser.parse_args(argv)
    if not (args.folder / "manifest.csv").is_file():
        print(f"no real photos at {args.folder}: nothing to measure")
        return {}
    if args.teach:
        with tempfile.TemporaryDirectory() as tmp:
            # With --data-dir the taught deck is kept there (`--deck real` reads it again).
            root = args.data_dir or Path(tmp)
            used = teach(args.folder, photos(args.folder), args.teach, root, args.locator)
            print("\nwithout the deck:")
            measure(args, None, used)
            print("\nwith the deck:")
            return measure(args, taught_deck("real", root), used)
    return measure(args, taught_deck(args.deck, args.data_dir) if args.deck else None, set())


def taught_deck(name: str, data_dir: Path | None) -> DeckHead:
    from shanghai.vision.deck_store import DeckStore, decks_dir

    return DeckStore(decks_dir(data_dir)).get(name).head()  # with its locator and reader


def measure(
    args: argparse.Namespace, deck: DeckHead | None, skip: set[str]
) -> dict[str, list[Judged]]:
    """Scan and judge every photo not in `skip` (see the module doc); prints the table."""
    scanner = PhotoScanner.load(args.models, deck=deck)
    rules = find_variant(VARIANT).rules(PLAYERS)
    groups: dict[str, list[Judged]] = defaultdict(list)
    warnings: Counter[str] = Counter()
    seconds = []
    for row in photos(args.folder):
        if row["image"] in skip:
            continue
        hand = labelled_cards(args.folder, row["image"])
        if (args.only == "single" and len(hand) != 1) or (args.only == "multi" and len(hand) < 2):
            continue
        image = cv2.imread(str(args.folder / "images" / row["image"]), cv2.IMREAD_COLOR)
        truth = {
            "kind": "hand",
            "hand": hand,
            "hand_points": score_hand([Card.parse(c) for c in hand], rules).points,
        }
        start = time.perf_counter()
        snapshot = scanner.scan(image, rules=rules, kind=PhotoKind.HAND)
        seconds.append(time.perf_counter() - start)
        judged = judge(snapshot, truth, row["image"])
        warnings.update(judged.flags)
        groups["all"].append(judged)
        groups[f"{len(hand)} card{'s' if len(hand) > 1 else ''}"].append(judged)
        if len(hand) > 1:
            groups["2 cards or more"].append(judged)
        groups[row["capture"].split(" (")[0]].append(judged)
    print(
        f"real photos: {len(groups['all'])} of {args.folder} read by {scanner.name}"
        + (" with a taught deck" if deck is not None else "")
        + f", {sorted(seconds)[len(seconds) // 2]:.2f} s a photo (median)"
    )
    order = ["all", *sorted(k for k in groups if k[0].isdigit()), "phone", "webcam"]
    order.insert(order.index("2 cards") if "2 cards" in order else 1, "2 cards or more")
    print_outcomes("hands", {k: groups[k] for k in order if k in groups})
    print("\nwarnings that fired (photos):", dict(warnings.most_common()))
    silent = [j for j in groups["all"] if j.outcome == OUTCOMES[3]]
    scored_wrong = [j for j in silent if not j.answer_right]
    print(
        f"points wrong without a warning: {len(scored_wrong)} of {len(groups['all'])} "
        f"({100 * len(scored_wrong) / max(len(groups['all']), 1):.1f}%; the other silent "
        "photos list a card as another worth the same)"
    )
    for j in silent[: args.show]:
        note = " (points right)" if j.answer_right else ""
        print(
            f"  silent: {j.photo}: missed {list(j.missing)}, read in excess {list(j.extra)}{note}"
        )
    return dict(groups)


if __name__ == "__main__":
    main()
