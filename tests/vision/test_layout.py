"""Rows, table order, melds against hands, and seat zones, on hand-placed tables."""

from __future__ import annotations

import math

import numpy as np
import pytest

from shanghai.engine.cards import parse_cards
from shanghai.engine.variant_files import find_variant
from shanghai.vision.layout import RowGrouper, piled_cards, row_gaps
from shanghai.vision.physical import CardIdentifier
from shanghai.vision.readings import IndexReadings
from shanghai.vision.reconstruct import Reconstructor
from shanghai.vision.seating import Seating
from shanghai.vision.zones import SeatZone, ZoneConfig, facing_sector

RULES = find_variant("shanghai").rules(4)
SIX = find_variant("shanghai").rules(6)


def _seat(snapshot, seat: int = 0):  # type: ignore[no-untyped-def]
    return next(s for s in snapshot.seats if s.seat == seat)


def _melds(snapshot, seat: int = 0) -> list[str]:  # type: ignore[no-untyped-def]
    return [" ".join(str(c) for c in m) for m in snapshot.meld_cards(_seat(snapshot, seat))]


def _hand(snapshot, seat: int = 0) -> list[str]:  # type: ignore[no-untyped-def]
    return sorted(str(c) for c in snapshot.hand_cards(_seat(snapshot, seat)))


@pytest.mark.parametrize("angle", [0.0, 25.0, 90.0, 160.0, 180.0, 270.0])
def test_a_row_is_one_meld_in_table_order_with_the_joker_in_place(mini_table, angle) -> None:  # type: ignore[no-untyped-def]
    table = mini_table()
    run = ["4h", "5h", "JK", "7h", "8h"]
    table.row(run, 600, 450, step=20, angle=angle)
    snapshot = Reconstructor(RULES, role="melds")(*table.measure(), table.width, table.height)
    assert _melds(snapshot) == [" ".join(run)]
    verdict = snapshot.meld_verdicts(_seat(snapshot))[0]
    assert verdict.valid and verdict.meld is not None
    assert "JK as 6 of hearts" in verdict.meld.describe()


def test_a_meld_row_and_a_fanned_hand(mini_table) -> None:  # type: ignore[no-untyped-def]
    table = mini_table()
    table.row(["9s", "9d", "9c"], 420, 250, step=20)
    table.row(["3c", "4c", "5c", "6c"], 780, 250, step=20)
    table.fan(["Kd", "2s", "7h", "Qc", "4d"], 600, 470, spread=40)
    snapshot = Reconstructor(RULES)(*table.measure(), table.width, table.height)
    assert sorted(_melds(snapshot)) == ["3c 4c 5c 6c", "9s 9d 9c"]
    assert _hand(snapshot) == sorted(["Kd", "2s", "7h", "Qc", "4d"])
    assert snapshot.hand_score(_seat(snapshot)).points == sum(
        RULES.card_points(c) for c in parse_cards("Kd 2s 7h Qc 4d")
    )


def test_a_player_who_went_out_has_melds_and_no_hand(mini_table) -> None:  # type: ignore[no-untyped-def]
    table = mini_table()
    table.row(["9s", "9d", "9c"], 420, 300, step=20)
    table.row(["3c", "4c", "5c", "6c"], 780, 300, step=20)
    table.row(["Jh", "Js", "Jd"], 600, 520, step=20)
    snapshot = Reconstructor(RULES)(*table.measure(), table.width, table.height)
    assert sorted(_melds(snapshot)) == ["3c 4c 5c 6c", "9s 9d 9c", "Jh Js Jd"]
    assert _hand(snapshot) == []


