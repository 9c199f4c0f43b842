"""Dealing: conservation of cards, deal sizes, batches, the upcard, reshuffling."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from shanghai.engine.cards import parse_cards
from shanghai.engine.dealing import (
    batch_sizes,
    deal_round,
    reshuffle,
    shuffled_shoe,
    turn_upcard,
)
from shanghai.engine.variant_files import BUILTIN_VARIANTS, find_variant
from shanghai.engine.variants import build_shoe


@st.composite
def deals(draw: st.DrawFn) -> tuple[str, int, int, int, int]:
    name = draw(st.sampled_from(BUILTIN_VARIANTS))
    variant = find_variant(name)
    players = draw(st.integers(variant.min_players, variant.max_players))
    round_number = draw(st.integers(1, len(variant.rounds)))
    dealer = draw(st.integers(0, players - 1))
    seed = draw(st.integers(0, 2**32))
    return name, players, round_number, dealer, seed


@settings(max_examples=300, deadline=None)
@given(deals())
def test_dealing_conserves_cards(case: tuple[str, int, int, int, int]) -> None:
    name, players, round_number, dealer, seed = case
    variant = find_variant(name)
    rules = variant.rules(players)
    deal = deal_round(rules, round_number, random.Random(seed), dealer)
    shoe = build_shoe(variant.family, rules.setup)
    assert Counter(deal.cards) == Counter(shoe)
    assert len(deal.cards) == len(shoe)
    size = rules.round(round_number).cards_dealt(players)
    assert [len(hand) for hand in deal.hands] == [size] * players
    assert len(deal.discards) == (1 if variant.has_discards else 0)
    if variant.wild_upcard_reburied and deal.discards:
        assert not rules.is_wild(deal.discards[0])


def test_same_seed_same_deal() -> None:
    rules = find_variant("shanghai").rules(5)
    first = deal_round(rules, 3, random.Random(7), dealer=2)
    again = deal_round(rules, 3, random.Random(7), dealer=2)
    other = deal_round(rules, 3, random.Random(8), dealer=2)
    assert first == again
    assert first != other


def test_manipulation_deals_in_batches_from_the_dealers_left() -> None:
    rules = find_variant("manipulation").rules(4)
    shoe = shuffled_shoe(rules, random.Random(11))
    deal = deal_round(rules, 1, random.Random(11), dealer=3)
    top = shoe[::-1]  # the deal takes cards from the end of the list
    # Seat 0 sits left of dealer 3: it gets cards 1-3, seat 1 cards 4-6, ...
    assert list(deal.hands[0][:3]) == top[0:3]
    assert list(deal.hands[1][:3]) == top[3:6]
    assert list(deal.hands[3][:3]) == top[9:12]
    # The fourth pass gives one card each, after three passes of three.
    assert deal.hands[0][9] == top[36]
    assert not deal.discards


def test_batch_sizes() -> None:
    assert batch_sizes(10, (3, 3, 3, 1)) == [3, 3, 3, 1]
    assert batch_sizes(11, ()) == [1] * 11
    assert batch_sizes(8, (3, 3, 3, 1)) == [3, 3, 2]
    assert batch_sizes(12, (3, 3, 3, 1)) == [3, 3, 3, 1, 1, 1]


def test_rook_wild_upcard_is_reburied() -> None:
    rules = find_variant("rook").rules(4)
    stock = parse_cards("5R 6R ROOK")  # the top is the end: ROOK is turned first
    discards: list = []
    reburied = turn_upcard(stock, discards, rules, random.Random(1))
    assert reburied == 1
    assert [str(c) for c in discards] == ["6R"]
    assert Counter(stock) == Counter(parse_cards("5R ROOK"))
    assert stock[-1] != parse_cards("ROOK")[0] or len(stock) == 1


def test_standard_wild_upcard_stays_up() -> None:
    rules = find_variant("shanghai").rules(4)
    stock = parse_cards("5h 6h JK")
    discards: list = []
    assert turn_upcard(stock, discards, rules, random.Random(1)) == 0
    assert [str(c) for c in discards] == ["JK"]


def test_reshuffle_keeps_the_upcard() -> None:
    stock: list = []
    discards = parse_cards("2h 3h 4h 5h")
    moved = reshuffle(stock, discards, random.Random(3))
    assert moved == 3
    assert [str(c) for c in discards] == ["5h"]
    assert Counter(stock) == Counter(parse_cards("2h 3h 4h"))
