"""`shanghai variants | check | score`: the rules engine from the command line.

Other tools call these exactly as documented in the README (the JSON keys `valid`,
`reasons`, `points` are a contract). Exit codes: 0 valid / done, 1 invalid lay-down,
2 bad input.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from shanghai.engine.cards import Card, parse_cards
from shanghai.engine.contracts import LayDownReport, check_lay_down, find_lay_down
from shanghai.engine.errors import VariantError
from shanghai.engine.melds import Meld
from shanghai.engine.scoring import score_hand
from shanghai.engine.variant_files import find_variant, list_variants
from shanghai.engine.variants import Rules, Variant

from .errors import UsageError
from .rules_table import rules_table

EXIT_OK = 0
EXIT_INVALID = 1


def variant_dirs() -> list[Path]:
    """Folders searched for house-rule variants by name: $SHANGHAI_VARIANTS_DIR, then
    ~/.config/shanghai/variants."""
    dirs = []
    if env := os.environ.get("SHANGHAI_VARIANTS_DIR"):
        dirs.append(Path(env))
    dirs.append(Path.home() / ".config" / "shanghai" / "variants")
    return dirs


def resolve_rules(variant_name: str, players: int | None) -> Rules:
    return find_variant(variant_name, variant_dirs()).rules(players)


def _round_number(rules: Rules, number: int) -> int:
    variant = rules.variant
    if number < 1 or (not variant.repeat_rounds and number > len(variant.rounds)):
        raise UsageError(
            f"round {number} is out of range: {variant.name} has rounds 1-{len(variant.rounds)}"
        )
    return number


def _cards_in_play(cards: list[Card], rules: Rules) -> None:
    foreign = [str(c) for c in cards if not rules.accepts(c)]
    if foreign:
        deck = rules.variant.family.value
        raise UsageError(
            f"{', '.join(foreign)} not in play in {rules.variant.name} ({deck} decks"
            f"{', as set up for ' + str(rules.players) + ' players' if rules.setup.remove else ''})"
        )


def register(sub: Any) -> None:
    """Add the engine's subcommands to the top-level parser."""
    p = sub.add_parser("variants", help="list variants, or print one variant's rules")
    p.add_argument("name", nargs="?", help="a variant name or a house-rule .toml file")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_variants)

    p = sub.add_parser("check", help="check a lay-down against a round's contract")
    _add_rules_options(p)
    p.add_argument("--round", type=int, required=True, help="round (deal) number, from 1")
    p.add_argument(
        "cards",
        help="cards in table order; '|' separates melds (without '|' the cards are grouped "
        "automatically if possible); or a photo of the melds",
    )
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("score", help="points of the cards left in a hand")
    _add_rules_options(p)
    p.add_argument("cards", help="the cards left in hand, e.g. '7h 10s JK'; or a photo of them")
    p.set_defaults(func=cmd_score)


def _add_rules_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--variant", required=True, help="variant name or house-rule .toml file")
    p.add_argument("--players", type=int, help="players at the table (deck set-up); default 4")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def cmd_variants(args: argparse.Namespace) -> int:
    if args.name:
        variant = find_variant(args.name, variant_dirs())
        if args.json:
            print(json.dumps(_variant_json(variant), indent=2))
        else:
            print(rules_table(variant))
        return EXIT_OK
    variants = list_variants(variant_dirs())
    if args.json:
        print(json.dumps([_variant_summary(v) for v in variants], indent=2))
        return EXIT_OK
    width = max(len(v.name) for v in variants)
    for v in variants:
        rounds = f"{len(v.rounds)} rounds" if not v.repeat_rounds else f"to {v.target_score} points"
        print(
            f"{v.name:<{width}}  {v.title} — {v.family} decks, "
            f"{v.min_players}-{v.max_players} players, {rounds}"
        )
    return EXIT_OK


def _variant_summary(v: Variant) -> dict[str, Any]:
    return {
        "name": v.name,
        "title": v.title,
        "family": v.family.value,
        "players": [v.min_players, v.max_players],
        "rounds": len(v.rounds),
        "target_score": v.target_score,
    }


