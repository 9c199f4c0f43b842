"""Teach a deck: labelled photos of the real cards -> a stored, adapted deck.

    labels.csv:   image,cards
                  table1.jpg,"7h 8h 9h JK"
                  table2.jpg,"Ks Qs"

Each photo (path relative to the CSV) shows the cards of its row lying apart, in any
order. The shipped locator and reader find every card and its corner indices; the
found cards are matched to the row's cards by the least-cost assignment on the reader's
probabilities within the deck's family (`assignment.assign`), so the labels need no
order and a card the reader misreads still gets its true name (the deck records which:
`StoredDeck.read_as`, for the person to check). A card the locator cuts in two (a look
it never saw) is one card: overlapping card boxes are merged, and a second piece may be
matched as the same card's other corner when the reader agrees. Each labelled card
keeps its index crops (wide,
`deck_head.ENROL_CONTEXT`) and the card as found; then `adapt` fits the deck's head on
augmented crops (`deck_head`). Everything is built in a temporary folder and stored in
one rename (`deck_store.DeckStore.write`): bad input stores nothing.

Bad input, each named by photo and card: a photo where no card is found, a blurred
photo (`check_sharp`), a card found with no label or a label with no card found, the
same card twice in the deck, a card of another deck family, a card that is not a card.
"""

from __future__ import annotations

import csv
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from shanghai.engine.cards import Card, DeckFamily, cards_of_family
from shanghai.engine.errors import CardParseError

from .arrays import Box, Frame, as_box
from .assignment import assign
from .box_overlap import box_gaps, overlap_areas
from .card_fit import corner_span
from .crops import CROP_SIZE, square_crop
from .deck_faces import spanning_box, whole_face
from .deck_head import (
    DEFAULT_KIND,
    ENROL_CONTEXT,
    ENROL_SIZE,
    DeckHead,
    augmented_crops,
    fit_head,
)
from .deck_store import (
    CROPS_FOLDER,
    FACES_FOLDER,
    HEAD_FILE,
    DeckError,
    DeckStore,
    StoredDeck,
    write_deck_file,
)
from .face_kind import FaceCheck
from .image_checks import edge_sharpness
from .pipeline import CardModels
from .readings import family_mask
from .sources import SourceError, read_image

__all__ = [
    "EnrolledCard",
    "FoundCard",
    "LabelledPhoto",
    "Progress",
    "adapt",
    "card_span",
    "check_apart",
    "check_sharp",
    "deck_span",
    "enrol",
    "enrol_photo",
    "enrolled_features",
    "face_unchecked",
    "find_cards",
    "joined_halves",
    "match_pieces",
    "read_labels",
    "refit",
    "store_enrolled",
]

Progress = Callable[[str, int, int], None]
"""`progress(stage, done, total)`: `stage` is "photos", "crops" or "fit"."""
VIEWS_PER_CROP = 24
"""Augmented views of each enrolled index crop that the head is fitted on."""
PART_OVERLAP = 0.3
"""Card boxes overlapping by this share of the smaller one are parts of one card (the
cards of an enrolment photo lie apart)."""
SECOND_PIECE = 0.05
"""Least reader probability of a labelled card for a found card left over (a card box
of its own) to be taken as another piece of it: a card the locator cut in two, whose
half showing a corner is read poorly (the held-out Rook look's halves gave their card
0.13-0.48; a box on the cloth holding another card's corner gave the card it was taken
for 0.004). A lone index (no card box) needs `SECOND_CORNER`."""
SECOND_CORNER = 0.5
"""Least reader probability of a labelled card for a lone index left over (no card box)
to be taken as its other corner (a corner whose half of the card was not boxed): boxes
on the cloth, read as a card at 0.003-0.03, are not."""
SECOND_COST = 1.0
"""Cost of a second piece over its reading (the same for every label: it only orders)."""
INDEX_REACH = 6.0
"""On the page (`find_cards`), a lone index (no card box) within this many index lengths
(about a card's length) of a found card is taken for a mark or a corner of that card
whose box the locator cut short, and is not shown as a card to confirm; further away
it is shown (it may be a card whose box was not found). With labels (`enrol_photo`) a
lone index left unmatched is always left out (`_left_out`)."""
HALF_GAP = 1.5
"""Two found card boxes each with one index read as the same card (`joined_halves`)
lie at most this many times the smaller box's shorter side apart to be joined as one
card's halves. On enrolment photos of a validation Rook look whose band splits cards
(rook-teach-band), the halves of one card lay 0-1.25 apart; two cards read alike need
not be near (a deck holds each card once)."""
SHARP_INDEX = 0.19
"""Least `image_checks.edge_sharpness` of a card's index crops (the median of its
corners) for the card to be enrolled: a blurred face teaches the deck's models that
blur is that card (a shaken 3d taught a deck to read soft Jd as 3d, close up too; a
smeared joker, a shaken joker as a 7d, sure). The highest level under which at most one
sharp card in 200 falls, on enrolment photos of four validation looks drawn as the
benchmark draws them (`data/exp/s19/sharp_final.py`, git-ignored): 1 of 272 sharp cards
(blur up to 2 px) falls under it; of the cards smeared 2-4 px 48% pass, 4-6 px 16%,
over 6 px none (with the measure before 2026-12-07 and its level 0.16: 77%, 41%,
and 29% of those smeared more than 6 px). On the real-dev photos (phone photos shrunk to
378x504 and webcam frames, `sharp_real.py`) 20 of 295 fall under it (6 before), most
visibly soft at that size."""
APART_SURE = 0.9
"""Least reader share (within the family) of a corner's read for `check_apart` to take
two corners of one joined card box as two cards. On enrolment photos of validation
looks (cards apart, `data/exp/s14_overlap_probe.py`), 0 of the 38 joined boxes of the
band look's halves held two reads this sure; the 2 of 43 joined boxes of other looks
that did reached from one card onto the corner of the next."""
MIN_MATCH = 1e-4
"""When a photo holds more or fewer cards than its label, a found card is matched to a
labelled card only if the reader gives it about this much (with equal counts every card
is matched, however the reader reads it)."""


