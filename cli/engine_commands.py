"""`shanghai variants | check | score`: the rules engine from the command line.

Other tools call these exactly as documented in the README (the JSON keys `valid`,
`reasons`, `points` are a contract). Exit codes: 0 valid / done, 1 invalid lay-down,
2 bad input.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from shanghai.engine.errors import VariantError
from shanghai.engine.lay_downs import judge_lay_down, parse_hand, parse_lay_down
from shanghai.engine.scoring import score_hand
from shanghai.engine.variant_files import find_variant, list_variants
from shanghai.engine.variants import Variant

from .errors import UsageError
from .rules_options import print_report, report_json, resolve_rules, variant_dirs
from .rules_table import rules_table

EXIT_OK = 0
EXIT_INVALID = 1


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
        nargs="+",
        help="cards in table order; '|' separates melds (without '|' the cards are grouped "
        "automatically if possible); or photos of lay-downs, one result each",
    )
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("score", help="points of the cards left in a hand")
    _add_rules_options(p)
    p.add_argument(
        "cards",
        nargs="+",
        help="the cards left in hand, e.g. '7h 10s JK'; or photos of hands, one result each",
    )
    p.set_defaults(func=cmd_score)


def _add_rules_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--variant", required=True, help="variant name or house-rule .toml file")
    p.add_argument("--players", type=int, help="players at the table (deck set-up); default 4")
    p.add_argument("--json", action="store_true", help="one JSON object (per photo, one a line)")
    p.add_argument("--models", type=Path, help="folder of the ONNX models for photos")
    p.add_argument("--deck", help="photos: read with a taught deck (`shanghai deck list`)")


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


def _photos(args: argparse.Namespace) -> list[str] | None:
    """The photos given instead of card text (None: the arguments are card text)."""
    from .vision_commands import looks_like_image

    photos = [looks_like_image(a) for a in args.cards]
    if all(photos):
        return list(args.cards)
    if any(photos):
        raise UsageError("give card text or photos, not both")
    return None


def cmd_check(args: argparse.Namespace) -> int:
    rules = resolve_rules(args.variant, args.players)
    rules.variant.verify_round(args.round)
    photos = _photos(args)
    if photos is not None:
        from .vision_commands import check_photos

        return check_photos(photos, rules, args.round, args)
    groups = parse_lay_down(" ".join(args.cards), rules)
    report, grouped = judge_lay_down(groups, rules, args.round)
    if args.json:
        # "grouped" here: the melds are grouped, by the player or by the search
        print(json.dumps(report_json(report, rules, grouped or len(report.melds) > 1)))
    else:
        print_report(report, rules)
    return EXIT_OK if report.valid else EXIT_INVALID


def cmd_score(args: argparse.Namespace) -> int:
    rules = resolve_rules(args.variant, args.players)
    photos = _photos(args)
    if photos is not None:
        from .vision_commands import score_photos

        return score_photos(photos, rules, args)
    cards = parse_hand(" ".join(args.cards), rules)
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


__all__ = ["VariantError", "register"]
