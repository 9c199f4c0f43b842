"""Teach a deck: card precision and recall on a held-out look before and after enrolling
it, and the time enrolment and adaptation take. Prints figures; asserts nothing.

    python tests/benchmarks/deck_teach.py [--scenes 40] [--seed 5] [--looks A,B]
                                          [--compare] [--models DIR] [--locator MINUTES]
                                          [--keep DIR] [--misses]

For each held-out test look (`datasets.splits`: the standard decks and their jokers,
and the Rook deck held out of training), one copy of every card of the look is laid
out apart on a table and photographed (`--per-photo` cards a photo, the generator's
renderer, a close camera); the photos and a labels CSV go through `vision.deck_enrol`
as `shanghai deck enroll` does. Then `--scenes` hand photos of random cards of that
look (fanned, in a row, loose; close-up and table distance, as `datasets.hand_photos`)
are scanned through the scan contract (`vision.scan.PhotoScanner`) without and with
the deck: card precision (right / (right + cards not on the table)) and recall (right
/ cards with a readable index) per distance. The locator limits recall (an index it
does not find, no reader can read), so the reader alone is shown too: the share of the
located indices (IoU >= 0.5 with a visible true index) read right, before and after,
which is what the deck's head can change. Then each photo as a hand
(`scan_eval.OUTCOMES`): exact, right but flagged, wrong and flagged, wrong in silence (a
card missed or misread and no warning at all: a score entered wrong, which the card
figures alone do not tell from a flagged miss).

`--locator MINUTES` also adapts the locator to the enrolled deck for that long
(`datasets.deck_locator`, the train extra), as `shanghai deck enroll --locator` does,
and the "after" figures read with both.

`--compare` also fits every head choice (`deck_head`: prototype or logistic, the least
confidence to use the head, the head's share in the mix) on the same enrolled features
and prints the reader-alone accuracy of each on the located indices of the test
scenes, for a whole deck and for a half-enrolled one (the cards not enrolled must keep
the shipped reading). Choose on one seed, confirm on another.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt
from scan_eval import OUTCOMES, Judged

from shanghai.datasets.deck_photos import cards_apart
from shanghai.datasets.decks import DEFAULT_CACHE, all_looks, teach_val_looks, unseen_val_looks
from shanghai.datasets.faces import DeckLook
from shanghai.datasets.hand_photos import photo_of_cards
from shanghai.datasets.labels import BLUR_MAX_SHARE, quad_size
from shanghai.datasets.scene import Rendered
from shanghai.engine.cards import Card, DeckFamily
from shanghai.vision.crops import square_crop
from shanghai.vision.deck_enrol import LabelledPhoto, enrol, enrol_photo, enrolled_features
from shanghai.vision.deck_head import SIMILARITY_QUANTILES, fit_head
from shanghai.vision.deck_store import READER_MINUTES, DeckError, DeckStore, StoredDeck
from shanghai.vision.pipeline import CardModels
from shanghai.vision.readings import family_mask
from shanghai.vision.scan import PhotoKind, PhotoScanner
from shanghai.vision.snapshot import SeenCard, TableSnapshot

ROOT = Path(__file__).resolve().parents[2]
Boxes = npt.NDArray[np.float32]
RETAKES = 16
"""Times a person takes an enrolment photo again when its cards are not all found or
it is blurred (the renderer blurs six photos in ten, as a hand that shakes or a lens
out of focus does). Since the sharpness check judges an index by its own ink
(2026-12-07), 42-52% of the benchmark's enrolment draws are refused (8-15 retakes a
deck): at 8 retakes a photo, between one run of the three test looks (43 photos) in 9
and one in 60 would stop on a photo refused nine times running; at 16, under one in
1,500."""
SCENE_STREAM = 2
"""Seed word of the test photos' own draws (`run_look`)."""


