"""A lay-down check: each meld's verdict with reasons; for a photo, also the cards
read, the loose ones, its melds as lay-down text to edit, and its warnings."""

from __future__ import annotations

import base64

from shanghai.engine import Card, LayDownReport, Rules
from shanghai.vision.snapshot import TableSnapshot

from ..schemas import CheckPublic, MeldVerdictPublic, ScanWarningPublic
from .scans import detected_public

__all__ = ["check_public"]


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