def test_an_illegal_meld_stays_a_meld_with_reasons(mini_table) -> None:  # type: ignore[no-untyped-def]
    table = mini_table()
    table.row(["9s", "9d", "8c"], 420, 300, step=20)
    table.row(["3c", "4c", "5c", "6c"], 780, 300, step=20)
    table.card("Kd", 600, 530)
    snapshot = Reconstructor(RULES)(*table.measure(), table.width, table.height)
    seat = _seat(snapshot)
    assert sorted(_melds(snapshot)) == ["3c 4c 5c 6c", "9s 9d 8c"]
    verdicts = {
        " ".join(map(str, cards)): v
        for cards, v in zip(snapshot.meld_cards(seat), snapshot.meld_verdicts(seat), strict=True)
    }
    assert not verdicts["9s 9d 8c"].valid and verdicts["9s 9d 8c"].reasons
    assert _hand(snapshot) == ["Kd"]


def test_loose_cards_are_the_hand_in_a_hand_scan(mini_table) -> None:  # type: ignore[no-untyped-def]
    table = mini_table()
    table.card("Ah", 300, 300, 10)
    table.card("10s", 700, 350, -30)
    table.card("JK", 500, 650, 80)
    snapshot = Reconstructor(RULES, role="hand")(*table.measure(), table.width, table.height)
    assert _hand(snapshot) == ["10s", "Ah", "JK"]
    assert snapshot.hand_score(_seat(snapshot)).points == sum(
        RULES.card_points(c) for c in parse_cards("Ah 10s JK")
    )


def test_configured_zones_assign_rows_to_seats(mini_table) -> None:  # type: ignore[no-untyped-def]
    table = mini_table()
    table.row(["9s", "9d", "9c"], 600, 200, step=20, angle=180)  # seat 1, across the table
    table.card("2d", 600, 330, 180)
    table.row(["3c", "4c", "5c", "6c"], 600, 620, step=20)  # seat 0, near the camera
    table.card("Kd", 600, 800)
    zones = ZoneConfig.from_json(
        {
            "zones": [
                {"seat": 0, "polygon": [[0, 0.5], [1, 0.5], [1, 1], [0, 1]]},
                {"seat": 1, "polygon": [[0, 0], [1, 0], [1, 0.5], [0, 0.5]]},
            ]
        }
    )
    snapshot = Reconstructor(RULES, zones=zones)(*table.measure(), table.width, table.height)
    assert _melds(snapshot, 0) == ["3c 4c 5c 6c"] and _hand(snapshot, 0) == ["Kd"]
    assert _melds(snapshot, 1) == ["9s 9d 9c"] and _hand(snapshot, 1) == ["2d"]


def test_default_sectors_split_the_table_between_players(mini_table) -> None:  # type: ignore[no-untyped-def]
    table = mini_table(width=1600, height=1600, scale=1.2)
    # Four players around a square table, each with one meld and one loose card.
    areas = [(800, 1250, 0), (350, 800, 90), (800, 350, 180), (1250, 800, 270)]
    melds = [["3c", "3d", "3s"], ["8d", "8h", "8s"], ["Qs", "Qh", "Qd"], ["7d", "7c", "7s"]]
    loose = ["Kd", "2s", "9h", "Jc"]
    for (x, y, angle), meld, card in zip(areas, melds, loose, strict=True):
        table.row(meld, x, y, step=20, angle=angle)
        table.card(card, x + 0, y, angle)  # placed below, towards the player, in the card frame
        name, _, _, a, up = table.placed[-1]
        r = math.radians(angle)
        table.placed[-1] = (name, x - 200 * math.sin(r), y + 200 * math.cos(r), a, up)
    snapshot = Reconstructor(RULES, players=4)(*table.measure(), table.width, table.height)
    got = sorted(
        (tuple(_melds(snapshot, s.seat)), tuple(_hand(snapshot, s.seat))) for s in snapshot.seats
    )
    want = sorted(((" ".join(m),), (c,)) for m, c in zip(melds, loose, strict=True))
    assert got == want
    # Seat 0 is the sector at the bottom of the frame.
    assert _hand(snapshot, 0) == ["Kd"]


def test_zone_config_is_validated() -> None:
    with pytest.raises(ValueError, match="polygon"):
        ZoneConfig.from_json({"zones": [{"seat": 0}]})
    with pytest.raises(ValueError, match="3 points"):
        ZoneConfig.from_json({"zones": [{"seat": 0, "polygon": [[0, 0], [1, 1]]}]})