@dataclass(frozen=True, slots=True)
class LabelledPhoto:
    """One row of the labels file: a photo and the cards it shows (any order)."""

    path: Path
    cards: tuple[Card, ...]
    row: int


@dataclass(frozen=True)
class EnrolledCard:
    """A labelled card as found in its photo: (K, ENROL_SIZE, ENROL_SIZE, 3) wide index
    crops, the card's crop (its box), and the shipped reader's best guess for it."""

    card: Card
    crops: list[Frame]
    face: Frame | None
    read_as: str
    span: float | None = None
    """Its two corners apart in index sizes (`card_fit.corner_span`) when the photo
    showed exactly two indices of it; what `deck_span` measures the deck by."""
    face_kinds: tuple[tuple[float, ...], ...] = ()
    """The face check's kind probabilities around each of its indices in the photo
    (`face_kind.FaceCheck.kinds`; empty without a face check): what `face_unchecked`
    judges the deck's own face of it by."""


def face_unchecked(cards: Sequence[EnrolledCard], faces: FaceCheck | None) -> list[str]:
    """The enrolled cards whose own face, on their enrolment photo, the face check
    takes for another kind (`FaceCheck.takes_for_another_kind`): judged by it, their
    reads would be marked where the check is surest. Stored with the deck
    (`StoredDeck.face_unchecked`); its scans leave them unchecked."""
    if faces is None:
        return []
    return sorted(
        {str(c.card) for c in cards if faces.takes_for_another_kind(c.card, c.face_kinds)}
    )


def _face_kinds(
    models: CardModels, frame: Frame, boxes: Sequence[npt.NDArray[np.float32]]
) -> tuple[tuple[float, ...], ...]:
    """The face check's kind probabilities around each index box (empty without one)."""
    faces = models.face_check
    return () if faces is None else tuple(faces.kinds(frame, [as_box(b) for b in boxes]))


MIN_SPANS = 3
"""Enrolled cards showing both corners a deck's span is measured on (`deck_span`): one
card's boxes can be off; a deck laid out apart shows both corners of nearly every card."""


def card_span(boxes: Sequence[npt.NDArray[np.float32] | Box]) -> float | None:
    """A found card's corners apart in index sizes (`card_fit.corner_span`) when it
    shows exactly two index boxes, else None."""
    if len(boxes) != 2:
        return None
    return corner_span(tuple(float(v) for v in boxes[0]), tuple(float(v) for v in boxes[1]))


def deck_span(cards: Sequence[EnrolledCard]) -> float | None:
    """The deck's opposite corners apart in index sizes: the median of its enrolled
    cards' spans, None when under `MIN_SPANS` cards have one. The scan folds two
    corners of one card by it where the photo's outlines misjudge the card's size
    (`physical.one_card_pairs`, `span`)."""
    spans = [c.span for c in cards if c.span is not None]
    return float(np.median(spans)) if len(spans) >= MIN_SPANS else None


def _no_progress(stage: str, done: int, total: int) -> None:
    return None


