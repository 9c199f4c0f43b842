"""A variant's rules as a plain-text table, for `shanghai variants NAME`."""

from __future__ import annotations

from shanghai.engine.cards import format_cards
from shanghai.engine.variants import Variant, WildLimits


def _limits(limits: WildLimits) -> str:
    if limits.table is None:
        return "no limit"
    return ", ".join(f"meld of {size}+: {most}" for size, most in limits.table)


def _deal(variant: Variant, number: int) -> str:
    rule = variant.rounds[number - 1]
    parts = []
    for size in rule.deal:
        if size.min_players == 1 and size.max_players >= variant.max_players:
            parts.append(str(size.cards))
        else:
            high = "+" if size.max_players >= variant.max_players else f"-{size.max_players}"
            low = max(size.min_players, variant.min_players)
            parts.append(f"{size.cards} ({low}{high} players)")
    return ", ".join(parts)


def rules_table(variant: Variant) -> str:
    lines = [f"{variant.title} ({variant.name})", ""]
    if variant.description:
        lines += [variant.description, ""]
    lines.append(f"Players: {variant.min_players}-{variant.max_players}; {variant.family} decks")
    for setup in variant.setups:
        text = f"  {setup.min_players}-{setup.max_players} players: {setup.decks} decks"
        if setup.jokers:
            text += f" + {setup.jokers} joker{'s' if setup.jokers > 1 else ''}"
        if setup.wilds:
            text += f"; wild: {format_cards(setup.wilds)}"
        if setup.remove:
            text += f"; removed: {format_cards(setup.remove)}"
        lines.append(text)
    lines += ["", f"{'Round':<6} {'Contract':<28} {'Deal':<34} Buys"]
    for rule in variant.rounds:
        contract = str(rule.contract) if rule.contract else "any melds"
        lines.append(
            f"{rule.number:<6} {contract:<28} {_deal(variant, rule.number):<34} {rule.buys}"
        )
    if variant.repeat_rounds:
        lines.append(
            f"Hands repeat until a player reaches {variant.target_score} points and loses."
        )
    lines += [
        "",
        f"Sets: {variant.min_set}+ of one rank"
        + (f", at most {variant.max_set}" if variant.max_set else "")
        + (", different suits" if variant.set_distinct_suits else ""),
        f"Runs: {variant.min_run}+ in one suit, "
        + (f"ace {variant.ace}" if variant.family.value == "standard" else "1 low")
        + ", never wrapping",
        f"Wild limits at lay-down: {_limits(variant.wild_limits_lay_down)}; "
        f"later: {_limits(variant.wild_limits_later)}; at least {variant.min_naturals} naturals",
        f"Joker swap: {variant.joker_swap}",
        f"Lay-down: {'exact sizes' if variant.lay_down_exact else 'minimum sizes'}; "
        f"same-suit runs: {variant.run_spacing}"
        + ("; sets of different ranks" if variant.distinct_set_ranks else "")
        + ("; may lay off the same turn" if variant.lay_off_same_turn else ""),
        f"Buying: {variant.buy_penalty_cards} penalty card(s)"
        + (f", then discard {variant.buy_discards}" if variant.buy_discards else "")
        + ("; only before laying down" if variant.buy_only_before_lay_down else "")
        + ("; 'pick and a buy' allowed" if variant.pick_and_buy else "")
        + ("; in-turn buys allowed" if variant.in_turn_buy else ""),
        f"Going out: {variant.going_out}"
        + (
            f"; blind bonus {variant.blind_bonus} ({variant.blind_bonus_no_wild} without wilds)"
            if variant.blind_bonus
            else ""
        ),
    ]
    points = variant.points_by_rank
    groups: list[tuple[int, int, int]] = []
    for rank in sorted(points):
        if groups and groups[-1][2] == points[rank] and groups[-1][1] == rank - 1:
            groups[-1] = (groups[-1][0], rank, points[rank])
        else:
            groups.append((rank, rank, points[rank]))
    values = ", ".join(f"{lo}-{hi}: {p}" if lo != hi else f"{lo}: {p}" for lo, hi, p in groups)
    lines.append(f"Card values (rank: points): {values}; wild: {variant.wild_points}")
    if variant.notes:
        lines += ["", "Interpretations where the rules texts are silent:"]
        lines += [f"  - {note}" for note in variant.notes]
    return "\n".join(lines)
