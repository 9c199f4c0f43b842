"""A round's history: every change to a round (a hand entered or corrected, a buy or
its take-back, the last hand of a finished game taken back to reopen it) kept as a
`RoundChange` with who made it and when; the game's last change undone; a finished game
reopened.

Undo walks the game's changes newest first, so each change undone finds the round as
that change left it. A change is claimed (`undone_at` set where still empty) before it
is reverted: of two undos sent at once, one reverts it and the other answers 409."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from sqlalchemy import delete, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .card_input import card_diff
from .errors import ApiError
from .game_state import GameState
from .models import Buy, Hand, HandCorrection, Player, RoundChange

__all__ = [
    "HOST",
    "author",
    "edited_rounds",
    "hand_record",
    "record_change",
    "reopen_game",
    "undo_last",
]

HOST = "host"
"""The author of a change made without a name: the table's own screen."""

Kind = Literal["entered", "corrected", "reopened", "buy", "buy-back"]


def author(by: str | None) -> str:
    """Who a change is recorded as: the name sent, else `host`."""
    return by or HOST


def hand_record(hand: Hand, *, with_corrections: bool = False) -> dict[str, Any]:
    """A hand as a change keeps it (`RoundChange.before` / `after`); with its corrections
    (who and when) when the hand itself is removed, so an undo can put them back."""
    record: dict[str, Any] = {
        "cards": hand.cards,
        "hand_points": hand.hand_points,
        "bonus": hand.bonus,
        "went_out": hand.went_out,
        "blind": hand.blind,
        "scan_id": hand.scan_id,
    }
    if with_corrections:
        record["corrections"] = [
            {
                "action": c.action,
                "card": c.card,
                "author": c.author,
                "at": c.created_at.isoformat() if c.created_at else None,
            }
            for c in hand.corrections
        ]
    return record


def record_change(
    session: Session,
    state: GameState,
    number: int,
    player: Player,
    kind: Kind,
    *,
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
    by: str | None,
) -> RoundChange:
    """Add a change of round `number` to the session (stored with the request's commit)."""
    change = RoundChange(
        game_id=state.game.id,
        round_number=number,
        player_id=player.id,
        kind=kind,
        round_complete=number <= len(state.record.rounds),
        before=before,
        after=after,
        author=author(by),
    )
    session.add(change)
    return change


def edited_rounds(session: Session, game_id: int) -> set[int]:
    """The rounds of a game corrected after they were scored (or with a change undone):
    those the sheet marks 'edited'."""
    rows = session.execute(
        select(RoundChange.round_number).where(
            RoundChange.game_id == game_id,
            or_(
                RoundChange.kind.in_(("corrected", "reopened")),
                RoundChange.round_complete.is_(True),
                RoundChange.undone_at.is_not(None),
            ),
        )
    ).scalars()
    return set(rows)


def _hand(session: Session, change: RoundChange) -> Hand | None:
    return session.scalar(
        select(Hand).where(
            Hand.game_id == change.game_id,
            Hand.round_number == change.round_number,
            Hand.player_id == change.player_id,
        )
    )


def _restore_hand(change: RoundChange, record: dict[str, Any]) -> Hand:
    corrections = [
        HandCorrection(
            action=c["action"],
            card=c["card"],
            author=c.get("author"),
            **({"created_at": dt.datetime.fromisoformat(c["at"])} if c.get("at") else {}),
        )
        for c in record.get("corrections", [])
    ]
    return Hand(
        game_id=change.game_id,
        round_number=change.round_number,
        player_id=change.player_id,
        cards=record["cards"],
        hand_points=record["hand_points"],
        bonus=record["bonus"],
        went_out=record["went_out"],
        blind=record["blind"],
        scan_id=record.get("scan_id"),
        corrections=corrections,
    )


