"""Decks being taught on the page: photos uploaded, cards named, not yet adapted.

    <data folder>/deck-drafts/NAME/
        draft.json          name, family, photos read, each card found: its id, the name
                            the reader proposed, the name it is given (None: not yet)
        ID/face.jpg         the card cut out and straightened (`vision.deck_faces`)
        ID/crop-K.png       its wide index crops (`vision.deck_head.ENROL_CONTEXT`)

A draft lives on disk, so the server's memory holds one photo at a time however many
are uploaded, and a draft survives a restart. Two cards of a draft never share a name:
a card the reader proposes as a name already given is left unnamed (with a note), and
naming a card as another card's name is refused (409). Adapting
(`server.deck_jobs`) stores the named cards as a deck through
`vision.deck_enrol.store_enrolled` (all or nothing) and then removes the draft.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from shanghai.engine.cards import Card, DeckFamily, cards_of_family
from shanghai.engine.errors import CardParseError
from shanghai.vision.arrays import Frame
from shanghai.vision.deck_enrol import EnrolledCard, FoundCard
from shanghai.vision.deck_store import StoredDeck, check_name

from .errors import ApiError

__all__ = ["DRAFTS_FOLDER", "MAX_DRAFT_CARDS", "Draft", "DraftCard", "DraftStore", "parse_card"]

DRAFTS_FOLDER = "deck-drafts"
DRAFT_FILE = "draft.json"
MAX_DRAFT_CARDS = 120
"""Cards a draft may hold (a 54-card deck twice over, and some): the disk a draft takes
stays bounded too."""


def parse_card(text: str, family: DeckFamily) -> Card:
    """A card name of the family (422 otherwise, saying why)."""
    try:
        card = Card.parse(text.strip())
    except CardParseError as exc:
        raise ApiError(422, str(exc)) from None
    if card not in cards_of_family(family):
        raise ApiError(422, f"{card} is not a card of a {family} deck")
    return card


@dataclass
class DraftCard:
    id: int
    proposal: str
    """What the reader read (within the deck's family)."""
    confidence: float
    card: str | None
    """The name it is given: the proposal until corrected; None when the proposal was
    another card's name already."""
    photo: int
    note: str = ""
    span: float | None = None
    """Its corners apart in index sizes (`vision.deck_enrol.FoundCard.span`)."""
    face_kinds: list[list[float]] = field(default_factory=list)
    """The face check's kind probabilities around its indices
    (`vision.deck_enrol.FoundCard.face_kinds`)."""


@dataclass
class Draft:
    name: str
    family: DeckFamily
    photos: int = 0
    next_id: int = 1
    cards: list[DraftCard] = field(default_factory=list)
    replaces: bool = False
    """Started from the stored deck of the same name (re-enrolling it)."""

    def named(self) -> dict[str, DraftCard]:
        return {c.card: c for c in self.cards if c.card is not None}

    def missing(self) -> list[Card]:
        """Cards of the family no card of the draft is named as."""
        have = self.named()
        return [c for c in cards_of_family(self.family) if str(c) not in have]

    def card(self, card_id: int) -> DraftCard:
        for card in self.cards:
            if card.id == card_id:
                return card
        raise ApiError(404, f"deck {self.name} has no card {card_id}")

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["family"] = self.family.value
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Draft:
        return cls(
            name=str(data["name"]),
            family=DeckFamily(data["family"]),
            photos=int(data["photos"]),
            next_id=int(data["next_id"]),
            cards=[DraftCard(**c) for c in data["cards"]],
            replaces=bool(data.get("replaces", False)),
        )


def _image(path: Path) -> Frame | None:
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    return None if image is None else np.asarray(image, np.uint8)


class DraftStore:
    """The drafts of one data folder; safe to use from several threads (a lock per
    draft around every read-modify-write of it)."""

    def __init__(self, data_dir: Path) -> None:
        self.root = data_dir / DRAFTS_FOLDER
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def folder(self, name: str) -> Path:
        return self.root / check_name(name)

    def names(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.parent.name for p in self.root.glob(f"*/{DRAFT_FILE}"))

    def exists(self, name: str) -> bool:
        return (self.folder(name) / DRAFT_FILE).is_file()

    def get(self, name: str) -> Draft:
        path = self.folder(name) / DRAFT_FILE
        try:
            return Draft.from_json(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            raise ApiError(404, f"no deck named {name!r} is being taught") from None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ApiError(409, f"deck {name}: its draft is unreadable ({exc})") from None

    @contextmanager
    def editing(self, name: str) -> Iterator[Draft]:
        """The draft, written back when the block ends without an error."""
        with self._lock(name):
            draft = self.get(name)
            yield draft
            self._save(draft)

    def create(self, name: str, family: DeckFamily) -> Draft:
        with self._lock(name):
            if self.exists(name):
                raise ApiError(409, f"deck {name} is already being taught: add photos to it")
            draft = Draft(name, family)
            self.folder(name).mkdir(parents=True)
            self._save(draft)
            return draft

    def from_deck(self, deck: StoredDeck) -> Draft:
        """A draft holding a stored deck's cards (re-enrolling it: add, rename, drop)."""
        with self._lock(deck.name):
            if self.exists(deck.name):
                raise ApiError(409, f"deck {deck.name} is already being taught: add photos to it")
            draft = Draft(deck.name, deck.family, photos=deck.photos, replaces=True)
            folder = self.folder(deck.name)
            folder.mkdir(parents=True)
            for card in deck.cards:
                where = folder / str(draft.next_id)
                where.mkdir()
                for k, path in enumerate(deck.crop_paths(card)):
                    shutil.copyfile(path, where / f"crop-{k}.png")
                face = deck.face_path(card)
                if face.is_file():
                    shutil.copyfile(face, where / "face.jpg")
                read = deck.read_as.get(str(card), str(card))
                # Each card kept stands for the deck's span: its own was not stored.
                kinds = [list(row) for row in deck.face_kinds.get(str(card), ())]
                draft.cards.append(
                    DraftCard(
                        draft.next_id,
                        read,
                        1.0,
                        str(card),
                        0,
                        span=deck.corner_span,
                        face_kinds=kinds,
                    )
                )
                draft.next_id += 1
            self._save(draft)
            return draft

    def add_photo(self, name: str, found: list[FoundCard]) -> tuple[Draft, list[DraftCard]]:
        """Add the cards found in one photo; each is named as proposed unless a card of
        the draft already has that name."""
        with self.editing(name) as draft:
            if len(draft.cards) + len(found) > MAX_DRAFT_CARDS:
                raise ApiError(
                    409,
                    f"deck {name} holds {len(draft.cards)} cards; at most {MAX_DRAFT_CARDS} "
                    "(drop some first)",
                )
            draft.photos += 1
            taken = draft.named()
            added = []
            for one in found:
                card_id, draft.next_id = draft.next_id, draft.next_id + 1
                where = self.folder(name) / str(card_id)
                where.mkdir()
                cv2.imwrite(str(where / "face.jpg"), one.face, [cv2.IMWRITE_JPEG_QUALITY, 90])
                for k, crop in enumerate(one.crops):
                    cv2.imwrite(str(where / f"crop-{k}.png"), crop)
                proposal = str(one.proposal)
                note = ""
                given: str | None = proposal
                if proposal in taken:
                    given = None
                    other = taken[proposal]
                    note = (
                        f"reads as {proposal}, which card {other.id} (photo {other.photo}) "
                        "already is: name it, or drop one"
                    )
                card = DraftCard(
                    card_id,
                    proposal,
                    round(one.confidence, 4),
                    given,
                    draft.photos,
                    note,
                    None if one.span is None else round(one.span, 4),
                    [[round(v, 4) for v in row] for row in one.face_kinds],
                )
                if given is not None:
                    taken[given] = card
                draft.cards.append(card)
                added.append(card)
            return draft, added

    def rename(self, name: str, card_id: int, text: str) -> DraftCard:
        with self.editing(name) as draft:
            card = draft.card(card_id)
            new = str(parse_card(text, draft.family))
            other = draft.named().get(new)
            if other is not None and other.id != card_id:
                raise ApiError(
                    409,
                    f"{new} is already card {other.id} (photo {other.photo}): "
                    "the same card cannot be enrolled twice",
                )
            card.card, card.note = new, ""
            return card

    def drop(self, name: str, card_id: int) -> None:
        with self.editing(name) as draft:
            card = draft.card(card_id)
            draft.cards.remove(card)
            shutil.rmtree(self.folder(name) / str(card_id), ignore_errors=True)

    def face(self, name: str, card_id: int) -> Path:
        self.get(name).card(card_id)
        path = self.folder(name) / str(card_id) / "face.jpg"
        if not path.is_file():
            raise ApiError(404, f"card {card_id} of deck {name} has no picture")
        return path

    def enrolled(self, draft: Draft) -> list[EnrolledCard]:
        """The draft's named cards as `vision.deck_enrol` enrols them (read from disk)."""
        out = []
        for card in draft.cards:
            if card.card is None:
                continue
            where = self.folder(draft.name) / str(card.id)
            crops = [_image(p) for p in sorted(where.glob("crop-*.png"))]
            kept = [c for c in crops if c is not None]
            face = _image(where / "face.jpg")
            kinds = tuple(tuple(row) for row in card.face_kinds)
            out.append(
                EnrolledCard(Card.parse(card.card), kept, face, card.proposal, card.span, kinds)
            )
        return out

    def remove(self, name: str) -> bool:
        with self._lock(name):
            folder = self.folder(name)
            if not folder.is_dir():
                return False
            shutil.rmtree(folder)
            return True

    @contextmanager
    def _lock(self, name: str) -> Iterator[None]:
        check_name(name)
        with self._guard:
            lock = self._locks.setdefault(name, threading.Lock())
        with lock:
            yield

    def _save(self, draft: Draft) -> None:
        folder = self.folder(draft.name)
        fd, temp = tempfile.mkstemp(prefix=".draft-", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(draft.to_json(), f, indent=1)
        os.replace(temp, folder / DRAFT_FILE)
