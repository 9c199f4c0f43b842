"""Which reads a scan proposes without asking (`PhotoScanner.is_sure`): the locating x
reading confidence against the models' sure level, and the reader's own probability of
the name against their name level, unless the name is read on two cards."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np
from mini_table import MiniTable, TableReader

from shanghai.engine.cards import Card
from shanghai.engine.variant_files import find_variant
from shanghai.vision.pipeline import FrameReads
from shanghai.vision.readings import IndexReadings
from shanghai.vision.scan import PhotoKind, PhotoScanner, _count_note
from shanghai.vision.snapshot import SeenCard, TableSnapshot

RULES = find_variant("shanghai").rules(4)
FRAME = np.random.default_rng(5).integers(0, 255, (900, 1200, 3), dtype=np.uint8)


class Doubted(TableReader):
    """The table read right, with a locating confidence and a reader probability per
    card name (`doubt`: name -> (locating, reading) or (locating, reading, probability
    of its points)); the others at 0.9 and 0.9."""

    def __init__(
        self,
        table: MiniTable,
        doubt: Mapping[str, tuple[float, ...]],
        sure_name: float | None = 0.999,
    ) -> None:
        super().__init__(table)
        self.doubt = doubt
        self.sure_name = sure_name

    def reads(self, found: FrameReads) -> FrameReads:
        pairs = [self.doubt.get(n, (0.9, 0.9)) for n in found.readings.names]
        locating = np.array([p[0] for p in pairs], np.float32)
        reading = np.array([p[1] for p in pairs], np.float32)
        score = np.array([p[2] if len(p) > 2 else p[1] for p in pairs], np.float32)
        readings = IndexReadings(
            found.readings.xyxy, found.readings.names, locating * reading, reading, score
        )
        return FrameReads(readings, found.card_xyxy, found.unread_xyxy, found.unread_best)


def scan(table: MiniTable, reader: TableReader, kind: PhotoKind = PhotoKind.HAND) -> TableSnapshot:
    return PhotoScanner(reader).scan(FRAME, rules=RULES, kind=kind)


def unsure(snapshot: TableSnapshot) -> list[str]:
    return sorted(str(c.card) for c in snapshot.cards if not c.sure)


def spread(names: list[str]) -> MiniTable:
    table = MiniTable()
    for k, name in enumerate(names):
        table.card(name, 200 + 260 * k, 450)
    return table


def test_a_name_the_reader_is_sure_of_is_sure_however_the_locator_doubts() -> None:
    table = spread(["4h", "9c", "Kd"])
    snapshot = scan(table, Doubted(table, {"9c": (0.5, 0.9995)}))
    assert [str(c.card) for c in snapshot.cards] == ["4h", "9c", "Kd"]
    assert unsure(snapshot) == []
    assert "unsure" not in [w.code for w in snapshot.warnings]
    nine = next(c for c in snapshot.cards if str(c.card) == "9c")
    assert nine.confidence < 0.6 and nine.reading is not None and nine.reading > 0.999


def test_a_doubted_read_the_reader_is_not_sure_of_is_marked() -> None:
    table = spread(["4h", "9c", "Kd"])
    snapshot = scan(table, Doubted(table, {"9c": (0.7, 0.95)}))
    assert unsure(snapshot) == ["9c"]
    warning = next(w for w in snapshot.warnings if w.code == "unsure")
    assert "9c" in warning.message


def close_pair(name: str) -> MiniTable:
    """A 4h, then two cards of `name` overlapping, 60 px apart (under 1.5 card sizes)."""
    table = MiniTable()
    table.card("4h", 200, 450)
    table.card(name, 500, 450)
    table.card(name, 560, 450)
    return table


def whole_kd(x: float) -> SeenCard:
    """A Kd read at both diagonal corners, its 126 x 176 px outline `x` px from the left:
    the card whose size tells the photo's card length."""
    return SeenCard(
        Card.parse("Kd"),
        0.95,
        (x, 0.0, x + 126.0, 176.0),
        index_xyxy=((x + 4.0, 6.0, x + 18.0, 36.0), (x + 108.0, 140.0, x + 122.0, 170.0)),
        box_id=0,
    )


