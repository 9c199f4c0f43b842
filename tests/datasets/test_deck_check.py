"""A taught deck's sure level (`datasets.deck_check`), counted per level on photos read
once: the lowest level with the fewest wrong cards proposed unmarked."""

from __future__ import annotations

from collections import Counter

from mini_table import MiniTable, TableReader

from shanghai.datasets.deck_check import LevelCount, choose_level, count_levels
from shanghai.engine.cards import Card
from shanghai.vision.scan import PhotoScanner
from shanghai.vision.snapshot import SeenCard


def _card(name: str, confidence: float, x: float) -> SeenCard:
    return SeenCard(
        Card.parse(name),
        confidence,
        (x, 100.0, x + 60.0, 190.0),
        index_xyxy=((x, 100.0, x + 12.0, 125.0),),
    )


def test_levels_count_silent_wrong_and_marked_right_cards() -> None:
    """A hand of 4h and 9c read as 4h, 9c and a second 9c (one card counted twice):
    the extra 9c is wrong, unmarked where the level lets 9c through."""
    scanner = PhotoScanner(TableReader(MiniTable()))
    cards = (_card("4h", 0.8, 100), _card("9c", 0.6, 300), _card("9c", 0.6, 800))
    photos = [(cards, Counter({"4h": 1, "9c": 1}), Counter({"4h": 1, "9c": 1}))]
    counts = count_levels(scanner, photos, (0.5, 0.65, 0.9))
    assert counts == [
        LevelCount(0.5, silent=1, marked=0),
        LevelCount(0.65, silent=0, marked=1),
        LevelCount(0.9, silent=0, marked=2),
    ]
    assert choose_level(counts) == 0.65


def test_the_lowest_level_with_the_fewest_silent_is_chosen() -> None:
    counts = [LevelCount(0.5, 2, 0), LevelCount(0.6, 1, 3), LevelCount(0.7, 1, 5)]
    assert choose_level(counts) == 0.6
    assert choose_level([LevelCount(0.45, 0, 0), LevelCount(0.9, 0, 9)]) == 0.45
