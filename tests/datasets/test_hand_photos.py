"""Hand and lay-down photos: deterministic, the truth the engine's, looks by split."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest

from shanghai.datasets.backgrounds import HELD_OUT_FAMILIES
from shanghai.datasets.decks import code_looks
from shanghai.datasets.hand_photos import render_photo
from shanghai.engine.cards import parse_cards
from shanghai.engine.contracts import check_lay_down
from shanghai.engine.scoring import score_hand
from shanghai.engine.variant_files import find_variant

HELD_OUT_LOOKS = {look.name for look in code_looks() if look.held_out}


@pytest.mark.parametrize("kind", ["hand", "lay-down"])
def test_same_seed_same_photo(kind: str) -> None:
    first, truth = render_photo(kind, 7, 1, "val", code_looks())
    again, truth_again = render_photo(kind, 7, 1, "val", code_looks())
    assert truth == truth_again
    assert np.array_equal(first.image, again.image)
    assert render_photo(kind, 7, 2, "val", code_looks())[1] != truth


def test_hands_hold_1_to_11_cards_scored_by_the_engine() -> None:
    for index in range(6):
        rendered, truth = render_photo("hand", 11, index, "val", code_looks())
        hand = parse_cards(truth["hand"])
        assert 1 <= len(hand) <= 11 and len(truth["readable"]) == len(hand)
        rules = find_variant(truth["variant"]).rules(truth["players"])
        assert truth["hand_points"] == score_hand(hand, rules).points
        assert Counter(p.card for p in rendered.placements) == Counter(hand)
        assert truth["distance"] in ("close-up", "table")


def test_lay_down_truth_is_the_engines_verdict_on_the_cards_laid() -> None:
    verdicts = set()
    for index in range(6):
        rendered, truth = render_photo("lay-down", 11, index, "val", code_looks())
        melds = [parse_cards(m) for m in truth["melds"]]
        rules = find_variant(truth["variant"]).rules(truth["players"])
        report = check_lay_down(melds, rules, truth["round_number"], ordered=True)
        assert truth["verdict"] == {"valid": report.valid, "reasons": report.all_reasons}
        for m, meld in enumerate(melds):
            row = [p for p in rendered.placements if p.zone == "meld" and p.meld == m]
            assert [p.card for p in sorted(row, key=lambda p: p.position or 0)] == meld
        loose = [str(p.card) for p in rendered.placements if p.zone == "hand"]
        assert loose == truth["loose"] and len(truth["loose_readable"]) == len(loose)
        verdicts.add(report.valid)
    assert verdicts == {True, False}


def test_held_out_looks_and_tables_only_in_the_test_split() -> None:
    def truths(split: str) -> list[dict[str, Any]]:
        photos = [(kind, index) for kind in ("hand", "lay-down") for index in range(4)]
        return [render_photo(kind, 5, i, split, code_looks())[1] for kind, i in photos]

    val, test = truths("val"), truths("test")
    assert not any(HELD_OUT_LOOKS & set(t["looks"]) for t in val)
    assert not any(t["background"] in HELD_OUT_FAMILIES for t in val)
    assert any(HELD_OUT_LOOKS & set(t["looks"]) for t in test)
    assert any(t["background"] in HELD_OUT_FAMILIES for t in test)
