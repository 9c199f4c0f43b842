"""Every rule of RULES.md as a data case (tests/golden/*.toml)."""

from __future__ import annotations

from typing import Any

import pytest

from golden_cases import case_id, golden
from shanghai.engine.cards import parse_cards
from shanghai.engine.contracts import check_lay_down, find_lay_down
from shanghai.engine.errors import IllegalMeldError
from shanghai.engine.layoffs import lay_off, swap_wild
from shanghai.engine.melds import check_meld
from shanghai.engine.scoring import hand_points
from shanghai.engine.variant_files import find_variant
from shanghai.engine.variants import MeldKind, Rules


def _rules(case: dict[str, Any]) -> Rules:
    return find_variant(case["variant"]).rules(case.get("players"))


@pytest.mark.parametrize("case", golden("melds.toml"), ids=case_id)
def test_meld_case(case: dict[str, Any]) -> None:
    rules = _rules(case)
    kind = MeldKind(case["kind"]) if "kind" in case else None
    options = {
        "kind": kind,
        "ordered": case.get("ordered", False),
        "at_lay_down": case.get("at_lay_down", True),
    }
    cards = parse_cards(case["cards"])
    if case["valid"]:
        meld = check_meld(cards, rules, **options)
        assert sorted(meld.cards) == sorted(cards)
    else:
        with pytest.raises(IllegalMeldError) as info:
            check_meld(cards, rules, **options)
        assert case.get("reason", "") in str(info.value)


@pytest.mark.parametrize("case", golden("lay_downs.toml"), ids=case_id)
def test_lay_down_case(case: dict[str, Any]) -> None:
    rules = _rules(case)
    if case.get("grouped", True):
        groups = [parse_cards(part) for part in case["cards"].split("|")]
        report = check_lay_down(groups, rules, case["round"])
        assert report.valid is case["valid"], report.all_reasons
        if not case["valid"]:
            assert report.all_reasons, "an illegal lay-down must say why"
            assert any(case.get("reason", "") in r for r in report.all_reasons), report.all_reasons
    else:
        found = find_lay_down(parse_cards(case["cards"]), rules, case["round"])
        assert (found is not None) is case["valid"]
        if found is not None:
            # The grouping found must itself pass the grouped check.
            report = check_lay_down([list(m.cards) for m in found], rules, case["round"])
            assert report.valid, report.all_reasons


@pytest.mark.parametrize("case", golden("scoring.toml"), ids=case_id)
def test_scoring_case(case: dict[str, Any]) -> None:
    assert hand_points(parse_cards(case["cards"]), _rules(case)) == case["points"]


@pytest.mark.parametrize("case", golden("layoffs.toml"), ids=case_id)
def test_lay_off_case(case: dict[str, Any]) -> None:
    rules = _rules(case)
    meld = check_meld(parse_cards(case["meld"]), rules, ordered=True, at_lay_down=False)
    card = parse_cards(case["card"])[0]
    if case["valid"]:
        grown = lay_off(meld, card, rules)
        assert grown.size == meld.size + 1
        if "result" in case:
            assert " ".join(map(str, grown.cards)) == case["result"]
    else:
        with pytest.raises(IllegalMeldError):
            lay_off(meld, card, rules)


@pytest.mark.parametrize("case", golden("layoffs.toml", "swap"), ids=case_id)
def test_swap_case(case: dict[str, Any]) -> None:
    rules = _rules(case)
    meld = check_meld(parse_cards(case["meld"]), rules, ordered=True)
    card = parse_cards(case["card"])[0]
    is_owner = case.get("is_owner", True)
    if case["valid"]:
        new, freed = swap_wild(meld, card, rules, is_owner=is_owner)
        assert rules.is_wild(freed)
        assert " ".join(map(str, new.cards)) == case["result"]
        assert new.wild_count == meld.wild_count - 1
    else:
        with pytest.raises(IllegalMeldError) as info:
            swap_wild(meld, card, rules, is_owner=is_owner)
        assert case.get("reason", "") in str(info.value)