def read_labels(path: str | Path) -> list[LabelledPhoto]:
    """The rows of a labels CSV (`image,cards`; a header row is optional)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise DeckError(f"{path}: cannot read the labels ({exc})") from None
    rows: list[LabelledPhoto] = []
    for number, row in enumerate(csv.reader(text.splitlines()), start=1):
        if not row or not any(cell.strip() for cell in row):
            continue
        if number == 1 and [c.strip().lower() for c in row[:2]] == ["image", "cards"]:
            continue
        if len(row) != 2:
            raise DeckError(f"{path.name} row {number}: expected two columns, image and cards")
        image, text_cards = row[0].strip(), row[1].replace(",", " ")
        cards = []
        for word in text_cards.split():
            try:
                cards.append(Card.parse(word))
            except CardParseError as exc:
                raise DeckError(f"{path.name} row {number} ({image}): {exc}") from None
        if not cards:
            raise DeckError(f"{path.name} row {number} ({image}): no cards listed")
        rows.append(LabelledPhoto(path.parent / image, tuple(cards), number))
    if not rows:
        raise DeckError(f"{path}: no photos listed (rows are: image,cards)")
    return rows


def check_labels(photos: Sequence[LabelledPhoto], family: DeckFamily) -> None:
    """Every card belongs to the family and appears once in the whole deck."""
    allowed = set(cards_of_family(family))
    seen: dict[Card, Path] = {}
    problems: list[str] = []
    for photo in photos:
        for card in photo.cards:
            if card not in allowed:
                problems.append(f"{photo.path.name}: {card} is not a card of a {family} deck")
            elif card in seen:
                where = (
                    "twice in this photo"
                    if seen[card] == photo.path
                    else (f"already in {seen[card].name}")
                )
                problems.append(f"{photo.path.name}: {card} is labelled {where}")
            else:
                seen[card] = photo.path
    if problems:
        raise DeckError("; ".join(problems))


def _found_cards(
    models: CardModels, frame: Frame
) -> tuple[list[list[int]], npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.int_]]:
    """(per found card, the rows of its indices), (N, 4) index boxes, (M, 4) one box per
    found card, (M,) how many card boxes were joined into it (0: a lone index, the box
    its own). Cards lie apart, so card boxes that overlap are parts of one card (a look
    the locator has not seen may come out as a box per half); an index joins the
    card whose box holds its centre, else it stands for a card of its own (a corner
    whose card box was not found: `enrol_photo` may match it to a card's second corner)."""
    index_xyxy, _, card_xyxy = models.locate(frame)
    merged = _merged_boxes(card_xyxy)
    boxes = [box for box, _ in merged]
    joined = [count for _, count in merged]
    centres = (index_xyxy[:, :2] + index_xyxy[:, 2:]) / 2
    groups: list[list[int]] = [[] for _ in boxes]
    orphans = []
    areas = [(b[2] - b[0]) * (b[3] - b[1]) for b in boxes]
    for i, (x, y) in enumerate(centres):
        holders = [g for g, b in enumerate(boxes) if b[0] <= x <= b[2] and b[1] <= y <= b[3]]
        if holders:
            groups[min(holders, key=lambda g: areas[g])].append(i)
        else:
            orphans.append(i)
    for i in orphans:
        groups.append([i])
        boxes.append(index_xyxy[i].astype(np.float32))
        joined.append(0)
    kept = [g for g, rows in enumerate(groups) if rows]
    card_boxes = np.array([boxes[g] for g in kept], np.float32).reshape(-1, 4)
    return [groups[g] for g in kept], index_xyxy, card_boxes, np.array([joined[g] for g in kept])


def joined_halves(
    groups: Sequence[Sequence[int]],
    card_xyxy: npt.NDArray[np.float32],
    boxed: npt.NDArray[np.bool_],
    best: Sequence[int],
) -> list[list[int]]:
    """The found cards as lists of pieces: two card boxes each holding one index read as
    the same card, lying within `HALF_GAP` of each other, are one card's halves, and
    every other found card is a piece alone. On a Rook look with a dark band across its
    middle the locator boxes the two white halves apart, each with its corner: the page
    showed each half as a card of its own, the same card twice. With labels
    `match_pieces` joins a second piece to a card, but only one, and a card cut in three
    (two halves and a lone box) was left with "a card found ... has no label" (3 of the
    19 retaken enrolment photos of two band-look teaches); so halves are joined before
    either path sees them (`_read_in_family`)."""
    halves = [g for g in range(len(groups)) if boxed[g] and len(groups[g]) == 1]
    joined: dict[int, int] = {}
    pairs = []
    for a in halves:
        for b in halves:
            if b > a and best[a] == best[b]:
                gap = float(box_gaps(card_xyxy[a], card_xyxy[b])[0, 0])
                if gap <= HALF_GAP * _shorter_side(card_xyxy[a], card_xyxy[b]):
                    pairs.append((gap, a, b))
    for _, a, b in sorted(pairs):
        if a not in joined and b not in joined:
            joined[a], joined[b] = b, a
    out = []
    for g in range(len(groups)):
        if g not in joined:
            out.append([g])
        elif joined[g] > g:  # the pair once, at its first half
            out.append([g, joined[g]])
    return out


def _shorter_side(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> float:
    """The shorter side of the smaller of two boxes."""
    return float(min((a[2:] - a[:2]).min(), (b[2:] - b[:2]).min()))


def _stray(
    g: int, boxes: npt.NDArray[np.float32], boxed: npt.NDArray[np.bool_], matched: set[int]
) -> bool:
    """A lone index (no card box) within `INDEX_REACH` of a matched card: a mark or a
    corner of that card, not a card of its own (`find_cards` leaves it out)."""
    if boxed[g] or not matched:
        return False
    box = boxes[g]
    centre = (box[:2] + box[2:]) / 2
    reach = INDEX_REACH * float((box[2:] - box[:2]).max())
    for m in matched:
        nearest = np.clip(centre, boxes[m, :2], boxes[m, 2:])
        if float(np.linalg.norm(centre - nearest)) <= reach:
            return True
    return False


def _left_out(
    g: int, boxed: npt.NDArray[np.bool_], holders: Sequence[set[int]], matched: set[int]
) -> bool:
    """Whether a found card left unmatched is left out (not stored, no error) rather
    than named as a card with no label: a lone index (no card box: a mark on the table,
    a box on the cloth, or a corner whose card the locator boxed short), or a box whose
    indices all lie inside a matched card's box (that card's corner, boxed apart). A
    card a person forgot to label has its own card box, and is named."""
    return not boxed[g] or bool(holders[g] & matched)


def _merged_boxes(
    card_xyxy: npt.NDArray[np.float32],
) -> list[tuple[npt.NDArray[np.float32], int]]:
    """Card boxes that overlap (by `PART_OVERLAP` of the smaller) joined into one box,
    each with the number of boxes joined in it."""
    n = len(card_xyxy)
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a in range(n):
        for b in range(a + 1, n):
            inter = float(overlap_areas(card_xyxy[a], card_xyxy[b]))
            small = min(
                float(np.prod(card_xyxy[a, 2:] - card_xyxy[a, :2])),
                float(np.prod(card_xyxy[b, 2:] - card_xyxy[b, :2])),
            )
            if small > 0 and inter >= PART_OVERLAP * small:
                parent[root(a)] = root(b)
    joined: dict[int, list[int]] = {}
    for i in range(n):
        joined.setdefault(root(i), []).append(i)
    return [
        (
            np.concatenate([card_xyxy[m, :2].min(axis=0), card_xyxy[m, 2:].max(axis=0)]).astype(
                np.float32
            ),
            len(m),
        )
        for m in joined.values()
    ]


def _read_in_family(
    models: CardModels, frame: Frame, family: DeckFamily, name: str
) -> tuple[
    list[list[int]],
    npt.NDArray[np.float32],
    npt.NDArray[np.float32],
    npt.NDArray[np.bool_],
    npt.NDArray[np.float32],
]:
    """The cards found in a photo (`_found_cards`, two halves read alike joined as one:
    `joined_halves`) and each index's reading kept to the deck's family: the shipped
    reading (both views, as scans read) made shares of one again within the family,
    since a look the reader has not seen is often read as cards of the other family and
    the matching needs its preferences within this one. Raises `DeckError` naming the
    photo when no card is found, or when cards lie on each other (`check_apart`)."""
    groups, index_xyxy, card_xyxy, parts = _found_cards(models, frame)
    if not groups:
        raise DeckError(f"{name}: no card found (lay the cards apart, face up, in good light)")
    boxed = parts > 0
    crops = [square_crop(frame, as_box(box)) for box in index_xyxy]
    probabilities = models.features(crops)[0]
    mask = family_mask(models.reader.names, family)
    probabilities = np.where(mask[None, :], probabilities, 0.0)
    probabilities /= np.maximum(probabilities.sum(axis=1, keepdims=True), 1e-12)
    check_apart(name, groups, parts, probabilities, models.reader.names)
    best = [int(probabilities[rows].mean(axis=0).argmax()) for rows in groups]
    joined = joined_halves(groups, card_xyxy, boxed, best)
    return (
        [[i for g in pieces for i in groups[g]] for pieces in joined],
        index_xyxy,
        np.array([spanning_box(card_xyxy[pieces]) for pieces in joined], np.float32),
        np.array([bool(boxed[pieces].all()) for pieces in joined], dtype=bool),
        probabilities,
    )


def check_apart(
    name: str,
    groups: Sequence[Sequence[int]],
    parts: npt.NDArray[np.int_],
    probabilities: npt.NDArray[np.float32],
    names: Sequence[str],
) -> None:
    """Raise `DeckError` when card boxes joined as one card (`_merged_boxes`) hold
    corners read surely (`APART_SURE`) as two different cards: two cards lying on each
    other, or a box reaching from one card to the next. Joined as one, the page showed
    a fan of Jd over Kc as one card (Jd, the Kc lost) and stored the Kc's corner among
    the Jd's crops, teaching the deck's reader that a Kc is a Jd; with labels, the
    photo failed with "no card found for the label Kc", which does not say why."""
    for g, rows in enumerate(groups):
        if parts[g] < 2:
            continue
        sure = {
            names[int(probabilities[i].argmax())]
            for i in rows
            if probabilities[i].max() >= APART_SURE
        }
        if len(sure) >= 2:
            *first, last = sorted(sure)
            read = f"{', '.join(first)} and {last}"
            raise DeckError(
                f"{name}: cards lie on or against each other (their corners read {read}): "
                "lay them apart and take the photo again"
            )


def match_pieces(
    label_probs: npt.NDArray[np.float32],
    boxed: npt.NDArray[np.bool_],
    holders: Sequence[set[int]],
) -> dict[int, list[int]]:
    """For each label (column of the (found, labels) reader probabilities), the found
    cards matched to it, its card first: the least-cost assignment of one found card per
    label; then each found card left over whose indices are not all inside a matched
    card's box (`holders`) joins the matched label it reads as with at least
    `SECOND_PIECE` (a card box of its own, `boxed`) or `SECOND_CORNER` (a lone index),
    as that card's other piece (one a label). The found cards still left over are
    `enrol_photo`'s to leave out or to name (`_left_out`).

    In two stages, not one: in a single assignment over both kinds of slot, a box on the
    cloth read as 7B at 0.03 took 7B's card slot and the real 7B its second-piece slot,
    which cost less than leaving the box unmatched, so the cloth was stored as a 7B corner
    (and an upside-down 12Y corner as a 10Y one): three crops of one validation deck,
    each teaching the deck's reader that cloth or another card is that card. A card the
    locator cuts in two halves is matched as before: the half read worse joins as the
    second piece (a Rook 6R's half read 8R gave 6R 0.13)."""
    n, m = label_probs.shape
    primary = -np.log(label_probs.astype(np.float64) + 1e-9)
    # As many cards found as labelled: match them all, however the reader reads them.
    # Otherwise a found card stays unmatched rather than take a label it hardly reads as.
    leave = 1e6 if n == m else -np.log(MIN_MATCH)
    matched = {j: [g] for g, j in assign(primary, leave=float(leave))}
    cards = {rows[0] for rows in matched.values()}
    rest = [g for g in range(n) if g not in cards and not holders[g] & cards]
    if rest and matched:
        second = np.full((len(rest), m), np.inf)
        for j in matched:
            second[:, j] = primary[rest, j] + SECOND_COST
        least = np.where(boxed[rest], SECOND_PIECE, SECOND_CORNER)
        second[label_probs[rest] < least[:, None]] = np.inf
        for r, j in assign(second, leave=1e6):
            matched[j].append(rest[r])
    return matched


def _holders(
    groups: Sequence[Sequence[int]],
    index_xyxy: npt.NDArray[np.float32],
    card_xyxy: npt.NDArray[np.float32],
) -> list[set[int]]:
    """For each found card, the other found cards whose box holds all its indices."""
    centres = (index_xyxy[:, :2] + index_xyxy[:, 2:]) / 2
    out = []
    for g, rows in enumerate(groups):
        inside = (
            (centres[rows, None, 0] >= card_xyxy[None, :, 0])
            & (centres[rows, None, 0] <= card_xyxy[None, :, 2])
            & (centres[rows, None, 1] >= card_xyxy[None, :, 1])
            & (centres[rows, None, 1] <= card_xyxy[None, :, 3])
        ).all(axis=0)
        out.append({int(h) for h in np.nonzero(inside)[0] if h != g})
    return out


def _centre(box: npt.NDArray[np.float32]) -> tuple[float, float]:
    """A box's centre, in pixels."""
    return float(box[0] + box[2]) / 2, float(box[1] + box[3]) / 2


def _card_reach(boxes: Sequence[Box]) -> float:
    """How far around a card's box its face is looked for when the box holds only part
    of it (`deck_faces.whole_face`): the median larger side of the photo's card boxes.
    The cards of one enrolment photo lie at one distance from the camera, and most are
    boxed whole."""
    sides = [max(b[2] - b[0], b[3] - b[1]) for b in boxes]
    return float(np.median(sides)) if sides else 0.0


def enrol_photo(
    models: CardModels, frame: Frame, photo: LabelledPhoto, family: DeckFamily
) -> list[EnrolledCard]:
    """The labelled cards of one photo, each with its crops (raises `DeckError` naming
    the photo and the card when found cards and labels do not match one to one)."""
    name = photo.path.name
    groups, index_xyxy, card_xyxy, boxed, probabilities = _read_in_family(
        models, frame, family, name
    )
    column = {n: i for i, n in enumerate(models.reader.names)}
    card_probs = np.stack([probabilities[rows].mean(axis=0) for rows in groups])
    labels = list(photo.cards)
    label_probs = np.stack([card_probs[:, column[str(c)]] for c in labels], axis=1)
    holders = _holders(groups, index_xyxy, card_xyxy)
    matched = match_pieces(label_probs, boxed, holders)
    assigned = {g for rows in matched.values() for g in rows}
    guesses = [models.reader.names[int(p.argmax())] for p in card_probs]
    problems = []
    for g in range(len(groups)):
        if g not in assigned and not _left_out(g, boxed, holders, assigned):
            box = card_xyxy[g]
            x, y = int((box[0] + box[2]) / 2), int((box[1] + box[3]) / 2)
            problems.append(
                f"{name}: a card found at ({x}, {y}) px has no label (it reads as {guesses[g]})"
            )
    for j, card in enumerate(labels):
        if j not in matched:
            problems.append(f"{name}: no card found for the label {card}")
    if problems:
        found = f"{len(groups)} card{'s' if len(groups) != 1 else ''} found, "
        raise DeckError("; ".join(problems) + f" ({found}{len(labels)} labelled)")
    out = []
    reach = _card_reach([spanning_box(card_xyxy[rows]) for rows in matched.values()])
    for j, rows in sorted(matched.items()):
        indices = [index_xyxy[i] for g in rows for i in groups[g]]
        wide = [
            square_crop(frame, as_box(box), size=ENROL_SIZE, context=ENROL_CONTEXT)
            for box in indices
        ]
        face = whole_face(
            frame, spanning_box(card_xyxy[rows]), reach, [_centre(box) for box in indices]
        )
        span = card_span(indices)
        kinds = _face_kinds(models, frame, indices)
        out.append(EnrolledCard(labels[j], wide, face, guesses[rows[0]], span, kinds))
    check_sharp(name, [c.crops for c in out], [str(c.card) for c in out])
    return out


def check_sharp(
    name: str, crops: Sequence[Sequence[Frame]], labels: Sequence[str] | None = None
) -> None:
    """Raise `DeckError` naming the photo when any card's index crops (one list per
    card found) are softer than `SHARP_INDEX`: the photo is taken again, since a person
    can, and nothing of it is kept (its sharp cards too: a shake blurs the whole photo,
    and one message says what to do). With `labels` (the person's names for the cards,
    in the same order) the blurred cards are named; without, counted, since the
    reader's proposals for blurred cards are often wrong."""
    soft = [
        k
        for k, card in enumerate(crops)
        if card and float(np.median([edge_sharpness(c) for c in card])) < SHARP_INDEX
    ]
    if not soft:
        return
    if labels is not None:
        which = f"{', '.join(labels[k] for k in soft)} {'is' if len(soft) == 1 else 'are'}"
    elif len(crops) == 1:
        which = "its card is"
    else:
        which = f"{len(soft)} of its {len(crops)} cards {'is' if len(soft) == 1 else 'are'}"
    raise DeckError(
        f"{name}: {which} blurred: hold the camera still (or closer, in good light) and "
        "take the photo again"
    )


def _write_cards(folder: Path, cards: Sequence[EnrolledCard]) -> None:
    for enrolled in cards:
        where = folder / CROPS_FOLDER / str(enrolled.card)
        where.mkdir(parents=True, exist_ok=True)
        start = len(list(where.glob("*.png")))
        for k, crop in enumerate(enrolled.crops):
            cv2.imwrite(str(where / f"{start + k}.png"), crop)
        if enrolled.face is not None and enrolled.face.size:
            faces = folder / FACES_FOLDER
            faces.mkdir(exist_ok=True)
            cv2.imwrite(str(faces / f"{enrolled.card}.jpg"), enrolled.face)


def enrolled_features(
    deck: StoredDeck,
    models: CardModels,
    *,
    views: int = VIEWS_PER_CROP,
    seed: int = 0,
    progress: Progress = _no_progress,
) -> tuple[npt.NDArray[np.float32], list[str]]:
    """(N, D) reader features of `views` augmented views of every enrolled crop, and the
    card name of each row."""
    rng = np.random.default_rng(seed)
    samples: list[tuple[Card, Path]] = [
        (card, path) for card in deck.cards for path in deck.crop_paths(card)
    ]
    if not samples:
        raise DeckError(f"deck {deck.name}: no index crops enrolled")
    features: list[npt.NDArray[np.float32]] = []
    labels: list[str] = []
    for done, (card, path) in enumerate(samples, start=1):
        wide = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if wide is None:
            raise DeckError(f"deck {deck.name}: {path.name} of {card} is unreadable")
        views_of = augmented_crops(np.asarray(wide, np.uint8), rng, views)
        features.append(models.features(views_of)[1])
        labels += [str(card)] * len(views_of)
        progress("crops", done, len(samples))
    return np.concatenate(features), labels


def _check_embedding(models: CardModels) -> None:
    """A taught deck reads by the reader's `embedding` output: refuse a reader without it."""
    if not models.reader.has_embedding:
        raise DeckError(
            f"{models.files.reader.name} has no embedding output, which a taught deck reads "
            "by (tools/reader_embedding.py adds it)"
        )


def adapt(
    deck: StoredDeck,
    models: CardModels,
    *,
    kind: str = DEFAULT_KIND,
    views: int = VIEWS_PER_CROP,
    seed: int = 0,
    progress: Progress = _no_progress,
) -> DeckHead:
    """Fit the deck's head on augmented views of its enrolled crops (see `deck_head`);
    the head is returned, not stored."""
    features, labels = enrolled_features(deck, models, views=views, seed=seed, progress=progress)
    return fit_head(
        features,
        labels,
        kind=kind,
        reader=models.reader_fingerprint,
        progress=lambda step, steps: progress("fit", step, steps),
    )


def enrol(
    store: DeckStore,
    name: str,
    family: DeckFamily,
    photos: Sequence[LabelledPhoto],
    models: CardModels,
    *,
    progress: Progress = _no_progress,
    kind: str = DEFAULT_KIND,
) -> StoredDeck:
    """Enrol and adapt a deck from labelled photos, storing it whole (replacing a deck
    of the same name) or not at all."""
    check_labels(photos, family)
    if models.reader.size != CROP_SIZE:
        raise DeckError(f"the reader reads {models.reader.size}-px crops; decks need {CROP_SIZE}")
    _check_embedding(models)

    def build(folder: Path) -> None:
        enrolled: list[EnrolledCard] = []
        read_as: dict[str, str] = {}
        for done, photo in enumerate(photos, start=1):
            try:
                frame = read_image(photo.path)
            except SourceError as exc:
                raise DeckError(str(exc)) from None
            cards = enrol_photo(models, frame, photo, family)
            _write_cards(folder, cards)
            enrolled += cards
            read_as.update({str(c.card): c.read_as for c in cards if c.read_as != str(c.card)})
            progress("photos", done, len(photos))
        write_deck_file(
            folder,
            name=name,
            family=family,
            cards=[c.card for c in enrolled],
            photos=len(photos),
            read_as=read_as,
            corner_span=deck_span(enrolled),
            face_unchecked=face_unchecked(enrolled, models.face_check),
            face_kinds={str(c.card): c.face_kinds for c in enrolled if c.face_kinds},
        )
        head = adapt(StoredDeck.read(folder), models, kind=kind, progress=progress)
        head.save(folder / HEAD_FILE)

    return store.write(name, build)


@dataclass(frozen=True)
class FoundCard:
    """A card found in a photo with no labels (the page's "Teach a deck", one photo at a
    time): the shipped reader's best card of the deck's family for it (`proposal`, with
    its share `confidence`), its wide index crops (as `EnrolledCard.crops`), the card
    cut out and straightened (`deck_faces.whole_face`) and its box."""

    proposal: Card
    confidence: float
    crops: list[Frame]
    face: Frame
    xyxy: Box
    span: float | None = None
    """As `EnrolledCard.span`."""
    face_kinds: tuple[tuple[float, ...], ...] = ()
    """As `EnrolledCard.face_kinds`."""

    def enrolled(self, card: Card) -> EnrolledCard:
        """This card enrolled as `card` (the proposal confirmed or corrected)."""
        return EnrolledCard(
            card, self.crops, self.face, str(self.proposal), self.span, self.face_kinds
        )


def find_cards(
    models: CardModels, frame: Frame, family: DeckFamily, *, name: str = "the photo"
) -> list[FoundCard]:
    """Every card found in one photo, each with the name the reader proposes within the
    family, left to right, top to bottom (raises `DeckError` when no card is found). A
    lone index near a found card is a mark or a corner of it and is left out, as in
    `enrol_photo`."""
    groups, index_xyxy, card_xyxy, boxed, probabilities = _read_in_family(
        models, frame, family, name
    )
    cards = {g for g in range(len(groups)) if boxed[g]}
    found = []
    reach = _card_reach([as_box(card_xyxy[g]) for g in cards])
    for g, rows in enumerate(groups):
        if _stray(g, card_xyxy, boxed, cards):
            continue
        shares = probabilities[rows].mean(axis=0)
        best = int(shares.argmax())
        wide = [
            square_crop(frame, as_box(index_xyxy[i]), size=ENROL_SIZE, context=ENROL_CONTEXT)
            for i in rows
        ]
        box = as_box(card_xyxy[g])
        found.append(
            FoundCard(
                Card.parse(models.reader.names[best]),
                float(shares[best]),
                wide,
                whole_face(frame, box, reach, [_centre(index_xyxy[i]) for i in rows]),
                box,
                card_span([index_xyxy[i] for i in rows]),
                _face_kinds(models, frame, [index_xyxy[i] for i in rows]),
            )
        )
    check_sharp(name, [c.crops for c in found])
    rows_of = max(1.0, float(np.median([c.xyxy[3] - c.xyxy[1] for c in found])))
    found.sort(key=lambda c: (round(c.xyxy[1] / rows_of), c.xyxy[0]))
    return found


def store_enrolled(
    store: DeckStore,
    name: str,
    family: DeckFamily,
    cards: Sequence[EnrolledCard],
    models: CardModels,
    *,
    photos: int,
    progress: Progress = _no_progress,
    kind: str = DEFAULT_KIND,
    views: int = VIEWS_PER_CROP,
) -> StoredDeck:
    """Store and adapt a deck from cards already named (the page's enrolment: found
    with `find_cards`, confirmed one by one), whole (replacing a deck of the same name)
    or not at all: if `progress` raises, nothing is stored."""
    check_labels([LabelledPhoto(Path(name), tuple(c.card for c in cards), 1)], family)
    if not cards:
        raise DeckError(f"deck {name}: no cards to enrol")
    _check_embedding(models)

    def build(folder: Path) -> None:
        _write_cards(folder, cards)
        read_as = {str(c.card): c.read_as for c in cards if c.read_as != str(c.card)}
        write_deck_file(
            folder,
            name=name,
            family=family,
            cards=[c.card for c in cards],
            photos=photos,
            read_as=read_as,
            corner_span=deck_span(cards),
            face_unchecked=face_unchecked(cards, models.face_check),
            face_kinds={str(c.card): c.face_kinds for c in cards if c.face_kinds},
        )
        head = adapt(StoredDeck.read(folder), models, kind=kind, views=views, progress=progress)
        head.save(folder / HEAD_FILE)

    return store.write(name, build)


def refit(
    store: DeckStore,
    name: str,
    models: CardModels,
    *,
    progress: Progress = _no_progress,
) -> StoredDeck:
    """Fit stored deck `name`'s head again, for the models' reader, on its stored crops.

    Why: a head reads one reader's features, so a new shipped reader refuses every deck
    taught before it ("adapted for another reader model"); the enrolled index crops are
    stored, so the cards need not be photographed again. The deck's own locator and
    reader, when the deck step made them, read without the shipped reader's features
    and are kept, with the sure level chosen for them. The deck is replaced whole or
    not at all (`DeckStore.write`)."""
    deck = store.get(name)
    _check_embedding(models)
    try:
        kind = deck.head().kind
    except DeckError:  # never adapted, or its head unreadable
        kind = DEFAULT_KIND

    def build(folder: Path) -> None:
        shutil.copytree(deck.folder, folder, dirs_exist_ok=True)
        head = adapt(StoredDeck.read(folder), models, kind=kind, progress=progress)
        head.save(folder / HEAD_FILE)

    return store.write(name, build)
