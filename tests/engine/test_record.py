"""Round scoring with bonuses and the game record: totals, winner, manipulation's loser."""

from __future__ import annotations

import pytest

from shanghai.engine import GameRecord, IllegalPlayError, find_variant, parse_cards, score_round


def test_blind_going_out_bonus_lowers_the_score() -> None:
    rules = find_variant("shanghai").rules(3)
    hands = [[], parse_cards("7h 10s"), parse_cards("JK")]
    with_wild = score_round(hands, rules, went_out=0, blind=True, blind_used_wild=True)
    without = score_round(hands, rules, went_out=0, blind=True, blind_used_wild=False)
    assert [s.points for s in with_wild] == [-25, 15, 50]
    assert [s.points for s in without] == [-50, 15, 50]


def test_the_player_who_went_out_has_no_cards() -> None:
    rules = find_variant("shanghai").rules(3)
    with pytest.raises(IllegalPlayError, match="cannot have cards"):
        score_round([parse_cards("7h"), [], []], rules, went_out=0)


def test_game_record_totals_and_winner() -> None:
    variant = find_variant("family")
    rules = variant.rules(3)
    record = GameRecord(variant=variant, players=("Ann", "Bo", "Cy"))
    for number in range(1, 8):
        hands = (
            [[], parse_cards("Kh"), parse_cards("2s 3s")]
            if number % 2
            else [
                parse_cards("Ah"),
                [],
                parse_cards("9d"),
            ]
        )
        assert record.next_round == number
        record = record.record_round(score_round(hands, rules, went_out=1 - number % 2))
    assert record.is_finished and record.next_round is None
    assert record.totals == (3, 40, 47)  # 4 x (0, 10, 5) + 3 x (1, 0, 9)
    assert record.running_totals[0] == (0, 10, 5)
    assert record.running_totals[-1] == record.totals
    assert record.winners == ("Ann",)
    with pytest.raises(IllegalPlayError, match="game is over"):
        record.record_round(score_round([[], [], []], rules))


def test_manipulation_ends_at_the_target_and_names_the_loser() -> None:
    variant = find_variant("manipulation")
    rules = variant.rules(3)
    record = GameRecord(variant=variant, players=("Ann", "Bo", "Cy"), target_score=10)
    hands = [[], parse_cards("Kh Kh 2s"), parse_cards("Ah 2h 3h 4h")]
    for _ in range(3):
        assert not record.is_finished
        record = record.record_round(score_round(hands, rules, went_out=0))
    assert record.totals == (0, 9, 12)
    assert record.is_finished
    assert record.loser == "Cy" and record.winners == ("Ann",)


def test_player_count_and_names_are_checked() -> None:
    variant = find_variant("shanghai")
    with pytest.raises(IllegalPlayError, match="3-8 players"):
        GameRecord(variant=variant, players=("Ann", "Bo"))
    with pytest.raises(IllegalPlayError, match="different"):
        GameRecord(variant=variant, players=("Ann", "Ann", "Bo"))
