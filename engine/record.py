"""A game's score record: players in seat order, rounds played, running totals, result.

Immutable: `record_round` returns a new record, so a caller (the server, the
simulator) can never half-apply a round. Evidence for a score (a frame, detections,
corrections) is opaque to the engine and carried as text references.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .errors import IllegalPlayError
from .scoring import PlayerScore
from .variants import Variant

__all__ = ["GameRecord", "RoundRecord"]


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundRecord:
    """The scores of one round, one entry per seat, plus where they came from."""

    number: int
    scores: tuple[PlayerScore, ...]
    evidence: tuple[str, ...] = ()

    @property
    def points(self) -> tuple[int, ...]:
        return tuple(s.points for s in self.scores)

    @property
    def went_out(self) -> int | None:
        return next((i for i, s in enumerate(self.scores) if s.went_out), None)


@dataclass(frozen=True, slots=True, kw_only=True)
class GameRecord:
    """Players, rounds and totals of one game; lowest total wins.

    In variants with a `target_score` (manipulation) the game ends when a player
    reaches the target, and that player loses.
    """

    variant: Variant
    players: tuple[str, ...]
    rounds: tuple[RoundRecord, ...] = ()
    target_score: int | None = field(default=None)

    def __post_init__(self) -> None:
        variant = self.variant
        if not variant.min_players <= len(self.players) <= variant.max_players:
            raise IllegalPlayError(
                f"{variant.title} is for {variant.min_players}-{variant.max_players} players, "
                f"not {len(self.players)}"
            )
        if len(set(self.players)) != len(self.players):
            raise IllegalPlayError("player names must be different")
        if self.target_score is None and variant.target_score is not None:
            object.__setattr__(self, "target_score", variant.target_score)

    @property
    def next_round(self) -> int | None:
        """Number of the next round to play, or None when the game is over."""
        return None if self.is_finished else len(self.rounds) + 1

    @property
    def is_finished(self) -> bool:
        if self.variant.repeat_rounds:
            return self.target_score is not None and any(
                t >= self.target_score for t in self.totals
            )
        return len(self.rounds) >= len(self.variant.rounds)

    def record_round(
        self, scores: Sequence[PlayerScore], evidence: Sequence[str] = ()
    ) -> GameRecord:
        """The record with the next round's scores added."""
        if self.is_finished:
            raise IllegalPlayError("the game is over; no more rounds can be scored")
        if len(scores) != len(self.players):
            raise IllegalPlayError(f"need {len(self.players)} scores, got {len(scores)}")
        if sum(s.went_out for s in scores) > 1:
            raise IllegalPlayError("only one player can go out in a round")
        number = len(self.rounds) + 1
        new_round = RoundRecord(number=number, scores=tuple(scores), evidence=tuple(evidence))
        return GameRecord(
            variant=self.variant,
            players=self.players,
            rounds=(*self.rounds, new_round),
            target_score=self.target_score,
        )

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(sum(r.points[i] for r in self.rounds) for i in range(len(self.players)))

    @property
    def running_totals(self) -> tuple[tuple[int, ...], ...]:
        """Totals after each round, for the score sheet and its chart."""
        out: list[tuple[int, ...]] = []
        running = [0] * len(self.players)
        for record in self.rounds:
            running = [a + b for a, b in zip(running, record.points, strict=True)]
            out.append(tuple(running))
        return tuple(out)

    @property
    def leaders(self) -> tuple[str, ...]:
        """Players with the lowest total so far (several when tied)."""
        totals = self.totals
        low = min(totals)
        return tuple(p for p, t in zip(self.players, totals, strict=True) if t == low)

    @property
    def winners(self) -> tuple[str, ...]:
        """The lowest total once the game is finished; empty before."""
        return self.leaders if self.is_finished else ()

    @property
    def loser(self) -> str | None:
        """With a target score: the player who reached it (highest total if several)."""
        if self.target_score is None or not self.is_finished:
            return None
        totals = self.totals
        top = max(totals)
        return self.players[totals.index(top)]