def _turned(
    x: float, y: float, angle: float, cx: float = 600, cy: float = 450
) -> tuple[float, float]:
    """(x, y) turned `angle` degrees about (cx, cy), as the whole layout is."""
    a = math.radians(angle)
    dx, dy = x - cx, y - cy
    return cx + dx * math.cos(a) - dy * math.sin(a), cy + dx * math.sin(a) + dy * math.cos(a)


def _area(table, angle: float, hand: list[str], *, step: float, fan: bool = False) -> None:  # type: ignore[no-untyped-def]
    """Two meld rows a little more than a card's length apart, then the hand in front
    (towards the player, the cards' "down"), the whole area turned by `angle`."""
    s = table.scale
    for names, x, y in (
        (["9s", "9d", "9c"], 470, 300),
        (["3c", "4c", "5c", "6c"], 730, 300),
        (["Jh", "Qh", "Kh"], 560, 300 + 96 * s),
    ):
        table.row(names, *_turned(x, y, angle), step=18, angle=angle)
    hx, hy = _turned(600, 300 + 200 * s, angle)
    if fan:
        table.fan(hand, hx, hy, spread=70, angle=angle)
    else:
        table.row(hand, hx, hy, step=step, angle=angle)


@pytest.mark.parametrize("angle", [0.0, 30.0, 150.0, 250.0])
@pytest.mark.parametrize(("step", "fan"), [(26.0, False), (44.0, False), (0.0, True)])
def test_rows_a_card_apart_and_the_hand_in_front_stay_apart(mini_table, angle, step, fan) -> None:  # type: ignore[no-untyped-def]
    """Meld rows laid close, one above the other: the whole card ending a row shows its
    bottom index just above the next row's indices, which must not join the rows. The
    hand in front, spread wide or fanned, is one hand whatever it holds."""
    table = mini_table(width=1600, height=1400, scale=1.2)
    hand = ["2d", "7s", "Kc", "4h", "10d", "As"]
    _area(table, angle, hand, step=step, fan=fan)
    snapshot = Reconstructor(RULES)(*table.measure(), table.width, table.height)
    assert sorted(_melds(snapshot)) == ["3c 4c 5c 6c", "9s 9d 9c", "Jh Qh Kh"]
    assert _hand(snapshot) == sorted(hand)


@pytest.mark.parametrize("angle", [0.0, 60.0, 180.0])
def test_four_index_melds_side_by_side_stay_apart(mini_table, angle) -> None:  # type: ignore[no-untyped-def]
    """A four-index card ending a meld shows its top-right index close to the next
    meld's first index: it sits on the card's trailing edge and must not join them."""
    table = mini_table(four_index=True)
    table.row(["9s", "9d", "9c"], *_turned(500, 450, angle), step=18, angle=angle)
    table.row(["3c", "4c", "5c"], *_turned(500 + 90 * 1.5, 450, angle), step=18, angle=angle)
    snapshot = Reconstructor(RULES, role="melds")(*table.measure(), table.width, table.height)
    assert sorted(_melds(snapshot)) == ["3c 4c 5c", "9s 9d 9c"]


@pytest.mark.parametrize("angle", [0.0, 60.0, 180.0])
def test_a_whole_card_with_a_corner_unread_still_ends_its_meld(mini_table, angle) -> None:  # type: ignore[no-untyped-def]
    """The whole four-index card ending a meld, one of its four corners not read (glare,
    blur): three read corners still say it is seen whole (a covered card shows two),
    so the next meld laid close beside it stays apart."""
    table = mini_table(four_index=True)
    table.row(["9s", "9d", "9c"], *_turned(500, 450, angle), step=18, angle=angle)
    table.row(["3c", "4c", "5c"], *_turned(500 + 96 * 1.5, 450, angle), step=18, angle=angle)
    readings, boxes = table.measure()
    last = [i for i, name in enumerate(readings.names) if name == "9c"]
    assert len(last) == 4
    keep = [i for i in range(len(readings)) if i != last[0]]
    fewer = IndexReadings(
        readings.xyxy[keep],
        tuple(readings.names[i] for i in keep),
        readings.confidence[keep],
    )
    snapshot = Reconstructor(RULES, role="melds")(fewer, boxes, table.width, table.height)
    assert sorted(_melds(snapshot)) == ["3c 4c 5c", "9s 9d 9c"]


