"""Physical cards from read indices and card boxes, on hand-placed tables."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from shanghai.engine.cards import Card
from shanghai.engine.variant_files import find_variant
from shanghai.vision.card_fit import corner_span
from shanghai.vision.card_model import centre_from_index, turn
from shanghai.vision.physical import (
    CardIdentifier,
    _fold_lone_pairs,
    _fold_outlineless,
    shoe_counts,
)
from shanghai.vision.readings import IndexReadings
from shanghai.vision.snapshot import SeenCard


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


def test_one_outline_with_both_corners_is_one_card_even_when_no_pose_fits(mini_table) -> None:  # type: ignore[no-untyped-def]
    """A phone photo in perspective: the card's outline is longer than the card its two
    corners imply (no pair fit), yet one outline holding both corners is one card."""
    for angle in (0.0, 30.0, 90.0):
        table = mini_table()
        table.card("7h", 600, 450, angle)
        readings, boxes = table.measure()
        cx, cy = (boxes[0, :2] + boxes[0, 2:]) / 2
        half = (boxes[0, 2:] - boxes[0, :2]) / 2 * np.array([1.0, 2.2])
        skewed = np.array([[cx - half[0], cy - half[1], cx + half[0], cy + half[1]]], np.float32)
        found = CardIdentifier().identify(readings, skewed)
        assert _names(found) == ["7h"], angle


def test_a_far_corner_without_an_outline_is_the_same_card() -> None:
    """A card's far corner peeking out past the next card of a row, read without an
    outline of its own, is that card (not a second 7h); a copy whose index lies near the
    card's own index (a second 7h lying on it) stays a copy."""
    box = np.array([[100, 100, 163, 188]], np.float32)
    owner = SeenCard(
        Card.parse("7h"), 0.9, (100, 100, 163, 188), index_xyxy=((102, 104, 111, 124),), box_id=0
    )
    far = SeenCard(Card.parse("7h"), 0.8, (152, 164, 161, 184), index_xyxy=((152, 164, 161, 184),))
    near = SeenCard(Card.parse("7h"), 0.8, (118, 104, 127, 124), index_xyxy=((118, 104, 127, 124),))
    folded = _fold_outlineless([owner, far], box, 0.08)
    assert len(folded) == 1 and len(folded[0].index_xyxy) == 2
    assert len(_fold_outlineless([owner, near], box, 0.08)) == 2


def _lone(name: str, x: float, y: float, w: float = 9.0, h: float = 20.0) -> SeenCard:
    """A card read from one index centred at (x, y), no outline of its own."""
    box = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
    return SeenCard(Card.parse(name), 0.9, box, index_xyxy=(box,))


def test_two_indices_down_one_side_of_a_card_without_an_outline_are_one_card() -> None:
    """A fan of a four-index deck shows each covered card's index at both ends of its
    strip; with the strip's outline missed, the two reads are one card, not two (a
    doubled 8d was scored without a warning). The card's size comes from the photo's
    outlines (here one 63 x 88 card box held by another card)."""
    owner = SeenCard(
        Card.parse("4s"), 0.9, (300, 100, 363, 188), index_xyxy=((302, 104, 311, 124),), box_id=0
    )
    top, bottom = _lone("8d", 120, 113), _lone("8d", 121, 175)  # 62 px apart: 0.70 of 88
    folded, _ = _fold_lone_pairs([owner, top, bottom])
    assert sorted(str(c.card) for c in folded) == ["4s", "8d"]
    assert len(next(c for c in folded if str(c.card) == "8d").index_xyxy) == 2


def test_copies_beside_each_other_or_end_to_end_stay_two() -> None:
    """Two copies side by side in a row lie across the indices' long side, and copies
    laid end to end lie a whole card or more apart: neither is a card's side. Without
    any outline in the photo, the card's size is unknown and nothing merges."""
    owner = SeenCard(
        Card.parse("4s"), 0.9, (300, 100, 363, 188), index_xyxy=((302, 104, 311, 124),), box_id=0
    )
    across = [owner, _lone("8d", 120, 113), _lone("8d", 182, 113)]
    end_to_end = [owner, _lone("8d", 120, 113), _lone("8d", 120, 213)]
    assert len(_fold_lone_pairs(across)[0]) == 3
    assert len(_fold_lone_pairs(end_to_end)[0]) == 3
    alone = [_lone("8d", 120, 113), _lone("8d", 121, 175)]
    assert len(_fold_lone_pairs(alone)[0]) == 2


