"""Variants as frozen, validated data.

A `Variant` holds every number a rules text gives (contracts, deal sizes, deck make-up,
wild limits, buys, card values...). Rules that differ between variants are fields here,
never `if variant.name == ...` branches elsewhere. Built-in variants are TOML files in
`variants/`, read by the same loader as house-rule files (`variant_files.py`).

`Rules` is a variant resolved for a number of players: the deck set-up (decks, wild
cards, removed cards) depends on the player count, and so do meld checks (for example
Rook with black 14s as wilds has 13 as its high card).
"""

from __future__ import annotations

import enum
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from .cards import Card, DeckFamily, rook_deck, standard_deck
from .errors import IllegalPlayError, VariantError

__all__ = [
    "AceRank",
    "Contract",
    "DealSize",
    "GoingOut",
    "JokerSwap",
    "MeldKind",
    "MeldSpec",
    "RoundRule",
    "Rules",
    "RunSpacing",
    "Setup",
    "Variant",
    "WildLimits",
]

MAX_PLAYERS_ANY = 99
"""Most players a variant or a player range may name (`"5-"` means 5 to this)."""

# Limits on every number a variant holds: far beyond any card game, small enough that
# checking a variant, dealing or scoring never costs much (a house-rule file may come
# from anyone who can reach the server).
MAX_DECKS = 12
MAX_JOKERS = 48
MAX_ROUNDS = 100
MAX_CONTRACT_MELDS = 8
MAX_MELD_SIZE = 60
MAX_DEAL = 100
MAX_BUYS = 100
MAX_POINTS = 1_000
"""Most points (plus or minus) one card, a wild or a going-out bonus is worth."""
MAX_TARGET = 100_000
MAX_NAME = 100


class MeldKind(enum.StrEnum):
    SET = "set"
    RUN = "run"


class AceRank(enum.StrEnum):
    """Where an ace may sit in a run. A run never wraps (no K-A-2) in any variant."""

    HIGH_OR_LOW = "high-or-low"
    LOW = "low"
    HIGH = "high"


class RunSpacing(enum.StrEnum):
    """How two runs of the same suit in one lay-down may relate."""

    ANY = "any"
    NOT_ADJACENT = "not-adjacent"  # 2-5h with 6-9h illegal; a gap or an overlap is fine
    SEPARATED = "separated"  # at least one card between them: no adjacency, no overlap


class JokerSwap(enum.StrEnum):
    """Who may take a wild back from a meld by playing the card it stands for."""

    NONE = "none"
    ANYONE = "anyone"  # any player in turn who has laid down
    OWNER = "owner"  # only the player who laid the meld down


class GoingOut(enum.StrEnum):
    """How the last card may leave the hand."""

    DISCARD_OR_MELD = "discard-or-meld"
    MELD_ONLY = "meld-only"  # Shafer: must go out on a hit, never on a discard


@dataclass(frozen=True, slots=True, kw_only=True)
class MeldSpec:
    """One meld a contract asks for: a kind and its minimum size."""

    kind: MeldKind
    size: int

    def __post_init__(self) -> None:
        if self.size < 2:
            raise VariantError(f"a {self.kind} needs at least 2 cards (got {self.size})")
        if self.size > MAX_MELD_SIZE:
            raise VariantError(f"a {self.kind} of {self.size} is longer than {MAX_MELD_SIZE} cards")

    def __str__(self) -> str:
        return f"{self.kind} of {self.size}"


_CONTRACT_PART = re.compile(
    r"^\s*(\d{1,4}|a|an|one|two|three|four)?\s*(sets?|runs?)\s+of\s+(\d{1,4})\s*$"
)
_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4}