@pytest.mark.parametrize("angle", [0.0, 60.0, 180.0])
def test_two_copies_side_by_side_in_a_four_index_set_stay_two(mini_table, angle) -> None:  # type: ignore[no-untyped-def]
    """A set of Qc Qc Qs from two decks: the two Qc strips show four Qc indices in a
    parallelogram, but one three times taller than wide is two strips, not a card."""
    table = mini_table(four_index=True)
    table.row(["Qc", "Qc", "Qs"], *_turned(600, 450, angle), step=18, angle=angle)
    snapshot = Reconstructor(RULES, role="melds")(*table.measure(), table.width, table.height)
    assert _melds(snapshot) == ["Qc Qc Qs"]


@pytest.mark.parametrize("angle", [0.0, 180.0])
def test_copies_whose_strips_share_one_outline_stay_two(mini_table, angle) -> None:  # type: ignore[no-untyped-def]
    """The locator boxes two spread Qh strips of a four-index row as one outline, about
    a card's size: a diagonal of it fits one card, and the strips' side pairs would
    join it, but four corners twice as tall as wide are not one card's."""
    table = mini_table(four_index=True)
    table.row(["Qh", "Qh", "Ac"], *_turned(600, 450, angle), step=24, angle=angle)
    readings, boxes = table.measure()
    joined = np.concatenate(
        [np.minimum(boxes[0, :2], boxes[1, :2]), np.maximum(boxes[0, 2:], boxes[1, 2:])]
    )
    found = CardIdentifier().identify(readings, np.vstack([joined[None], boxes[2:]]))
    assert sorted(str(c.card) for c in found.cards) == ["Ac", "Qh", "Qh"]


@pytest.mark.parametrize("angle", [0.0, 60.0, 180.0, 250.0])
@pytest.mark.parametrize("gap", [6.0, 20.0])
def test_four_index_melds_a_little_apart_stay_apart(mini_table, angle, gap) -> None:  # type: ignore[no-untyped-def]
    """Three four-index melds along a row, `gap` card units apart: the whole card ending
    each one shows its trailing corners just beside the next meld's first indices."""
    table = mini_table(four_index=True, width=1400)
    melds = [["9s", "9d", "9c"], ["3c", "4c", "5c", "6c"], ["Jh", "Qh", "Kh"]]
    x = 300.0
    for names in melds:
        width = 63 + 18 * (len(names) - 1)
        x += width / 2 * 1.5
        table.row(names, *_turned(x, 450, angle, cx=700), step=18, angle=angle)
        x += (width / 2 + gap) * 1.5
    snapshot = Reconstructor(RULES, role="melds")(*table.measure(), table.width, table.height)
    assert sorted(_melds(snapshot)) == ["3c 4c 5c 6c", "9s 9d 9c", "Jh Qh Kh"]


def test_a_neighbours_cards_at_the_edge_of_a_scan_are_left_out(mini_table) -> None:  # type: ignore[no-untyped-def]
    """A photo of one player's area catches the next player's hand at its edge, close
    by but turned to face that player: it is not part of this player's cards."""
    table = mini_table(width=1400)
    table.row(["9s", "9d", "9c"], 520, 330, step=18)
    table.row(["Kd", "2s", "7h", "Qc"], 560, 560, step=30)
    table.row(["5h", "6h", "8c", "Jd"], 930, 420, step=30, angle=-90)
    snapshot = Reconstructor(RULES)(*table.measure(), table.width, table.height)
    assert _melds(snapshot) == ["9s 9d 9c"]
    assert _hand(snapshot) == sorted(["Kd", "2s", "7h", "Qc"])


