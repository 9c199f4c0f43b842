"""The simulated players' helpers: the contract plan and the lay-off index."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from shanghai.engine.cards import parse_cards
from shanghai.engine.dealing import deal_round
from shanghai.engine.invariants import check_invariants
from shanghai.engine.plans import plan_contract
from shanghai.engine.players import GreedyPlayer, LayOffIndex, fits_meld
from shanghai.engine.simulator import play_round
from shanghai.engine.table import RoundState
from shanghai.engine.variant_files import BUILTIN_VARIANTS, find_variant
from shanghai.engine.variants import Contract, Rules, build_shoe


def _plan(variant: str, contract: str, hand: str, players: int = 4) -> tuple[list[str], int]:
    rules = find_variant(variant).rules(players)
    plan = plan_contract(parse_cards(hand), rules, Contract.parse(contract))
    return sorted(str(card) for card in plan.keep.elements()), plan.short


def test_plan_of_a_complete_contract_lacks_nothing() -> None:
    keep, short = _plan("shanghai", "1 set of 3 + 1 run of 4", "7h 7s 7c 4d 5d 6d 7d Ks")
    assert short == 0
    assert keep == sorted(["7h", "7s", "7c", "4d", "5d", "6d", "7d"])


def test_plan_counts_wilds_within_the_limits() -> None:
    # Shanghai allows one joker in a set of 3: two pairs and one joker lack one card.
    keep, short = _plan("shanghai", "2 sets of 3", "9s 9c 2d 2h 5c Kd JK")
    assert sorted(keep) == sorted(["9s", "9c", "2d", "2h"])
    assert short == 1
    # Family has no limit beyond two naturals per meld: two jokers fill both sets.
    _, short = _plan("family", "2 sets of 3", "9s 9c 2d 2h 5c Kd JK JK")
    assert short == 0


def test_plan_keeps_runs_of_one_suit_apart_where_the_variant_says_so() -> None:
    # Eight hearts in a row make two touching runs: Shanghai needs a gap between them,
    # so its plan still lacks cards; Rook lets runs of one colour touch.
    _, short = _plan("shanghai", "2 runs of 4", "3h 4h 5h 6h 7h 8h 9h 10h")
    assert short > 0
    _, short = _plan("rook", "2 runs of 4", "3R 4R 5R 6R 7R 8R 9R 10R")
    assert short == 0


def test_plan_picks_the_best_window_for_a_long_run() -> None:
    keep, short = _plan(
        "shanghai", "1 set of 3 + 1 run of 10", "3h 4h 5h 6h 7h 8h 10h Jh 9s 9c 9d 2c"
    )
    assert short == 2  # the 9h and one more heart; the lone 2c is not planned
    assert "2c" not in keep and "9s" in keep


def test_player_throws_away_cards_outside_the_plan() -> None:
    rules = find_variant("shanghai").rules(4)
    state = _state_with_hand(rules, "7h 7s 7c 4d 5d 6d Kc 2s Qh", round_number=2)
    player = GreedyPlayer(0, random.Random(0))
    assert str(player.choose_discard(state)) in {"Kc", "2s", "Qh"}


def _state_with_hand(rules: Rules, hand: str, round_number: int) -> RoundState:
    """A fresh round whose seat 0 holds `hand` (the other seats as dealt)."""
    deal = deal_round(rules, round_number, random.Random(1))
    state = RoundState.from_deal(rules, round_number, deal, random.Random(2))
    state.hands[0] = parse_cards(hand)
    return state


@pytest.mark.parametrize("name", BUILTIN_VARIANTS)
def test_lay_off_index_answers_as_trying_every_meld(name: str) -> None:
    """On the tables of finished rounds, for every card face of the shoe, the index
    finds the same first meld as trying `fits_meld` on each meld in table order."""
    variant = find_variant(name)
    rules = variant.rules(4)
    faces = list(Counter(build_shoe(variant.family, rules.setup)))
    for seed in range(3):
        outcome = play_round(rules, len(variant.rounds), seed, observer=check_invariants)
        melds = [meld for seat in outcome.melds for meld in seat]
        index = LayOffIndex(melds, rules)
        for card in faces:
            expected = next(
                (i for i, meld in enumerate(melds) if fits_meld(meld, card, rules) is not None),
                None,
            )
            assert index.first_fit(card) == expected, (card, [str(m) for m in melds])