@dataclass(frozen=True, slots=True, kw_only=True)
class Contract:
    """The melds a player must lay down at once, in the order the rules text lists them."""

    melds: tuple[MeldSpec, ...]

    def __post_init__(self) -> None:
        if not self.melds:
            raise VariantError("a contract needs at least one meld")
        if len(self.melds) > MAX_CONTRACT_MELDS:
            raise VariantError(
                f"a contract of {len(self.melds)} melds; at most {MAX_CONTRACT_MELDS} are allowed"
            )

    @classmethod
    def parse(cls, text: str) -> Contract:
        """Parse `"2 sets of 3 + 1 run of 4"` (also `"one set of 3, two runs of 4"`)."""
        melds: list[MeldSpec] = []
        for part in re.split(r"\+|,|\band\b", text.lower()):
            match = _CONTRACT_PART.match(part)
            if match is None:
                raise VariantError(
                    f"cannot read contract {shorten(text)!r}: write it like "
                    "'2 sets of 3 + 1 run of 4'"
                )
            count_text, kind_text, size_text = match.groups()
            if count_text is None:
                count = 1
            elif count_text.isdigit():
                count = int(count_text)
            else:
                count = _NUMBER_WORDS[count_text]
            kind = MeldKind.SET if kind_text.startswith("set") else MeldKind.RUN
            if len(melds) + count > MAX_CONTRACT_MELDS:
                raise VariantError(
                    f"cannot read contract {shorten(text)!r}: at most {MAX_CONTRACT_MELDS} melds"
                )
            melds.extend(MeldSpec(kind=kind, size=int(size_text)) for _ in range(count))
        return cls(melds=tuple(melds))

    @property
    def card_count(self) -> int:
        """Fewest cards that meet the contract."""
        return sum(spec.size for spec in self.melds)

    def count(self, kind: MeldKind) -> int:
        return sum(1 for spec in self.melds if spec.kind is kind)

    def __str__(self) -> str:
        groups: Counter[MeldSpec] = Counter(self.melds)
        parts = []
        for spec, n in groups.items():
            plural = "s" if n > 1 else ""
            parts.append(f"{n} {spec.kind}{plural} of {spec.size}")
        return " + ".join(parts)


@dataclass(frozen=True, slots=True, kw_only=True)
class DealSize:
    """Cards dealt to each player when the player count is in [min_players, max_players]."""

    cards: int
    min_players: int = 1
    max_players: int = MAX_PLAYERS_ANY

    def applies(self, players: int) -> bool:
        return self.min_players <= players <= self.max_players


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundRule:
    """One round (deal, hand) of a variant: its contract, deal size and buy limit.

    `contract` is None in a variant without contracts (manipulation rummy), where any
    legal meld may be played from the first turn.
    """

    number: int
    contract: Contract | None
    deal: tuple[DealSize, ...]
    buys: int

    def cards_dealt(self, players: int) -> int:
        for size in self.deal:
            if size.applies(players):
                return size.cards
        raise VariantError(f"round {self.number} has no deal size for {players} players")


@dataclass(frozen=True, slots=True, kw_only=True)
class Setup:
    """Deck make-up for a range of player counts.

    `decks` physical decks of the variant's family; for standard decks `jokers` jokers
    are added in all (a Rook deck brings its own bird). `wilds` lists the faces that are
    wild; `remove` lists faces taken out of every deck (Rook: the non-black 14s when
    black 14s are wild).
    """

    min_players: int
    max_players: int
    decks: int
    jokers: int = 0
    wilds: tuple[Card, ...] = ()
    remove: tuple[Card, ...] = ()

    def applies(self, players: int) -> bool:
        return self.min_players <= players <= self.max_players


@dataclass(frozen=True, slots=True, kw_only=True)
class WildLimits:
    """Most wilds a meld may hold, by meld size.

    `table` maps a meld size to a limit; a size between listed sizes takes the limit of
    the largest listed size below it, and sizes beyond the table take its last limit
    (the rules texts stop at a run of 10). None means no limit beyond `min_naturals`.
    """

    table: tuple[tuple[int, int], ...] | None

    def limit(self, size: int) -> int | None:
        if self.table is None:
            return None
        best: int | None = None
        for listed_size, most in self.table:
            if listed_size <= size:
                best = most
        return best if best is not None else self.table[0][1]