def _revert(session: Session, change: RoundChange, by: str) -> None:
    """Put back what `change` found (the caller commits)."""
    name = change.player.name
    where = f"{name}'s hand in round {change.round_number}"
    if change.kind == "buy":
        assert change.after is not None
        session.execute(
            delete(Buy).where(
                Buy.game_id == change.game_id,
                Buy.round_number == change.round_number,
                Buy.player_id == change.player_id,
                Buy.slot == change.after["slot"],
            )
        )
        return
    if change.kind == "buy-back":
        assert change.before is not None
        session.add(
            Buy(
                game_id=change.game_id,
                round_number=change.round_number,
                player_id=change.player_id,
                slot=change.before["slot"],
            )
        )
        return
    hand = _hand(session, change)
    if change.kind == "reopened":
        if hand is not None:
            raise ApiError(409, f"{where} was entered again since; correct it instead")
        assert change.before is not None
        session.add(_restore_hand(change, change.before))
        return
    if hand is None:
        raise ApiError(409, f"{where} is no longer stored; nothing to undo")
    if change.kind == "entered":
        session.delete(hand)
        return
    before = change.before
    assert before is not None
    hand.corrections.extend(
        HandCorrection(**c, author=by)
        for c in card_diff(hand.cards.split(), before["cards"].split())
    )
    hand.cards = before["cards"]
    hand.hand_points, hand.bonus = before["hand_points"], before["bonus"]
    hand.went_out, hand.blind = before["went_out"], before["blind"]
    hand.updated_at = dt.datetime.now(dt.UTC)


def undo_last(
    session: Session, state: GameState, by: str | None, expected: int | None = None
) -> RoundChange:
    """Undo the game's latest change not undone yet (if `expected` is given, only if it is
    that change): 409 when there is none, when it is another (the game changed since the
    person looked), when another request undid it at the same time, or when the round no
    longer allows it."""
    change = session.scalar(
        select(RoundChange)
        .where(RoundChange.game_id == state.game.id, RoundChange.undone_at.is_(None))
        .order_by(RoundChange.id.desc())
        .limit(1)
    )
    if change is None:
        raise ApiError(409, "nothing to undo: no change of this game is left to take back")
    if expected is not None and change.id != expected:
        raise ApiError(
            409,
            f"the last change is no longer the one shown (another device changed the game "
            f"meanwhile): now it is round {change.round_number}'s {change.kind} of "
            f"{change.player.name}; look again",
        )
    who = author(by)
    claimed = session.execute(
        update(RoundChange)
        .where(RoundChange.id == change.id, RoundChange.undone_at.is_(None))
        .values(undone_at=dt.datetime.now(dt.UTC), undone_by=who)
        .execution_options(synchronize_session=False)
    )
    if claimed.rowcount != 1:  # type: ignore[attr-defined]
        session.rollback()
        raise ApiError(409, "this change was undone at the same time by another request")
    try:
        _revert(session, change, who)
        session.commit()
    except IntegrityError:
        session.rollback()
        raise ApiError(
            409, "the round has changed at the same time (another request); reload and retry"
        ) from None
    except ApiError:
        session.rollback()
        raise
    session.refresh(change)
    return change


def reopen_game(session: Session, state: GameState, by: str | None) -> RoundChange:
    """Take back the hand entered last in a finished game's last round, so that round
    is being played again (409 for a game not finished). The hand is kept in the change:
    undo puts it back; the page offers its cards to enter again."""
    if not state.record.is_finished:
        raise ApiError(409, "the game is not finished: there is nothing to reopen")
    number = len(state.record.rounds)
    hands = state.hands_in(number)
    last = max(hands.values(), key=lambda h: h.id)
    player = next(p for p in state.game.players if p.id == last.player_id)
    change = record_change(
        session,
        state,
        number,
        player,
        "reopened",
        before=hand_record(last, with_corrections=True),
        after=None,
        by=by,
    )
    removed = session.execute(
        delete(Hand).where(Hand.id == last.id).execution_options(synchronize_session=False)
    )
    if removed.rowcount != 1:  # type: ignore[attr-defined]
        session.rollback()
        raise ApiError(409, "the game was reopened at the same time by another request")
    session.commit()
    return change