class StageTimes:
    """Seconds each stage of the teach step took (its progress stages, in order), so a
    step over its budget says which part grew."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.stage = ""
        self.seconds: dict[str, float] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.perf_counter()
        if self.stage:
            self.seconds[self.stage] = self.seconds.get(self.stage, 0.0) + now - self.started
        self.stage, self.started = stage, now

    def summary(self) -> str:
        """The stages' seconds, the last one closed now (the step has returned)."""
        self("", 0, 0)
        return ", ".join(f"{stage} {seconds:.0f} s" for stage, seconds in self.seconds.items())


def held_out_looks(names: list[str] | None = None) -> list[DeckLook]:
    """The test's held-out looks, or the looks named (the unseen-validation looks,
    `decks.unseen_val_looks`, and the teaching-only ones, `decks.teach_val_looks`,
    included: where a choice is developed)."""
    cache = ROOT / DEFAULT_CACHE
    looks = all_looks(cache if cache.is_dir() else None)
    if names:
        looks = (*looks, *unseen_val_looks(), *teach_val_looks())
        return [look for look in looks if look.name in names]
    return [look for look in looks if look.held_out]


def take_photos(
    models: CardModels,
    look: DeckLook,
    folder: Path,
    rng: np.random.Generator,
    per_photo: int,
    count: int | None = None,
) -> tuple[list[LabelledPhoto], int]:
    """Enrolment photos of every card of the look, `per_photo` a photo; a photo where
    enrolment finds the cards and labels do not match (a card lost in glare) is taken
    again, as a person would, up to `RETAKES` times. Returns the photos and the retakes."""
    cards = list(look.cards())[:count]
    photos, retakes = [], 0
    for n, start in enumerate(range(0, len(cards), per_photo)):
        chunk = tuple(cards[start : start + per_photo])
        for attempt in range(RETAKES + 1):
            rendered = cards_apart(look, chunk, rng)
            photo = LabelledPhoto(folder / f"enrol{n:02d}.jpg", chunk, n + 1)
            photo.path.write_bytes(rendered.jpeg)
            try:
                enrol_photo(models, rendered.image, photo, look.family)
                break
            except DeckError as exc:
                if attempt == RETAKES:
                    raise
                print(f"  retake: {exc}")
                retakes += 1
        photos.append(photo)
    return photos, retakes


def hand_scene(look: DeckLook, rng: np.random.Generator) -> tuple[Rendered, str]:
    """A hand of 3-11 random cards of the look, fanned, in a row or loose, photographed
    close up or from across the table (on the test split's tables)."""
    cards = list(look.cards())
    size = int(rng.integers(3, 12))
    hand = [cards[int(i)] for i in rng.choice(len(cards), size=size, replace=False)]
    return photo_of_cards(rng, "test", look, hand)


SHAKEN_SHARE = 0.25
"""A photo whose blur (the renderer's `blur_px`: motion length or twice the focus blur's
sigma) reaches this share of its median visible index's size counts as shaken in the
figures by distance and blur. Reported apart, not left out: the labels keep an index
smeared by up to `labels.BLUR_MAX_SHARE` (0.5) of its size as readable, and at table
distance such photos are where most missed cards are (docs/decks.md)."""
SHAKES = (", steady", ", shaken")


WEBCAM_INDEX_PX = float(np.sqrt(13 * 32))
"""The index size (`quad_size`, the side of a square of the same area) of DESIGN.md's
webcam frame: a 1280x720 webcam over a 1 m table shows a card index about 13x32 px.
The generator's table distance (cards 90-250 px tall, `hand_photos.DISTANCES`) reaches
well under it (8-13 px indices), where a person reads most steady indices but not all
(docs/decks.md, 2026-12-05: 22 of 24 at table distance). Steady photos are also shown
apart on each side of it, so the figures at the DESIGN's own scale can be read."""
SIZES = (f", indices >= {WEBCAM_INDEX_PX:.0f} px", f", indices < {WEBCAM_INDEX_PX:.0f} px")