@dataclass(frozen=True, kw_only=True)
class Variant:
    """Every rule of one Shanghai variant, as data. Build with keywords; validated."""

    name: str
    title: str
    description: str = ""
    sources: tuple[str, ...] = ()
    family: DeckFamily = DeckFamily.STANDARD
    min_players: int
    max_players: int
    setups: tuple[Setup, ...]
    rounds: tuple[RoundRule, ...]
    repeat_rounds: bool = False
    """True when the round schedule repeats until `target_score` (manipulation)."""
    # melds
    min_set: int = 3
    max_set: int | None = None
    set_distinct_suits: bool = False
    min_run: int = 4
    ace: AceRank = AceRank.HIGH_OR_LOW
    min_naturals: int = 2
    wild_limits_lay_down: WildLimits = field(default_factory=lambda: WildLimits(table=None))
    wild_limits_later: WildLimits = field(default_factory=lambda: WildLimits(table=None))
    joker_swap: JokerSwap = JokerSwap.NONE
    # laying down
    lay_down_exact: bool = False
    run_spacing: RunSpacing = RunSpacing.ANY
    distinct_set_ranks: bool = False
    lay_off_same_turn: bool = False
    rearrange: bool = False
    must_meld_if_able: bool = False
    # buying
    buy_penalty_cards: int = 1
    buy_discards: int = 0
    buy_only_before_lay_down: bool = False
    pick_and_buy: bool = False
    in_turn_buy: bool = False
    # dealing and going out
    deal_batches: tuple[int, ...] = ()
    wild_upcard_reburied: bool = False
    going_out: GoingOut = GoingOut.DISCARD_OR_MELD
    has_discards: bool = True
    blind_bonus: int = 0
    blind_bonus_no_wild: int = 0
    # scoring
    rank_points: tuple[tuple[int, int], ...]
    wild_points: int = 0
    target_score: int | None = None
    notes: tuple[str, ...] = ()
    """Interpretations where the rules texts are silent; shown with the rules table."""

    def __post_init__(self) -> None:
        problems = list(self._problems())
        if problems:
            raise VariantError(f"variant {shorten(self.name)!r}: " + "; ".join(problems))

    def _problems(self) -> list[str]:
        out = self._out_of_bounds()
        if out:
            return out  # the checks below cost time in proportion to these numbers
        if not re.fullmatch(r"[a-z][a-z0-9_-]*", self.name):
            out.append("name must be lower-case letters, digits, '-' or '_'")
        if not 1 <= self.min_players <= self.max_players:
            out.append(f"players {self.min_players}-{self.max_players} is not a valid range")
        if not self.rounds:
            out.append("at least one round is required")
        for index, rule in enumerate(self.rounds, start=1):
            if rule.number != index:
                out.append(f"round {index} is numbered {rule.number}")
            if rule.buys < 0:
                out.append(f"round {index} allows {rule.buys} buys")
            if rule.contract is not None:
                for spec in rule.contract.melds:
                    least = self.min_set if spec.kind is MeldKind.SET else self.min_run
                    if spec.size < least:
                        out.append(f"round {index}: a {spec} is shorter than the minimum {least}")
        if self.repeat_rounds and self.target_score is None:
            out.append("a variant whose rounds repeat needs a target_score")
        if self.min_set < 2 or self.min_run < 2:
            out.append("melds need at least 2 cards")
        if self.max_set is not None and self.max_set < self.min_set:
            out.append("max_set is below min_set")
        ranks_scored = {rank for rank, _ in self.rank_points}
        top = 14 if self.family is DeckFamily.ROOK else 13
        missing = [r for r in range(1, top + 1) if r not in ranks_scored]
        if missing:
            out.append(f"no points given for ranks {missing}")
        shoes: dict[int, int] = {}
        for players in range(self.min_players, self.max_players + 1):
            matching = [i for i, s in enumerate(self.setups) if s.applies(players)]
            if len(matching) != 1:
                out.append(f"{len(matching)} deck set-ups match {players} players (need exactly 1)")
                continue
            setup = self.setups[matching[0]]
            for wild in (*setup.wilds, *setup.remove):
                if not wild.is_suitless and wild.family is not self.family:
                    out.append(f"{wild} is not a {self.family} card")
            if matching[0] not in shoes:
                shoes[matching[0]] = len(build_shoe(self.family, setup))
            shoe = shoes[matching[0]]
            for rule in self.rounds:
                try:
                    dealt = rule.cards_dealt(players)
                except VariantError as exc:
                    out.append(str(exc))
                    continue
                if dealt * players + 1 > shoe:
                    out.append(
                        f"round {rule.number}: {players} players x {dealt} cards "
                        f"+ upcard exceeds the {shoe}-card shoe"
                    )
        return out

    def _out_of_bounds(self) -> list[str]:
        """Numbers beyond the limits (`MAX_DECKS`...), each problem naming its key."""
        out: list[str] = []

        def within(what: str, value: int, low: int, high: int) -> None:
            if not low <= value <= high:
                out.append(f"{what} is {shorten(str(value))}; it must be {low} to {high}")

        if len(self.name) > MAX_NAME:
            out.append(f"name is {len(self.name)} characters long; at most {MAX_NAME}")
        within("players (the most)", self.max_players, 1, MAX_PLAYERS_ANY)
        for index, setup in enumerate(self.setups, start=1):
            within(f"setup {index} players (the most)", setup.max_players, 1, MAX_PLAYERS_ANY)
            within(f"setup {index} decks", setup.decks, 1, MAX_DECKS)
            within(f"setup {index} jokers", setup.jokers, 0, MAX_JOKERS)
        if len(self.rounds) > MAX_ROUNDS:
            out.append(f"{len(self.rounds)} rounds; at most {MAX_ROUNDS}")
        for rule in self.rounds[:MAX_ROUNDS]:
            within(f"round {rule.number} buys", rule.buys, 0, MAX_BUYS)
            for deal in rule.deal:
                within(f"round {rule.number} cards dealt", deal.cards, 1, MAX_DEAL)
                within(f"round {rule.number} deal players", deal.max_players, 0, MAX_PLAYERS_ANY)
        for key, size in (
            ("min_set", self.min_set),
            ("min_run", self.min_run),
            ("max_set", self.max_set or 0),
            ("min_naturals", self.min_naturals),
        ):
            if size > MAX_MELD_SIZE:  # too small: said by the checks that follow
                out.append(f"melds.{key} is {shorten(str(size))}; at most {MAX_MELD_SIZE}")
        for limits, key in (
            (self.wild_limits_lay_down, "limit_at_lay_down"),
            (self.wild_limits_later, "limit_later"),
        ):
            for size, most in limits.table or ():
                within(f"wilds.{key} meld size", size, 1, MAX_MELD_SIZE)
                within(f"wilds.{key} limit", most, 0, MAX_MELD_SIZE)
        within("buying.penalty_cards", self.buy_penalty_cards, 0, MAX_DEAL)
        within("buying.discards", self.buy_discards, 0, MAX_DEAL)
        if len(self.deal_batches) > MAX_DEAL:
            out.append(
                f"dealing.batches lists {len(self.deal_batches)} batches; at most {MAX_DEAL}"
            )
        for batch in self.deal_batches[:MAX_DEAL]:
            within("a dealing.batches entry", batch, 1, MAX_DEAL)
        within("going_out.blind_bonus", self.blind_bonus, -MAX_POINTS, MAX_POINTS)
        within("going_out.blind_bonus_no_wild", self.blind_bonus_no_wild, -MAX_POINTS, MAX_POINTS)
        for rank, points in self.rank_points:
            if not -MAX_POINTS <= points <= MAX_POINTS:  # said once, for the first rank
                within(f"scoring.ranks points of rank {rank}", points, -MAX_POINTS, MAX_POINTS)
                break
        within("scoring.wild", self.wild_points, -MAX_POINTS, MAX_POINTS)
        if self.target_score is not None:
            within("scoring.target", self.target_score, 1, MAX_TARGET)
        return out

    def has_round(self, number: int) -> bool:
        """Whether round `number` (1-based) is played: any from 1 when the schedule
        repeats, else one of the schedule's."""
        return number >= 1 and (self.repeat_rounds or number <= len(self.rounds))

    def verify_round(self, number: int) -> None:
        """Raise `VariantError` ("round 11 is out of range: ...") unless `has_round`."""
        if not self.has_round(number):
            raise VariantError(
                f"round {number} is out of range: {self.title} has rounds 1-{len(self.rounds)}"
            )

    def round(self, number: int) -> RoundRule:
        """The rule for round `number` (1-based); repeating variants cycle their schedule."""
        if not self.has_round(number):
            raise VariantError(
                f"{self.name} has rounds 1-{len(self.rounds)}; there is no round {number}"
            )
        return self.rounds[(number - 1) % len(self.rounds)]

    def setup_for(self, players: int) -> Setup:
        if not self.min_players <= players <= self.max_players:
            raise VariantError(
                f"{self.name} is for {self.min_players}-{self.max_players} players, not {players}"
            )
        return next(s for s in self.setups if s.applies(players))

    def rules(self, players: int | None = None) -> Rules:
        """This variant resolved for `players` (default: the fewest the variant's
        standard set-up serves, at least 4 where allowed)."""
        if players is None:
            players = min(max(4, self.min_players), self.max_players)
        return Rules(self, players)

    @property
    def points_by_rank(self) -> Mapping[int, int]:
        return dict(self.rank_points)


