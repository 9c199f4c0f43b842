"""Stored rows and engine results turned into the public schemas."""

from __future__ import annotations

import base64
from collections.abc import Sequence

from shanghai.engine import Card, LayDownReport, Rules, parse_cards, score_hand
from shanghai.vision.snapshot import SeenCard, TableSnapshot

from .models import Game, Hand, Scan
from .rules import GameState
from .schemas import (
    CheckPublic,
    Correction,
    DetectedCardPublic,
    GamePublic,
    GameSummary,
    HandPublic,
    MeldVerdictPublic,
    PlayerBuys,
    PlayerPublic,
    RoundInfo,
    ScanPublic,
    ScanSeatPublic,
    ScanWarningPublic,
    SheetPublic,
    SheetRound,
)

__all__ = [
    "check_public",
    "detected_public",
    "game_public",
    "game_summary",
    "hand_public",
    "player_buys",
    "proposed_cards",
    "round_info",
    "scan_public",
    "sheet_public",
]


def round_info(state: GameState, number: int) -> RoundInfo:
    rule = state.variant.round(number)
    return RoundInfo(
        number=number,
        contract=str(rule.contract) if rule.contract else None,
        cards_dealt=rule.cards_dealt(state.rules.players),
        buys_allowed=rule.buys,
    )


def game_summary(state: GameState) -> GameSummary:
    game = state.game
    return GameSummary(
        id=game.id,
        name=game.name,
        variant_name=game.variant_name,
        variant_title=game.variant_title,
        players=[p.name for p in game.players],
        created_at=game.created_at,
        current_round=state.current_round,
        finished=state.record.is_finished,
    )


def game_public(state: GameState) -> GamePublic:
    game, record = state.game, state.record
    return GamePublic(
        **game_summary(state).model_dump(),
        variant_origin=game.variant_origin,
        target_score=record.target_score,
        player_list=[PlayerPublic(id=p.id, seat=p.seat, name=p.name) for p in game.players],
        rounds=[round_info(state, n) for n in range(1, state.scheduled_rounds + 1)],
        rounds_scored=len(record.rounds),
        totals=list(record.totals),
        leaders=list(record.leaders),
        winners=list(record.winners),
        loser=record.loser,
        family=state.variant.family.value,
    )


def hand_public(hand: Hand, game: Game, rules: Rules) -> HandPublic:
    player = next(p for p in game.players if p.id == hand.player_id)
    cards = parse_cards(hand.cards)
    return HandPublic(
        id=hand.id,
        round=hand.round_number,
        seat=player.seat,
        player=player.name,
        cards=[str(c) for c in cards],
        per_card=list(score_hand(cards, rules).per_card),
        hand_points=hand.hand_points,
        bonus=hand.bonus,
        points=hand.points,
        went_out=hand.went_out,
        blind=hand.blind,
        scan_id=hand.scan_id,
        corrections=[Correction.model_validate(c, from_attributes=True) for c in hand.corrections],
        entry="scan" if hand.scan_id is not None else "manual",
    )


def player_buys(state: GameState, number: int, used: dict[int, int]) -> list[PlayerBuys]:
    allowed = state.variant.round(number).buys
    return [
        PlayerBuys(
            seat=p.seat,
            player=p.name,
            used=used.get(p.id, 0),
            allowed=allowed,
            left=max(0, allowed - used.get(p.id, 0)),
        )
        for p in state.game.players
    ]


def detected_public(cards: Sequence[SeenCard]) -> list[DetectedCardPublic]:
    return [
        DetectedCardPublic(card=str(c.card), confidence=c.confidence, xyxy=c.xyxy, sure=c.sure)
        for c in cards
    ]


def scan_public(scan: Scan, game: Game, rules: Rules) -> ScanPublic:
    player = next(p for p in game.players if p.id == scan.player_id)
    detected = [DetectedCardPublic.model_validate(d) for d in scan.detections]
    proposed = proposed_cards(scan)
    in_play: list[Card] = []
    foreign: list[Card] = []
    for text in proposed:
        card = parse_cards(text)[0]
        (in_play if rules.accepts(card) else foreign).append(card)
    return ScanPublic(
        id=scan.id,
        round=scan.round_number,
        seat=player.seat,
        player=player.name,
        source=scan.source,
        width=scan.width,
        height=scan.height,
        cards=detected,
        proposed=proposed,
        not_in_play=[str(c) for c in foreign],
        points=score_hand(in_play, rules).points,
        warnings=[ScanWarningPublic.model_validate(w) for w in scan.warnings],
        photo=scan.photo,
        seats=_scan_seats(scan, rules),
        scanner=scan.scanner,
        image_url=f"/api/scans/{scan.id}/image",
        annotated_url=f"/api/scans/{scan.id}/annotated.jpg",
    )