def _median_index(rendered: Rendered) -> float | None:
    """The photo's median visible index size (`quad_size`), None with none visible."""
    sizes = [
        quad_size(np.asarray(index.quad))
        for lab in rendered.labels()
        for index in lab.indices
        if index.state == "visible"
    ]
    return float(np.median(sizes)) if sizes else None


def shake(rendered: Rendered) -> str:
    """`SHAKES[1]` for a photo whose blur reaches `SHAKEN_SHARE` of its median visible
    index's size, else `SHAKES[0]`."""
    median = _median_index(rendered)
    if median is None or rendered.blur_px < SHAKEN_SHARE * median:
        return SHAKES[0][2:]
    return SHAKES[1][2:]


def index_scale(rendered: Rendered) -> str | None:
    """`SIZES[0]` for a photo whose median visible index reaches `WEBCAM_INDEX_PX`, else
    `SIZES[1]`; None for a photo with no visible index (no size to band it by)."""
    median = _median_index(rendered)
    if median is None:
        return None
    return SIZES[0] if median >= WEBCAM_INDEX_PX else SIZES[1]


@dataclass
class Tally:
    right: int = 0
    predicted: int = 0
    truth: int = 0
    silent: int = 0
    """Wrong cards proposed without the unsure mark (the scan's `sure`)."""
    marked: int = 0
    """Right cards proposed with the unsure mark: each costs the player a look."""
    hands: Counter[str] = field(default_factory=Counter)
    """Photos by `scan_eval.OUTCOMES`: a hand is right when its cards are every card on
    the table, flagged when the scan warns at all. A card missed with no warning is a
    hand scored wrong in silence, which the card figures do not show."""
    blurred: int = 0
    """Photos the scan told were blurred or shaken (the `blurred` warning): the reason a
    person can act on for what a shaken photo leaves unread."""

    def add(self, other: Tally) -> None:
        self.right += other.right
        self.predicted += other.predicted
        self.truth += other.truth
        self.silent += other.silent
        self.marked += other.marked
        self.hands.update(other.hands)
        self.blurred += other.blurred

    def outcomes(self) -> str:
        """The hands' outcomes in percent, in `scan_eval.OUTCOMES` order."""
        n = max(1, self.hands.total())
        return " / ".join(f"{100 * self.hands[o] / n:.1f}" for o in OUTCOMES) + "%"

    def pr(self) -> str:
        p = self.right / self.predicted if self.predicted else float("nan")
        r = self.right / self.truth if self.truth else float("nan")
        wrong = self.predicted - self.right
        return (
            f"P {p:.3f} R {r:.3f} ({wrong} wrong, {self.silent} unflagged;"
            f" {self.marked} right marked unsure)"
        )


@dataclass
class Scene:
    rendered: Rendered
    distance: str
    crops: list[npt.NDArray[np.uint8]] = field(default_factory=list)
    truth: list[str] = field(default_factory=list)


class _UnnamedCardModels(CardModels):
    """A taught deck's models with the name level off, as a deck read by its head alone
    has it (`CardModels.sure_name`): a benchmark-only row that says what the level buys
    a deck with its own reader."""

    @property
    def sure_name(self) -> float | None:
        return None