def test_a_name_read_on_two_cards_close_together_stays_marked() -> None:
    """Two reads of one name a card's reach apart: maybe one card seen by both corners,
    so the locator's doubt stands."""
    table = close_pair("9c")
    snapshot = scan(table, Doubted(table, {"9c": (0.5, 0.9995)}))
    assert unsure(snapshot) == ["9c", "9c"]


def test_a_name_read_on_two_cards_far_apart_is_sure() -> None:
    """Two decks are played: two reads of one name 3.5 card sizes apart are two cards."""
    table = spread(["4h", "9c", "9c"])
    snapshot = scan(table, Doubted(table, {"9c": (0.5, 0.9995)}))
    assert unsure(snapshot) == []
    assert [str(c.card) for c in snapshot.cards].count("9c") == 2


def test_without_a_name_level_only_the_confidence_decides() -> None:
    table = spread(["4h", "9c", "Kd"])
    snapshot = scan(table, Doubted(table, {"9c": (0.5, 0.9995)}, sure_name=None))
    assert unsure(snapshot) == ["9c"]


def test_with_a_taught_deck_the_name_level_holds_only_for_its_own_cards() -> None:
    """A deck's own reader is sharp on the cards it learnt; a card the deck did not
    enrol (a joker read on an envelope's print) is sure only by its confidence."""
    table = spread(["4h", "JK", "Kd"])
    reader = Doubted(table, {"JK": (0.5, 0.9995)})
    reader.taught = True
    reader.own_cards = frozenset({"4h", "Kd"})
    assert unsure(scan(table, reader)) == ["JK"]
    reader.own_cards = frozenset({"4h", "JK", "Kd"})
    assert unsure(scan(table, reader)) == []
    # A confidence over the sure level needs no name level, enrolled or not.
    reader = Doubted(table, {})
    reader.taught = True
    assert unsure(scan(table, reader)) == []


def test_a_sure_confidence_is_sure_even_for_a_name_read_twice() -> None:
    table = spread(["4h", "9c", "9c"])
    snapshot = scan(table, Doubted(table, {}))
    assert unsure(snapshot) == []


def test_with_a_taught_deck_a_name_read_twice_close_together_stays_marked() -> None:
    """A taught deck's models count one card's two corners as two cards far more often,
    so there a sure confidence does not make a name read twice within a card's reach
    sure; two reads far apart, and a name read once, still are."""
    table = close_pair("9c")
    reader = Doubted(table, {})
    assert unsure(scan(table, reader)) == []
    reader.taught = True
    assert unsure(scan(table, reader)) == ["9c", "9c"]
    far = spread(["4h", "9c", "9c"])
    far_reader = Doubted(far, {})
    far_reader.taught = True
    assert unsure(scan(far, far_reader)) == []


def test_in_a_hand_a_read_whose_points_are_sure_is_sure() -> None:
    """The reader doubts between names worth the same (9c or 9s): a hand's score does
    not hang on it, so the hand is proposed without asking."""
    table = spread(["4h", "9c", "Kd"])
    snapshot = scan(table, Doubted(table, {"9c": (0.7, 0.9, 0.9995)}))
    assert unsure(snapshot) == []
    nine = next(c for c in snapshot.cards if str(c.card) == "9c")
    assert nine.reading is not None and nine.reading < 0.91
    assert nine.score_reading is not None and nine.score_reading > 0.999


def test_in_a_lay_down_the_name_itself_must_be_sure() -> None:
    """The suit makes a meld: the same doubt in a lay-down photo is marked."""
    table = spread(["4h", "9c", "Kd"])
    snapshot = scan(table, Doubted(table, {"9c": (0.7, 0.9, 0.9995)}), PhotoKind.LAY_DOWN)
    assert unsure(snapshot) == ["9c"]


