"""A scan: the cards read (boxes, confidence), the hand it proposes, the points, its
warnings, a table photo's hand per seat, and its evidence URLs with the scan's token."""

from __future__ import annotations

from collections.abc import Sequence

from shanghai.engine import Card, Rules, parse_cards, score_hand
from shanghai.vision.snapshot import SeenCard

from ..evidence import EvidenceKey
from ..models import Game, Scan
from ..schemas import DetectedCardPublic, ScanPublic, ScanSeatPublic, ScanWarningPublic

__all__ = ["detected_public", "scan_public"]


def detected_public(cards: Sequence[SeenCard]) -> list[DetectedCardPublic]:
    return [
        DetectedCardPublic(card=str(c.card), confidence=c.confidence, xyxy=c.xyxy, sure=c.sure)
        for c in cards
    ]


def _in_play(cards: Sequence[Card], rules: Rules) -> tuple[list[Card], list[Card]]:
    """`(in play, not in play)`: a scan keeps every card read, the points count the first."""
    return [c for c in cards if rules.accepts(c)], [c for c in cards if not rules.accepts(c)]


def scan_public(scan: Scan, game: Game, rules: Rules, evidence: EvidenceKey) -> ScanPublic:
    player = next(p for p in game.players if p.id == scan.player_id)
    proposed = scan.proposed_cards()
    in_play, foreign = _in_play(parse_cards(proposed), rules)
    return ScanPublic(
        id=scan.id,
        round=scan.round_number,
        seat=player.seat,
        player=player.name,
        source=scan.source,
        width=scan.width,
        height=scan.height,
        cards=[DetectedCardPublic.model_validate(d) for d in scan.detections],
        proposed=proposed,
        not_in_play=[str(c) for c in foreign],
        points=score_hand(in_play, rules).points,
        warnings=[ScanWarningPublic.model_validate(w) for w in scan.warnings],
        photo=scan.photo,
        seats=_scan_seats(scan, rules),
        scanner=scan.scanner,
        image_url=evidence.url(scan.id, "image"),
        annotated_url=evidence.url(scan.id, "annotated.jpg"),
    )


def _scan_seats(scan: Scan, rules: Rules) -> list[ScanSeatPublic]:
    """A table photo's hand at each seat (sector), to pick from."""
    if scan.photo != "table":
        return []
    seats = sorted({int(d["seat"]) for d in scan.detections if d.get("seat") is not None})
    out = []
    for seat in seats:
        cards = scan.proposed_cards(seat)
        playable, _foreign = _in_play(parse_cards(cards), rules)
        out.append(
            ScanSeatPublic(seat=seat, cards=cards, points=score_hand(playable, rules).points)
        )
    return out
