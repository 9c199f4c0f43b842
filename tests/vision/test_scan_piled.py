"""Cards dropped in a loose pile: the hand scan says a card may lie hidden beneath.

A row or fan is laid so every index shows; a pile is not, and a card wholly under the
others shows no corner to read and, often, no outline: the scan must not score such a
hand short in silence (`layout.piled_cards`)."""

from __future__ import annotations

import numpy as np
from mini_table import MiniTable, TableReader

from shanghai.engine.cards import Card
from shanghai.engine.variant_files import find_variant
from shanghai.vision.arrays import Box
from shanghai.vision.layout import CardRow, RowGrouper, piled_cards
from shanghai.vision.scan import PhotoKind, PhotoScanner
from shanghai.vision.snapshot import SeenCard, TableSnapshot

RULES = find_variant("shanghai").rules(4)
FRAME = np.random.default_rng(5).integers(60, 120, (900, 1200, 3), dtype=np.uint8)


def scan(table: MiniTable, kind: PhotoKind = PhotoKind.HAND) -> TableSnapshot:
    return PhotoScanner(TableReader(table)).scan(FRAME, rules=RULES, kind=kind)


def piled(snapshot: TableSnapshot) -> list[str]:
    found = [w for w in snapshot.warnings if w.code == "piled"]
    assert len(found) <= 1
    return sorted(str(snapshot.cards[i].card) for i in found[0].cards) if found else []


def pile() -> MiniTable:
    """Three cards dropped on each other at odd angles, every index still in view."""
    table = MiniTable()
    table.card("4h", 500, 420, angle=10)
    table.card("9c", 600, 470, angle=75)
    table.card("Kd", 520, 560, angle=-40)
    return table


def test_a_loose_pile_of_a_hand_is_flagged_though_every_card_is_read() -> None:
    snapshot = scan(pile())
    assert sorted(str(c.card) for c in snapshot.cards) == ["4h", "9c", "Kd"]
    assert len(piled(snapshot)) >= 2  # the cards lying on others, named to the page
    warning = next(w for w in snapshot.warnings if w.code == "piled")
    assert "spread them" in warning.message


def test_a_card_hidden_under_a_pile_leaves_the_pile_flagged() -> None:
    hidden = pile()
    hidden.placed.insert(0, ("7s", 555, 480, 20.0, True))  # wholly beneath the three
    snapshot = scan(hidden)
    assert "7s" not in [str(c.card) for c in snapshot.cards]
    assert piled(snapshot)  # the short hand is not proposed in silence


def test_a_fan_and_a_row_are_not_piles() -> None:
    fan = MiniTable()
    fan.fan(["3s", "4s", "5s", "6s", "7s"], 600, 450, spread=40)
    row = MiniTable()
    row.row(["8d", "9d", "10d", "Jd"], 600, 450, step=22)
    for table in (fan, row):
        snapshot = scan(table)
        assert len(snapshot.cards) in (4, 5)
        assert piled(snapshot) == []


def test_cards_spread_apart_are_not_a_pile() -> None:
    table = MiniTable()
    for k, name in enumerate(["4h", "9c", "Kd"]):
        table.card(name, 200 + 350 * k, 450, angle=25 * k)
    assert piled(scan(table)) == []


def test_a_lay_down_says_loose_not_piled() -> None:
    snapshot = scan(pile(), PhotoKind.LAY_DOWN)
    codes = [w.code for w in snapshot.warnings]
    assert "piled" not in codes and "loose" in codes


def test_only_cards_outside_rows_count_and_only_when_they_overlap() -> None:
    table = MiniTable()
    table.row(["8d", "9d", "10d"], 400, 450, step=22)
    table.card("Qs", 800, 450, angle=60)  # alone, touching nothing
    cards = scan(table).cards
    rows, _ = RowGrouper().group(cards)
    assert piled_cards(cards, rows) == []
    table.card("2c", 830, 500, angle=-20)  # dropped on the queen
    cards = scan(table).cards
    rows, _ = RowGrouper().group(cards)
    assert sorted(str(cards[i].card) for i in piled_cards(cards, rows)) == ["2c", "Qs"]


