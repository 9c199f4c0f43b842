"""The scan's `corner` and `joker` warnings: an index located but not read is evidence
of a card only when it is not a read card's own corner (`vision/scan.py`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from mini_table import MiniTable, TableReader, WithUnread

from shanghai.engine.variant_files import find_variant
from shanghai.vision.pipeline import FrameReads
from shanghai.vision.readings import IndexReadings
from shanghai.vision.scan import PhotoKind, PhotoScanner

RULES = find_variant("shanghai").rules(4)
FRAME = np.random.default_rng(3).integers(0, 255, (900, 1200, 3), dtype=np.uint8)
"""A photo with texture (a one-colour image is refused before any read)."""


def scan(table: MiniTable, unread: Sequence[tuple[tuple[float, ...], str]]) -> list[str]:
    snapshot = PhotoScanner(WithUnread(table, unread)).scan(FRAME, rules=RULES, kind=PhotoKind.HAND)
    return [w.code for w in snapshot.warnings]


def hand() -> tuple[MiniTable, tuple[float, float, float, float]]:
    """A hand of three cards in a row, and the box of the last card (on top)."""
    table = MiniTable()
    table.row(["4h", "9c", "Kd"], 600, 450, step=20)
    _, card_xyxy = table.measure()
    x1, y1, x2, y2 = (float(v) for v in card_xyxy.max(axis=0))
    return table, (x1, y1, x2, y2)


def test_a_sliver_of_a_hidden_card_is_warned() -> None:
    """An unread index at the edge of the pile that the reader guesses as no card read
    there: a card under the others showing a sliver of its corner."""
    table, (x1, y1, x2, y2) = hand()
    cx, edge = (x1 + x2) / 2, y2 - 0.05 * (y2 - y1)
    assert scan(table, [((cx - 6, edge - 14, cx + 6, edge + 14), "7s")]) == ["corner"]


def test_print_deep_inside_a_read_card_is_not_a_corner() -> None:
    """An index located in the middle of the top card's face (a pip, a court card's
    art) and guessed as another card: the card on top hides anything under it there."""
    table, (x1, y1, x2, y2) = hand()
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    assert scan(table, [((cx - 6, cy - 14, cx + 6, cy + 14), "7s")]) == []


def test_an_unread_corner_beside_the_cards_is_warned() -> None:
    """On no card read, but within a card's length of them: a card pushed out from
    under the hand may show no more than that corner."""
    table, (x1, y1, _, y2) = hand()
    left, cy = x1 - 0.5 * (y2 - y1), (y1 + y2) / 2
    assert scan(table, [((left - 6, cy - 14, left + 6, cy + 14), "5d")]) == ["corner"]


def test_an_unread_corner_far_from_every_card_is_not() -> None:
    """Over a card's length from every card read and on no card outline: print on
    something else on the table (on the real photos, text on a note)."""
    table, (x1, y1, _, y2) = hand()
    far = x1 - 2.0 * (y2 - y1)
    assert far > 20
    assert scan(table, [((far - 6, y1 - 14, far + 6, y1 + 14), "5d")]) == []


def test_a_cards_own_unreadable_far_corner_is_not() -> None:
    """The far corner of a read card, guessed as that card: its own index, no warning."""
    table, _ = hand()
    readings, card_xyxy = table.measure()
    king = readings.names.index("Kd")
    kx2, ky2 = (float(v) for v in card_xyxy[np.argmax(card_xyxy[:, 2])][2:])
    far = (kx2 - 16, ky2 - 32, kx2 - 4, ky2 - 4)
    assert readings.names[king] == "Kd"
    assert scan(table, [(far, "Kd")]) == []


def test_a_second_box_around_a_read_index_is_not() -> None:
    """The locator's second, larger box around an index already read."""
    table, _ = hand()
    readings, _ = table.measure()
    x1, y1, x2, y2 = (float(v) for v in readings.xyxy[0])
    assert scan(table, [((x1 - 2, y1 - 2, x2 + 3, y2 + 3), "6h")]) == []


def test_a_likely_joker_is_said_once() -> None:
    """An unread index guessed as the joker on no card read, with nothing read at all:
    the joker warning, not a second one about a corner."""
    table = MiniTable()
    codes = scan(table, [((300, 300, 312, 328), "JK")])
    assert "joker" in codes and "corner" not in codes


