"""Melds: sets and runs, checked against a variant's rules, with wilds placed.

`check_meld` is the one place that decides whether cards form a legal meld. It returns
a `Meld` that records where every card sits (so a joker's declared card is known) or
raises `IllegalMeldError` with every reason a player would want to hear.

Places: a run's cards occupy consecutive places 1..14. A standard ace may take place 1
(A-2-3) or 14 (Q-K-A) as the variant allows; Rook cards sit at their number. A run never
wraps (no K-A-2) because places stop at 14.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .cards import Card, DeckFamily, Suit
from .errors import IllegalMeldError
from .variants import MeldKind, Rules

__all__ = ["Meld", "can_meld", "check_meld", "describe_place", "run_place_card"]


@dataclass(frozen=True, slots=True)
class Meld:
    """A legal meld as it lies on the table.

    `cards` keep table order. `places` gives, per card, its rank (sets) or its place in
    the run (runs, 1..14). `wild` marks the cards that are wild under the rules the meld
    was checked with. Build melds with `check_meld`, which guarantees consistency.
    """

    kind: MeldKind
    cards: tuple[Card, ...]
    places: tuple[int, ...]
    wild: tuple[bool, ...]
    suit: Suit | None = None

    @property
    def size(self) -> int:
        return len(self.cards)

    @property
    def wild_count(self) -> int:
        return sum(self.wild)

    @property
    def natural_count(self) -> int:
        return self.size - self.wild_count

    @property
    def rank(self) -> int:
        """The rank of a set (runs: the lowest place)."""
        return self.places[0] if self.kind is MeldKind.SET else self.low

    @property
    def low(self) -> int:
        return min(self.places)

    @property
    def high(self) -> int:
        return max(self.places)

    def stands_for(self, index: int, family: DeckFamily = DeckFamily.STANDARD) -> str:
        """What card `index` counts as, in words (`'6 of hearts'`, `'any 7'`)."""
        card = self.cards[index]
        if not self.wild[index]:
            return card.name
        if self.kind is MeldKind.SET:
            return f"any {_rank_word(self.places[index], family)}"
        assert self.suit is not None
        return run_place_card(self.suit, self.places[index]).name

    def __str__(self) -> str:
        return " ".join(str(card) for card in self.cards)

    def describe(self, family: DeckFamily = DeckFamily.STANDARD) -> str:
        """`'set of 3 sevens'`, `'run of 5 hearts 4-8 (JK as 6 of hearts)'`."""
        if self.kind is MeldKind.SET:
            text = f"set of {self.size} {_rank_word(self.rank, family)}s"
        else:
            assert self.suit is not None
            low = describe_place(self.low, family)
            high = describe_place(self.high, family)
            text = f"run of {self.size} {self.suit.long_name} {low}-{high}"
        wilds = [
            f"{self.cards[i]} as {self.stands_for(i, family)}"
            for i in range(self.size)
            if self.wild[i]
        ]
        return f"{text} ({', '.join(wilds)})" if wilds else text


def _rank_word(rank: int, family: DeckFamily) -> str:
    if family is DeckFamily.ROOK:
        return str(rank)
    return {1: "ace", 11: "jack", 12: "queen", 13: "king", 14: "ace"}.get(rank, str(rank))


def describe_place(place: int, family: DeckFamily) -> str:
    if family is DeckFamily.ROOK:
        return str(place)
    return {1: "A", 11: "J", 12: "Q", 13: "K", 14: "A"}.get(place, str(place))


def run_place_card(suit: Suit, place: int) -> Card:
    """The natural card that sits at `place` in a run of `suit` (place 14 of a standard
    suit is the ace)."""
    if suit.family is DeckFamily.STANDARD and place == 14:
        return Card(suit, 1)
    return Card(suit, place)


def _wild_limit(rules: Rules, size: int, at_lay_down: bool) -> int | None:
    variant = rules.variant
    limits = variant.wild_limits_lay_down if at_lay_down else variant.wild_limits_later
    return limits.limit(size)


def _common_problems(
    kind: MeldKind, cards: Sequence[Card], wild: Sequence[bool], rules: Rules, at_lay_down: bool
) -> list[str]:
    """Size, natural-card and wild-limit rules shared by sets and runs."""
    variant = rules.variant
    problems: list[str] = []
    least = variant.min_set if kind is MeldKind.SET else variant.min_run
    if len(cards) < least:
        problems.append(f"a {kind} needs at least {least} cards; this has {len(cards)}")
    naturals = len(cards) - sum(wild)
    if naturals < variant.min_naturals:
        problems.append(
            f"a meld needs at least {variant.min_naturals} natural cards; this has {naturals}"
        )
    limit = _wild_limit(rules, len(cards), at_lay_down)
    if limit is not None and sum(wild) > limit:
        when = " when laid down" if at_lay_down and variant.wild_limits_later.table is None else ""
        problems.append(
            f"a {kind} of {len(cards)} may hold at most {limit} wild{'s' if limit != 1 else ''}"
            f"{when}; this has {sum(wild)}"
        )
    return problems


def _check_set(
    cards: Sequence[Card], wild: Sequence[bool], rules: Rules, at_lay_down: bool
) -> Meld:
    variant = rules.variant
    family = variant.family
    problems = _common_problems(MeldKind.SET, cards, wild, rules, at_lay_down)
    naturals = [c for c, w in zip(cards, wild, strict=True) if not w]
    ranks = sorted({c.rank for c in naturals})
    if len(ranks) > 1:
        words = ", ".join(_rank_word(r, family) for r in ranks)
        problems.append(f"a set needs cards of one rank; these are {words}")
    if variant.max_set is not None and len(cards) > variant.max_set:
        problems.append(f"a set holds at most {variant.max_set} cards; this has {len(cards)}")
    if variant.set_distinct_suits:
        repeated = sorted(c for c, n in Counter(naturals).items() if n > 1)
        if repeated:
            which = ", ".join(c.name for c in repeated)
            problems.append(f"a set needs different suits; it repeats the {which}")
    if problems or not ranks:
        raise IllegalMeldError(problems or ["a set needs natural cards"])
    return Meld(MeldKind.SET, tuple(cards), (ranks[0],) * len(cards), tuple(wild))


def _run_problems_unordered(
    cards: Sequence[Card], wild: Sequence[bool], rules: Rules
) -> tuple[list[int] | None, list[str]]:
    """Places for each card of a run laid in any order, or the reasons none exist.

    Wilds fill the gaps first; spare wilds extend the run upwards, then downwards.
    """
    naturals = [c for c, w in zip(cards, wild, strict=True) if not w]
    wild_count = len(cards) - len(naturals)
    bottom, top = rules.bottom_position, rules.top_position
    # Two aces of one suit may share a run only as its two ends (A-2-...-K-A).
    repeated = sorted(c for c, n in Counter(naturals).items() if n > len(rules.run_positions(c)))
    if repeated:
        return None, [f"a run cannot hold two {repeated[0].name}"]
    options: list[list[int]] = [[]]
    for card in naturals:
        options = [[*prev, p] for prev in options for p in rules.run_positions(card)]
    best_reason = ""
    for placing in options:
        if len(set(placing)) < len(placing):
            best_reason = best_reason or "two cards would need the same place in the run"
            continue
        lo, hi = min(placing), max(placing)
        gaps = hi - lo + 1 - len(placing)
        if gaps > wild_count:
            if not best_reason:
                best_reason = (
                    f"the run from {describe_place(lo, rules.variant.family)} to "
                    f"{describe_place(hi, rules.variant.family)} has {gaps} missing "
                    f"card{'s' if gaps != 1 else ''} and only {wild_count} wild"
                    f"{'s' if wild_count != 1 else ''} to fill them"
                )
            continue
        spare = wild_count - gaps
        up = min(spare, top - hi)
        down = spare - up
        if lo - down < bottom:
            best_reason = (
                best_reason
                or f"a run of {len(cards)} does not fit between the lowest and highest card"
            )
            continue
        lo, hi = lo - down, hi + up
        free = iter(p for p in range(lo, hi + 1) if p not in placing)
        natural_places = iter(placing)
        return [next(free) if w else next(natural_places) for w in wild], []
    if _wraps(naturals, rules):
        return None, ["a run never wraps around the ace (no K-A-2)"]
    return None, [best_reason or "these cards cannot form a run"]


def _wraps(naturals: Sequence[Card], rules: Rules) -> bool:
    """True when the cards would only connect through the ace, as in Q-K-A-2."""
    if rules.variant.family is not DeckFamily.STANDARD:
        return False
    ranks = {c.rank for c in naturals}
    return 1 in ranks and bool(ranks & {2, 3}) and bool(ranks & {12, 13})


def _run_problems_ordered(
    cards: Sequence[Card], wild: Sequence[bool], rules: Rules
) -> tuple[list[int] | None, list[str]]:
    """Places for a run whose table order is fixed (ascending or descending)."""
    bottom, top = rules.bottom_position, rules.top_position
    first = next(i for i, w in enumerate(wild) if not w)
    for start_place in rules.run_positions(cards[first]):
        for step in (1, -1):
            places = [start_place + step * (i - first) for i in range(len(cards))]
            if min(places) < bottom or max(places) > top:
                continue
            if all(
                w or place in rules.run_positions(card)
                for card, w, place in zip(cards, wild, places, strict=True)
            ):
                return places, []
    for i in range(first + 1, len(cards)):
        if not wild[i]:
            return None, [f"{cards[first].name} and {cards[i].name} are not in sequence as laid"]
    return None, ["these cards cannot form a run as laid"]


def _check_run(
    cards: Sequence[Card], wild: Sequence[bool], rules: Rules, at_lay_down: bool, ordered: bool
) -> Meld:
    problems = _common_problems(MeldKind.RUN, cards, wild, rules, at_lay_down)
    naturals = [c for c, w in zip(cards, wild, strict=True) if not w]
    suits = sorted({c.suit for c in naturals})
    if len(suits) > 1:
        names = " and ".join(s.long_name for s in suits)
        problems.append(f"a run needs one suit; these are {names}")
    span = rules.top_position - rules.bottom_position + 1
    if len(cards) > span:
        problems.append(f"a run can be at most {span} cards long")
    if problems or not naturals:
        raise IllegalMeldError(problems or ["a run needs natural cards"])
    finder = _run_problems_ordered if ordered else _run_problems_unordered
    found, reasons = finder(cards, wild, rules)
    if found is None:
        raise IllegalMeldError(reasons)
    places: list[int] = found
    if not ordered:
        order = sorted(range(len(cards)), key=places.__getitem__)
        cards = [cards[i] for i in order]
        wild = [wild[i] for i in order]
        places = [places[i] for i in order]
    return Meld(MeldKind.RUN, tuple(cards), tuple(places), tuple(wild), suits[0])


def check_meld(
    cards: Sequence[Card],
    rules: Rules,
    *,
    kind: MeldKind | None = None,
    ordered: bool = False,
    at_lay_down: bool = True,
) -> Meld:
    """Check that `cards` form a legal meld and return it with every card placed.

    `kind` forces a set or a run (otherwise whichever is legal; a set is preferred when
    both are). `ordered=True` takes the cards in table order, so a wild stands for the
    card at its position; otherwise wilds go wherever they make the meld legal and the
    returned run is arranged low to high. `at_lay_down` selects the wild limits for a
    contract being laid down rather than a meld grown by lay-offs.
    """
    cards = list(cards)
    if not cards:
        raise IllegalMeldError("a meld needs cards")
    foreign = [c for c in cards if not rules.accepts(c)]
    if foreign:
        names = ", ".join(str(c) for c in foreign)
        raise IllegalMeldError(
            f"{names} {'is' if len(foreign) == 1 else 'are'} not in play in {rules.variant.title}"
        )
    wild = [rules.is_wild(c) for c in cards]
    kinds = [kind] if kind is not None else [MeldKind.SET, MeldKind.RUN]
    failures: dict[MeldKind, list[str]] = {}
    for candidate in kinds:
        try:
            if candidate is MeldKind.SET:
                return _check_set(cards, wild, rules, at_lay_down)
            return _check_run(cards, wild, rules, at_lay_down, ordered)
        except IllegalMeldError as exc:
            failures[candidate] = exc.reasons
    raise IllegalMeldError(_explain(cards, wild, failures))


def _explain(
    cards: Sequence[Card], wild: Sequence[bool], failures: dict[MeldKind, list[str]]
) -> list[str]:
    """Keep the reasons of the kind the player most likely meant."""
    if len(failures) == 1:
        return next(iter(failures.values()))
    naturals = [c for c, w in zip(cards, wild, strict=True) if not w]
    if not naturals:
        return failures[MeldKind.SET]
    # The kind whose defining feature most cards share is the one the player meant.
    rank_share = Counter(c.rank for c in naturals).most_common(1)[0][1]
    suit_share = Counter(c.suit for c in naturals).most_common(1)[0][1]
    if rank_share == 1 and suit_share == 1 and len(naturals) > 1:
        return ["the cards share neither a rank (for a set) nor a suit (for a run)"]
    if rank_share > suit_share:
        return failures[MeldKind.SET]
    if suit_share > rank_share:
        return failures[MeldKind.RUN]
    return failures[MeldKind.SET] + failures[MeldKind.RUN]


def can_meld(cards: Sequence[Card], rules: Rules, **options: bool | MeldKind | None) -> bool:
    """`check_meld` as a yes/no question."""
    try:
        check_meld(cards, rules, **options)  # type: ignore[arg-type]
    except IllegalMeldError:
        return False
    return True
