"""Card notation: one spelling in and out, and the class list the models use."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shanghai.engine.cards import (
    CARD_CLASSES,
    JOKER,
    ROOK_BIRD,
    Card,
    DeckFamily,
    Suit,
    format_cards,
    parse_cards,
)
from shanghai.engine.errors import CardParseError

ALL_CARDS = [Card.parse(name) for name in CARD_CLASSES]


def test_class_list_covers_both_deck_families() -> None:
    assert len(CARD_CLASSES) == len(set(CARD_CLASSES)) == 52 + 1 + 56 + 1
    families = {c.family for c in ALL_CARDS}
    assert families == {DeckFamily.STANDARD, DeckFamily.ROOK}
    assert "JK" in CARD_CLASSES and "ROOK" in CARD_CLASSES
    assert {"10s", "Ah", "Kc", "2d", "1G", "14Y", "10B", "5R"} <= set(CARD_CLASSES)


@given(st.sampled_from(ALL_CARDS))
def test_parse_and_print_round_trip(card: Card) -> None:
    assert Card.parse(str(card)) == card
    assert eval(repr(card), {"Card": Card}) == card  # repr is valid code


@given(st.lists(st.sampled_from(ALL_CARDS), max_size=20))
def test_format_parse_round_trip_keeps_order_and_copies(cards: list[Card]) -> None:
    assert parse_cards(format_cards(cards)) == cards


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("10s", Card(Suit.SPADES, 10)),
        ("ah", Card(Suit.HEARTS, 1)),
        ("QD", Card(Suit.DIAMONDS, 12)),
        ("Th", Card(Suit.HEARTS, 10)),
        ("K♠", Card(Suit.SPADES, 13)),
        ("joker", JOKER),
        ("rook", ROOK_BIRD),
        ("14y", Card(Suit.YELLOW, 14)),
        ("1G", Card(Suit.GREEN, 1)),
    ],
)
def test_lenient_spellings(text: str, card: Card) -> None:
    assert Card.parse(text) == card


@pytest.mark.parametrize("text", ["1h", "11s", "15R", "0G", "Xh", "7", "", "JKR", "AR", "7x"])
def test_bad_cards_are_rejected(text: str) -> None:
    with pytest.raises(CardParseError):
        Card.parse(text)


def test_commas_and_spaces_separate_cards() -> None:
    assert format_cards(parse_cards("7h, 10s  JK,5R")) == "7h 10s JK 5R"


def test_words_for_players() -> None:
    assert Card.parse("Qs").name == "queen of spades"
    assert Card.parse("5R").name == "red 5"
    assert JOKER.name == "joker"