def test_a_turned_four_index_strip_whose_outline_was_missed_counts_once(mini_table) -> None:  # type: ignore[no-untyped-def]
    """A turned row of four-index cards where the locator took the first two strips as
    one outline: the first card's two indices, left without an outline, are one 5d."""
    table = mini_table(four_index=True)
    table.row(["5d", "6d", "7d", "8d"], 600, 450, step=22, angle=20.0)
    readings, boxes = table.measure()
    joined = np.concatenate(
        [np.minimum(boxes[0, :2], boxes[1, :2]), np.maximum(boxes[0, 2:], boxes[1, 2:])]
    )
    found = CardIdentifier().identify(readings, np.vstack([joined[None], boxes[2:]]))
    assert [str(c.card) for c in found.cards].count("5d") == 1


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
    excess = [w for w in found.warnings if w.code == "excess"]
    assert len(excess) == 1 and "copies of Kc" in excess[0].message
    assert [found.cards[i].card for i in excess[0].cards] == [found.cards[0].card] * (holds + 1)


def test_cards_of_another_deck_family_are_dropped_and_reported(mini_table) -> None:  # type: ignore[no-untyped-def]
    table = mini_table()
    table.card("5R", 300, 450)
    table.card("5h", 800, 450)
    found = CardIdentifier(rules=find_variant("shanghai").rules(4)).identify(*table.measure())
    assert _names(found) == ["5h"]
    # read, so its box is not an unread card: reported as not in play
    assert len(found.foreign_boxes) == 1
    assert [w.code for w in found.warnings] == ["not-in-play"]
    assert "5R" in found.warnings[0].message


def test_face_down_cards_are_ignored(mini_table) -> None:  # type: ignore[no-untyped-def]
    table = mini_table()
    table.card("9c", 300, 450, face_up=False)
    table.card("9d", 800, 450)
    readings, boxes = table.measure()
    # A detector that boxed the face-down card anyway still gives it no identity.
    boxes = np.concatenate([boxes, [[250, 380, 350, 520]]]).astype(np.float32)
    found = CardIdentifier().identify(readings, boxes)
    assert _names(found) == ["9d"]


def test_an_index_that_no_card_holds_is_kept_as_a_card_without_an_outline() -> None:
    # The locator lost the card's outline (or the "index" is print on a score pad): the
    # read stands, marked, so the scan can propose it unsure instead of dropping it.
    readings = IndexReadings(
        np.array([[10, 10, 20, 30], [500, 400, 510, 420]], np.float32),
        ("Ah", "7c"),
        np.ones(2, np.float32),
    )
    boxes = np.array([[480, 380, 560, 500]], np.float32)
    found = CardIdentifier().identify(readings, boxes)
    assert {str(c.card): c.outlined for c in found.cards} == {"Ah": False, "7c": True}
    alone = CardIdentifier().identify(readings, np.zeros((0, 4), np.float32))
    assert [c.outlined for c in alone.cards] == [False, False]


def test_each_card_keeps_its_confidence_and_location(mini_table) -> None:  # type: ignore[no-untyped-def]
    table = mini_table()
    table.card("Qs", 600, 450)
    found = CardIdentifier().identify(*table.measure())
    card = found.cards[0]
    x1, y1, x2, y2 = card.xyxy
    assert x1 < 600 < x2 and y1 < 450 < y2
    assert card.confidence == np.float32(0.9)


@pytest.mark.parametrize("angle", [0.0, 25.0, 70.0, 160.0, 215.0])
def test_each_card_of_a_turned_row_gets_its_own_box(mini_table, angle: float) -> None:  # type: ignore[no-untyped-def]
    """In a turned row the box of each covered card's strip also holds the next card's
    index; each card must still get the box of its own visible part."""
    table = mini_table()
    names = ["3h", "4h", "5h", "6h", "7h"]
    table.row(names, 600, 450, step=22, angle=angle)
    readings, boxes = table.measure()
    assert len(boxes) == len(names)  # every card shows enough to be boxed, in order
    found = CardIdentifier().identify(readings, boxes)
    got = {str(c.card): c.xyxy for c in found.cards}
    for name, box in zip(names, boxes.tolist(), strict=True):
        assert got[name] == pytest.approx(box), (angle, name)