def shorten(text: str, most: int = 40) -> str:
    """`text`, cut to `most` characters (a value quoted back in an error message)."""
    return text if len(text) <= most else text[: most - 1] + "…"


def _rank_span(cards: Iterable[Card]) -> str:
    """Ranks of one suit as runs of consecutive ranks: `A-K`, `1-13`, `2-7, 9-K`."""
    ordered = sorted(cards, key=lambda c: c.rank)
    runs: list[list[Card]] = []
    for card in ordered:
        if runs and card.rank == runs[-1][-1].rank + 1:
            runs[-1].append(card)
        else:
            runs.append([card])
    return ", ".join(
        r[0].rank_text if len(r) == 1 else f"{r[0].rank_text}-{r[-1].rank_text}" for r in runs
    )


def build_shoe(family: DeckFamily, setup: Setup) -> list[Card]:
    """All the cards in play for a set-up, in a fixed (unshuffled) order."""
    removed = Counter(setup.remove)
    cards: list[Card] = []
    for _ in range(setup.decks):
        deck = standard_deck() if family is DeckFamily.STANDARD else rook_deck()
        cards.extend(card for card in deck if card not in removed)
    if family is DeckFamily.STANDARD:
        cards.extend(standard_deck(jokers=setup.jokers)[52:])
    return cards