def test_an_outline_with_no_corner_located_is_not_a_card() -> None:
    table, _ = hand()
    snapshot = PhotoScanner(WithUnread(table, [], [(50, 50, 160, 200)])).scan(
        FRAME, rules=RULES, kind=PhotoKind.HAND
    )
    assert sorted(str(c.card) for c in snapshot.cards) == ["4h", "9c", "Kd"]
    assert not snapshot.unread and not snapshot.warnings


def test_an_outline_with_a_corner_not_read_is_one_card_to_add() -> None:
    """The card is counted once: its outline and the corner on it are the same card."""
    table = MiniTable()
    table.row(["4h", "9c"], 600, 450, step=20)
    table.card("Kd", 300, 300, readable=False)
    snapshot = PhotoScanner(TableReader(table)).scan(FRAME, rules=RULES, kind=PhotoKind.HAND)
    assert sorted(str(c.card) for c in snapshot.cards) == ["4h", "9c"]
    assert len(snapshot.unread) == 1
    assert [w.code for w in snapshot.warnings] == ["unread"]


def _outline_over_the_last_card(scale: float) -> tuple[list[str], list[str], int]:
    """A row of three cards at `scale` and an outline with no index lying over a third of
    the last card, up and to its right (a card of the fan whose index the locator
    lost, clear of the last card's two index corners): the cards read, the warnings,
    and the cards left to add."""
    table = MiniTable(scale=scale)
    table.row(["4h", "9c", "Kd"], 600, 450, step=20)
    _, card_xyxy = table.measure()
    x1, y1, x2, y2 = (float(v) for v in card_xyxy.max(axis=0))
    dx, dy = 0.4 * (x2 - x1), 0.4 * (y2 - y1)
    outline = (x1 + dx, y1 - dy, x2 + dx, y2 - dy)
    snapshot = PhotoScanner(WithUnread(table, [], [outline])).scan(
        FRAME, rules=RULES, kind=PhotoKind.HAND
    )
    cards = sorted(str(c.card) for c in snapshot.cards)
    return cards, [w.code for w in snapshot.warnings], len(snapshot.unread)


def test_at_table_distance_an_outline_over_a_card_is_a_card_to_add() -> None:
    """Across the table (cards a twentieth of the photo) the locator loses indices
    first: an outline lying over a read card is one more card, said, not dropped (and
    the indices are small enough for "come closer")."""
    cards, codes, unread = _outline_over_the_last_card(scale=0.6)
    assert cards == ["4h", "9c", "Kd"]
    assert codes == ["unread", "small"] and unread == 1


def test_close_up_an_outline_with_no_index_over_a_card_is_dropped() -> None:
    """Close up every card's index shows; an outline without one is something else
    (the real photos' place mats and boxes), so the hand is proposed without a word."""
    cards, codes, unread = _outline_over_the_last_card(scale=2.2)
    assert cards == ["4h", "9c", "Kd"]
    assert codes == [] and unread == 0


def test_a_corner_in_line_between_two_neighbours_of_a_laid_run_is_warned() -> None:
    """A laid run with its third card (a joker) missed, its corner located but not read
    and guessed as another card. The row lies tilted, so the neighbours' outlines (whole,
    as the locator often boxes a spread row) hold the corner deep inside, where print on
    a face would lie; but it lies in line between the two read neighbours' indices, as
    a card's index in a row does, so it is a card to add, not print."""
    whole = MiniTable(whole_outlines=True)
    whole.row(["9d", "10d", "JK", "Qd"], 600, 450, step=20, angle=35)
    readings, _ = whole.measure()
    joker = readings.xyxy[readings.names.index("JK")]
    table = MiniTable(whole_outlines=True)
    table.row(["9d", "10d", "JK", "Qd"], 600, 450, step=20, angle=35)
    del table.placed[2]  # the joker: neither its outline nor its index is found
    _, card_xyxy = table.measure()
    cx, cy = float(joker[0] + joker[2]) / 2, float(joker[1] + joker[3]) / 2
    margin = 0.2  # scan.PIP_MARGIN: what lies this far inside a read card's box is print
    assert any(
        x1 + margin * (x2 - x1) <= cx <= x2 - margin * (x2 - x1)
        and y1 + margin * (y2 - y1) <= cy <= y2 - margin * (y2 - y1)
        for x1, y1, x2, y2 in card_xyxy.tolist()
    )
    snapshot = PhotoScanner(WithUnread(table, [(tuple(joker.tolist()), "Jd")])).scan(
        FRAME, rules=RULES, kind=PhotoKind.LAY_DOWN
    )
    assert "corner" in [w.code for w in snapshot.warnings]


