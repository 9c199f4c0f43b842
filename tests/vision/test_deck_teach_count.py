"""The teach benchmark counts the wrong card where it lies, not by its name alone."""

from __future__ import annotations

from collections import Counter

import numpy as np
from deck_teach import TrueIndex, wrong_ones

from shanghai.engine.cards import Card
from shanghai.vision.snapshot import SeenCard


def _index(card: str, x: float, y: float) -> TrueIndex:
    return (card, np.array([x, y]), 20.0)


def _seen(card: str, x: float, y: float, *, sure: bool) -> SeenCard:
    box = (x - 10, y - 15, x + 10, y + 15)
    return SeenCard(Card.parse(card), 0.9, box, index_xyxy=(box,), sure=sure)


def test_the_misread_card_is_the_wrong_one_not_the_true_card_of_its_name() -> None:
    """A 12G read 13G (marked) beside the true 13G read sure: one wrong card, the
    marked one, so no wrong card went unmarked."""
    truth = [_index("12G", 100, 100), _index("13G", 300, 100)]
    true_13g = _seen("13G", 300, 100, sure=True)
    misread = _seen("13G", 100, 100, sure=False)
    for order in ([true_13g, misread], [misread, true_13g]):
        wrong = wrong_ones(order, truth, Counter({"13G": 1}))
        assert wrong == [misread]
        assert sum(c.sure for c in wrong) == 0


def test_a_sure_misread_is_counted_unmarked() -> None:
    truth = [_index("12G", 100, 100), _index("13G", 300, 100)]
    misread = _seen("13G", 100, 100, sure=True)
    true_13g = _seen("13G", 300, 100, sure=False)
    wrong = wrong_ones([true_13g, misread], truth, Counter({"13G": 1}))
    assert wrong == [misread] and wrong[0].sure


def test_a_card_not_on_the_table_is_wrong_wherever_it_lies() -> None:
    truth = [_index("5h", 100, 100)]
    read = _seen("5d", 100, 100, sure=True)
    assert wrong_ones([read], truth, Counter({"5d": 1})) == [read]
    assert wrong_ones([read], truth, Counter()) == []


def test_of_two_misplaced_reads_the_sure_one_is_counted() -> None:
    """Where neither read lies on the true card of its name, the count takes the sure
    one: it never spares a wrong card gone unmarked."""
    truth = [_index("12G", 100, 100), _index("11G", 200, 100), _index("13G", 300, 100)]
    marked = _seen("13G", 100, 100, sure=False)
    sure = _seen("13G", 200, 100, sure=True)
    assert wrong_ones([marked, sure], truth, Counter({"13G": 1})) == [sure]
