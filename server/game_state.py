"""A stored game seen through the engine: its rules, its score record rebuilt from the
stored hands, the round in play, and the checks the routes make against them (a seat,
a round number)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shanghai.engine import GameRecord, PlayerScore, Rules, ShanghaiError, Variant, parse_cards

from .errors import ApiError
from .models import Game, Hand, Player
from .variant_snapshots import variant_from_toml

__all__ = ["GameState"]


@dataclass(frozen=True, slots=True)
class GameState:
    """A stored game seen through the engine: its rules, record and current round."""

    game: Game
    variant: Variant
    rules: Rules
    record: GameRecord
    hands: tuple[Hand, ...]

    @classmethod
    def load(cls, game: Game, hands: Sequence[Hand]) -> GameState:
        variant = variant_from_toml(game.variant_toml)
        names = tuple(p.name for p in game.players)
        rules = variant.rules(len(names))
        record = GameRecord(variant=variant, players=names, target_score=game.target_score)
        seat_of = {p.id: p.seat for p in game.players}
        by_round: dict[int, dict[int, Hand]] = {}
        for hand in hands:
            by_round.setdefault(hand.round_number, {})[seat_of[hand.player_id]] = hand
        number = 1
        while len(by_round.get(number, {})) == len(names) and not record.is_finished:
            seats = by_round[number]
            scores = [
                PlayerScore(
                    hand=tuple(parse_cards(seats[s].cards)),
                    hand_points=seats[s].hand_points,
                    went_out=seats[s].went_out,
                    bonus=seats[s].bonus,
                )
                for s in range(len(names))
            ]
            record = record.record_round(scores)
            number += 1
        return cls(game, variant, rules, record, tuple(hands))

    @property
    def current_round(self) -> int | None:
        """The round being played (scored hand by hand), or None once the game is over."""
        return self.record.next_round

    @property
    def scheduled_rounds(self) -> int:
        """Rounds to show on the sheet: all of a fixed schedule; so far, for repeating ones."""
        if self.variant.repeat_rounds:
            return max(len(self.record.rounds) + (0 if self.record.is_finished else 1), 1)
        return len(self.variant.rounds)

    def hands_in(self, number: int) -> dict[int, Hand]:
        """Stored hands of round `number` by seat."""
        seat_of = {p.id: p.seat for p in self.game.players}
        return {seat_of[h.player_id]: h for h in self.hands if h.round_number == number}

    def player(self, seat: int) -> Player:
        """The player in `seat` (404 for a seat the game does not have)."""
        for player in self.game.players:
            if player.seat == seat:
                return player
        raise ApiError(
            404, f"no player in seat {seat}: this game has seats 0-{len(self.game.players) - 1}"
        )

    def check_round_exists(self, number: int) -> None:
        """Round `number` must be one of the variant's (422; `Variant.verify_round`)."""
        try:
            self.variant.verify_round(number)
        except ShanghaiError as exc:
            raise ApiError(422, str(exc)) from None

    def check_round_played(self, number: int) -> None:
        """Round `number` must exist (422) and be played already or in play (409): its
        buys may be recorded or corrected, in a finished game too."""
        self.check_round_exists(number)
        last = self.current_round or len(self.record.rounds)
        if number > last:
            raise ApiError(409, f"round {number} cannot be played before round {last} ends")

    def check_round(self, number: int) -> None:
        """Round `number` must exist in the variant (422) and be the one in play (409)."""
        self.check_round_exists(number)
        current = self.current_round
        if current is None:
            raise ApiError(409, "the game is over; no more rounds can be played")
        if number < current:
            raise ApiError(409, f"round {number} is already scored")
        if number > current:
            raise ApiError(409, f"round {number} cannot be played before round {current} ends")