class OneCornerRead(WithUnread):
    """The table read at each card's first index only; the given unread indices added."""

    def reads(self, found: FrameReads) -> FrameReads:
        out = super().reads(found)
        first = out.readings
        return FrameReads(
            IndexReadings(first.xyxy[:1], first.names[:1], first.confidence[:1]),
            out.card_xyxy,
            out.unread_xyxy,
            out.unread_best,
        )


def test_a_cards_far_corner_read_as_another_card_marks_that_card() -> None:
    """A lone card read at one corner, its far corner located but guessed as another
    card: the corners disagree about the card, so the card is checked ("Kd: its other
    corner reads 4d"), and no hidden card is warned of."""
    table = MiniTable()
    table.card("Kd", 600, 450)
    readings, _ = table.measure()
    assert readings.names == ("Kd", "Kd")
    far = tuple(float(v) for v in readings.xyxy[1])
    snapshot = PhotoScanner(OneCornerRead(table, [(far, "4d")])).scan(
        FRAME, rules=RULES, kind=PhotoKind.HAND
    )
    assert [(str(c.card), c.sure) for c in snapshot.cards] == [("Kd", False)]
    assert [w.code for w in snapshot.warnings] == ["unsure"]
    assert snapshot.warnings[0].message.endswith("; Kd: its other corner reads 4d")


def test_a_corner_beside_a_card_read_at_one_corner_is_still_warned() -> None:
    """The same card, and an unread index at its edge away from its far corner: a card
    under it may show that corner."""
    table = MiniTable()
    table.card("Kd", 600, 450)
    readings, card_xyxy = table.measure()
    y1 = float(card_xyxy[0][1])
    ix1, iy1, ix2, iy2 = (float(v) for v in readings.xyxy[1])
    beside = (ix1, y1 + 4, ix2, y1 + 4 + (iy2 - iy1))  # top-right: no index of its own
    snapshot = PhotoScanner(OneCornerRead(table, [(beside, "4d")])).scan(
        FRAME, rules=RULES, kind=PhotoKind.HAND
    )
    assert [(str(c.card), c.sure) for c in snapshot.cards] == [("Kd", True)]
    assert [w.code for w in snapshot.warnings] == ["corner"]


class FarCornerRead(OneCornerRead):
    """As `OneCornerRead`, the unread indices read in full at `reading`."""

    def __init__(
        self, table: MiniTable, unread: Sequence[tuple[tuple[float, ...], str]], reading: float
    ) -> None:
        super().__init__(table, unread)
        self.reading = reading

    def reads(self, found: FrameReads) -> FrameReads:
        out = super().reads(found)
        n = len(out.unread_best)
        unread = IndexReadings(
            out.unread_xyxy,
            out.unread_best,
            np.full(n, 0.8 * self.reading, np.float32),
            np.full(n, self.reading, np.float32),
        )
        return replace(out, unread=unread)


def test_a_far_corner_barely_read_as_another_card_does_not_doubt_the_card() -> None:
    """The same card, its far corner guessed 4d at 0.05 (under `FAR_DISAGREE`): still
    its own corner (no hidden card is warned of), but no doubt about the Kd; guessed
    at 0.3, the card is checked."""
    table = MiniTable()
    table.card("Kd", 600, 450)
    readings, _ = table.measure()
    far = tuple(float(v) for v in readings.xyxy[1])
    for reading, sure, codes in ((0.05, True, []), (0.3, False, ["unsure"])):
        snapshot = PhotoScanner(FarCornerRead(table, [(far, "4d")], reading)).scan(
            FRAME, rules=RULES, kind=PhotoKind.HAND
        )
        assert [(str(c.card), c.sure) for c in snapshot.cards] == [("Kd", sure)]
        assert [w.code for w in snapshot.warnings] == codes