def test_copies_at_both_ends_of_a_row_stay_two(mini_table) -> None:  # type: ignore[no-untyped-def]
    """The first card's index and the last card's far corner could pass for one card's
    two corners; but the cards between lie on that card's face, so it cannot be one."""
    for angle in (0.0, 35.0, 120.0):
        table = mini_table()
        table.row(["7h", "8h", "9h", "7h"], 600, 450, step=24, angle=angle)
        found = CardIdentifier().identify(*table.measure())
        assert _names(found) == ["7h", "7h", "8h", "9h"], angle


def test_a_four_index_card_seen_whole_counts_once(mini_table) -> None:  # type: ignore[no-untyped-def]
    for angle in (0.0, 30.0, 100.0):
        table = mini_table(four_index=True)
        table.card("Qs", 600, 450, angle)
        readings, boxes = table.measure()
        assert len(readings) == 4
        found = CardIdentifier().identify(readings, boxes)
        assert _names(found) == ["Qs"], angle


def test_four_index_cards_in_a_row_count_once_each(mini_table) -> None:  # type: ignore[no-untyped-def]
    """Covered four-index cards show the two indices of their uncovered side."""
    for angle in (0.0, 40.0, 180.0):
        table = mini_table(four_index=True)
        table.row(["5d", "6d", "7d", "8d"], 600, 450, step=22, angle=angle)
        readings, boxes = table.measure()
        assert len(readings) == 3 * 2 + 4
        found = CardIdentifier().identify(readings, boxes)
        assert _names(found) == ["5d", "6d", "7d", "8d"], angle


def _diagonal_pair(name: str, top: tuple[float, float], turn_deg: float) -> list[SeenCard]:
    """The two read corners of one 63 x 88 card turned `turn_deg` clockwise whose
    top-left index is centred at `top`: an upright index box and its opposite one."""
    down = turn(np.array([0.0, 1.0]), turn_deg)
    tl = np.asarray(top, dtype=np.float64)
    centre = centre_from_index(tl, down, 88.0)
    br = 2 * centre - tl
    return [_lone(name, *tl), _lone(name, *br)]


def test_the_two_corners_of_a_card_without_an_outline_are_one_card() -> None:
    """The top card of a fan shows both its corners, and when the locator misses its
    outline the two reads stood as two cards (an 8d counted twice, in silence)."""
    owner = SeenCard(
        Card.parse("4s"), 0.9, (300, 100, 363, 188), index_xyxy=((302, 104, 311, 124),), box_id=0
    )
    for turn_deg in (-15.0, 0.0, 20.0):
        folded, _ = _fold_lone_pairs([owner, *_diagonal_pair("8d", (120, 113), turn_deg)])
        assert sorted(str(c.card) for c in folded) == ["4s", "8d"], turn_deg
        assert len(next(c for c in folded if str(c.card) == "8d").index_xyxy) == 2


def _outlined(card: SeenCard, box_id: int, grow: float = 30.0) -> SeenCard:
    """The card with an outline of its own (`box_id`): a box around its index."""
    x1, y1, x2, y2 = card.index_xyxy[0]
    box = (x1 - 5.0, y1 - 5.0, x2 + grow, y2 + grow)
    return SeenCard(card.card, card.confidence, box, index_xyxy=card.index_xyxy, box_id=box_id)


def test_the_two_corners_of_a_card_in_two_outlines_are_one_card() -> None:
    """A card lying across the middle of another splits its visible part in two, and
    the locator boxes each part: its two corners, each in an outline of its own, stood
    as two cards (a 9c under an 8h on a taught deck's validation photos). Folded, the
    card keeps one outline, spans both, and the other is reported as folded (read, so
    not an outline of a card left unread). The card's length is the median outline's:
    here three whole cards beside it, 88 px long."""
    owner = SeenCard(
        Card.parse("4s"), 0.9, (300, 100, 363, 188), index_xyxy=((302, 104, 311, 124),), box_id=0
    )
    others = [replace(owner, box_id=k, card=Card.parse(n)) for k, n in ((3, "5s"), (4, "6s"))]
    for turn_deg in (-15.0, 0.0, 20.0):
        top, bottom = _diagonal_pair("9c", (120, 113), turn_deg)
        halves = [_outlined(top, 1), _outlined(bottom, 2)]
        folded, boxes = _fold_lone_pairs([owner, *others, *halves], outlined=True)
        assert sorted(str(c.card) for c in folded) == ["4s", "5s", "6s", "9c"], turn_deg
        nine = next(c for c in folded if str(c.card) == "9c")
        assert len(nine.index_xyxy) == 2 and nine.box_id == 1 and boxes == (2,)
        assert nine.xyxy[0] <= halves[0].xyxy[0] + 1e-3 and nine.xyxy[3] >= halves[1].xyxy[3] - 1e-3
        # One corner outlined, the other not: the card keeps the outline, none folded.
        folded, boxes = _fold_lone_pairs([owner, *others, top, halves[1]], outlined=True)
        assert len(folded) == 4 and boxes == ()
        assert next(c for c in folded if str(c.card) == "9c").box_id == 2


