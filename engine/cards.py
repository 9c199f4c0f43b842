"""Cards and their text notation: the one source of truth for card identities.

Every other part of the project (the models' class lists, the data generator, the
server's card pickers) takes card names from `CARD_CLASSES` here, so a card is spelt
one way everywhere.

Notation (parsed and printed identically):
- standard cards: rank `A 2 … 10 J Q K` + suit `c d h s` -> `7h`, `10s`, `Ah`
- the joker: `JK`
- Rook cards: number `1 … 14` + colour `B R Y G` (black, red, yellow, green) -> `5R`, `14Y`
- the Rook bird: `ROOK`

Suit letters of the two deck families never overlap (c/d/h/s against B/R/Y/G), so the
parser accepts either case and still knows the family from the letter alone.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from operator import attrgetter

from .errors import CardParseError

__all__ = [
    "CARD_CLASSES",
    "JOKER",
    "ROOK_BIRD",
    "ROOK_CARDS",
    "STANDARD_CARDS",
    "Card",
    "DeckFamily",
    "Suit",
    "card_key",
    "format_cards",
    "parse_cards",
    "rook_deck",
    "standard_deck",
]


class DeckFamily(enum.StrEnum):
    """Which physical deck a card belongs to; a variant accepts one family."""

    STANDARD = "standard"
    ROOK = "rook"


class Suit(enum.StrEnum):
    """Suits of standard cards, colours of Rook cards, and the two suitless cards."""

    CLUBS = "c"
    DIAMONDS = "d"
    HEARTS = "h"
    SPADES = "s"
    BLACK = "B"
    RED = "R"
    YELLOW = "Y"
    GREEN = "G"
    JOKER = "JK"
    BIRD = "ROOK"

    @property
    def family(self) -> DeckFamily:
        return DeckFamily.ROOK if self in _ROOK_SUITS else DeckFamily.STANDARD

    @property
    def is_suitless(self) -> bool:
        """True for the joker and the Rook bird, which carry no rank or suit."""
        return self in (Suit.JOKER, Suit.BIRD)

    @property
    def long_name(self) -> str:
        return _SUIT_NAMES[self]


_ROOK_SUITS = frozenset({Suit.BLACK, Suit.RED, Suit.YELLOW, Suit.GREEN, Suit.BIRD})
STANDARD_SUITS: tuple[Suit, ...] = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
ROOK_COLOURS: tuple[Suit, ...] = (Suit.BLACK, Suit.RED, Suit.YELLOW, Suit.GREEN)
_SUIT_NAMES = {
    Suit.CLUBS: "clubs",
    Suit.DIAMONDS: "diamonds",
    Suit.HEARTS: "hearts",
    Suit.SPADES: "spades",
    Suit.BLACK: "black",
    Suit.RED: "red",
    Suit.YELLOW: "yellow",
    Suit.GREEN: "green",
    Suit.JOKER: "joker",
    Suit.BIRD: "Rook bird",
}
_SUIT_BY_LETTER = {
    "c": Suit.CLUBS,
    "d": Suit.DIAMONDS,
    "h": Suit.HEARTS,
    "s": Suit.SPADES,
    "♣": Suit.CLUBS,
    "♦": Suit.DIAMONDS,
    "♥": Suit.HEARTS,
    "♠": Suit.SPADES,
    "b": Suit.BLACK,
    "r": Suit.RED,
    "y": Suit.YELLOW,
    "g": Suit.GREEN,
}
_STANDARD_RANK_TEXT = {1: "A", 11: "J", 12: "Q", 13: "K"}
_STANDARD_RANK_BY_TEXT = {"A": 1, "J": 11, "Q": 12, "K": 13, "T": 10}
_RANK_NAMES = {1: "ace", 11: "jack", 12: "queen", 13: "king"}


_SUIT_INDEX = {suit: index for index, suit in enumerate(Suit)}


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One card face. Equal cards from different decks compare equal: count them, never
    put them in a `set`.

    `rank` is 1 (ace) … 13 (king) for standard cards, 1 … 14 for Rook cards and 0 for
    the joker and the Rook bird. Ordering is by suit, then rank (a stable sort key, not a
    game ranking).
    """

    suit: Suit
    rank: int
    _key: int = field(init=False, repr=False, compare=False, hash=False)
    """Small integer identity: hashing and equality are on every hot path (counting
    hands, searching lay-downs), and the generated versions go through the enum."""

    def __hash__(self) -> int:
        return self._key

    def __eq__(self, other: object) -> bool:
        if other.__class__ is Card:
            return self._key == other._key
        return NotImplemented

    def __post_init__(self) -> None:
        object.__setattr__(self, "_key", _SUIT_INDEX[self.suit] * 16 + self.rank)
        if self.suit.is_suitless:
            if self.rank != 0:
                raise CardParseError(f"{self.suit.long_name} has no rank (got {self.rank})")
        elif self.suit.family is DeckFamily.ROOK:
            if not 1 <= self.rank <= 14:
                raise CardParseError(f"Rook cards are numbered 1-14 (got {self.rank})")
        elif not 1 <= self.rank <= 13:
            raise CardParseError(f"standard ranks are A, 2-10, J, Q, K (got {self.rank})")

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse one card in the project's notation (`7h`, `10s`, `JK`, `5R`, `ROOK`)."""
        token = text.strip()
        upper = token.upper()
        if upper in ("JK", "JOKER"):
            return JOKER
        if upper in ("ROOK", "BIRD"):
            return ROOK_BIRD
        if len(token) < 2:
            raise CardParseError(f"unknown card {text!r}")
        rank_text, suit_letter = token[:-1].upper(), token[-1].lower()
        suit = _SUIT_BY_LETTER.get(suit_letter)
        if suit is None:
            raise CardParseError(
                f"unknown card {text!r}: suit must be one of c d h s (standard) or B R Y G (Rook)"
            )
        if suit.family is DeckFamily.ROOK:
            if not rank_text.isdigit() or not 1 <= int(rank_text) <= 14:
                raise CardParseError(f"unknown card {text!r}: Rook cards are numbered 1-14")
            return cls(suit, int(rank_text))
        rank = _STANDARD_RANK_BY_TEXT.get(rank_text)
        if rank is None and rank_text.isdigit() and 2 <= int(rank_text) <= 10:
            rank = int(rank_text)
        if rank is None:
            raise CardParseError(f"unknown card {text!r}: standard ranks are A, 2-10, J, Q, K")
        return cls(suit, rank)

    @property
    def family(self) -> DeckFamily:
        return self.suit.family

    @property
    def is_suitless(self) -> bool:
        return self.suit.is_suitless

    @property
    def rank_text(self) -> str:
        if self.is_suitless:
            return ""
        if self.family is DeckFamily.STANDARD:
            return _STANDARD_RANK_TEXT.get(self.rank, str(self.rank))
        return str(self.rank)

    @property
    def name(self) -> str:
        """Words for messages: `7 of hearts`, `ace of spades`, `red 5`, `joker`."""
        if self.is_suitless:
            return self.suit.long_name
        if self.family is DeckFamily.ROOK:
            return f"{self.suit.long_name} {self.rank}"
        return f"{_RANK_NAMES.get(self.rank, str(self.rank))} of {self.suit.long_name}"

    def __str__(self) -> str:
        if self.is_suitless:
            return self.suit.value
        return f"{self.rank_text}{self.suit.value}"

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


