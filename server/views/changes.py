"""A round's change as the history shows it: who, when, before and after, in a sentence."""

from __future__ import annotations

from typing import Any

from ..models import RoundChange
from ..schemas import ChangeHand, ChangePublic

__all__ = ["change_public", "is_correction"]


def is_correction(change: RoundChange) -> bool:
    """A change the sheet marks as an edit: a stored hand changed, a finished game
    reopened, a buy of a round already scored; also any change undone."""
    return (
        change.kind in ("corrected", "reopened")
        or (change.kind in ("buy", "buy-back") and change.round_complete)
        or change.undone_at is not None
    )


def _hand(record: dict[str, Any] | None) -> ChangeHand | None:
    if record is None or "cards" not in record:
        return None
    return ChangeHand(
        cards=record["cards"].split(),
        points=record["hand_points"] + record["bonus"],
        went_out=record["went_out"],
        blind=record["blind"],
    )


def _said(hand: ChangeHand) -> str:
    if hand.went_out:
        return f"went out{' blind' if hand.blind else ''} ({hand.points} pts)"
    return f"{' '.join(hand.cards)} ({hand.points} pts)"


def _summary(change: RoundChange, before: ChangeHand | None, after: ChangeHand | None) -> str:
    name = change.player.name
    if change.kind == "entered" and after is not None:
        return f"{name}'s hand entered: {_said(after)}"
    if change.kind == "corrected" and before is not None and after is not None:
        return f"{name}'s hand corrected: {_said(before)} → {_said(after)}"
    if change.kind == "reopened" and before is not None:
        return f"Game reopened: {name}'s hand taken back ({_said(before)})"
    if change.kind == "buy" and change.after is not None:
        return f"{name} bought (buy {change.after['slot']})"
    slot = change.before["slot"] if change.before else "?"
    return f"{name}'s buy {slot} taken back"


def change_public(change: RoundChange) -> ChangePublic:
    before, after = _hand(change.before), _hand(change.after)
    return ChangePublic(
        id=change.id,
        round=change.round_number,
        seat=change.player.seat,
        player=change.player.name,
        kind=change.kind,  # type: ignore[arg-type]
        correction=is_correction(change),
        summary=_summary(change, before, after),
        before=before,
        after=after,
        by=change.author,
        at=change.created_at,
        undone_by=change.undone_by,
        undone_at=change.undone_at,
    )