def card_tally(scanner: PhotoScanner, rendered: Rendered, misses: str | None = None) -> Tally:
    """The scan's cards against the photo's labels; `misses` (a heading, e.g. the
    photo's number) also prints the photo's wrong and missed cards (`print_misses`),
    or, for a photo read right, the warnings it got: what a right hand costs in clicks."""
    labels = rendered.labels()
    readable = Counter(
        str(lab.placement.card)
        for lab in labels
        if lab.placement.face_up and any(i.state == "visible" for i in lab.indices)
    )
    on_table = Counter(str(p.card) for p in rendered.placements if p.face_up)
    snapshot = scanner.scan(rendered.image, kind=PhotoKind.HAND)
    cards = snapshot.cards
    got = Counter(str(c.card) for c in cards)
    right = sum((got & readable).values())
    extra = got - on_table
    wrong = sum(extra.values())
    wrong_cards = wrong_ones(cards, visible_indices(rendered), extra)
    silent = sum(c.sure for c in wrong_cards)
    sure = Counter(str(c.card) for c in cards if c.sure)
    marked = sum(((got - sure) & readable).values())
    if misses is not None and got != on_table:
        print_misses(
            misses, rendered, snapshot, wrong_cards, readable - got, on_table - got - readable
        )
    elif misses is not None and snapshot.warnings:
        print(f"    {misses}: read right, flagged")
        for warning in snapshot.warnings:
            print(f"      warning {warning.code}: {warning.message}")
    hand = Judged("", got == on_table, tuple(w.code for w in snapshot.warnings))
    tally = Tally(right, right + wrong, sum(readable.values()), silent, marked)
    tally.hands[hand.outcome] += 1
    tally.blurred = int("blurred" in hand.flags)
    return tally


TrueIndex = tuple[str, npt.NDArray[np.float64], float]
"""A visible true index: its card, its centre (x, y) and its size (`quad_size`)."""


def visible_indices(rendered: Rendered) -> list[TrueIndex]:
    """Every visible index of a face-up card in the photo's labels."""
    return [
        (str(lab.placement.card), np.asarray(i.quad).mean(0), quad_size(np.asarray(i.quad)))
        for lab in rendered.labels()
        for i in lab.indices
        if lab.placement.face_up and i.state == "visible"
    ]


def lies_on_its_card(card: SeenCard, truth: list[TrueIndex]) -> bool:
    """Whether a visible index of the card `card` names lies in one of its index boxes
    (or, read with none, in its box): the read is of that card, where it lies."""
    boxes = card.index_xyxy or (card.xyxy,)
    name = str(card.card)
    return any(
        t == name and b[0] <= c[0] <= b[2] and b[1] <= c[1] <= b[3]
        for t, c, _ in truth
        for b in boxes
    )


def wrong_ones(
    cards: Sequence[SeenCard], truth: list[TrueIndex], extra: Counter[str]
) -> list[SeenCard]:
    """The proposed cards counted wrong: for each name proposed `extra[name]` times more
    than the table holds, that many of its cards, those lying on no true index of that
    name first, and of those alike the sure ones first (where the labels cannot tell
    which is wrong, the count does not spare an unmarked one). Why: a 12G read 13G
    (marked) beside the true 13G (read sure) is one wrong card, and it is the marked
    one; by names alone the sure one was counted as the wrong card gone unmarked
    (docs/decks.md, 2026-12-07, fourth session)."""
    out: list[SeenCard] = []
    for name, count in extra.items():
        same = [c for c in cards if str(c.card) == name]
        same.sort(key=lambda c: (lies_on_its_card(c, truth), not c.sure))
        out.extend(same[:count])
    return out