@dataclass(frozen=True)
class Rules:
    """A variant resolved for a player count: what meld checks and scoring consult."""

    variant: Variant
    players: int
    setup: Setup = field(init=False)
    wild_cards: frozenset[Card] = field(init=False)
    top_position: int = field(init=False)
    """Highest place in a run: 14 with ace high (or Rook 14), 13 when 14s are removed."""
    in_play: frozenset[Card] = field(init=False, repr=False)
    """Every distinct card of this set-up's shoe (wilds included)."""
    cards_in_play: tuple[Card, ...] = field(init=False, repr=False)
    """The same cards in deck order (suit by suit, then the odd cards): what a card
    picker shows."""

    def __post_init__(self) -> None:
        setup = self.variant.setup_for(self.players)
        object.__setattr__(self, "setup", setup)
        object.__setattr__(self, "wild_cards", frozenset(setup.wilds))
        shoe = build_shoe(self.variant.family, setup)
        ordered = tuple(dict.fromkeys([*shoe, *setup.wilds]))
        object.__setattr__(self, "cards_in_play", ordered)
        object.__setattr__(self, "in_play", frozenset(ordered))
        if self.variant.family is DeckFamily.STANDARD:
            top = 13 if self.variant.ace is AceRank.LOW else 14
        else:
            naturals = [c.rank for c in shoe if c not in setup.wilds]
            top = max(naturals)
        object.__setattr__(self, "top_position", top)

    def is_wild(self, card: Card) -> bool:
        return card in self.wild_cards

    def run_positions(self, card: Card) -> tuple[int, ...]:
        """Places a natural card may take in a run (an ace: 1, 14 or both)."""
        if self.variant.family is DeckFamily.STANDARD and card.rank == 1:
            if self.variant.ace is AceRank.HIGH_OR_LOW:
                return (1, 14)
            return (14,) if self.variant.ace is AceRank.HIGH else (1,)
        return (card.rank,)

    @property
    def bottom_position(self) -> int:
        if self.variant.family is DeckFamily.STANDARD and self.variant.ace is AceRank.HIGH:
            return 2
        return 1

    def accepts(self, card: Card) -> bool:
        """Whether this card can be in play at all (right deck family, not removed)."""
        return card in self.in_play

    @cached_property
    def deck_text(self) -> str:
        """The cards in play in a few words, naming only this set-up's cards:
        `A-K in c d h s, JK` or `1-14 in B, 1-13 in R Y G, ROOK`."""
        odd: list[str] = []
        by_suit: dict[str, list[Card]] = {}
        for card in self.cards_in_play:
            if card.is_suitless:
                odd.append(str(card))
            else:
                by_suit.setdefault(card.suit.value, []).append(card)
        groups: dict[str, list[str]] = {}
        for suit, cards in by_suit.items():
            groups.setdefault(_rank_span(cards), []).append(suit)
        parts = [f"{span} in {' '.join(suits)}" for span, suits in groups.items()]
        return ", ".join(parts + odd)

    def verify_in_play(self, cards: Iterable[Card]) -> None:
        """Raise `IllegalPlayError` naming every card this set-up cannot hold."""
        foreign = [str(c) for c in cards if not self.accepts(c)]
        if foreign:
            raise IllegalPlayError(
                f"{', '.join(foreign)} not in play in {self.variant.title} "
                f"({self.variant.family.value} decks, {self.players} players: "
                f"{self.deck_text})"
            )

    def round(self, number: int) -> RoundRule:
        return self.variant.round(number)

    def card_points(self, card: Card) -> int:
        if self.is_wild(card):
            return self.variant.wild_points
        return self._points[card.rank]

    @cached_property
    def _points(self) -> Mapping[int, int]:
        return self.variant.points_by_rank
