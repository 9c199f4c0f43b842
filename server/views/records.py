"""Finished games with their winners, and each player's record over them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..game_state import GameState
from ..schemas import FinishedGamePublic, PlayerStatsPublic

__all__ = ["finished_games", "player_stats"]


def finished_games(states: Sequence[GameState]) -> list[FinishedGamePublic]:
    """The finished games, newest first."""
    return [
        FinishedGamePublic(
            id=s.game.id,
            name=s.game.name,
            variant_title=s.game.variant_title,
            created_at=s.game.created_at,
            players=[p.name for p in s.game.players],
            totals=list(s.record.totals),
            winners=list(s.record.winners),
            rounds=len(s.record.rounds),
        )
        for s in sorted(states, key=lambda s: s.game.id, reverse=True)
        if s.record.is_finished
    ]


@dataclass
class _Tally:
    name: str
    games: int = 0
    wins: int = 0
    rounds: list[int] = field(default_factory=list)


def player_stats(states: Sequence[GameState]) -> list[PlayerStatsPublic]:
    """Each player's games, wins, average and best round over the finished games (a
    player is a name, case aside, shown as in their latest game); most wins first."""
    tallies: dict[str, _Tally] = {}
    for state in sorted(states, key=lambda s: s.game.id):
        record = state.record
        if not record.is_finished:
            continue
        for seat, name in enumerate(record.players):
            tally = tallies.setdefault(name.casefold(), _Tally(name))
            tally.name = name
            tally.games += 1
            tally.wins += name in record.winners
            tally.rounds += [r.scores[seat].points for r in record.rounds]
    return [
        PlayerStatsPublic(
            player=t.name,
            games=t.games,
            wins=t.wins,
            rounds=len(t.rounds),
            average_round=round(sum(t.rounds) / len(t.rounds), 1) if t.rounds else 0.0,
            best_round=min(t.rounds, default=0),
        )
        for t in sorted(tallies.values(), key=lambda t: (-t.wins, -t.games, t.name.casefold()))
    ]