def print_misses(
    heading: str,
    rendered: Rendered,
    snapshot: TableSnapshot,
    wrong_cards: list[SeenCard],
    missed: Counter[str],
    hidden: Counter[str],
) -> None:
    """One photo's wrong cards (what the scan said of each: confidence, reading, sure,
    outline, indices, and the true cards whose visible indices lie in its box), its
    missed cards (their visible index sizes, what the scan read there, if anything, and
    how many it located but left unread, `TableSnapshot.unread`) and the cards it missed
    that show no readable index at all (`hidden`: only a warning can save that hand):
    what a change to the scan is chosen from."""
    truth = visible_indices(rendered)
    print(f"    {heading}: blur {rendered.blur_px:.1f} px")
    for card in wrong_cards:
        x1, y1, x2, y2 = card.xyxy
        under = sorted({t for t, c, _ in truth if x1 <= c[0] <= x2 and y1 <= c[1] <= y2})
        print(
            f"      wrong {card.card} conf {card.confidence:.3f} read {card.reading or 0:.3f}"
            f" {'sure' if card.sure else 'marked'} box {card.box_id}"
            f"{'' if card.outlined else ' no outline'} {len(card.index_xyxy)} indices;"
            f" true there: {' '.join(under) or 'nothing'}"
        )
    for name in sorted(missed):
        sizes = [s for t, _, s in truth if t == name]
        centres = [c for t, c, _ in truth if t == name]
        there = sorted(
            {
                str(card.card)
                for card in snapshot.cards
                for ix in card.index_xyxy
                for c in centres
                if ix[0] <= c[0] <= ix[2] and ix[1] <= c[1] <= ix[3]
            }
        )
        unread = sum(
            any(u[0] <= c[0] <= u[2] and u[1] <= c[1] <= u[3] for u in snapshot.unread)
            for c in centres
        )
        print(
            f"      missed {name} x{missed[name]}: visible indices "
            f"{' '.join(f'{s:.0f}px' for s in sizes)}; read there: {' '.join(there) or 'nothing'}"
            f"; {unread} of them located and left unread"
        )
    if hidden:
        print(f"      hidden, no index readable: {' '.join(sorted(hidden.elements()))}")
    for warning in snapshot.warnings:
        print(f"      warning {warning.code}: {warning.message}")
    if not snapshot.warnings:
        print("      no warning: a hand scored wrong in silence")


def located_indices(models: CardModels, scene: Scene) -> None:
    """The located index crops that match a visible true index (IoU >= 0.5), and their cards."""
    index_xyxy, _, _ = models.locate(scene.rendered.image)
    truth_boxes, truth_names = [], []
    for lab in scene.rendered.labels():
        for index in lab.indices:
            if index.state == "visible":
                q = np.asarray(index.quad)
                truth_boxes.append([*q.min(0), *q.max(0)])
                truth_names.append(str(lab.placement.card))
    if not truth_boxes or not len(index_xyxy):
        return
    t = np.asarray(truth_boxes, np.float32)
    lt = np.maximum(index_xyxy[:, None, :2], t[None, :, :2])
    rb = np.minimum(index_xyxy[:, None, 2:], t[None, :, 2:])
    inter = (rb - lt).clip(0).prod(2)
    area = lambda b: (b[:, 2:] - b[:, :2]).prod(1)  # noqa: E731
    iou = inter / (area(index_xyxy)[:, None] + area(t)[None, :] - inter + 1e-9)
    for i in range(len(index_xyxy)):
        j = int(iou[i].argmax())
        if iou[i, j] >= 0.5:
            box = tuple(float(v) for v in index_xyxy[i])
            scene.crops.append(square_crop(scene.rendered.image, box))
            scene.truth.append(truth_names[j])


def reader_accuracy(
    models: CardModels,
    probabilities: npt.NDArray[np.float32],
    truth: list[str],
    family_of: Card,
) -> float:
    if not truth:
        return float("nan")
    mask = family_mask(models.reader.names, family_of.family)
    best = np.where(mask[None, :], probabilities, 0).argmax(axis=1)
    return float(
        np.mean([models.reader.names[int(b)] == t for b, t in zip(best, truth, strict=True)])
    )


