"""`/api/games/{id}/rounds/{n}`: a round's contract, buys and hands; score a hand (by
text, or confirming a scan with corrections) and correct a stored one."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from fastapi import APIRouter, Path, status
from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from shanghai.engine import Card, ShanghaiError, format_cards, score_round

from ..card_input import card_diff, read_hand
from ..changes import author, hand_record, record_change
from ..deps import RoundNumber, SessionDep, StateDep, WriteStateDep
from ..errors import ApiError
from ..evidence import EvidenceKeyDep
from ..game_state import GameState
from ..models import SQL_INT_MAX, Buy, Hand, HandCorrection, Player, Scan
from ..schemas import ROUND_ERRORS, HandCreate, HandPublic, HandUpdate, RoundPublic
from ..views.games import player_buys, round_info
from ..views.hands import hand_public

router = APIRouter(prefix="/api/games/{game_id}/rounds", tags=["rounds"])


def buys_used(session: SessionDep, game_id: int, number: int) -> dict[int, int]:
    rows = session.execute(
        select(Buy.player_id, func.count(Buy.id))
        .where(Buy.game_id == game_id, Buy.round_number == number)
        .group_by(Buy.player_id)
    ).all()
    return {player_id: count for player_id, count in rows}


@router.get("/{number}", response_model=RoundPublic, responses=ROUND_ERRORS)
def read_round(
    number: RoundNumber, state: StateDep, session: SessionDep, evidence: EvidenceKeyDep
) -> RoundPublic:
    state.check_round_exists(number)
    info = round_info(state, number)
    hands = state.hands_in(number)
    return RoundPublic(
        number=number,
        contract=info.contract,
        cards_dealt=info.cards_dealt,
        buys_allowed=info.buys_allowed,
        current=state.current_round == number,
        complete=number <= len(state.record.rounds),
        hands=[hand_public(hands[s], state.game, state.rules, evidence) for s in sorted(hands)],
        buys=player_buys(state, number, buys_used(session, state.game.id, number)),
    )


def _score(
    state: GameState, number: int, seat: int, cards: list[Card], body: HandUpdate
) -> tuple[int, int, bool]:
    """(hand points, bonus, went out) by the engine's rules; refuses a second player out."""
    went_out = not cards
    if body.blind and not went_out:
        raise ApiError(422, "only the player who went out (no cards left) can go out blind")
    others_out = [
        h for s, h in state.hands_in(number).items() if s != seat and h.went_out and went_out
    ]
    if others_out:
        raise ApiError(409, "another player already went out this round; only one can")
    try:
        (score,) = score_round(
            [cards],
            state.rules,
            went_out=0 if went_out else None,
            blind=body.blind,
            blind_used_wild=body.used_wild,
        )
    except ShanghaiError as exc:
        raise ApiError(422, str(exc)) from None
    return score.hand_points, score.bonus, went_out


def _scan_for(
    session: SessionDep, state: GameState, scan_id: int, number: int, player: Player
) -> Scan:
    scan = session.get(Scan, scan_id)
    if scan is None or scan.game_id != state.game.id:
        raise ApiError(404, f"scan {scan_id} not found in this game")
    # A whole-table photo shows every player's hand: any player of its round may confirm
    # theirs from it; a hand photo only its own player.
    theirs = scan.photo == "table" or scan.player_id == player.id
    if scan.round_number != number or not theirs:
        raise ApiError(
            422,
            f"scan {scan_id} is of round {scan.round_number}, not {player.name}'s round {number}",
        )
    return scan


def _saw_cards(scan: Scan) -> bool:
    """Whether a scan's photo showed any card, read or not (a card outline unread)."""
    # `ignored` (read indices on no card outline) is gone from new scans, which propose
    # such reads marked; scans stored before still carry it.
    unread = {"unread", "joker", "ignored", "not-in-play"}
    return bool(scan.detections) or any(w.get("code") in unread for w in scan.warnings)


