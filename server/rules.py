"""The server's use of the rules engine: variant snapshots, card text, and a game's
score record rebuilt from stored hands.

A game stores the TOML text of its variant when it is created (`Game.variant_toml`):
built-in variants as shipped then, house-rule files as they read then. The game is
always rebuilt from that snapshot, so editing a house-rule file (or upgrading the
built-in variants) never changes a game already under way. A house-rule file that
`extends` a built-in is stored as written and merged with the built-in when read.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from shanghai.engine import (
    Card,
    GameRecord,
    PlayerScore,
    Rules,
    ShanghaiError,
    Variant,
    parse_cards,
)
from shanghai.engine.variant_files import BUILTIN_VARIANTS, read_variant

from .models import Game, Hand

__all__ = [
    "MAX_CARDS",
    "ApiError",
    "GameState",
    "card_diff",
    "parse_groups",
    "parse_hand",
    "variant_from_toml",
    "variant_snapshot",
]

MAX_CARDS = 40
"""Most cards accepted in one text field (a hand or a lay-down); more is a typo."""

_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,99}$")


class ApiError(ValueError):
    """An error answered as JSON `{"detail": ...}` with `status` (4xx for bad input, 503
    when recognition cannot run)."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


@lru_cache(maxsize=128)
def variant_from_toml(text: str) -> Variant:
    """Parse a variant snapshot (cached: games are read far more often than created)."""
    return read_variant(text)


def variant_snapshot(name: str, search_dirs: Iterable[Path]) -> tuple[Variant, str, str]:
    """`(variant, toml_text, origin)` for a built-in or a house-rule variant by name.

    Names only: a path from a web request is never opened (house-rule files are found in
    the configured folders, or sent as text).
    """
    if not _NAME.match(name):
        raise ApiError(
            422, f"unknown variant {name!r}: give a variant name such as {BUILTIN_VARIANTS[0]!r}"
        )
    if name in BUILTIN_VARIANTS:
        resource = resources.files("shanghai.engine").joinpath("variants", f"{name}.toml")
        text = resource.read_text("utf-8")
        return variant_from_toml(text), text, "built-in"
    for folder in search_dirs:
        path = Path(folder) / f"{name}.toml"
        if path.is_file():
            try:
                text = path.read_text("utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise ApiError(422, f"cannot read house-rule file {path}: {exc}") from None
            try:
                return variant_from_toml(text), text, "house-rule"
            except ShanghaiError as exc:
                raise ApiError(422, f"{path}: {exc}") from None
    raise ApiError(
        422,
        f"unknown variant {name!r}; choose from {', '.join(BUILTIN_VARIANTS)} "
        "or send a house-rule file",
    )


def parse_hand(text: str, rules: Rules) -> list[Card]:
    """Cards of a hand in the project's notation, each checked to be in play."""
    if "|" in text:
        raise ApiError(422, "a hand is a plain list of cards; '|' separates melds only")
    try:
        cards = parse_cards(text)
    except ShanghaiError as exc:
        raise ApiError(422, str(exc)) from None
    if len(cards) > MAX_CARDS:
        raise ApiError(422, f"{len(cards)} cards is more than a hand can hold ({MAX_CARDS})")
    foreign = [str(c) for c in cards if not rules.accepts(c)]
    if foreign:
        raise ApiError(
            422,
            f"{', '.join(foreign)} not in play in {rules.variant.title} "
            f"({rules.variant.family.value} decks, {rules.players} players)",
        )
    return cards


def parse_groups(text: str, rules: Rules) -> list[list[Card]]:
    """A lay-down as text: melds separated by '|' in table order (one group: ungrouped)."""
    if not text.strip():
        raise ApiError(422, "no cards given")
    parts = text.split("|")
    if any(not part.strip() for part in parts):
        raise ApiError(422, "empty meld between '|' separators")
    groups = [parse_hand(part, rules) for part in parts]
    if sum(len(g) for g in groups) > MAX_CARDS:
        raise ApiError(422, f"more than {MAX_CARDS} cards in one lay-down")
    return groups


def card_diff(before: Sequence[str], after: Sequence[str]) -> list[dict[str, str]]:
    """Corrections from a proposal to the confirmed cards: each card removed or added
    (counted, so a second copy of a card from another deck is its own correction)."""
    old, new = Counter(before), Counter(after)
    out = [{"action": "removed", "card": c} for c in sorted((old - new).elements())]
    out += [{"action": "added", "card": c} for c in sorted((new - old).elements())]
    return out


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

    def check_round(self, number: int) -> None:
        """Round `number` must exist in the variant (422) and be the one in play (409)."""
        variant = self.variant
        if number < 1 or (not variant.repeat_rounds and number > len(variant.rounds)):
            raise ApiError(
                422,
                f"round {number} is out of range: {variant.title} has rounds "
                f"1-{len(variant.rounds)}",
            )
        current = self.current_round
        if current is None:
            raise ApiError(409, "the game is over; no more rounds can be played")
        if number < current:
            raise ApiError(409, f"round {number} is already scored")
        if number > current:
            raise ApiError(409, f"round {number} cannot be played before round {current} ends")