def test_the_hand_lies_the_way_the_cards_face_not_away_from_the_table(mini_table) -> None:  # type: ignore[no-untyped-def]
    """Cards turned to face the middle of the table (each player's area turned half a
    turn): the hand is still the row the cards' bottoms point to, here nearer the
    middle than the melds."""
    table = mini_table(width=1600, height=1600, scale=1.0)
    areas = [(800, 1300, 180), (300, 800, 270), (800, 300, 0), (1300, 800, 90)]
    melds = [["3c", "3d", "3s"], ["8d", "8h", "8s"], ["Qs", "Qh", "Qd"], ["7d", "7c", "7s"]]
    hands = [["Kd", "2s", "9c"], ["9h", "4c", "Ks"], ["Jc", "5d", "2h"], ["10s", "6h", "Ac"]]
    for (x, y, angle), meld, hand in zip(areas, melds, hands, strict=True):
        r = math.radians(angle)
        down = (-math.sin(r), math.cos(r))  # the cards' bottoms point this way
        table.row(meld, x, y, step=20, angle=angle)
        table.row(hand, x + 130 * down[0], y + 130 * down[1], step=30, angle=angle)
    snapshot = Reconstructor(RULES, players=4)(*table.measure(), table.width, table.height)
    got = sorted(
        (tuple(_melds(snapshot, s.seat)), tuple(_hand(snapshot, s.seat))) for s in snapshot.seats
    )
    want = sorted(((" ".join(m),), tuple(sorted(h))) for m, h in zip(melds, hands, strict=True))
    assert got == want


def _sectors(players: int, first_mid: float, centre: tuple[float, float] = (800.0, 800.0)):  # type: ignore[no-untyped-def]
    """Sector zones as `sector_zones` builds them: the table's centre first, then the rim."""
    span = 360.0 / players
    out = []
    for seat in range(players):
        mid = math.radians(first_mid + seat * span)
        rim = [
            (centre[0] + 5000 * math.cos(mid + d), centre[1] + 5000 * math.sin(mid + d))
            for d in (-math.radians(span / 2), 0.0, math.radians(span / 2))
        ]
        out.append(SeatZone(seat, (centre, *rim), (math.cos(mid), math.sin(mid))))
    return out


def _at(angle_deg: float, distance: float = 500.0) -> tuple[float, float]:
    a = math.radians(angle_deg)
    return 800.0 + distance * math.cos(a), 800.0 + distance * math.sin(a)


def _side_of(seat_deg: float) -> tuple[float, float]:
    """The index side of a row facing a player sitting at `seat_deg`: towards the centre."""
    a = math.radians(seat_deg)
    return -math.cos(a), -math.sin(a)


def test_a_row_past_the_sector_edge_goes_to_the_player_it_faces() -> None:
    zones = _sectors(6, 90.0)  # seats at 90, 150, 210, ... degrees
    # 116 degrees lies in seat 0's sector (60..120), near its edge; the row faces seat 1.
    assert facing_sector(_at(116.0), _side_of(150.0), zones) == 1
    # Turned for the table to read (indices towards the player): the same line.
    back = tuple(-v for v in _side_of(150.0))
    assert facing_sector(_at(116.0), back, zones) == 1  # type: ignore[arg-type]


def test_a_row_well_inside_its_sector_stays_whatever_it_faces() -> None:
    zones = _sectors(6, 90.0)
    assert facing_sector(_at(95.0), _side_of(150.0), zones) == 0
    assert facing_sector(_at(116.0), (0.0, 0.0), zones) is None  # nothing tells
    # Facing the player of its own sector: stays, however near the edge.
    assert facing_sector(_at(118.0), _side_of(90.0), zones) == 0


