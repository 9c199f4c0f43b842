"""Cards seen without a readable index: counted in their rows, never scored."""

from __future__ import annotations

import numpy as np

from shanghai.engine.variant_files import find_variant
from shanghai.vision.layout import CardRow, RowGrouper
from shanghai.vision.physical import CardIdentifier
from shanghai.vision.readings import IndexReadings
from shanghai.vision.reconstruct import Reconstructor
from shanghai.vision.seating import _keep_units_together
from shanghai.vision.unread import count_unread, unread_boxes

RULES = find_variant("shanghai").rules(4)


def _blur(readings: IndexReadings, names: set[str]) -> IndexReadings:
    """The readings without the indices of `names` (blurred, too small to read)."""
    keep = [k for k, name in enumerate(readings.names) if name not in names]
    return IndexReadings(
        readings.xyxy[keep], tuple(readings.names[k] for k in keep), readings.confidence[keep]
    )


def _seat_cards(snapshot) -> tuple[list[str], list[str]]:  # type: ignore[no-untyped-def]
    seat = snapshot.seats[0]
    melds = [" ".join(str(c) for c in m) for m in snapshot.meld_cards(seat)]
    return sorted(melds), sorted(str(c) for c in snapshot.hand_cards(seat))


def test_a_meld_read_at_one_card_is_not_hand(mini_table) -> None:  # type: ignore[no-untyped-def]
    # Kc Kd Kh Ks with three blurred: the Kc alone is one read card in a row of four.
    table = mini_table()
    table.row(["Kc", "Kd", "Kh", "Ks"], 600, 250, step=20)
    table.row(["3c", "9h", "Qd"], 600, 520, step=20)
    readings, boxes = table.measure()
    snapshot = Reconstructor(RULES)(_blur(readings, {"Kd", "Kh", "Ks"}), boxes, 1200, 900)
    melds, hand = _seat_cards(snapshot)
    assert melds == ["Kc"]
    assert hand == ["3c", "9h", "Qd"]
    assert [w.message for w in snapshot.warnings if w.code == "unread"] == [
        "3 cards could not be read (covered, blurred or too small): add them"
    ]


def test_without_the_unread_boxes_a_lone_card_is_still_hand(mini_table) -> None:  # type: ignore[no-untyped-def]
    # The same Kc with nothing around it: a loose card, hand as before.
    table = mini_table()
    table.card("Kc", 600 - 30, 250)
    table.row(["3c", "9h", "Qd"], 600, 520, step=20)
    readings, boxes = table.measure()
    snapshot = Reconstructor(RULES)(readings, boxes, 1200, 900)
    assert _seat_cards(snapshot) == ([], ["3c", "9h", "Kc", "Qd"])


def test_a_run_with_a_blurred_card_nearest_the_player_is_still_a_meld(mini_table) -> None:  # type: ignore[no-untyped-def]
    # A player who went out: 8d blurred, 9d 10d Jd Qd legal as read; no hand.
    table = mini_table()
    table.row(["Js", "Jh", "Jc"], 600, 250, step=20)
    table.row(["8d", "9d", "10d", "Jd", "Qd"], 600, 520, step=20)
    readings, boxes = table.measure()
    snapshot = Reconstructor(RULES)(_blur(readings, {"8d"}), boxes, 1200, 900)
    assert _seat_cards(snapshot) == (["9d 10d Jd Qd", "Js Jh Jc"], [])


def test_unread_boxes_join_the_pieces_of_a_row(mini_table) -> None:  # type: ignore[no-untyped-def]
    # 4h [5h 6h] 7h: the reading stops at the blurred cards, the boxes join the pieces.
    table = mini_table()
    table.row(["4h", "5h", "6h", "7h"], 600, 300, step=20)
    table.row(["Qs", "Qd", "Qc"], 600, 600, step=20)
    readings, boxes = table.measure()
    found = CardIdentifier().identify(_blur(readings, {"5h", "6h"}), boxes)
    rows, length = RowGrouper().group(found.cards)
    assert sorted(len(r.members) for r in rows) == [1, 1, 3]
    unread = unread_boxes(boxes, found.cards)
    assert len(unread) == 2
    counts, joined = count_unread(found.cards, rows, unread, length)
    pieces = [k for k, r in enumerate(rows) if len(r.members) == 1]
    assert sorted(counts[k] for k in pieces) == [1, 1]
    assert joined == [tuple(pieces)]
    assert all(counts[k] == 0 for k, r in enumerate(rows) if len(r.members) == 3)


def test_a_box_a_read_card_took_is_not_unread() -> None:
    readings = IndexReadings(
        np.asarray([[10, 10, 20, 30]], np.float32), ("7h",), np.ones(1, np.float32)
    )
    boxes = np.asarray([[5, 5, 70, 95], [300, 300, 365, 390]], np.float32)
    found = CardIdentifier().identify(readings, boxes)
    assert unread_boxes(boxes, found.cards).tolist() == [[300, 300, 365, 390]]


