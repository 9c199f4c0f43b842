"""Hypothesis properties of the rules: generated legal melds validate, lay-down search
agrees with the grouped check, scoring is additive."""

from __future__ import annotations

import random
from unittest.mock import patch

from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from shanghai.engine import contracts
from shanghai.engine.cards import Card, DeckFamily
from shanghai.engine.contracts import check_lay_down, find_lay_down
from shanghai.engine.melds import check_meld, run_place_card
from shanghai.engine.scoring import hand_points
from shanghai.engine.variant_files import BUILTIN_VARIANTS, find_variant
from shanghai.engine.variants import MeldKind, MeldSpec, Rules, build_shoe

VARIANTS = st.sampled_from(BUILTIN_VARIANTS)


@st.composite
def rules_strategy(draw: st.DrawFn) -> Rules:
    variant = find_variant(draw(VARIANTS))
    return variant.rules(draw(st.integers(variant.min_players, variant.max_players)))


def _naturals(rules: Rules) -> list[Card]:
    return sorted(
        {c for c in build_shoe(rules.variant.family, rules.setup) if not rules.is_wild(c)}
    )


def _wilds(rules: Rules) -> list[Card]:
    return sorted(rules.wild_cards)


def _wild_budget(rules: Rules, size: int, naturals: int) -> int:
    limit = rules.variant.wild_limits_lay_down.limit(size)
    room = size - rules.variant.min_naturals
    return max(0, min(room, size - naturals if limit is None else limit))


@st.composite
def legal_set(draw: st.DrawFn) -> tuple[Rules, list[Card]]:
    rules = draw(rules_strategy())
    variant = rules.variant
    naturals = _naturals(rules)
    rank = draw(st.sampled_from(sorted({c.rank for c in naturals})))
    same_rank = [c for c in naturals if c.rank == rank]
    high = variant.max_set or variant.min_set + 3
    size = draw(st.integers(variant.min_set, high))
    wild_count = draw(st.integers(0, _wild_budget(rules, size, 0))) if _wilds(rules) else 0
    natural_count = size - wild_count
    if variant.set_distinct_suits:
        assume(natural_count <= len(same_rank))
        chosen = draw(st.permutations(same_rank))[:natural_count]
    else:
        chosen = draw(
            st.lists(st.sampled_from(same_rank), min_size=natural_count, max_size=natural_count)
        )
    wilds = [draw(st.sampled_from(_wilds(rules))) for _ in range(wild_count)]
    cards = chosen + wilds
    return rules, draw(st.permutations(cards))


@st.composite
def legal_run(draw: st.DrawFn) -> tuple[Rules, list[Card]]:
    rules = draw(rules_strategy())
    variant = rules.variant
    naturals = _naturals(rules)
    suit = draw(st.sampled_from(sorted({c.suit for c in naturals})))
    bottom, top = rules.bottom_position, rules.top_position
    size = draw(st.integers(variant.min_run, top - bottom + 1))
    low = draw(st.integers(bottom, top - size + 1))
    places = list(range(low, low + size))
    budget = _wild_budget(rules, size, 0) if _wilds(rules) else 0
    wild_places = set(draw(st.lists(st.sampled_from(places), max_size=budget, unique=True)))
    cards = [
        draw(st.sampled_from(_wilds(rules))) if p in wild_places else run_place_card(suit, p)
        for p in places
    ]
    assume(all(rules.accepts(c) for c in cards))
    return rules, cards


@given(legal_set())
def test_generated_sets_validate(case: tuple[Rules, list[Card]]) -> None:
    rules, cards = case
    meld = check_meld(cards, rules, kind=MeldKind.SET)
    assert meld.size == len(cards)


@given(legal_run(), st.booleans())
def test_generated_runs_validate_in_table_order_and_shuffled(
    case: tuple[Rules, list[Card]], reverse: bool
) -> None:
    rules, cards = case
    laid = list(reversed(cards)) if reverse else cards
    meld = check_meld(laid, rules, kind=MeldKind.RUN, ordered=True)
    assert list(meld.cards) == laid
    shuffled = random.Random(len(cards)).sample(cards, len(cards))
    assert check_meld(shuffled, rules, kind=MeldKind.RUN).size == len(cards)