JOKER = Card(Suit.JOKER, 0)
ROOK_BIRD = Card(Suit.BIRD, 0)

card_key: Callable[[Card], int] = attrgetter("_key")
"""A card's small integer identity: equal cards, and only they, have equal keys.
Fetched in C, so counting keys (`Counter(map(card_key, cards))`) is several times
cheaper than counting `Card`s, whose hash is a Python method."""


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse cards separated by spaces or commas, keeping their order (table order)."""
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [Card.parse(token) for token in tokens]


def format_cards(cards: Iterable[Card]) -> str:
    """The inverse of `parse_cards`: `format_cards(parse_cards(s))` normalises `s`."""
    return " ".join(str(card) for card in cards)


def standard_deck(jokers: int = 0) -> list[Card]:
    """One 52-card deck plus `jokers` jokers, in a fixed order."""
    cards = [Card(suit, rank) for suit in STANDARD_SUITS for rank in range(1, 14)]
    return cards + [JOKER] * jokers


def rook_deck(birds: int = 1) -> list[Card]:
    """One Rook deck: four colours numbered 1-14 and the Rook bird (57 cards)."""
    cards = [Card(colour, rank) for colour in ROOK_COLOURS for rank in range(1, 15)]
    return cards + [ROOK_BIRD] * birds


def _iter_classes() -> Iterator[Card]:
    yield from standard_deck()
    yield JOKER
    yield from rook_deck()


STANDARD_CARDS: tuple[Card, ...] = (*standard_deck(), JOKER)
ROOK_CARDS: tuple[Card, ...] = tuple(rook_deck())
CARD_CLASSES: tuple[str, ...] = tuple(str(card) for card in _iter_classes())
"""Every card identity the vision models know, in class-id order (110 names)."""


def cards_of_family(family: DeckFamily) -> Sequence[Card]:
    """The distinct card faces of one deck family (used to restrict model classes)."""
    return STANDARD_CARDS if family is DeckFamily.STANDARD else ROOK_CARDS