def compare_heads(models: CardModels, deck: StoredDeck, scenes: list[Scene], seed: int) -> None:
    crops = [c for s in scenes for c in s.crops]
    truth = [t for s in scenes for t in s.truth]
    if not crops:
        print("    no located indices to compare heads on")
        return
    probs, feats = models.features(crops)
    names = models.reader.names
    card0 = Card.parse(truth[0])
    train, labels = enrolled_features(deck, models, seed=seed)
    half = {str(c) for c in deck.cards[::2]}
    keep = np.array([lab in half for lab in labels])
    other = np.array([t not in half for t in truth])
    fingerprint = models.reader_fingerprint
    others = list(np.array(truth)[other])
    print(
        f"    shipped reader (median top reading {np.median(probs.max(1)):.2f}): all "
        f"{reader_accuracy(models, probs, truth, card0):.3f}, not-enrolled half "
        f"{reader_accuracy(models, probs[other], others, card0):.3f}"
    )
    print(
        "    head       conf  similarity floor   mix | whole deck | half enrolled: all, "
        "the cards not enrolled"
    )
    for kind in ("prototype", "logistic"):
        whole = fit_head(train, labels, kind=kind, reader=fingerprint)
        part = fit_head(train[keep], list(np.array(labels)[keep]), kind=kind, reader=fingerprint)
        for confidence in (0.0, 0.5, 0.8):
            for q in (None, 0.0, 0.01, 0.05, 0.2):
                for mix in (1.0, 0.5) if q == 0.01 else (1.0,):
                    row = []
                    for head in (whole, part):
                        floor = (
                            -1.0
                            if q is None
                            else float(head.similarity_quantiles[SIMILARITY_QUANTILES.index(q)])
                        )
                        chosen = head.with_choice(
                            min_confidence=confidence, mix=mix, min_similarity=floor
                        )
                        row.append(chosen.apply(probs, feats, names))
                    gate = "off" if q is None else f"q{q:.2f}"
                    print(
                        f"    {kind:<9}  {confidence:.1f}   {gate:<16} {mix:.1f} | "
                        f"{reader_accuracy(models, row[0], truth, card0):.3f}      | "
                        f"{reader_accuracy(models, row[1], truth, card0):.3f}, "
                        f"{reader_accuracy(models, row[1][other], others, card0):.3f}"
                    )