def test_rows_joined_by_unread_cards_go_to_one_seat() -> None:
    # A hand read in two pieces (3 cards and 1) that two sectors split: the piece
    # holding more cards takes the other along; a row joined to nothing stays.
    big, small, other = (
        CardRow((0, 1, 2), (0.0, -1.0)),
        CardRow((3,), (0.0, -1.0)),
        CardRow((4, 5, 6), (0.0, -1.0)),
    )
    piece = {0: 0, 3: 0, 4: 2}
    out = _keep_units_together({0: [big, other], 1: [small]}, piece)
    assert out == {0: [big, other, small]}
    assert _keep_units_together({1: [small]}, {}) == {1: [small]}


def test_a_box_around_two_cards_read_is_not_a_card_unread(mini_table) -> None:  # type: ignore[no-untyped-def]
    # The locator boxed two overlapping cards of a hand as one as well as each alone:
    # both are read, so the joint box is no third card ("could not be read" on a photo
    # read right).
    table = mini_table()
    table.row(["10d", "8s"], 600, 450, step=40)
    readings, boxes = table.measure()
    joint = [boxes[:, 0].min(), boxes[:, 1].min(), boxes[:, 2].max() - 20, boxes[:, 3].max()]
    with_joint = np.vstack([boxes, np.asarray([joint], np.float32)])
    snapshot = Reconstructor(RULES)(readings, with_joint, 1200, 900)
    assert sorted(str(c.card) for c in snapshot.cards) == ["10d", "8s"]
    assert snapshot.unread == ()
    assert not [w for w in snapshot.warnings if w.code == "unread"]


def test_a_card_unread_between_cards_read_keeps_its_box(mini_table) -> None:  # type: ignore[no-untyped-def]
    # The middle card of three is blurred: its visible strip lies between its
    # neighbours' boxes, which do not cover it, so it is still a card to add.
    table = mini_table()
    table.card("10d", 540, 450)
    table.card("7c", 580, 450, readable=False)
    table.card("8s", 620, 450)
    readings, boxes = table.measure()
    cards = Reconstructor(RULES)(readings, boxes, 1200, 900)
    assert sorted(str(c.card) for c in cards.cards) == ["10d", "8s"]
    assert len(cards.unread) == 1
    assert [w.message for w in cards.warnings if w.code == "unread"] == [
        "1 card could not be read (covered, blurred or too small): add it"
    ]


def _around(boxes: np.ndarray, pad: float) -> np.ndarray:
    """One box around `boxes`, reaching `pad` px past them on every side."""
    return np.asarray(
        [
            [
                boxes[:, 0].min() - pad,
                boxes[:, 1].min() - pad,
                boxes[:, 2].max() + pad,
                boxes[:, 3].max() + pad,
            ]
        ],
        np.float32,
    )


def _pad_for(cover: float, width: float, height: float) -> float:
    """The pad on every side of a row of boxes `width` x `height` (which they fill) that
    leaves them covering `cover` of the box around them: (w + 2p)(h + 2p) = w h / cover.
    Padded on every side the box stays card-sized, as a card under them would box
    (`unread.AROUND_READ`)."""
    area = width * height / cover
    root = float(np.sqrt((width + height) ** 2 - 4 * (width * height - area)))
    return (root - (width + height)) / 4


def _unread_with(mini_table, names: list[str], around: list[str], cover: float):  # type: ignore[no-untyped-def]
    """The unread boxes of a row of `names`, read, plus one box around the cards
    `around` that their own boxes cover `cover` of."""
    table = mini_table()
    table.row(names, 600, 450, step=40)
    readings, boxes = table.measure()
    found = CardIdentifier().identify(readings, boxes)
    by_name = {str(c.card): boxes[c.box_id] for c in found.cards if c.box_id is not None}
    inner = np.asarray([by_name[n] for n in around], np.float32)
    width = float(inner[:, 2].max() - inner[:, 0].min())
    height = float(inner[:, 3].max() - inner[:, 1].min())
    extra = _around(inner, _pad_for(cover, width, height))
    return unread_boxes(np.vstack([boxes, extra]), found.cards)


def test_a_box_reaching_past_three_cards_read_is_not_a_card_unread(mini_table) -> None:  # type: ignore[no-untyped-def]
    # The locator's box around a fan of three read cards reaches past their own boxes
    # (they cover 0.8 of it): still no fourth card.
    unread = _unread_with(mini_table, ["10d", "8s", "4c"], ["10d", "8s", "4c"], 0.8)
    assert len(unread) == 0


