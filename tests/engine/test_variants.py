"""Variant data: every number of the rules texts, and the house-rule TOML loader."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest

from golden_cases import GOLDEN
from shanghai.engine import variants
from shanghai.engine.errors import VariantError
from shanghai.engine.variant_files import (
    BUILTIN_VARIANTS,
    find_variant,
    list_variants,
    load_variant,
    parse_variant,
)
from shanghai.engine.variants import Contract, build_shoe

EXPECTED: dict[str, Any] = tomllib.loads((GOLDEN / "variants.toml").read_text())


@pytest.mark.parametrize("name", BUILTIN_VARIANTS)
def test_builtin_variant_numbers(name: str) -> None:
    variant = find_variant(name)
    want = EXPECTED[name]
    assert [variant.min_players, variant.max_players] == want["players"]
    contracts = [str(r.contract) if r.contract else "" for r in variant.rounds]
    assert contracts == want["contracts"]
    assert [r.buys for r in variant.rounds] == want["buys"]
    for shoe in want["shoe"]:
        rules = variant.rules(shoe["players"])
        cards = build_shoe(variant.family, rules.setup)
        assert len(cards) == shoe["cards"]
        assert sum(rules.is_wild(c) for c in cards) == shoe["wilds"]
    for deal in want["deal"]:
        dealt = [r.cards_dealt(deal["players"]) for r in variant.rounds]
        assert dealt == deal["cards"]
    if "contract_cards" in want:
        assert [r.contract.card_count for r in variant.rounds if r.contract] == want[
            "contract_cards"
        ]
    assert variant.buy_penalty_cards == want["buy_penalty_cards"]
    assert variant.blind_bonus == want["blind_bonus"]
    assert variant.blind_bonus_no_wild == want["blind_bonus_no_wild"]


def test_every_variant_documents_its_interpretations() -> None:
    for variant in list_variants():
        assert variant.notes, f"{variant.name} lists no interpretations"


def test_contract_text_round_trips() -> None:
    for text in ["2 sets of 3", "1 set of 3 + 1 run of 4", "3 sets of 3 + 1 run of 5"]:
        assert str(Contract.parse(text)) == text
    assert str(Contract.parse("one set of 3, two runs of 4")) == "1 set of 3 + 2 runs of 4"
    with pytest.raises(VariantError, match="cannot read contract"):
        Contract.parse("two sets")


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "house.toml"
    path.write_text(text)
    return path


def test_house_rules_extend_a_builtin(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        'extends = "shanghai"\nname = "our-shanghai"\ntitle = "Ours"\n[scoring]\nwild = 25\n',
    )
    variant = load_variant(path)
    assert variant.name == "our-shanghai"
    assert variant.wild_points == 25
    assert len(variant.rounds) == 10  # everything else inherited
    assert find_variant(str(path)).wild_points == 25


def test_house_rules_found_by_name_in_a_folder(tmp_path: Path) -> None:
    _write(tmp_path, 'extends = "family"\nname = "house"\n')
    assert find_variant("house", [tmp_path]).name == "house"
    assert [v.name for v in list_variants([tmp_path])][-1] == "house"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('extends = "shanghai"\nname = "x"\ncolour = 3\n', "unknown key 'colour'"),
        ('extends = "shanghai"\nname = "x"\n[melds]\nmin_run = "four"\n', "must be an integer"),
        ('extends = "shanghai"\nname = "x"\n[melds]\nace = "middle"\n', "must be one of"),
        ('extends = "nope"\nname = "x"\n', "no such built-in variant"),
        ('name = "x"\nplayers = "3-4"\n', "missing required key"),
        (
            'extends = "shanghai"\nname = "x"\n[[rounds]]\ncontract = "2 sets"\n',
            "cannot read contract",
        ),
        ('extends = "shanghai"\nname = "x"\n[scoring]\nranks = { "1-9" = 5 }\n', "no points given"),
        ('extends = "shanghai"\nname = "x"\nplayers = "3-12"\n', "deck set-ups match"),
        (
            'extends = "shanghai"\nname = "x"\n[[setup]]\nplayers = "3-8"\ndecks = 1\njokers = 0\n'
            "[dealing]\ndeal = 20\n",
            "exceeds",
        ),
        ('extends = "shanghai"\nname = "Bad Name"\n', "name must be"),
        ("this is not toml = = \n", "not valid TOML"),
        (
            'extends = "shanghai"\nname = "x"\n[[setup]]\nplayers = "3-8"\ndecks = 2\n'
            'wilds = ["ZZ"]\n',
            "unknown card",
        ),
    ],
)
def test_bad_house_rule_files_say_what_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(VariantError, match=message) as info:
        load_variant(_write(tmp_path, text))
    assert "house.toml" in str(info.value)


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(VariantError, match="cannot read variant file"):
        load_variant(tmp_path / "absent.toml")


def test_unknown_variant_lists_the_choices() -> None:
    with pytest.raises(VariantError, match="choose from shanghai, rook"):
        find_variant("canasta")


def test_round_out_of_range() -> None:
    with pytest.raises(VariantError, match="no round 11"):
        find_variant("shanghai").round(11)
    assert find_variant("manipulation").round(57).number == 1  # hands repeat


BASE = 'extends = "shanghai"\nname = "x"\n'
ONE_SETUP = '[[setup]]\nplayers = "3-8"\ndecks = {decks}\njokers = 2\nwilds = ["JK"]\n'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            BASE + ONE_SETUP.format(decks=100_000),
            "setup 1 decks is 100000; it must be 1 to 12",
            id="decks",
        ),
        pytest.param(
            BASE + 'players = "' + "9" * 5000 + '"\n',
            "cannot read player range '9999",
            id="player-range-digits",
        ),
        pytest.param(
            BASE + "players = 100000\n",
            r"players \(the most\) is 100000; it must be 1 to 99",
            id="players",
        ),
        pytest.param(
            BASE + "players = 4.5\n", "must be a string or an integer", id="players-float"
        ),
        pytest.param(
            BASE
            + '[[rounds]]\ncontract = "2 sets of 3"\ndeal = [{players = "3-8", cards = "x"}]\n',
            "'cards' must be a number of cards, not 'x'",
            id="deal-cards-text",
        ),
        pytest.param(
            BASE + '[[rounds]]\ncontract = "2 sets of 3"\ndeal = [{players = [3], cards = 7}]\n',
            "a player range is written",
            id="deal-players-list",
        ),
        pytest.param(
            BASE + '[[rounds]]\ncontract = "9999 sets of 3"\n',
            "at most 8 melds",
            id="contract-melds",
        ),
        pytest.param(
            BASE + '[[rounds]]\ncontract = "' + "9" * 5000 + ' sets of 3"\n',
            "cannot read contract",
            id="contract-digits",
        ),
        pytest.param(
            BASE + '[[rounds]]\ncontract = "1 run of 500"\n', "longer than 60 cards", id="meld-size"
        ),
        pytest.param(
            BASE + '[scoring]\nranks = { "1-13" = 10000000000 }\n',
            "points of rank 1 is 10000000000",
            id="rank-points",
        ),
        pytest.param(BASE + "[scoring]\nwild = -5000\n", "scoring.wild is -5000", id="wild-points"),
        pytest.param(
            BASE + "[scoring]\ntarget = 2147483648\n", "scoring.target is 2147483648", id="target"
        ),
        pytest.param(
            BASE + "[going_out]\nblind_bonus = 99999\n", "blind_bonus is 99999", id="blind-bonus"
        ),
        pytest.param(BASE + "[dealing]\nbuys = 1000\n", "buys is 1000", id="buys"),
        pytest.param(
            BASE + "[dealing]\nbatches = [3, 'x']\n",
            "must be a list of whole numbers",
            id="batches",
        ),
        pytest.param(BASE + "notes = [1, 2]\n", "must be a list of strings", id="notes"),
        pytest.param(
            BASE + "[wilds]\nlimit_at_lay_down = { 3 = 1.5 }\n",
            "sizes and limits must be whole",
            id="wild-limit-float",
        ),
        pytest.param(
            BASE + "[melds]\nmin_run = 1000\n", "melds.min_run is 1000; at most 60", id="min-run"
        ),
        pytest.param(BASE + "a = " + "9" * 5000 + "\n", "not valid TOML", id="toml-int-digits"),
        pytest.param(
            BASE + "a = " + "[" * 50_000 + "]" * 50_000 + "\n",
            "nested too deeply",
            id="toml-nesting",
        ),
        pytest.param(
            'extends = "shanghai"\nname = "' + "x" * 101 + '"\n', "at most 100", id="name-length"
        ),
    ],
)
def test_house_rule_numbers_are_bounded(tmp_path: Path, text: str, message: str) -> None:
    """Every number of a house-rule file has a limit, and a value past it (or one that
    cannot be read at all) is a `VariantError` naming the key, never another error."""
    with pytest.raises(VariantError, match=message) as info:
        load_variant(_write(tmp_path, text))
    assert "house.toml" in str(info.value)
    assert len(str(info.value)) < 500  # a long value is not quoted back whole


def test_too_many_decks_are_refused_before_any_shoe_is_built() -> None:
    text = BASE + ONE_SETUP.format(decks=100_000)
    with (
        patch.object(variants, "build_shoe", side_effect=AssertionError("shoe built")),
        pytest.raises(VariantError, match="decks is 100000"),
    ):
        parse_variant(tomllib.loads(text))
