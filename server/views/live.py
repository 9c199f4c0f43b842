"""A live stream's stable table for a game: each seat's melds and hand, the melds judged
as that seat's lay-down for the round in play (`check_public`, as a dispute photo is
judged), and the cards at no seat."""

from __future__ import annotations

from collections.abc import Sequence

from shanghai.engine import Rules
from shanghai.vision.snapshot import TableSnapshot

from ..schemas import LiveSeatPublic, LiveTablePublic
from .checks import check_public

__all__ = ["live_table_public"]


def live_table_public(
    snapshot: TableSnapshot,
    rules: Rules,
    players: Sequence[str],
    round_number: int | None,
    *,
    stable_cards: Sequence[str],
    frame: int,
    version: int,
) -> LiveTablePublic:
    """`snapshot`: a table photo read with the game's rules and a seat per player."""
    seats = []
    for seat in snapshot.seats:
        melds = snapshot.meld_cards(seat)
        check = None
        if melds and round_number is not None:
            check = check_public(snapshot.lay_down(seat, round_number), rules, True)
        seats.append(
            LiveSeatPublic(
                seat=seat.seat,
                player=players[seat.seat] if seat.seat < len(players) else f"seat {seat.seat + 1}",
                melds=[[str(c) for c in meld] for meld in melds],
                hand=[str(c) for c in snapshot.hand_cards(seat)],
                check=check,
            )
        )
    placed = set(snapshot.placed)
    contract = rules.round(round_number).contract if round_number is not None else None
    return LiveTablePublic(
        version=version,
        frame=frame,
        round=round_number,
        contract=str(contract) if contract else None,
        cards=list(stable_cards),
        seats=seats,
        outside=[str(c.card) for i, c in enumerate(snapshot.cards) if i not in placed],
    )