def _variant_json(v: Variant) -> dict[str, Any]:
    out = _variant_summary(v)
    out["contracts"] = [str(r.contract) if r.contract else None for r in v.rounds]
    out["buys"] = [r.buys for r in v.rounds]
    out["notes"] = list(v.notes)
    return out


def _meld_json(meld: Meld | None, rules: Rules) -> dict[str, Any] | None:
    if meld is None:
        return None
    return {
        "kind": meld.kind.value,
        "cards": [str(c) for c in meld.cards],
        "description": meld.describe(rules.variant.family),
    }


def _report_json(report: LayDownReport, rules: Rules, grouped: bool) -> dict[str, Any]:
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
                "meld": _meld_json(v.meld, rules),
                "reasons": list(v.reasons),
            }
            for v in report.melds
        ],
    }


def _photo(args: argparse.Namespace) -> bool:
    from .vision_commands import looks_like_image

    return looks_like_image(args.cards)


def _photo_groups(path: str, rules: Rules, role: str) -> list[list[Card]]:
    """The rows of cards in a photo (one player's area), through the vision pipeline."""
    from .vision_commands import image_snapshot

    snapshot = image_snapshot(path, rules, role=role)
    if not snapshot.seats:
        return []
    seat = snapshot.seats[0]
    if role == "hand":
        return [snapshot.hand_cards(seat)]
    return snapshot.meld_cards(seat)


def cmd_check(args: argparse.Namespace) -> int:
    rules = resolve_rules(args.variant, args.players)
    number = _round_number(rules, args.round)
    text: str = args.cards
    if _photo(args):
        groups = _photo_groups(text, rules, "melds")
        report = check_lay_down(groups, rules, number, ordered=True)
        if args.json:
            print(json.dumps({**_report_json(report, rules, True), "image": text}))
        else:
            _print_report(report, rules)
        return EXIT_OK if report.valid else EXIT_INVALID
    if not text.strip():
        raise UsageError("no cards given")
    groups_text = [g for g in text.split("|")]
    if any(not g.strip() for g in groups_text):
        raise UsageError("empty meld between '|' separators")
    groups = [parse_cards(g) for g in groups_text]
    for group in groups:
        _cards_in_play(group, rules)
    grouped = len(groups) > 1 or rules.round(number).contract is None
    if not grouped:
        found = find_lay_down(groups[0], rules, number)
        if found is not None:
            groups = [list(m.cards) for m in found]
            grouped = False
    report = check_lay_down(groups, rules, number)
    if not report.valid and len(groups) == 1 and report.contract and len(report.contract.melds) > 1:
        report = LayDownReport(
            number,
            report.contract,
            report.melds,
            (f"these cards cannot be grouped into {report.contract}",),
        )
    if args.json:
        print(json.dumps(_report_json(report, rules, grouped or len(groups) > 1)))
    else:
        _print_report(report, rules)
    return EXIT_OK if report.valid else EXIT_INVALID


def _print_report(report: LayDownReport, rules: Rules) -> None:
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


def cmd_score(args: argparse.Namespace) -> int:
    rules = resolve_rules(args.variant, args.players)
    if _photo(args):
        cards = [c for group in _photo_groups(args.cards, rules, "hand") for c in group]
    else:
        cards = parse_cards(args.cards)
    _cards_in_play(cards, rules)
    hand = score_hand(cards, rules)
    if args.json:
        print(
            json.dumps(
                {
                    "points": hand.points,
                    "variant": rules.variant.name,
                    "cards": [str(c) for c in hand.cards],
                    "per_card": list(hand.per_card),
                }
            )
        )
    else:
        detail = " + ".join(f"{c}={p}" for c, p in zip(hand.cards, hand.per_card, strict=True))
        print(f"{hand.points} points" + (f" ({detail})" if detail else ""))
    return EXIT_OK


__all__ = ["VariantError", "register", "resolve_rules", "variant_dirs"]