def proposed_cards(scan: Scan, seat: int | None = None) -> list[str]:
    """The cards a scan proposes for the hand (not melds on the table): a hand photo's
    every card; a table photo's hand at `seat` (default: the scanned player's seat)."""
    if scan.photo != "table":
        return [str(d["card"]) for d in scan.detections if d.get("hand", True)]
    if seat is None:
        seat = scan.player.seat
    return [str(d["card"]) for d in scan.detections if d.get("hand") and d.get("seat") == seat]


def _scan_seats(scan: Scan, rules: Rules) -> list[ScanSeatPublic]:
    """A table photo's hand at each seat (sector), to pick from."""
    if scan.photo != "table":
        return []
    seats = sorted({int(d["seat"]) for d in scan.detections if d.get("seat") is not None})
    out = []
    for seat in seats:
        cards = proposed_cards(scan, seat)
        playable = [c for c in parse_cards(" ".join(cards)) if rules.accepts(c)]
        out.append(
            ScanSeatPublic(seat=seat, cards=cards, points=score_hand(playable, rules).points)
        )
    return out


def check_public(
    report: LayDownReport,
    rules: Rules,
    grouped: bool,
    photo: TableSnapshot | None = None,
    annotated_jpeg: bytes | None = None,
) -> CheckPublic:
    """The verdict as the API gives it; for a photo (`photo`), also the cards read, the
    loose ones, its melds as lay-down text to edit, and its warnings."""
    family = rules.variant.family
    return CheckPublic(
        valid=report.valid,
        round=report.round_number,
        contract=str(report.contract) if report.contract else None,
        grouped=grouped,
        reasons=report.all_reasons,
        melds=[
            MeldVerdictPublic(
                cards=[str(c) for c in v.cards],
                valid=v.valid,
                kind=v.meld.kind.value if v.meld else None,
                description=v.meld.describe(family) if v.meld else None,
                reasons=list(v.reasons),
            )
            for v in report.melds
        ],
        detected=detected_public(photo.cards) if photo else [],
        loose=[str(photo.cards[i].card) for i in photo.loose] if photo else [],
        text=" | ".join(" ".join(str(c) for c in m) for m in _photo_melds(photo))
        if photo
        else None,
        warnings=[ScanWarningPublic.model_validate(w.to_json()) for w in photo.warnings]
        if photo
        else [],
        annotated_jpeg=base64.b64encode(annotated_jpeg).decode() if annotated_jpeg else None,
    )


def _photo_melds(photo: TableSnapshot) -> list[list[Card]]:
    return [meld for seat in photo.seats for meld in photo.meld_cards(seat)]


def sheet_public(state: GameState) -> SheetPublic:
    record, players = state.record, state.game.players
    rounds: list[SheetRound] = []
    running = record.running_totals
    for number in range(1, state.scheduled_rounds + 1):
        info = round_info(state, number)
        hands = state.hands_in(number)
        complete = number <= len(record.rounds)
        went_out = next((seat for seat, h in hands.items() if h.went_out), None)
        rounds.append(
            SheetRound(
                number=number,
                contract=info.contract,
                cards_dealt=info.cards_dealt,
                points=[hands[p.seat].points if p.seat in hands else None for p in players],
                totals=list(running[number - 1]) if complete else None,
                went_out=went_out,
                complete=complete,
            )
        )
    return SheetPublic(
        game_id=state.game.id,
        name=state.game.name,
        variant_title=state.game.variant_title,
        players=[p.name for p in players],
        rounds=rounds,
        totals=list(record.totals),
        leaders=list(record.leaders),
        winners=list(record.winners),
        loser=record.loser,
        finished=record.is_finished,
        target_score=record.target_score,
    )
