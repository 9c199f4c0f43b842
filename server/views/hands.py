"""A scored hand: its cards and points, how it was entered, the corrections made, and
the evidence of the scan it confirms (URLs with the scan's token)."""

from __future__ import annotations

from shanghai.engine import Rules, parse_cards, score_hand

from ..evidence import EvidenceKey
from ..models import Game, Hand
from ..schemas import Correction, HandPublic

__all__ = ["hand_public"]


def hand_public(hand: Hand, game: Game, rules: Rules, evidence: EvidenceKey) -> HandPublic:
    player = next(p for p in game.players if p.id == hand.player_id)
    cards = parse_cards(hand.cards)
    scan_id = hand.scan_id
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
        scan_id=scan_id,
        scan_image_url=evidence.url(scan_id, "image") if scan_id is not None else None,
        scan_annotated_url=evidence.url(scan_id, "annotated.jpg") if scan_id is not None else None,
        corrections=[Correction.model_validate(c, from_attributes=True) for c in hand.corrections],
        entry="scan" if scan_id is not None else "manual",
    )
