"""The reader's probability of a read's point value (`readings.score_probabilities`):
what a hand's score hangs on, summed over the names the game makes worth the same."""

from __future__ import annotations

import numpy as np
import pytest

from shanghai.engine.cards import CARD_CLASSES, Card
from shanghai.engine.variant_files import find_variant
from shanghai.vision.readings import IndexReadings, score_probabilities

RULES = find_variant("shanghai").rules(4)


def row(**mass: float) -> np.ndarray:
    """One (1, C) probability row over the reader's classes: name -> probability."""
    out = np.zeros((1, len(CARD_CLASSES)), np.float32)
    for name, p in mass.items():
        out[0, CARD_CLASSES.index(name)] = p
    return out


def points(name: str) -> int:
    return RULES.card_points(Card.parse(name))


def test_a_doubt_between_names_of_equal_points_is_summed() -> None:
    assert points("Qc") == points("Qs")
    probabilities = row(Qc=0.6, Qs=0.38, **{"7h": 0.02})
    assert score_probabilities(probabilities, CARD_CLASSES, RULES) == pytest.approx([0.98])


def test_a_doubt_between_points_is_not() -> None:
    assert points("Qc") != points("9c")
    probabilities = row(Qc=0.6, **{"9c": 0.4})
    assert score_probabilities(probabilities, CARD_CLASSES, RULES) == pytest.approx([0.6])


def test_without_rules_it_is_the_name_s_own_probability() -> None:
    probabilities = np.concatenate([row(Qc=0.6, Qs=0.4), row(**{"9c": 0.7, "9s": 0.3})])
    assert score_probabilities(probabilities, CARD_CLASSES, None) == pytest.approx([0.6, 0.7])


def test_each_row_sums_its_own_best_name_s_points() -> None:
    probabilities = np.concatenate(
        [row(Kd=0.5, Jh=0.3, **{"2c": 0.2}), row(**{"2c": 0.5, "3c": 0.45})]
    )
    want = [
        0.8 if points("Jh") == points("Kd") else 0.5,
        0.95 if points("2c") == points("3c") else 0.5,
    ]
    assert score_probabilities(probabilities, CARD_CLASSES, RULES) == pytest.approx(want)


def test_readings_keep_it_through_take_and_join() -> None:
    boxes = np.array([[0, 0, 10, 10], [20, 0, 30, 10]], np.float32)
    readings = IndexReadings(
        boxes,
        ("Qc", "9c"),
        np.array([0.5, 0.6], np.float32),
        np.array([0.6, 0.7], np.float32),
        np.array([0.98, 0.7], np.float32),
    )
    kept = readings.take(np.array([True, False]))
    assert kept.score_probability == pytest.approx([0.98])
    assert readings.join(kept).score_probability == pytest.approx([0.98, 0.7, 0.98])
    plain = IndexReadings(boxes, ("Qc", "9c"), np.array([0.5, 0.6], np.float32))
    assert plain.score_probability == pytest.approx([0.5, 0.6])


def test_reads_of_different_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="point-value"):
        IndexReadings(
            np.zeros((1, 4), np.float32),
            ("Qc",),
            np.ones(1, np.float32),
            np.ones(1, np.float32),
            np.ones(2, np.float32),
        )