def row_and_card_on_its_end(names: list[str], extra: str) -> tuple[list[str], list[str]]:
    """A row spread left to right and `extra` turned across its last card: the names
    read and those of the cards called piled."""
    table = MiniTable()
    table.row(names, 500, 450, step=22)
    table.card(extra, 500 + 33 * (len(names) - 1) / 2 + 60, 500, angle=80)
    cards = scan(table).cards
    rows, _ = RowGrouper().group(cards)
    return [str(c.card) for c in cards], [str(cards[i].card) for i in piled_cards(cards, rows)]


def test_a_card_on_the_end_of_a_spread_row_is_not_a_pile() -> None:
    """A row of four is a spread hand: a card lying on its last card alone is its top
    card (read by its far corner) or laid on it, nothing beneath."""
    names, piled = row_and_card_on_its_end(["8d", "9d", "10d", "Jd"], "2c")
    assert sorted(names) == ["10d", "2c", "8d", "9d", "Jd"]
    assert piled == []


def test_a_second_read_of_the_row_end_or_a_short_row_stays_piled() -> None:
    """Named as the row's end card, it may be that card's far corner read twice; a row
    of three may be part of a loose pile."""
    assert row_and_card_on_its_end(["8d", "9d", "10d", "Jd"], "Jd")[1] == ["Jd"]
    assert row_and_card_on_its_end(["8d", "9d", "10d"], "2c")[1] == ["2c"]


def lone(name: str, box: tuple[float, float, float, float]) -> SeenCard:
    return SeenCard(Card.parse(name), 0.83, box, index_xyxy=(box,), reading=0.99)


def lined_up_pile(top_corners: tuple[Box, Box]) -> list[SeenCard]:
    """A taught deck's validation photo (2026-12-05, fifth session), halved: four Rook
    cards dropped in a pile, the top one (7B, its outline the only one found) lying
    across the middle, a 6B and a 3R beneath it read by one corner each, just beyond
    its two corners; the fourth wholly beneath. `top_corners`: the 7B's two indices."""
    return [
        lone("6B", (369.0, 241.0, 394.0, 272.0)),
        lone("3R", (667.0, 515.0, 694.0, 558.0)),
        SeenCard(
            Card.parse("7B"),
            0.82,
            (335.0, 255.0, 678.0, 572.0),
            index_xyxy=top_corners,
            box_id=0,
            axis=(0.793, 0.609),
            reading=0.99,
        ),
    ]


OPPOSITE: tuple[Box, Box] = ((338.0, 385.0, 386.0, 423.0), (616.0, 394.0, 667.0, 428.0))
"""The 7B's two indices as found: opposite corners, their offset along the line from the
6B to the 3R."""


def test_a_row_whose_middle_card_shows_both_corners_is_a_pile() -> None:
    """In a row or fan each card hides the one before it up to its leading corner, so a
    card seen whole lies at an end. Three cards lined up with the whole one in the
    middle lie on each other: flagged, though the grouper takes them for a row."""
    cards = lined_up_pile(OPPOSITE)
    rows, _ = RowGrouper().group(cards)
    assert [row.members for row in rows] == [(0, 2, 1)]  # a row, the 7B in the middle
    assert sorted(str(cards[i].card) for i in piled_cards(cards, rows)) == ["3R", "6B", "7B"]


def test_two_corners_of_a_covered_cards_leading_side_are_not_a_card_seen_whole() -> None:
    """A four-index deck's card covered in a row shows the two corners of its leading
    side, which lie across the row: the middle card's two indices so, one at each end of
    a line square to the row's, the three stay a row."""
    leading: tuple[Box, Box] = ((359.0, 515.0, 399.0, 555.0), (611.0, 245.0, 651.0, 285.0))
    cards = lined_up_pile(leading)
    row = CardRow(members=(0, 2, 1), side=(0.0, 0.0))
    assert piled_cards(cards, [row]) == []
    cards = lined_up_pile(OPPOSITE)
    assert len(piled_cards(cards, [row])) == 3
