"""Physical cards from read indices and card boxes, on hand-placed tables."""

from __future__ import annotations

import numpy as np

from shanghai.engine.cards import Card
from shanghai.engine.variant_files import find_variant
from shanghai.vision.physical import CardIdentifier, shoe_counts
from shanghai.vision.readings import IndexReadings


def _names(found) -> list[str]:  # type: ignore[no-untyped-def]
    return sorted(str(c.card) for c in found.cards)


def test_two_corners_of_one_card_count_once(mini_table) -> None:  # type: ignore[no-untyped-def]
    for angle in (0.0, 30.0, 90.0, 135.0, 200.0):
        table = mini_table()
        table.card("7h", 600, 450, angle)
        readings, boxes = table.measure()
        assert len(readings) == 2  # both corners are read
        found = CardIdentifier().identify(readings, boxes)
        assert _names(found) == ["7h"], angle
        assert len(found.cards[0].index_xyxy) == 2


def test_two_identical_cards_stay_two(mini_table) -> None:  # type: ignore[no-untyped-def]
    table = mini_table()
    table.card("7h", 300, 450, 10)
    table.card("7h", 800, 400, -40)
    found = CardIdentifier().identify(*table.measure())
    assert _names(found) == ["7h", "7h"]


def test_identical_cards_overlapping_in_a_row_stay_separate(mini_table) -> None:  # type: ignore[no-untyped-def]
    for angle in (0.0, 45.0, 180.0):
        table = mini_table()
        table.row(["7h", "7h", "7s"], 600, 450, step=20, angle=angle)
        found = CardIdentifier().identify(*table.measure())
        assert _names(found) == ["7h", "7h", "7s"], angle


def test_copies_beyond_the_shoe_are_reported(mini_table) -> None:  # type: ignore[no-untyped-def]
    rules = find_variant("shanghai").rules(4)
    holds = shoe_counts(rules)[Card.parse("Kc")]
    table = mini_table(width=2400)
    for k in range(holds + 1):
        table.card("Kc", 150 + 200 * k, 450)
    found = CardIdentifier(rules=rules).identify(*table.measure())
    assert len(found.cards) == holds + 1  # kept, not silently dropped...
    assert sum(c.excess for c in found.cards) == 1  # ...but flagged
    assert any("copies of Kc" in w for w in found.warnings)


def test_cards_of_another_deck_family_are_dropped_and_reported(mini_table) -> None:  # type: ignore[no-untyped-def]
    table = mini_table()
    table.card("5R", 300, 450)
    table.card("5h", 800, 450)
    found = CardIdentifier(rules=find_variant("shanghai").rules(4)).identify(*table.measure())
    assert _names(found) == ["5h"]
    assert found.ignored_indices == 2 and any("5R" in w for w in found.warnings)


def test_face_down_cards_are_ignored(mini_table) -> None:  # type: ignore[no-untyped-def]
    table = mini_table()
    table.card("9c", 300, 450, face_up=False)
    table.card("9d", 800, 450)
    readings, boxes = table.measure()
    # A detector that boxed the face-down card anyway still gives it no identity.
    boxes = np.concatenate([boxes, [[250, 380, 350, 520]]]).astype(np.float32)
    found = CardIdentifier().identify(readings, boxes)
    assert _names(found) == ["9d"]


def test_an_index_that_no_card_holds_is_ignored() -> None:
    readings = IndexReadings(
        np.array([[10, 10, 20, 30]], np.float32), ("Ah",), np.ones(1, np.float32)
    )
    found = CardIdentifier().identify(readings, np.zeros((0, 4), np.float32))
    assert found.cards == () and found.ignored_indices == 1
    lenient = CardIdentifier(require_card_box=False).identify(
        readings, np.zeros((0, 4), np.float32)
    )
    assert _names(lenient) == ["Ah"]


def test_each_card_keeps_its_confidence_and_location(mini_table) -> None:  # type: ignore[no-untyped-def]
    table = mini_table()
    table.card("Qs", 600, 450)
    found = CardIdentifier().identify(*table.measure())
    card = found.cards[0]
    x1, y1, x2, y2 = card.xyxy
    assert x1 < 600 < x2 and y1 < 450 < y2
    assert card.confidence == np.float32(0.9)