def test_a_taught_decks_span_folds_the_corners_of_a_card_cut_in_halves() -> None:
    """A taught deck printed with a band across the middle: its locator boxes each half
    of a card, so every outline of the photo measures half a card and a card's two
    corners, each in a half's outline, lie twice the outlines' length apart, too far
    for one card by them (two 5B and two 11Y of a validation close-up). The deck's span,
    its corners apart in index sizes measured at enrolment, tells the card's length
    from the index boxes themselves; a deck whose corners lie further apart does not
    fold them, and copies with a card between them stay two."""
    half = SeenCard(
        Card.parse("4s"), 0.9, (300, 100, 363, 144), index_xyxy=((302, 104, 311, 124),), box_id=0
    )
    others = [replace(half, box_id=k, card=Card.parse(n)) for k, n in ((3, "5s"), (4, "6s"))]
    for turn_deg in (-15.0, 0.0, 20.0):
        top, bottom = _diagonal_pair("9c", (120, 113), turn_deg)
        span = corner_span(top.index_xyxy[0], bottom.index_xyxy[0])
        halves = [_outlined(top, 1, grow=20.0), _outlined(bottom, 2, grow=20.0)]
        cards = [half, *others, *halves]
        assert len(_fold_lone_pairs(cards, outlined=True)[0]) == 5, turn_deg
        folded, boxes = _fold_lone_pairs(cards, outlined=True, span=span)
        assert sorted(str(c.card) for c in folded) == ["4s", "5s", "6s", "9c"], turn_deg
        assert boxes == (2,)
        assert len(_fold_lone_pairs(cards, outlined=True, span=1.5 * span)[0]) == 5
        centre = (top.index_centers[0] + bottom.index_centers[0]) / 2
        between = _outlined(_lone("Kh", *centre), 5)
        assert len(_fold_lone_pairs([*cards, between], outlined=True, span=span)[0]) == 6
    # With no outline at all in the photo, the span alone sizes the card.
    pair = _diagonal_pair("8d", (120, 113), 0.0)
    span = corner_span(pair[0].index_xyxy[0], pair[1].index_xyxy[0])
    assert len(_fold_lone_pairs(pair)[0]) == 2
    assert len(_fold_lone_pairs(pair, span=span)[0]) == 1


def test_copies_in_two_outlines_with_a_card_between_stay_two() -> None:
    """Two outlined copies of one fan lie a diagonal apart with the cards between them
    on the implied face, and two corners in one outline are left to the corner fits
    (copies of one row): neither is folded. Nor are two outlined copies in a lay-down,
    whose melds hold copies of wild cards laid apart."""
    owner = SeenCard(
        Card.parse("4s"), 0.9, (300, 100, 363, 188), index_xyxy=((302, 104, 311, 124),), box_id=0
    )
    others = [replace(owner, box_id=k, card=Card.parse(n)) for k, n in ((4, "5s"), (5, "6s"))]
    top, bottom = _diagonal_pair("9c", (120, 113), 0.0)
    centre = (top.index_centers[0] + bottom.index_centers[0]) / 2
    between = _outlined(_lone("Kh", *centre), 3)
    split = [owner, *others, _outlined(top, 1), _outlined(bottom, 2)]
    assert len(_fold_lone_pairs(split, outlined=True)[0]) == 4  # nothing between: folded
    assert len(_fold_lone_pairs(split)[0]) == 5  # not in a lay-down
    assert len(_fold_lone_pairs([*split, between], outlined=True)[0]) == 6
    same = [owner, *others, _outlined(top, 1), _outlined(bottom, 1)]
    assert len(_fold_lone_pairs(same, outlined=True)[0]) == 5