def test_a_box_around_one_card_read_needs_more_cover(mini_table) -> None:  # type: ignore[no-untyped-def]
    # Holding one read card's index, a box its card covers 0.8 of may be a card of its
    # own under it: it stays a card to add.
    unread = _unread_with(mini_table, ["10d", "8s", "4c"], ["4c"], 0.8)
    assert len(unread) == 1


def test_a_box_two_read_cards_cover_little_of_is_a_card_unread(mini_table) -> None:  # type: ignore[no-untyped-def]
    # Two read indices inside, but 0.6 of the box covered: a card of its own.
    unread = _unread_with(mini_table, ["10d", "8s", "4c"], ["10d", "8s"], 0.6)
    assert len(unread) == 1


def _unread_beside_one_card(mini_table, scale: float):  # type: ignore[no-untyped-def]
    """The unread boxes of a photo of one card read, plus an outline with no index
    `scale` times the card's box, lying apart from it."""
    table = mini_table()
    table.card("10d", 300, 450)
    readings, boxes = table.measure()
    x0, y0, x1, y1 = boxes[0].tolist()
    w, h = (x1 - x0) * scale, (y1 - y0) * scale
    other = np.asarray([[700, 100, 700 + w, 100 + h]], np.float32)
    found = CardIdentifier().identify(readings, np.vstack([boxes, other]))
    return unread_boxes(np.vstack([boxes, other]), found.cards)


def test_an_outline_far_larger_than_any_card_read_is_no_card(mini_table) -> None:  # type: ignore[no-untyped-def]
    # On real photos a deck's locator outlined a patch of a blanket two to three cards
    # large beside the one card read: no card is that large beside it.
    assert len(_unread_beside_one_card(mini_table, 2.5)) == 0


def test_an_outline_somewhat_larger_than_the_cards_read_is_still_a_card(mini_table) -> None:  # type: ignore[no-untyped-def]
    # A card nearer the camera than the one read, or turned, boxes larger: it stays a
    # card to add.
    assert len(_unread_beside_one_card(mini_table, 1.5)) == 1


def _unread_around_one_card(mini_table, scale: float):  # type: ignore[no-untyped-def]
    """The unread boxes of a photo of one card read, plus an outline with no index of
    its own `scale` times the card's box, centred on the card."""
    table = mini_table()
    table.card("10d", 300, 450)
    readings, boxes = table.measure()
    x0, y0, x1, y1 = boxes[0].tolist()
    cx, cy, w, h = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) * scale, (y1 - y0) * scale
    around = np.asarray([[cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2]], np.float32)
    found = CardIdentifier().identify(readings, np.vstack([boxes, around]))
    return unread_boxes(np.vstack([boxes, around]), found.cards)


def test_an_outline_around_a_card_read_larger_than_a_card_is_no_card(mini_table) -> None:  # type: ignore[no-untyped-def]
    # On real photos a deck's locator boxed a drum pad around the one card read, 1.7
    # times its box: no card lying there boxes so large. Beside the card the same
    # outline would stay a card (a card nearer the camera), as would one around it
    # that a card under it could box.
    assert len(_unread_around_one_card(mini_table, 1.7)) == 0
    assert len(_unread_beside_one_card(mini_table, 1.7)) == 1
    assert len(_unread_around_one_card(mini_table, 1.1)) == 1


def _unread_with_a_strip(mini_table, width: float, reach: float):  # type: ignore[no-untyped-def]
    """The unread boxes of a photo of one card read, plus an outline over its right
    edge (holding its right index): `width` of the card wide, reaching `reach` of the
    card's size past its right and top edges."""
    table = mini_table()
    table.card("10d", 300, 450)
    readings, boxes = table.measure()
    x0, y0, x1, y1 = boxes[0].tolist()
    w, h = x1 - x0, y1 - y0
    strip = np.asarray([[x1 - width * w, y0 - reach * h, x1 + reach * w, y1]], np.float32)
    assert any(strip[0, 0] <= (b[0] + b[2]) / 2 <= strip[0, 2] for b in readings.xyxy.tolist())
    found = CardIdentifier().identify(readings, np.vstack([boxes, strip]))
    return unread_boxes(np.vstack([boxes, strip]), found.cards)


def test_a_strip_of_a_card_read_is_no_card_of_its_own(mini_table) -> None:  # type: ignore[no-untyped-def]
    # On real photos the locator boxed a 10s's right edge (with its corner) as well as
    # the whole card: 0.47 of the card, 0.88 inside it. Such a part is no card to add;
    # an outline as large as most of the card, or lying mostly past it, may be a card
    # under it and stays.
    assert len(_unread_with_a_strip(mini_table, 0.4, 0.05)) == 0
    assert len(_unread_with_a_strip(mini_table, 0.8, 0.05)) == 1
    assert len(_unread_with_a_strip(mini_table, 0.4, 0.25)) == 1
