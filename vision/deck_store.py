"""Taught decks on disk: one folder per deck under the user's data folder.

    <data folder>/decks/NAME/
        deck.json           name, deck family, the cards enrolled, the photos they came from
        crops/CARD/N.png    each enrolled index, cut wider than the reader's crop
                            (`ENROL_CONTEXT`) so adaptation can turn and scale it
        faces/CARD.jpg      the card as found in its photo, cut out and straightened
        head.npz            the adapted reading (`deck_head.DeckHead`)
        cards-detector.onnx, cards-reader.onnx
                            its own locator and reader, when the deck step made them
        levels.json         the sure level chosen for them (`datasets.deck_check`)

The data folder is `default_data_dir()`: the server keeps its database there too
(`server.settings`), so a deck taught on the command line is the page's deck. A deck is
written whole or not at all: `DeckStore.write` builds it in a hidden temporary folder
beside the others and renames it into place, so an interrupted enrolment or adaptation
leaves no deck (and the deck it was replacing stays as it was until the rename).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from shanghai.engine.cards import Card, DeckFamily, cards_of_family

from .deck_head import DeckHead

__all__ = [
    "DECK_FILE",
    "HEAD_FILE",
    "LOCATOR_MINUTES",
    "LOCATOR_MINUTES_RANGE",
    "OVERHEAD_MINUTES",
    "DeckError",
    "DeckNotFoundError",
    "DeckReaderChanged",
    "DeckStore",
    "StoredDeck",
    "decks_dir",
    "default_data_dir",
]

DECKS_FOLDER = "decks"
DECK_FILE = "deck.json"
HEAD_FILE = "head.npz"
LOCATOR_FILE = "cards-detector.onnx"
"""A deck's own adapted locator (`datasets.deck_locator`), when it has one."""
LOCATOR_MINUTES = 6.5
"""A taught deck's locator training, by default: with the reader's (`READER_MINUTES`),
the scenes, the exports and the check of its levels (`datasets.deck_check`), the deck is
ready in under 15 minutes on a 2-core CPU (docs/decks.md). 6.5 + 4 minutes read two
validation looks (rook-slim; rook-unseen-hanken, 2026-11-28) better than 8.5 + 2 on
every count measured: two more minutes of the reader's fine-tune pay more than of the
locator's training."""
LOCATOR_MINUTES_RANGE = (1.0, 120.0)
LEVELS_FILE = "levels.json"
"""The sure level chosen for the deck's own models (`datasets.deck_check`), and the
counts it was chosen on."""
READER_FILE = "cards-reader.onnx"
"""A deck's own fine-tuned reader (`datasets.deck_locator`), when it has one."""
READER_MINUTES = 4.0
"""The reader's fine-tune after the locator's training, by default (see
`LOCATOR_MINUTES`). On the Rook look the fine-tune's own validation accuracy stopped
rising after about 1.5 minutes, yet the scan read both validation looks better after 4."""
READER_MINUTES_RANGE = (0.0, 60.0)
OVERHEAD_MINUTES = 3.5
"""What a teach step allows, beyond its two training budgets, for the parts with no time
budget (the scenes, the exports, the check of its level): the default step ends within
6.5 + 4 + 3.5 = 14 minutes, the training shrinking when those parts run long
(`datasets.step_budget`), and the deck is ready within the issue's 15."""
CROPS_FOLDER = "crops"
FACES_FOLDER = "faces"
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
"""A deck name: a letter or digit, then up to 39 letters, digits, `_`, `.` or `-` (it is
a folder name on every system, and a word in a URL)."""
_TEMP_PREFIX = ".partial-"
STALE_SECONDS = 24 * 3600.0
"""A temporary folder this old is what a killed build left behind (a live build
finishes in minutes), so the next build removes it."""


class DeckError(ValueError):
    """A deck cannot be enrolled, stored or used as asked (the message says why)."""


class DeckNotFoundError(DeckError):
    """No deck of that name is stored."""


class DeckReaderChanged(DeckError):
    """The deck's head was fitted for another reader than the models' (a new shipped
    reader): `deck_enrol.refit` fits it again from its stored crops."""


def default_data_dir() -> Path:
    """`$SHANGHAI_DATA_DIR` (the server's setting, so the CLI and a server it starts
    agree), else `$XDG_DATA_HOME/shanghai`, else `~/.local/share/shanghai`."""
    chosen = os.environ.get("SHANGHAI_DATA_DIR")
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "shanghai"


def decks_dir(data_dir: str | Path | None = None) -> Path:
    """Where decks are stored: `decks/` in the data folder (default `default_data_dir()`)."""
    return (Path(data_dir) if data_dir is not None else default_data_dir()) / DECKS_FOLDER


