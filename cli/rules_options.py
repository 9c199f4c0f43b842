"""What the rules commands share: finding a variant, and the JSON and text of a
lay-down report (`check` on text and on photos). Round numbers and cards in play are
checked by the engine (`Variant.verify_round`, `shanghai.engine.lay_downs`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from shanghai.engine.contracts import LayDownReport
from shanghai.engine.melds import Meld
from shanghai.engine.variant_files import find_variant, house_rule_dirs
from shanghai.engine.variants import Rules

__all__ = [
    "meld_json",
    "print_report",
    "report_json",
    "resolve_rules",
    "variant_dirs",
]


def variant_dirs() -> list[Path]:
    """Folders searched for house-rule variants by name: $SHANGHAI_VARIANTS_DIR, then
    ~/.config/shanghai/variants."""
    return house_rule_dirs(os.environ.get("SHANGHAI_VARIANTS_DIR"))


def resolve_rules(variant_name: str, players: int | None) -> Rules:
    return find_variant(variant_name, variant_dirs()).rules(players)


def meld_json(meld: Meld | None, rules: Rules) -> dict[str, Any] | None:
    if meld is None:
        return None
    return {
        "kind": meld.kind.value,
        "cards": [str(c) for c in meld.cards],
        "description": meld.describe(rules.variant.family),
    }


def report_json(report: LayDownReport, rules: Rules, grouped: bool) -> dict[str, Any]:
    return {
        "valid": report.valid,
        "reasons": report.all_reasons,
        "variant": rules.variant.name,
        "players": rules.players,
        "round": report.round_number,
        "contract": str(report.contract) if report.contract else None,
        "grouped": grouped,
        "melds": [
            {
                "cards": [str(c) for c in v.cards],
                "valid": v.valid,
                "meld": meld_json(v.meld, rules),
                "reasons": list(v.reasons),
            }
            for v in report.melds
        ],
    }


def print_report(report: LayDownReport, rules: Rules) -> None:
    family = rules.variant.family
    head = f"{rules.variant.title}, round {report.round_number}"
    if report.contract:
        head += f": {report.contract}"
    print(head)
    for index, verdict in enumerate(report.melds, start=1):
        cards = " ".join(str(c) for c in verdict.cards)
        if verdict.valid and verdict.meld is not None:
            print(f"  meld {index}: {cards} — ok, {verdict.meld.describe(family)}")
        else:
            print(f"  meld {index}: {cards} — NOT LEGAL: {'; '.join(verdict.reasons)}")
    for reason in report.reasons:
        print(f"  {reason}")
    print("LEGAL lay-down" if report.valid else "NOT a legal lay-down")