def test_in_a_hand_a_doubt_between_points_stays_marked() -> None:
    table = spread(["4h", "9c", "Kd"])
    snapshot = scan(table, Doubted(table, {"9c": (0.7, 0.9, 0.95)}))
    assert unsure(snapshot) == ["9c"]


def test_sure_points_of_a_name_read_twice_close_together_stay_marked() -> None:
    table = close_pair("9c")
    snapshot = scan(table, Doubted(table, {"9c": (0.7, 0.9, 0.9995)}))
    assert unsure(snapshot) == ["9c", "9c"]


def test_a_card_whose_own_corners_lie_closer_than_a_card_allows_is_marked() -> None:
    """One card read by two indices of one name 40 px apart, where the cards are 176 px
    long: no card's corners lie that close (two cards of that name whose outlines the
    locator joined), so it is marked however confident the reads; the same card read at
    its two diagonal corners is sure."""
    whole = whole_kd(0.0)
    box = (300.0, 0.0, 426.0, 176.0)
    joined = SeenCard(
        Card.parse("4h"),
        0.95,
        box,
        index_xyxy=((304.0, 6.0, 318.0, 36.0), (344.0, 6.0, 358.0, 36.0)),
        box_id=1,
    )
    one = replace(joined, index_xyxy=((304.0, 6.0, 318.0, 36.0), (408.0, 140.0, 422.0, 170.0)))
    scanner = PhotoScanner(TableReader(MiniTable()))
    assert not scanner.is_sure(joined, [whole, joined])
    assert not scanner.is_sure(joined, [whole, joined], PhotoKind.LAY_DOWN)
    assert scanner.is_sure(one, [whole, one])


def test_two_cards_of_one_name_side_by_side_are_two_sure_cards() -> None:
    """Two 8c spread 30 px apart in a row of 132 px cards (0.23 lengths): closer than
    one card's corners can lie, so two cards, and the reader's sure name stands."""
    table = MiniTable()
    table.card("4h", 200, 450)
    table.row(["8c", "8c", "8d"], 600, 450, step=20)
    snapshot = scan(table, Doubted(table, {"8c": (0.6, 0.9995)}))
    assert sorted(str(c.card) for c in snapshot.cards) == ["4h", "8c", "8c", "8d"]
    assert unsure(snapshot) == []


def test_two_corners_of_one_card_named_alike_after_identification_are_marked() -> None:
    """The upright reader names cards after identification folded one card's corners:
    a fan's top card, its outline missed, read 8d at one corner and 6d at the other,
    became two 8d, both sure. Two lone reads of one name lying as one card's opposite
    corners (no other index on that card's face) are marked; a third card of the name
    far away, and the card holding an outline, stay sure."""

    def lone(x: float, y: float, name: str = "8d") -> SeenCard:
        box = (x - 7.0, y - 15.0, x + 7.0, y + 15.0)
        return SeenCard(Card.parse(name), 0.95, box, index_xyxy=(box,))

    whole = whole_kd(600.0)
    # A 126 x 176 card upright: its index centres 102 px across and 139 px down.
    top, bottom, far = lone(100.0, 100.0), lone(202.0, 239.0), lone(1000.0, 600.0)
    cards = [whole, top, bottom, far]
    scanner = PhotoScanner(TableReader(MiniTable()))
    assert [scanner.is_sure(c, cards) for c in cards] == [True, False, False, True]
    on_its_face = lone(151.0, 170.0, "3c")
    cards = [whole, top, bottom, far, on_its_face]
    assert [scanner.is_sure(c, cards) for c in cards[:3]] == [True, True, True]