def check_name(name: str) -> str:
    if not NAME_PATTERN.fullmatch(name):
        raise DeckError(
            f"deck name {name!r}: use up to 40 letters, digits, '_', '.' or '-', "
            "starting with a letter or digit"
        )
    return name


def _safe(card: str) -> str:
    """A card name as a file name (every engine card name is letters and digits)."""
    if not card.isalnum():
        raise DeckError(f"not a card name: {card!r}")
    return card


@dataclass(frozen=True, slots=True)
class StoredDeck:
    """One stored deck: its folder and what `deck.json` says."""

    name: str
    family: DeckFamily
    cards: tuple[Card, ...]
    """The cards enrolled, in deck order."""
    photos: int
    folder: Path
    read_as: dict[str, str] = field(default_factory=dict)
    """Enrolled cards the shipped reader read as another card in their photo (card ->
    its read): matched by elimination, worth a look at the labels."""
    corner_span: float | None = None
    """The deck's opposite corners apart in index sizes, measured on its enrolment
    photos (`deck_enrol.deck_span`); None for a deck enrolled before it was measured,
    or whose cards too seldom showed both corners."""
    face_unchecked: tuple[str, ...] = ()
    """Enrolled cards whose own face the face check takes for another kind on their
    enrolment photo (`deck_enrol.face_unchecked`): the deck's scans do not check their reads by
    the face (`face_kind.FaceCheck.unchecked`). Empty for a deck enrolled before it was
    measured."""
    face_kinds: dict[str, tuple[tuple[float, ...], ...]] = field(default_factory=dict)
    """Each enrolled card's face check kind probabilities on its enrolment photo
    (`deck_enrol.EnrolledCard.face_kinds`), kept so a deck enrolled again from the page
    judges the cards it keeps as it judged them."""

    @property
    def head_path(self) -> Path:
        return self.folder / HEAD_FILE

    @property
    def adapted(self) -> bool:
        return self.head_path.is_file()

    @property
    def locator_path(self) -> Path:
        return self.folder / LOCATOR_FILE

    @property
    def has_locator(self) -> bool:
        return self.locator_path.is_file()

    @property
    def reader_path(self) -> Path:
        return self.folder / READER_FILE

    @property
    def has_reader(self) -> bool:
        return self.reader_path.is_file()

    @property
    def levels_path(self) -> Path:
        return self.folder / LEVELS_FILE

    @property
    def sure_read(self) -> float | None:
        """The sure level chosen for the deck's own models (None: none was chosen, and
        the shipped models' level stands). Raises `DeckError` for an unreadable file."""
        if not self.levels_path.is_file():
            return None
        try:
            data = json.loads(self.levels_path.read_text(encoding="utf-8"))
            level = float(data["sure_read"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise DeckError(f"deck {self.name}: {LEVELS_FILE} is unreadable ({exc})") from None
        if not 0 <= level <= 1:
            raise DeckError(f"deck {self.name}: {LEVELS_FILE} holds a level outside 0..1")
        return level

    def write_levels(self, sure_read: float, evidence: dict[str, Any]) -> None:
        """Store the sure level chosen for the deck's own models, with the counts it was
        chosen on (written whole: a temporary file renamed into place)."""
        partial = self.levels_path.with_suffix(".partial")
        data = {"sure_read": sure_read, **evidence}
        partial.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.replace(partial, self.levels_path)

    def missing(self) -> list[Card]:
        """Cards of the family not enrolled (they keep the shipped reading)."""
        have = set(self.cards)
        return [c for c in cards_of_family(self.family) if c not in have]

    def head(self) -> DeckHead:
        """The deck's adapted reading (raises `DeckError` when there is none)."""
        if not self.adapted:
            raise DeckError(f"deck {self.name} is not adapted: enrol it again")
        try:
            head = DeckHead.load(self.head_path)
        except (OSError, ValueError, KeyError) as exc:
            raise DeckError(f"deck {self.name}: {HEAD_FILE} is unreadable ({exc})") from None
        head = replace(
            head,
            locator=self.locator_path if self.has_locator else None,
            own_reader=self.reader_path if self.has_reader else None,
        )
        return replace(
            head,
            sure_read=self.sure_read if self.has_locator else None,
            complete=not self.missing(),
            corner_span=self.corner_span,
            face_unchecked=frozenset(self.face_unchecked),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "family": self.family.value,
            "cards": [str(c) for c in self.cards],
            "missing": [str(c) for c in self.missing()],
            "photos": self.photos,
            "adapted": self.adapted,
            "locator": self.has_locator,
            "reader": self.has_reader,
            "sure_read": self.sure_read if self.has_locator else None,
            "read_as": self.read_as,
        }

    def crop_paths(self, card: Card) -> list[Path]:
        return sorted((self.folder / CROPS_FOLDER / _safe(str(card))).glob("*.png"))

    def face_path(self, card: Card) -> Path:
        return self.folder / FACES_FOLDER / f"{_safe(str(card))}.jpg"

    @classmethod
    def read(cls, folder: Path) -> StoredDeck:
        path = folder / DECK_FILE
        try:
            data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            return cls(
                name=str(data["name"]),
                family=DeckFamily(data["family"]),
                cards=tuple(Card.parse(c) for c in data["cards"]),
                photos=int(data.get("photos", 0)),
                folder=folder,
                read_as={str(k): str(v) for k, v in data.get("read_as", {}).items()},
                corner_span=_span(data.get("corner_span")),
                face_unchecked=tuple(str(c) for c in data.get("face_unchecked", [])),
                face_kinds={
                    str(card): tuple(tuple(float(v) for v in row) for row in rows)
                    for card, rows in data.get("face_kinds", {}).items()
                },
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise DeckError(f"deck {folder.name}: {path.name} is unreadable ({exc})") from None


def _span(value: object) -> float | None:
    """`deck.json`'s corner span: a positive number, or None (absent in older decks)."""
    if value is None:
        return None
    span = float(value)  # type: ignore[arg-type]
    if not span > 0:
        raise ValueError(f"corner_span {value!r} is not a positive number")
    return span


def write_deck_file(
    folder: Path,
    *,
    name: str,
    family: DeckFamily,
    cards: list[Card],
    photos: int,
    read_as: dict[str, str] | None = None,
    corner_span: float | None = None,
    face_unchecked: Sequence[str] = (),
    face_kinds: dict[str, tuple[tuple[float, ...], ...]] | None = None,
) -> None:
    """`deck.json` of a deck being built (cards sorted in the family's deck order)."""
    order = {card: i for i, card in enumerate(cards_of_family(family))}
    data = {
        "name": name,
        "family": family.value,
        "cards": [str(c) for c in sorted(cards, key=lambda c: order.get(c, len(order)))],
        "photos": photos,
        "read_as": read_as or {},
        "corner_span": None if corner_span is None else round(corner_span, 4),
        "face_unchecked": sorted(face_unchecked),
        "face_kinds": {
            card: [[round(v, 4) for v in row] for row in rows]
            for card, rows in sorted((face_kinds or {}).items())
        },
    }
    (folder / DECK_FILE).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


class DeckStore:
    """The decks of one data folder (`decks_dir`)."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root) if root is not None else decks_dir()

    def names(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(
            p.name
            for p in self.root.iterdir()
            if p.is_dir() and NAME_PATTERN.fullmatch(p.name) and (p / DECK_FILE).is_file()
        )

    def decks(self) -> list[StoredDeck]:
        return [self.get(name) for name in self.names()]

    def folder(self, name: str) -> Path:
        return self.root / check_name(name)

    def get(self, name: str) -> StoredDeck:
        folder = self.folder(name)
        if not (folder / DECK_FILE).is_file():
            known = ", ".join(self.names()) or "none yet"
            raise DeckNotFoundError(f"no deck named {name!r} (decks: {known})")
        return StoredDeck.read(folder)

    def remove(self, name: str) -> None:
        folder = self.folder(name)
        if not folder.is_dir():
            raise DeckNotFoundError(f"no deck named {name!r}")
        shutil.rmtree(folder)

    def write(self, name: str, build: Callable[[Path], None]) -> StoredDeck:
        """Build a deck with `build(folder)` in a temporary folder, then move it into
        place, replacing a deck of the same name. If `build` raises (or the process is
        interrupted), the temporary folder goes and no deck changes."""
        check_name(name)
        with self._building(name) as temp:
            build(temp)
            if not (temp / DECK_FILE).is_file():
                raise DeckError(f"deck {name}: nothing was enrolled")
            final = self.root / name
            old = None
            if final.exists():
                old = Path(tempfile.mkdtemp(prefix=f"{_TEMP_PREFIX}old-{name}-", dir=self.root))
                os.replace(final, old / name)
            os.replace(temp, final)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
        return self.get(name)

    @contextmanager
    def _building(self, name: str) -> Iterator[Path]:
        self.root.mkdir(parents=True, exist_ok=True)
        self.clean()
        temp = Path(tempfile.mkdtemp(prefix=f"{_TEMP_PREFIX}{name}-", dir=self.root))
        try:
            yield temp
        finally:
            if temp.exists():
                shutil.rmtree(temp, ignore_errors=True)

    def clean(self) -> None:
        """Remove what a killed build left behind (hidden temporary folders older than
        `STALE_SECONDS`; an interrupted one removes its own). Another build running now
        keeps its folder."""
        if not self.root.is_dir():
            return
        now = time.time()
        for p in self.root.iterdir():
            stale = p.is_dir() and now - p.stat().st_mtime > STALE_SECONDS
            if p.name.startswith(_TEMP_PREFIX) and stale:
                shutil.rmtree(p, ignore_errors=True)