@router.post(
    "/{number}/hands",
    response_model=HandPublic,
    status_code=status.HTTP_201_CREATED,
    responses=ROUND_ERRORS,
)
def create_hand(
    number: RoundNumber,
    body: HandCreate,
    state: WriteStateDep,
    session: SessionDep,
    evidence: EvidenceKeyDep,
) -> HandPublic:
    """Score one player's hand in the round being played: the cards left (empty: went
    out), confirming a scan (`scan_id`) whose misread cards are stored as corrections.
    Kept in the round's history as entered (`by`: who, default `host`)."""
    state.check_round(number)
    player = state.player(body.player)
    if body.player in state.hands_in(number):
        raise ApiError(
            409, f"{player.name}'s hand in round {number} is already scored; correct it instead"
        )
    cards = read_hand(body.cards, state.rules)
    corrections: list[dict[str, str]] = []
    if body.scan_id is not None:
        scan = _scan_for(session, state, body.scan_id, number, player)
        if not cards and _saw_cards(scan) and not body.confirm_out:
            raise ApiError(
                422,
                f"the photo of {player.name}'s hand shows cards: to record that "
                f"{player.name} went out, confirm it (confirm_out)",
            )
        seat = body.player if body.scan_seat is None else body.scan_seat
        proposed = scan.proposed_cards(seat)
        corrections = card_diff(proposed, [str(c) for c in cards])
    points, bonus, went_out = _score(state, number, body.player, cards, body)
    hand = Hand(
        game_id=state.game.id,
        round_number=number,
        player_id=player.id,
        cards=format_cards(cards),
        hand_points=points,
        bonus=bonus,
        went_out=went_out,
        blind=body.blind,
        scan_id=body.scan_id,
        corrections=[HandCorrection(**c) for c in corrections],
    )
    session.add(hand)
    record_change(
        session, state, number, player, "entered", before=None, after=hand_record(hand), by=body.by
    )
    _commit_hand(session, number, player, went_out)
    return hand_public(hand, state.game, state.rules, evidence)


@router.put("/{number}/hands/{seat}", response_model=HandPublic, responses=ROUND_ERRORS)
def update_hand(
    number: RoundNumber,
    seat: Annotated[int, Path(ge=0, le=SQL_INT_MAX)],
    body: HandUpdate,
    state: WriteStateDep,
    session: SessionDep,
    evidence: EvidenceKeyDep,
) -> HandPublic:
    """Correct a hand already scored, in any round played (a finished game's too); each
    changed card is added to its corrections, and the change to the round's history
    (`by`: who made it, default `host`; undone by `POST .../undo`).

    Corrections of one hand sent at once are taken one after the other, each from the
    cards the one before it left, so the history keeps them all."""
    state.check_round_exists(number)
    player = state.player(seat)
    hand = state.hands_in(number).get(seat)
    if hand is None:
        raise ApiError(404, f"{player.name}'s hand in round {number} is not scored yet")
    cards = read_hand(body.cards, state.rules)
    points, bonus, went_out = _score(state, number, seat, cards, body)
    # The first write of the transaction: it waits for any other correction of this
    # hand to commit (PostgreSQL's row lock, SQLite's write lock); the cards are then
    # read again, as that correction left them.
    now = dt.datetime.now(dt.UTC)
    session.execute(update(Hand).where(Hand.id == hand.id).values(updated_at=now))
    session.refresh(hand)
    before = hand_record(hand)
    previous = [str(c) for c in read_hand(hand.cards, state.rules)]
    hand.corrections.extend(
        HandCorrection(**c, author=author(body.by))
        for c in card_diff(previous, [str(c) for c in cards])
    )
    hand.cards = format_cards(cards)
    hand.hand_points, hand.bonus, hand.went_out, hand.blind = points, bonus, went_out, body.blind
    after = hand_record(hand)
    record_change(
        session, state, number, player, "corrected", before=before, after=after, by=body.by
    )
    _commit_hand(session, number, player, went_out)
    return hand_public(hand, state.game, state.rules, evidence)


def _commit_hand(session: SessionDep, number: int, player: Player, went_out: bool) -> None:
    """Store a hand; a rule broken by a request at the same time (a second player out,
    the same hand scored twice) is a 409 saying which."""
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        if went_out and session.scalar(
            select(Hand.id).where(
                Hand.game_id == player.game_id,
                Hand.round_number == number,
                Hand.went_out.is_(True),
                Hand.player_id != player.id,
            )
        ):
            raise ApiError(
                409, "another player already went out this round; only one can"
            ) from None
        raise ApiError(
            409,
            f"{player.name}'s hand in round {number} was stored at the same time by "
            "another request; reload",
        ) from None
