"""Scoring the cards left in hands at the end of a round.

Only the cards still in a hand count, never melds on the table. Values are the
variant's data (`Variant.rank_points`, `Variant.wild_points`); bonuses for going out
"blind" lower the score of the player who went out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cards import Card
from .errors import IllegalPlayError
from .variants import Rules

__all__ = ["HandScore", "PlayerScore", "card_points", "hand_points", "score_hand", "score_round"]


def card_points(card: Card, rules: Rules) -> int:
    """Points a single card left in hand costs its holder."""
    if not rules.accepts(card):
        raise IllegalPlayError(f"{card} is not in play in {rules.variant.title}")
    return rules.card_points(card)


def hand_points(cards: Sequence[Card], rules: Rules) -> int:
    return sum(card_points(card, rules) for card in cards)


@dataclass(frozen=True, slots=True)
class HandScore:
    """A hand's total with the points of each card, for showing the sum to players."""

    cards: tuple[Card, ...]
    per_card: tuple[int, ...]

    @property
    def points(self) -> int:
        return sum(self.per_card)


def score_hand(cards: Sequence[Card], rules: Rules) -> HandScore:
    return HandScore(tuple(cards), tuple(card_points(c, rules) for c in cards))


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerScore:
    """One player's result for a round: the hand left, and any going-out bonus."""

    hand: tuple[Card, ...]
    hand_points: int
    went_out: bool = False
    bonus: int = 0

    @property
    def points(self) -> int:
        return self.hand_points + self.bonus


def score_round(
    hands: Sequence[Sequence[Card]],
    rules: Rules,
    *,
    went_out: int | None = None,
    blind: bool = False,
    blind_used_wild: bool = True,
) -> tuple[PlayerScore, ...]:
    """Score every seat's left-over hand.

    `went_out` is the seat that went out (its hand must be empty). `blind` marks going
    out with all cards in one play; the bonus is the variant's `blind_bonus`, or
    `blind_bonus_no_wild` when no wild was used.
    """
    variant = rules.variant
    if went_out is not None:
        if not 0 <= went_out < len(hands):
            raise IllegalPlayError(f"seat {went_out} is not at this table")
        if hands[went_out]:
            raise IllegalPlayError("the player who went out cannot have cards left")
    if blind and went_out is None:
        raise IllegalPlayError("going out blind needs the seat that went out")
    results = []
    for seat, hand in enumerate(hands):
        bonus = 0
        if seat == went_out and blind:
            bonus = variant.blind_bonus if blind_used_wild else variant.blind_bonus_no_wild
        results.append(
            PlayerScore(
                hand=tuple(hand),
                hand_points=hand_points(hand, rules),
                went_out=seat == went_out,
                bonus=bonus,
            )
        )
    return tuple(results)