def run_look(
    look: DeckLook,
    *,
    models_dir: Path | None,
    n_scenes: int,
    seed: int,
    per_photo: int,
    cards: int | None,
    compare: bool,
    locator_minutes: float | None = None,
    reader_minutes: float = READER_MINUTES,
    keep: Path | None = None,
    misses: bool = False,
) -> dict[str, float]:
    rng = np.random.default_rng([seed, sum(look.name.encode())])
    shipped = PhotoScanner.load(models_dir)
    assert isinstance(shipped.models, CardModels)
    models = shipped.models
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) if keep is None else keep / look.name
        folder.mkdir(parents=True, exist_ok=True)
        kept = keep is not None and (folder / "decks" / "bench").is_dir()
        photos, retakes = take_photos(models, look, folder, rng, per_photo, cards)
        store = DeckStore(folder / "decks")
        steps: dict[str, int] = {}

        def progress(stage: str, done: int, total: int) -> None:
            steps[stage] = total

        started = time.perf_counter()
        if kept:  # the same photos were taken again (the same draws), the deck reused
            deck = store.get("bench")
        else:
            deck = enrol(store, "bench", look.family, photos, models, progress=progress)
        seconds = time.perf_counter() - started
        locator_seconds = 0.0
        if locator_minutes is not None and not kept:
            from shanghai.datasets.deck_locator import LocatorPlan, teach_locator

            started = time.perf_counter()
            plan = LocatorPlan(minutes=locator_minutes, reader_minutes=reader_minutes)
            stages = StageTimes()
            teach_locator(deck, models, plan, work=folder, progress=stages)
            locator_seconds = time.perf_counter() - started
            print(f"\n{look.name}: the teach step's stages, {stages.summary()}")
        taught = PhotoScanner.load(models_dir, deck=deck.head())
        taught_models = taught.models
        assert isinstance(taught_models, CardModels)
        unnamed = PhotoScanner.load(models_dir, deck=deck.head())
        unnamed.models.__class__ = _UnnamedCardModels
        # The test photos have their own draws: the same whatever the enrolment took
        # (a retake draws again), so two ways of teaching are read on the same photos.
        scene_rng = np.random.default_rng([seed, sum(look.name.encode()), SCENE_STREAM])
        scenes = [Scene(*hand_scene(look, scene_rng)) for _ in range(n_scenes)]
        before: dict[str, Tally] = defaultdict(Tally)
        after: dict[str, Tally] = defaultdict(Tally)
        after_unnamed: dict[str, Tally] = defaultdict(Tally)
        scan_seconds: dict[str, list[float]] = {"before": [], "after": []}
        if misses:
            print(f"\n{look.name}: the taught scan's wrong and missed cards, photo by photo")
        for n, scene in enumerate(scenes):
            heading = f"photo {n} ({scene.distance}, {shake(scene.rendered)})"
            started = time.perf_counter()
            shipped_tally = card_tally(shipped, scene.rendered)
            scan_seconds["before"].append(time.perf_counter() - started)
            started = time.perf_counter()
            taught_tally = card_tally(taught, scene.rendered, heading if misses else None)
            scan_seconds["after"].append(time.perf_counter() - started)
            tallies = (shipped_tally, taught_tally, card_tally(unnamed, scene.rendered))
            banded = f"{scene.distance}, {shake(scene.rendered)}"
            keys = ["all", scene.distance, banded]
            scale = index_scale(scene.rendered)
            if banded.endswith(SHAKES[0]) and scale is not None:
                keys.append(banded + scale)
            for key in keys:
                for tallied, tally in zip((before, after, after_unnamed), tallies, strict=True):
                    tallied[key].add(tally)
            located_indices(models, scene)
        crops = [c for s in scenes for c in s.crops]
        truth = [t for s in scenes for t in s.truth]
        card0 = look.cards()[0]
        read_before, read_after = models.classify(crops), taught_models.classify(crops)
        acc_before = reader_accuracy(models, read_before, truth, card0)
        acc_after = reader_accuracy(models, read_after, truth, card0)
        print(
            f"\n{look.name} ({look.family}, {len(look.cards())} cards): enrolled "
            f"{len(deck.cards)} cards from {deck.photos} photos ({retakes} retaken), "
            f"enrolment + adaptation {seconds:.1f} s ({steps.get('crops', 0)} index crops)"
            + (
                f", locator{' and reader' if reader_minutes > 0 else ''} adapted in "
                f"{locator_seconds:.0f} s"
                if locator_minutes
                else ""
            )
            + (
                f"; sure level {level:.2f} chosen on photos of its own cards"
                if deck.has_locator and (level := deck.sure_read) is not None
                else ""
            )
        )
        keys = [
            f"{d}{band}"
            for d in ("close-up", "table")
            for band in ("", SHAKES[0], *(SHAKES[0] + size for size in SIZES), SHAKES[1])
        ]
        for key in [*keys, "all"]:
            if key in before:
                print(
                    f"  {key:<34} cards {before[key].truth:4d}: before {before[key].pr()}  "
                    f"after {after[key].pr()}"
                )
        print(
            f"  ({SHAKES[0][2:]}: the photo's blur under {SHAKEN_SHARE:g} of its median index"
            f" size; the labels drop an index smeared over {BLUR_MAX_SHARE:g} of its own)"
        )
        print(f"  with no name level (a head-only deck's): all {after_unnamed['all'].pr()}")
        print(f"  hands, {' / '.join(OUTCOMES)}:")
        for key in ("close-up", "table", "all"):
            if key in before:
                print(
                    f"    {key:<9} {before[key].hands.total():4d}: before "
                    f"{before[key].outcomes()}  after {after[key].outcomes()}"
                )
        print(
            "  photos told they are blurred or shaken, before / after: "
            + ", ".join(
                f"{key} {before[key].blurred} / {after[key].blurred} of {before[key].hands.total()}"
                for d in ("close-up", "table")
                for key in (f"{d}{band}" for band in SHAKES)
                if key in before
            )
        )
        print(
            "  scan time a photo, median / slowest: before "
            + "  after ".join(
                f"{np.median(t):.2f} / {max(t):.2f} s" for t in scan_seconds.values() if t
            )
        )
        print(
            f"  reader alone on {len(truth)} located indices: before {acc_before:.3f}  "
            f"after {acc_after:.3f}"
        )
        special = [i for i, t in enumerate(truth) if Card.parse(t).is_suitless]
        if special:
            name = "jokers" if look.family is DeckFamily.STANDARD else "Rook birds"
            jb = reader_accuracy(models, read_before[special], [truth[i] for i in special], card0)
            ja = reader_accuracy(models, read_after[special], [truth[i] for i in special], card0)
            print(f"    of which {len(special)} {name}: before {jb:.3f}  after {ja:.3f}")
        if compare:
            compare_heads(models, deck, scenes, seed)
    out = {
        "seconds": seconds,
        "locator_seconds": locator_seconds,
        "reader_before": acc_before,
        "reader_after": acc_after,
    }
    for key, tally in before.items():
        out[f"{key}_cards"] = float(tally.truth)
        out[f"{key}_silent_hands_after"] = float(after[key].hands[OUTCOMES[3]])
        for when, t in (("before", tally), ("after", after[key])):
            out[f"{key}_precision_{when}"] = t.right / t.predicted if t.predicted else 1.0
            out[f"{key}_recall_{when}"] = t.right / t.truth if t.truth else 1.0
    return out


