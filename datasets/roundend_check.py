"""Compare a `TableSnapshot` with a generated round-end scene's truth.

Used by the evaluation benchmark and the tests. For each player the scene shows (every
seat in a whole-table view, the one seat in a player view) it records whether the hand
scores exactly right, whether every meld came back with its cards in table order, and
whether the contract verdict (`check_lay_down(..., ordered=True)` on the seat's melds)
agrees with the verdict on the true melds. Predicted seats are matched to true seats by
the cards they share (the seat numbers of automatic zones are the camera's, not the
game's).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from shanghai.engine.cards import Card, parse_cards
from shanghai.engine.contracts import check_lay_down
from shanghai.engine.errors import ShanghaiError
from shanghai.engine.scoring import hand_points
from shanghai.engine.variant_files import find_variant
from shanghai.engine.variants import Rules
from shanghai.vision.snapshot import SeatSnapshot, TableSnapshot

__all__ = ["PlayerCheck", "check_round_end", "scene_kind", "scene_players", "scene_rules"]


@dataclass(frozen=True, slots=True)
class PlayerCheck:
    """One player of one scene: what the pipeline got right."""

    scene: str
    kind: str
    seat: int
    readable: bool
    """Every card of this player shows at least one readable index in the frame."""
    hand_right: bool
    melds_right: bool
    verdict_right: bool | None
    """None when the round has no contract (manipulation rummy)."""
    points: int | None
    true_points: int


def scene_rules(meta: Mapping[str, Any]) -> Rules:
    round_ = meta["round"]
    return find_variant(round_["variant"]).rules(int(round_["players"]))


def scene_kind(meta: Mapping[str, Any]) -> str:
    """`table` (the whole table from above) or `player` (one player's area, close)."""
    return str(meta["round"]["view"]["kind"])


def scene_players(meta: Mapping[str, Any]) -> int:
    """Players the pipeline is told about: all of them for a whole-table view, one (the
    scanning area) for a player view."""
    return int(meta["round"]["players"]) if scene_kind(meta) == "table" else 1


def _readable(meta: Mapping[str, Any], seat: int) -> bool:
    for card in meta["cards"]:
        if card.get("owner") != seat or not card.get("face_up", True):
            continue
        if not any(ix["state"] == "visible" for ix in card.get("indices", ())):
            return False
    true_seat = meta["round"]["seats"][seat]
    total = len(true_seat["hand"]) + sum(len(m["cards"]) for m in true_seat["melds"])
    shown = sum(1 for c in meta["cards"] if c.get("owner") == seat)
    return shown == total


def _verdict(melds: Sequence[Sequence[Card]], rules: Rules, number: int) -> bool | None:
    if rules.round(number).contract is None:
        return None
    if not melds:
        return False
    return check_lay_down(melds, rules, number, ordered=True).valid


def _seat_cards(snapshot: TableSnapshot, seat: SeatSnapshot) -> Counter[Card]:
    cards = [c for meld in snapshot.meld_cards(seat) for c in meld] + snapshot.hand_cards(seat)
    return Counter(cards)


def _match_seats(snapshot: TableSnapshot, truth: list[Counter[Card]]) -> dict[int, SeatSnapshot]:
    """True seat -> predicted seat, greedily by the most cards in common."""
    pairs = []
    for seat in snapshot.seats:
        have = _seat_cards(snapshot, seat)
        for t, want in enumerate(truth):
            pairs.append((sum((have & want).values()), t, seat.seat))
    pairs.sort(key=lambda p: -p[0])
    by_seat = {s.seat: s for s in snapshot.seats}
    out: dict[int, SeatSnapshot] = {}
    used: set[int] = set()
    for common, t, s in pairs:
        if t in out or s in used or common == 0:
            continue
        out[t] = by_seat[s]
        used.add(s)
    return out


def check_round_end(
    snapshot: TableSnapshot, meta: Mapping[str, Any], scene: str = ""
) -> list[PlayerCheck]:
    """One `PlayerCheck` per player the scene is about."""
    rules = scene_rules(meta)
    round_ = meta["round"]
    number = int(round_["round_number"])
    seats = round_["seats"]
    kind = scene_kind(meta)
    truth_melds = [[parse_cards(m["cards"]) for m in s["melds"]] for s in seats]
    truth_hands = [parse_cards(s["hand"]) for s in seats]
    if kind == "player":
        wanted = [int(round_["view"]["player"])]
        matched = {wanted[0]: snapshot.seats[0]} if snapshot.seats else {}
    else:
        wanted = list(range(len(seats)))
        truth = [Counter([c for m in truth_melds[t] for c in m] + truth_hands[t]) for t in wanted]
        matched = _match_seats(snapshot, truth)
    out = []
    for t in wanted:
        seat = matched.get(t)
        melds = snapshot.meld_cards(seat) if seat else []
        hand = snapshot.hand_cards(seat) if seat else []
        try:
            points: int | None = hand_points(hand, rules)
        except ShanghaiError:
            points = None
        true_points = int(seats[t]["hand_points"])
        want = Counter(tuple(m) for m in truth_melds[t])
        got = Counter(tuple(m) for m in melds)
        true_verdict = _verdict(truth_melds[t], rules, number)
        verdict = _verdict(melds, rules, number)
        out.append(
            PlayerCheck(
                scene=scene,
                kind=kind,
                seat=t,
                readable=_readable(meta, t),
                hand_right=points == true_points,
                melds_right=got == want,
                verdict_right=None if true_verdict is None else verdict == true_verdict,
                points=points,
                true_points=true_points,
            )
        )
    return out