@given(rules_strategy(), st.data())
def test_scoring_is_additive(rules: Rules, data: st.DataObject) -> None:
    shoe = build_shoe(rules.variant.family, rules.setup)
    a = data.draw(st.lists(st.sampled_from(shoe), max_size=15))
    b = data.draw(st.lists(st.sampled_from(shoe), max_size=15))
    assert hand_points(a + b, rules) == hand_points(a, rules) + hand_points(b, rules)
    assert hand_points([], rules) == 0
    assert all(hand_points([c], rules) >= 0 for c in a)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([v for v in BUILTIN_VARIANTS if v != "manipulation"]), st.data())
def test_search_agrees_with_grouped_check(name: str, data: st.DataObject) -> None:
    """Cards dealt at random: whenever the search finds a grouping, the grouped check
    accepts it; and a grouping built from legal melds is always found again."""
    variant = find_variant(name)
    rules = variant.rules()
    number = data.draw(st.integers(1, len(variant.rounds)))
    shoe = build_shoe(variant.family, rules.setup)
    hand = data.draw(st.lists(st.sampled_from(shoe), min_size=6, max_size=14))
    found = find_lay_down(hand, rules, number, use_all=False)
    if found is not None:
        groups = [list(m.cards) for m in found]
        assert check_lay_down(groups, rules, number).valid
        used = [c for g in groups for c in g]
        assert find_lay_down(used, rules, number) is not None


def _meld_cards(rules: Rules, spec: MeldSpec, data: st.DataObject) -> list[Card]:
    """Cards of a legal meld for `spec` (natural cards and wilds within the limits)."""
    naturals = _naturals(rules)
    wilds = _wilds(rules)
    budget = _wild_budget(rules, spec.size, 0) if wilds else 0
    wild_count = data.draw(st.integers(0, budget))
    if spec.kind is MeldKind.SET:
        rank = data.draw(st.sampled_from(sorted({c.rank for c in naturals})))
        same_rank = [c for c in naturals if c.rank == rank]
        chosen = data.draw(st.lists(st.sampled_from(same_rank), min_size=spec.size - wild_count))
        chosen = chosen[: spec.size - wild_count]
    else:
        suit = data.draw(st.sampled_from(sorted({c.suit for c in naturals})))
        bottom, top = rules.bottom_position, rules.top_position
        low = data.draw(st.integers(bottom, top - spec.size + 1))
        places = list(range(low, low + spec.size))
        wild_places = set(data.draw(st.permutations(places))[:wild_count])
        chosen = [run_place_card(suit, p) for p in places if p not in wild_places]
    return chosen + [data.draw(st.sampled_from(wilds)) for _ in range(wild_count)]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([v for v in BUILTIN_VARIANTS if v != "manipulation"]), st.data())
def test_quick_proofs_only_reject_hands_without_a_grouping(name: str, data: st.DataObject) -> None:
    """The search's shortcuts (the wilds the runs need at least, cards every grouping
    would strand) change nothing it finds: the same answer as the search without them,
    on hands made of the contract's melds plus or minus a few cards, with and without
    `use_all`."""
    variant = find_variant(name)
    rules = variant.rules(data.draw(st.integers(variant.min_players, variant.max_players)))
    number = data.draw(st.integers(1, len(variant.rounds)))
    contract = rules.round(number).contract
    assert contract is not None
    shoe = build_shoe(variant.family, rules.setup)
    hand = [card for spec in contract.melds for card in _meld_cards(rules, spec, data)]
    hand += data.draw(st.lists(st.sampled_from(shoe), max_size=4))
    for _ in range(data.draw(st.integers(0, 2))):
        hand.pop(data.draw(st.integers(0, len(hand) - 1)))
    hand = data.draw(st.permutations(hand))
    use_all = data.draw(st.booleans())
    found = find_lay_down(hand, rules, number, use_all=use_all)
    with (
        patch.object(contracts, "_wilds_short", return_value=False),
        patch.object(contracts._Search, "_stranded", return_value=False),
    ):
        plain = find_lay_down(hand, rules, number, use_all=use_all)
    event("grouping found" if plain is not None else "no grouping")
    assert found == plain


def test_rook_family_has_no_ace_semantics() -> None:
    rules = find_variant("rook").rules(3)
    assert rules.variant.family is DeckFamily.ROOK
    assert rules.run_positions(Card.parse("1G")) == (1,)
    assert rules.top_position == 14
    assert find_variant("rook").rules(4).top_position == 13