def test_a_card_of_three_indices_two_of_them_close_is_marked() -> None:
    """Three 1B indices folded into one card: two are its diagonal corners, the third
    lies 43 px from one of them on 176 px cards, which no card's corners do (a covered
    1B's corner beside the top 1B's: two cards counted once). Marked, though its
    corners span a whole card."""
    whole = whole_kd(600.0)
    corners = ((4.0, 6.0, 18.0, 36.0), (108.0, 140.0, 122.0, 170.0))
    folded = SeenCard(
        Card.parse("1B"),
        0.95,
        (0.0, 0.0, 126.0, 176.0),
        index_xyxy=((-39.0, 6.0, -25.0, 36.0), *corners),
        box_id=1,
    )
    scanner = PhotoScanner(TableReader(MiniTable()))
    assert not scanner.is_sure(folded, [whole, folded])
    assert scanner.is_sure(replace(folded, index_xyxy=corners), [whole, folded])


def test_the_unsure_warning_says_when_the_count_is_in_doubt() -> None:
    """A person told "check them" should know what to look for: one card seen at both
    corners, or two cards read as one."""
    whole = whole_kd(600.0)
    top = SeenCard(
        Card.parse("8d"), 0.95, (93.0, 85.0, 107.0, 115.0), index_xyxy=((93.0, 85.0, 107.0, 115.0),)
    )
    bottom = replace(
        top, xyxy=(195.0, 224.0, 209.0, 254.0), index_xyxy=((195.0, 224.0, 209.0, 254.0),)
    )
    cards = [whole, top, bottom]
    assert _count_note(cards, [1, 2]) == "; 8d may be one card seen at both corners"
    assert _count_note(cards, []) == ""
    joined = replace(
        whole,
        card=Card.parse("4h"),
        index_xyxy=((604.0, 6.0, 618.0, 36.0), (644.0, 6.0, 658.0, 36.0)),
    )
    assert _count_note([joined, top], [0]) == "; 4h may be two cards"


class OutlineLost(TableReader):
    """The table read right, but the locator found no outline for the cards named in
    `lost` (close up in a tilted row, the outlines are often boxes around two cards'
    halves that hold neither index)."""

    def __init__(self, table: MiniTable, lost: set[str]) -> None:
        super().__init__(table)
        self.lost = lost

    def reads(self, found: FrameReads) -> FrameReads:
        names = found.readings.names
        held = [
            box
            for box in found.card_xyxy
            if not any(
                name in self.lost and _holds(box, xyxy)
                for name, xyxy in zip(names, found.readings.xyxy, strict=True)
            )
        ]
        boxes = np.asarray(held, np.float32).reshape(-1, 4)
        return FrameReads(found.readings, boxes, found.unread_xyxy, found.unread_best)


def _holds(box: np.ndarray, index: np.ndarray) -> bool:  # type: ignore[type-arg]
    cx, cy = (index[0] + index[2]) / 2, (index[1] + index[3]) / 2
    return bool(box[0] <= cx <= box[2] and box[1] <= cy <= box[3])


def test_a_card_read_where_no_outline_was_found_is_proposed_marked() -> None:
    table = spread(["4h", "9c", "Kd"])
    snapshot = scan(table, OutlineLost(table, {"9c"}))
    assert sorted(str(c.card) for c in snapshot.cards) == ["4h", "9c", "Kd"]
    assert unsure(snapshot) == ["9c"]
    warning = next(w for w in snapshot.warnings if w.code == "unsure")
    assert "no card outline was found around 9c" in warning.message
    # With its outline, the same read is sure: the outline alone made the doubt.
    assert unsure(scan(table, TableReader(table))) == []