def _six_seat_rows(mini_table, with_meld: bool):  # type: ignore[no-untyped-def]
    """Seat 1's cards (sitting at 150 degrees) lying past the edge of seat 0's sector
    (90 degrees, 60..120): a meld at 116 degrees, the hand at 112, both facing seat 1."""
    table = mini_table(width=1600, height=1600)
    if with_meld:
        table.row(["7d", "8d", "9d", "10d"], *_at(116.0), step=20, angle=60.0)
    table.row(["2c", "Kh", "5s"], *_at(112.0, 650.0), step=20, angle=60.0)
    found = CardIdentifier(rules=SIX).identify(*table.measure())
    rows, length = RowGrouper().group(found.cards)
    seating = Seating(players=6, rules=SIX)
    seats = seating._seats_of(found.cards, rows, _sectors(6, 90.0), length)
    names = [" ".join(str(found.cards[m].card) for m in r.members) for r in rows]
    return dict(zip(names, seats, strict=True))


def test_a_meld_past_the_sector_edge_takes_its_players_hand_along(mini_table) -> None:  # type: ignore[no-untyped-def]
    assert _six_seat_rows(mini_table, with_meld=True) == {"7d 8d 9d 10d": 1, "2c Kh 5s": 1}


def test_a_hand_alone_near_the_sector_edge_goes_by_its_position(mini_table) -> None:  # type: ignore[no-untyped-def]
    assert _six_seat_rows(mini_table, with_meld=False) == {"2c Kh 5s": 0}


def test_a_gap_in_a_row_is_where_a_card_was_missed(mini_table) -> None:  # type: ignore[no-untyped-def]
    """A row of five with the middle card not seen at all (no index, no outline): a gap
    between its neighbours; the whole row, and a fan, have none."""
    for names, spread in ((["4h", "5h", "6h", "7h", "8h"], 0.0), (["2c", "9d", "Ks", "Jh"], 40.0)):
        table = mini_table()
        if spread:
            table.fan(names, 600, 450, spread)
        else:
            table.row(names, 600, 450, step=20)
        found = CardIdentifier().identify(*table.measure())
        assert row_gaps(found.cards, RowGrouper().group(found.cards)[0]) == []
    table = mini_table()
    table.row(["4h", "5h", "6h", "7h", "8h"], 600, 450, step=20)
    found = CardIdentifier().identify(*table.measure())
    seen = [c for c in found.cards if str(c.card) != "6h"]
    gaps = row_gaps(seen, RowGrouper().group(seen)[0])
    assert [sorted((str(seen[a].card), str(seen[b].card))) for a, b in gaps] == [["5h", "7h"]]


def test_a_spread_row_of_a_deck_printing_its_indices_far_in_is_one_meld(mini_table) -> None:  # type: ignore[no-untyped-def]
    """Indices a quarter of the way further in (as some decks print them) make the two
    of the last card understate its length; the outlines show the whole length of every
    card, so the row's wide steps (0.55 lengths) still link into one meld."""
    table = mini_table(index_in=0.25)
    run = ["4h", "5h", "6h", "7h", "8h"]
    table.row(run, 600, 450, step=48)
    snapshot = Reconstructor(RULES, role="melds")(*table.measure(), table.width, table.height)
    assert _melds(snapshot) == [" ".join(run)]


@pytest.mark.parametrize("angle", [0.0, 8.0, 100.0, 190.0])
def test_a_wide_spread_row_boxed_whole_is_one_row(mini_table, angle) -> None:  # type: ignore[no-untyped-def]
    """Ten cards spread 0.6 card lengths apart, each boxed by its whole outline: a
    covered card's box centre lies down and well to the side of its index, an axis some
    35 degrees off, and its neighbours' indices lie beyond the axes' smoothing reach.
    The row still takes every card, its end cards included, so none is "piled"."""
    table = mini_table(whole_outlines=True, width=1400)
    hand = ["8d", "3c", "Th", "6d", "9h", "7d", "Kh", "2c", "5d", "4s"]
    table.row(hand, 700, 450, step=53, angle=angle)
    found = CardIdentifier().identify(*table.measure())
    rows = RowGrouper().group(found.cards)[0]
    assert [len(row.members) for row in rows] == [len(hand)]
    assert piled_cards(found.cards, rows) == []
