"""Hands and lay-downs given as text, and the verdict on a lay-down: what the CLI and
the server both call (`shanghai.engine.lay_downs`)."""

from __future__ import annotations

import pytest

from shanghai.engine import (
    CardParseError,
    IllegalMeldError,
    IllegalPlayError,
    VariantError,
    find_variant,
    judge_lay_down,
    parse_hand,
    parse_lay_down,
)

RULES = find_variant("shanghai").rules(4)


def test_a_round_out_of_range_is_refused() -> None:
    variant = RULES.variant
    assert variant.has_round(1) and variant.has_round(len(variant.rounds))
    for number in (0, len(variant.rounds) + 1):
        assert not variant.has_round(number)
        with pytest.raises(VariantError, match=f"round {number} is out of range"):
            variant.verify_round(number)


def test_cards_not_in_play_are_named() -> None:
    with pytest.raises(IllegalPlayError, match="5R not in play in Shanghai"):
        parse_hand("7h 5R", RULES)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("  ", "no cards given"),
        ("7h 7s 7c ||", "empty meld"),
        ("7h 7s | 7c 7d | 7x", "unknown card"),
    ],
)
def test_bad_lay_down_text(text: str, message: str) -> None:
    with pytest.raises(CardParseError, match=message):
        parse_lay_down(text, RULES)


def test_limits_on_cards() -> None:
    with pytest.raises(CardParseError, match="a plain list"):
        parse_hand("7h | 7s", RULES)
    with pytest.raises(CardParseError, match="more than a hand can hold"):
        parse_hand("7h 7s 7c", RULES, most=2)
    with pytest.raises(CardParseError, match="more than 3 cards in one lay-down"):
        parse_lay_down("7h 7s | 7c 7d", RULES, most=3)


def test_ungrouped_cards_are_grouped_into_the_contract() -> None:
    report, grouped = judge_lay_down(parse_lay_down("4d JK 7s 6d 7h 5d 7c", RULES), RULES, 2)
    assert report.valid and not grouped
    assert len(report.melds) == 2


def test_ungrouped_cards_that_cannot_be_grouped_say_so() -> None:
    report, grouped = judge_lay_down(parse_lay_down("7h 7s 8c 9d 10h Jc", RULES), RULES, 1)
    assert not report.valid and not grouped
    assert report.reasons[0].startswith("these cards cannot be grouped into")


def test_grouped_cards_are_judged_as_given() -> None:
    report, grouped = judge_lay_down(parse_lay_down("7h 7s 7c | 4d 5d 6d 7d", RULES), RULES, 2)
    assert report.valid and grouped


def test_the_grouping_search_has_a_limit() -> None:
    with pytest.raises(IllegalMeldError, match="3 ungrouped cards"):
        judge_lay_down([parse_hand("7h 7s 7c", RULES)], RULES, 1, most_ungrouped=2)