class UnderFloor(TableReader):
    """The table read right, but the cards named in `under` (name -> (locating,
    reading)) fall under the read floor and come as unread indices with their reads in
    full, as `CardModels.read_frame` reports them; `named_read` is the models' level
    for naming such a read after all. The name level is on, as the shipped models'."""

    min_read = 0.45
    sure_name = 0.99

    def __init__(
        self, table: MiniTable, under: Mapping[str, tuple[float, float]], named_read: float | None
    ) -> None:
        super().__init__(table)
        self.under = under
        self.named_read = named_read

    def reads(self, found: FrameReads) -> FrameReads:
        pairs = [self.under.get(n, (0.9, 0.9)) for n in found.readings.names]
        locating = np.array([p[0] for p in pairs], np.float32)
        reading = np.array([p[1] for p in pairs], np.float32)
        every = IndexReadings(
            found.readings.xyxy, found.readings.names, locating * reading, reading
        )
        low = np.array([n in self.under for n in every.names], dtype=bool)
        unread = every.take(low)
        return FrameReads(
            every.take(~low),
            found.card_xyxy,
            np.concatenate([found.unread_xyxy, unread.xyxy]),
            found.unread_best + unread.names,
            None,
            unread,
        )


def test_a_read_under_the_floor_the_reader_is_sure_of_is_proposed_marked() -> None:
    table = spread(["4h", "9c", "Kd"])
    under = {"9c": (0.3, 1.0), "Kd": (0.3, 0.9)}
    snapshot = scan(table, UnderFloor(table, under, named_read=0.99))
    # 9c is named after all, never sure (the locator doubted it was an index); Kd,
    # which the reader doubts too, stays a card that could not be read.
    assert sorted(str(c.card) for c in snapshot.cards) == ["4h", "9c"]
    assert unsure(snapshot) == ["9c"]
    assert "unread" in [w.code for w in snapshot.warnings]
    # Without the level, the floor alone decides: 9c names no card either.
    without = scan(table, UnderFloor(table, under, named_read=None))
    assert [str(c.card) for c in without.cards] == ["4h"]


class LocatedTwice(TableReader):
    """The table read right, and the index of `twice` located again under the floor,
    its box shrunk to `share` of the first and read at 1.0: one index boxed twice."""

    min_read = 0.45
    sure_name = 0.99
    named_read = 0.99

    def __init__(self, table: MiniTable, twice: str, share: float) -> None:
        super().__init__(table)
        self.twice = twice
        self.share = share

    def reads(self, found: FrameReads) -> FrameReads:
        k = found.readings.names.index(self.twice)
        x1, y1, x2, y2 = (float(v) for v in found.readings.xyxy[k])
        cx, cy, half = (x1 + x2) / 2, (y1 + y2) / 2, self.share / 2
        w, h = (x2 - x1) * half, (y2 - y1) * half
        box = np.array([[cx - w + 2, cy - h, cx + w + 2, cy + h]], np.float32)
        again = IndexReadings(
            box, (self.twice,), np.array([0.3], np.float32), np.ones(1, np.float32)
        )
        return FrameReads(
            found.readings,
            found.card_xyxy,
            np.concatenate([found.unread_xyxy, box]),
            found.unread_best + again.names,
            None,
            again,
        )


def test_an_index_located_twice_is_not_named_twice() -> None:
    """A second, fainter box over a read index, which the reader is sure of, is that
    index again (`scan.DUPLICATE_COVER`): naming it after all (`named_surely`) would
    count its card twice. A box off the index is another card's corner, and is named."""
    table = spread(["4h", "9c", "Kd"])
    snapshot = scan(table, LocatedTwice(table, "9c", 0.8))
    assert sorted(str(c.card) for c in snapshot.cards) == ["4h", "9c", "Kd"]
    assert unsure(snapshot) == []
    apart = scan(table, LocatedTwice(table, "9c", 3.0))  # the first box covers a ninth of it
    assert sorted(str(c.card) for c in apart.cards) == ["4h", "9c", "9c", "Kd"]


def one_index(name: str, box: tuple[float, float, float, float]) -> SeenCard:
    """A card read from one index, held by some outline but matched to none."""
    return SeenCard(Card.parse(name), 0.95, box, index_xyxy=(box,), outlined=True)


