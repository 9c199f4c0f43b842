"""A hand or a lay-down as a player gives it, as text, and the verdict on a lay-down.

What the CLI (`shanghai score`, `shanghai check`) and the server (`/points`, hands,
`/check`) both take, read one way:

- `parse_hand("7h 10s JK", rules)`: the cards of a hand, each in play.
- `parse_lay_down("7h 7s 7c | 4d 5d 6d 7d", rules)`: melds in table order, `|` between
  them; one group means the player left the grouping to the engine.
- `judge_lay_down(groups, rules, round_number)`: the contract check; cards given as one
  ungrouped list are first grouped into the contract (`find_lay_down`).
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import Card
from .contracts import LayDownReport, check_lay_down, find_lay_down
from .errors import CardParseError, IllegalMeldError
from .variants import Rules

__all__ = ["judge_lay_down", "parse_hand", "parse_lay_down"]


def parse_hand(text: str, rules: Rules, *, most: int | None = None) -> list[Card]:
    """Cards of a hand in the project's notation, each in play (`Rules.verify_in_play`);
    more than `most` cards is refused as a typo. Raises `CardParseError` or
    `IllegalPlayError` with a sentence for the player."""
    if "|" in text:
        raise CardParseError("a hand is a plain list of cards; '|' separates melds only")
    cards = _parse_in_deck(text, rules)
    if most is not None and len(cards) > most:
        raise CardParseError(f"{len(cards)} cards is more than a hand can hold ({most})")
    rules.verify_in_play(cards)
    return cards


def _parse_in_deck(text: str, rules: Rules) -> list[Card]:
    """Cards as text; an unknown one is refused naming only this game's cards."""
    cards = []
    for token in text.replace(",", " ").split():
        try:
            cards.append(Card.parse(token))
        except CardParseError:
            raise CardParseError(
                f"unknown card {token!r}: the cards in {rules.variant.title} are {rules.deck_text}"
            ) from None
    return cards


def parse_lay_down(text: str, rules: Rules, *, most: int | None = None) -> list[list[Card]]:
    """A lay-down as text: melds separated by '|' in table order (one group: ungrouped),
    each card in play; more than `most` cards in all is refused."""
    if not text.strip():
        raise CardParseError("no cards given")
    parts = text.split("|")
    if any(not part.strip() for part in parts):
        raise CardParseError("empty meld between '|' separators")
    groups = [parse_hand(part, rules, most=most) for part in parts]
    if most is not None and sum(len(g) for g in groups) > most:
        raise CardParseError(f"more than {most} cards in one lay-down")
    return groups


def judge_lay_down(
    groups: Sequence[Sequence[Card]],
    rules: Rules,
    round_number: int,
    *,
    most_ungrouped: int | None = None,
) -> tuple[LayDownReport, bool]:
    """The verdict on a lay-down, and whether the player grouped the cards (several
    groups, or a variant without contracts).

    One ungrouped list is grouped into the round's contract first; when no grouping
    exists the verdict says so ("these cards cannot be grouped into ...") rather than
    judging the cards as one meld. The search is exponential: more than `most_ungrouped`
    ungrouped cards raise `IllegalMeldError` asking for '|'."""
    contract = rules.round(round_number).contract
    checked = [list(group) for group in groups]
    grouped = len(checked) > 1 or contract is None
    if not grouped:
        if most_ungrouped is not None and len(checked[0]) > most_ungrouped:
            count = len(checked[0])
            raise IllegalMeldError(f"{count} ungrouped cards: separate the melds with '|'")
        found = find_lay_down(checked[0], rules, round_number)
        if found is not None:
            checked = [list(m.cards) for m in found]
    report = check_lay_down(checked, rules, round_number)
    if not report.valid and len(checked) == 1 and contract and len(contract.melds) > 1:
        report = LayDownReport(
            round_number,
            report.contract,
            report.melds,
            (f"these cards cannot be grouped into {contract}",),
        )
    return report, grouped