def test_copies_a_diagonal_apart_with_a_card_between_stay_two() -> None:
    """Two copies in one fan or row have the cards between them lying on the face the
    diagonal implies; and copies in line with each other are not turned as a card's
    corners are."""
    owner = SeenCard(
        Card.parse("4s"), 0.9, (300, 100, 363, 188), index_xyxy=((302, 104, 311, 124),), box_id=0
    )
    pair = _diagonal_pair("8d", (120, 113), 0.0)
    centre = (pair[0].index_centers[0] + pair[1].index_centers[0]) / 2
    between = _lone("Kh", *centre)
    assert len(_fold_lone_pairs([owner, *pair, between])[0]) == 4
    in_line = [owner, _lone("8d", 120, 113), _lone("8d", 120, 200)]
    assert len(_fold_lone_pairs(in_line)[0]) == 3


def test_in_a_hand_a_card_under_another_showing_both_corners_is_one_card_to_check() -> None:
    """A 3s under a 9d in a hand shows both its corners, and the 9d's index lies on the
    face they imply, off the line between them (a taught deck's validation photo: two
    3s, one wrong). In a hand (`covered`) the two are folded into one card marked
    `covered`, never sure, since two copies can lie so too; a lay-down keeps them two
    (its melds hold copies of wild cards), pairs with nothing between stay plain folds,
    and an index in line between them (two copies three cards apart in a row: two 12Y
    on a validation hand) keeps them two."""
    owner = SeenCard(
        Card.parse("4s"), 0.9, (300, 100, 363, 188), index_xyxy=((302, 104, 311, 124),), box_id=0
    )
    pair = _diagonal_pair("3s", (120, 113), 10.0)
    start, end = pair[0].index_centers[0], pair[1].index_centers[0]
    step = (end - start) / np.hypot(*(end - start))
    across = _lone("9d", *((start + end) / 2 + 30.0 * np.array([step[1], -step[0]])))
    hand, _ = _fold_lone_pairs([owner, *pair, across], outlined=True, covered=True)
    assert sorted(str(c.card) for c in hand) == ["3s", "4s", "9d"]
    three = next(c for c in hand if str(c.card) == "3s")
    assert three.covered and len(three.index_xyxy) == 2
    assert not any(c.covered for c in hand if c is not three)
    assert len(_fold_lone_pairs([owner, *pair, across], outlined=True)[0]) == 4
    plain, _ = _fold_lone_pairs([owner, *pair], outlined=True, covered=True)
    assert len(plain) == 2 and not any(c.covered for c in plain)
    in_line = [owner, _lone("3s", 120, 113), _lone("3s", 120, 200), across]
    assert len(_fold_lone_pairs(in_line, outlined=True, covered=True)[0]) == 4
    row = _lone("9d", *((2 * start + end) / 3))
    assert len(_fold_lone_pairs([owner, *pair, row], outlined=True, covered=True)[0]) == 4


def test_a_card_read_at_both_corners_across_a_pair_does_not_keep_it_two() -> None:
    """A card lying whole across the middle of another can put one of its own indices on
    the line between the covered card's corners (a 12Y across a band-look 10G: two 10G on
    a taught deck's validation photo). A row's middle cards show one corner each, so only
    a card seen at one corner keeps the pair two; one read at both corners lies across."""
    owner = SeenCard(
        Card.parse("4s"), 0.9, (300, 100, 363, 188), index_xyxy=((302, 104, 311, 124),), box_id=0
    )
    pair = _diagonal_pair("10G", (120, 113), 10.0)
    start, end = pair[0].index_centers[0], pair[1].index_centers[0]
    on_line = (start + end) / 2
    near = _lone("12Y", *on_line).index_xyxy[0]
    far = _lone("12Y", *(on_line + np.array([70.0, -60.0]))).index_xyxy[0]
    whole = SeenCard(Card.parse("12Y"), 0.9, near, index_xyxy=(near, far))
    hand, _ = _fold_lone_pairs([owner, *pair, whole], outlined=True, covered=True)
    assert sorted(str(c.card) for c in hand) == ["10G", "12Y", "4s"]
    assert next(c for c in hand if str(c.card) == "10G").covered
    # the same index alone, a row's middle card, keeps them two
    middle = _lone("12Y", *on_line)
    assert len(_fold_lone_pairs([owner, *pair, middle], outlined=True, covered=True)[0]) == 4