def test_taught_deck_two_corners_of_a_card_the_outlines_misjudge_are_marked() -> None:
    """A taught deck's locator may outline only a patch of cloth beside the cards (a
    126 x 176 px box) and miss the top card's outline: its two corners, 339 px apart
    on a 252 x 352 px card, lie two of the outline's lengths apart, so the photo's
    outlines call them two cards. As the two opposite corners of a card of some size,
    turned as both index boxes stand and with no other index on that face, they are
    marked with a taught deck (`_corners_of_some_card`) and say why; the shipped models
    keep their rule (the same reads stay sure), and two such reads with another card's
    index between them (two copies in a row) stay sure with a taught deck too."""
    patch = whole_kd(0.0)
    top = one_index("14R", (608.0, 12.0, 636.0, 72.0))
    bottom = one_index("14R", (816.0, 280.0, 844.0, 340.0))
    cards = [patch, top, bottom]
    shipped = PhotoScanner(TableReader(MiniTable()))
    assert shipped.is_sure(top, cards) and shipped.is_sure(bottom, cards)
    reader = TableReader(MiniTable())
    reader.taught = True
    taught = PhotoScanner(reader)
    assert not taught.is_sure(top, cards) and not taught.is_sure(bottom, cards)
    assert "14R may be one card seen at both corners" in _count_note(cards, [1, 2], taught=True)
    between = one_index("5h", (712.0, 150.0, 740.0, 210.0))
    assert taught.is_sure(top, [*cards, between]) and taught.is_sure(bottom, [*cards, between])


def test_taught_deck_corners_of_some_card_stay_marked_whatever_the_reader_says() -> None:
    """The name level (`sure_name`) stands for a deck with its own reader, but the
    taught doubts hold on that way too: the same two 14R corners, each read under the
    sure level by a reader sure of its name, are marked with a taught deck and sure
    with the shipped models (their name level's own rule)."""
    patch = whole_kd(0.0)
    top, bottom = (
        replace(one_index("14R", box), confidence=0.5, reading=0.9995, score_reading=0.9995)
        for box in ((608.0, 12.0, 636.0, 72.0), (816.0, 280.0, 844.0, 340.0))
    )
    cards = [patch, top, bottom]
    reader = TableReader(MiniTable())
    reader.sure_name = 0.999
    shipped = PhotoScanner(reader)
    assert shipped.is_sure(top, cards) and shipped.is_sure(bottom, cards)
    taught_reader = TableReader(MiniTable())
    taught_reader.sure_name = 0.999
    taught_reader.taught = True
    taught_reader.own_cards = frozenset({"14R"})  # its own reader learnt the 14R
    taught = PhotoScanner(taught_reader)
    assert not taught.is_sure(top, cards) and not taught.is_sure(bottom, cards)
    alone = [patch, top]  # no other 14R: the reader's name makes it sure
    assert taught.is_sure(top, alone)
    lower = replace(top, reading=0.99, score_reading=0.99)
    assert not taught.is_sure(lower, [patch, lower])  # under the name level: marked


def test_a_card_folded_across_another_is_never_sure_and_says_it_may_be_two() -> None:
    """Two corners folded into one card with other cards' indices on its face
    (`SeenCard.covered`): a guess between one card under another and two copies, so
    marked however confident, and the warning says what to check."""
    whole = whole_kd(600.0)
    folded = SeenCard(
        Card.parse("3s"),
        0.95,
        (0.0, 0.0, 126.0, 176.0),
        index_xyxy=((4.0, 6.0, 18.0, 36.0), (108.0, 140.0, 122.0, 170.0)),
        box_id=1,
    )
    scanner = PhotoScanner(TableReader(MiniTable()))
    assert scanner.is_sure(folded, [whole, folded])
    covered = replace(folded, covered=True)
    assert not scanner.is_sure(covered, [whole, covered])
    assert _count_note([whole, covered], [1]) == "; 3s may be two cards"