def main(
    looks: list[str] | None = None,
    *,
    scenes: int = 40,
    seed: int = 5,
    per_photo: int = 4,
    cards: int | None = None,
    models: Path | None = None,
    compare: bool = False,
    locator_minutes: float | None = None,
    reader_minutes: float = READER_MINUTES,
    keep: Path | None = None,
    misses: bool = False,
) -> dict[str, dict[str, float]]:
    chosen = held_out_looks(looks)
    print(
        f"teach a deck: {len(chosen)} held-out looks, {scenes} test hand photos each "
        f"(seed {seed}); target after enrolling: P and R >= 0.995, <= 15 min"
    )
    out = {}
    for look in chosen:
        out[look.name] = run_look(
            look, models_dir=models, n_scenes=scenes, seed=seed, per_photo=per_photo,
            cards=cards, compare=compare, locator_minutes=locator_minutes,
            reader_minutes=reader_minutes, keep=keep, misses=misses,
        )  # fmt: skip
    times = [v["seconds"] for v in out.values()]
    if times:
        print(f"\nenrolment + adaptation, median {statistics.median(times):.1f} s per deck")
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--looks",
        help="comma-separated look names (default: the test's held-out looks; develop on "
        "the unseen-validation ones, e.g. rook-unseen-hanken, code-unseen-00)",
    )
    parser.add_argument("--scenes", type=int, default=40, help="test hand photos per look")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--per-photo", type=int, default=4, help="cards per enrolment photo")
    parser.add_argument("--cards", type=int, help="enrol only the first N cards of each look")
    parser.add_argument("--models", type=Path)
    parser.add_argument("--compare", action="store_true", help="also compare the head choices")
    parser.add_argument(
        "--locator",
        type=float,
        metavar="MINUTES",
        help="also adapt the locator to the deck for this long (needs the train extra)",
    )
    parser.add_argument(
        "--reader",
        type=float,
        default=READER_MINUTES,
        metavar="MINUTES",
        help=f"with --locator, then fine-tune the reader this long (default "
        f"{READER_MINUTES:g}; 0: the head alone reads)",
    )
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="keep each look's taught deck in DIR/LOOK (and reuse it when run again)",
    )
    parser.add_argument(
        "--misses",
        action="store_true",
        help="also print each photo's wrong and missed cards, as the taught scan reads it,"
        " and the warnings on photos read right",
    )
    args = parser.parse_args()
    main(
        args.looks.split(",") if args.looks else None,
        scenes=args.scenes,
        seed=args.seed,
        per_photo=args.per_photo,
        cards=args.cards,
        models=args.models,
        compare=args.compare,
        locator_minutes=args.locator,
        reader_minutes=args.reader,
        keep=args.keep,
        misses=args.misses,
    )
