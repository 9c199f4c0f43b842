"""Contract checking: is this lay-down the round's contract, and why not?

Two entry points:
- `check_lay_down(groups, ...)`: the player grouped the cards (as on the table, or
  `7h 7s 7c | 4d 5d 6d 7d` on the command line); each group must be a legal meld and
  the melds must be exactly the contract's, with the variant's lay-down rules (exact
  sizes, runs of one suit kept apart, sets of different ranks, wild limits).
- `find_lay_down(cards, ...)`: ungrouped cards; search for a grouping into the
  contract's melds (all cards used, or any subset with `use_all=False`, as a player
  looking at a hand would).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from .assignment import first_assignment, most_legal
from .cards import Card, Suit
from .errors import IllegalMeldError
from .melds import Meld, check_meld, describe_place
from .variants import Contract, MeldKind, MeldSpec, Rules, RunSpacing

__all__ = [
    "LayDownReport",
    "MeldVerdict",
    "can_lay_down",
    "check_lay_down",
    "find_lay_down",
    "lay_down_problems",
    "verify_lay_down",
]


@dataclass(frozen=True, slots=True)
class MeldVerdict:
    """One group of a lay-down: the meld it forms (if legal) and the problems found."""

    cards: tuple[Card, ...]
    meld: Meld | None
    spec: MeldSpec | None
    reasons: tuple[str, ...] = ()

    @property
    def valid(self) -> bool:
        return self.meld is not None and not self.reasons


@dataclass(frozen=True, slots=True)
class LayDownReport:
    """The verdict on a whole lay-down, with every reason a player needs."""

    round_number: int
    contract: Contract | None
    melds: tuple[MeldVerdict, ...]
    reasons: tuple[str, ...] = field(default=())

    @property
    def valid(self) -> bool:
        return not self.reasons and all(v.valid for v in self.melds)

    @property
    def all_reasons(self) -> list[str]:
        out = list(self.reasons)
        for index, verdict in enumerate(self.melds, start=1):
            out.extend(f"meld {index} ({_cards_text(verdict.cards)}): {r}" for r in verdict.reasons)
        return out


def _cards_text(cards: Sequence[Card]) -> str:
    return " ".join(str(c) for c in cards)


def lay_down_problems(melds: Sequence[Meld], rules: Rules) -> list[str]:
    """Rules between the melds of one lay-down: same-suit runs apart, set ranks distinct."""
    variant = rules.variant
    problems: list[str] = []
    family = variant.family
    runs = [m for m in melds if m.kind is MeldKind.RUN]
    if variant.run_spacing is not RunSpacing.ANY:
        for a, b in itertools.combinations(runs, 2):
            if a.suit is not b.suit:
                continue
            lo, hi = (a, b) if a.low <= b.low else (b, a)
            touching = hi.low == lo.high + 1
            overlapping = hi.low <= lo.high
            if touching or (overlapping and variant.run_spacing is RunSpacing.SEPARATED):
                how = "touch" if touching else "overlap"
                need = (
                    "at least one card must separate them"
                    if variant.run_spacing is RunSpacing.SEPARATED
                    else "they may not be adjacent"
                )
                assert lo.suit is not None
                first = f"{describe_place(lo.low, family)}-{describe_place(lo.high, family)}"
                second = f"{describe_place(hi.low, family)}-{describe_place(hi.high, family)}"
                problems.append(
                    f"the two {lo.suit.long_name} runs ({first} and {second}) {how}; {need}"
                )
    if variant.distinct_set_ranks:
        ranks = Counter(m.rank for m in melds if m.kind is MeldKind.SET)
        for rank, count in sorted(ranks.items()):
            if count > 1:
                problems.append(
                    f"{count} sets of {describe_place(rank, family)}s: sets laid down together "
                    "must be of different ranks"
                )
    return problems


def _size_ok(meld: Meld, spec: MeldSpec, exact: bool) -> bool:
    return meld.size == spec.size if exact else meld.size >= spec.size


def _contract_for(rules: Rules, round_number: int) -> Contract:
    contract = rules.round(round_number).contract
    if contract is None:
        raise IllegalMeldError(
            f"{rules.variant.title} has no contracts: any legal meld may be played"
        )
    return contract


def check_lay_down(
    groups: Sequence[Sequence[Card]],
    rules: Rules,
    round_number: int,
    *,
    ordered: bool = False,
) -> LayDownReport:
    """Check grouped cards against round `round_number`'s contract.

    Variants without contracts (manipulation) check each group as a free meld.
    """
    rule = rules.round(round_number)
    contract = rule.contract
    options: list[dict[MeldKind, Meld | list[str]]] = []
    for group in groups:
        per_kind: dict[MeldKind, Meld | list[str]] = {}
        for kind in (MeldKind.SET, MeldKind.RUN):
            try:
                per_kind[kind] = check_meld(group, rules, kind=kind, ordered=ordered)
            except IllegalMeldError as exc:
                per_kind[kind] = exc.reasons
        options.append(per_kind)

    if contract is None:
        return _free_melds(groups, options, rules, round_number)

    reasons: list[str] = []
    if len(groups) != len(contract.melds):
        reasons.append(
            f"round {round_number} calls for {contract} ({len(contract.melds)} melds); "
            f"{len(groups)} {'was' if len(groups) == 1 else 'were'} laid down"
        )
    return _Pairing(groups, options, contract, rules).report(round_number, tuple(reasons))


class _Pairing:
    """Which contract meld each group is judged against.

    The verdict is the one trying every ordering of the contract's melds would give
    (the first ordering, in `itertools.permutations` order, that makes the most groups
    legal; for a lay-down of exactly the contract, the first whose melds also pass the
    rules between melds), found by matching (`assignment.first_assignment`) in time
    polynomial in the number of groups.
    """

    def __init__(
        self,
        groups: Sequence[Sequence[Card]],
        options: list[dict[MeldKind, Meld | list[str]]],
        contract: Contract,
        rules: Rules,
    ) -> None:
        self.groups = [tuple(group) for group in groups]
        self.options = options
        self.contract = contract
        self.rules = rules
        specs = list(contract.melds)
        padded: list[MeldSpec | None] = [*specs, *([None] * max(0, len(groups) - len(specs)))]
        self.values = list(dict.fromkeys(padded))
        index = {value: i for i, value in enumerate(self.values)}
        self.slots = [index[value] for value in padded]
        self._verdicts: dict[tuple[int, int], MeldVerdict] = {}
        self.masks = [
            sum(1 << v for v in range(len(self.values)) if self.verdict(g, v).valid)
            for g in range(len(self.groups))
        ]

    def verdict(self, group: int, value: int) -> MeldVerdict:
        key = (group, value)
        if key not in self._verdicts:
            spec = self.values[value]
            exact = self.rules.variant.lay_down_exact
            self._verdicts[key] = _verdict(self.groups[group], self.options[group], spec, exact)
        return self._verdicts[key]

    def verdicts(self, positions: Sequence[int]) -> tuple[MeldVerdict, ...]:
        return tuple(self.verdict(g, self.slots[p]) for g, p in enumerate(positions))

    def report(self, round_number: int, reasons: tuple[str, ...]) -> LayDownReport:
        count = len(self.groups)
        capacity = [self.slots.count(v) for v in range(len(self.values))]
        first = first_assignment(self.masks, self.slots, most_legal(self.masks, capacity))
        assert first is not None
        verdicts = self.verdicts(first)
        if reasons or not all(v.valid for v in verdicts):
            return LayDownReport(round_number, self.contract, verdicts, reasons)
        cross = lay_down_problems([v.meld for v in verdicts if v.meld is not None], self.rules)
        if not cross:
            return LayDownReport(round_number, self.contract, verdicts)
        # The melds break a rule between melds (runs touching, sets of one rank): a group
        # that is both a legal set and a legal run may read the other way. The melds
        # depend only on the kind each group is read as.
        kinds_first = tuple(self.kind(p) for p in first)
        best: tuple[int, ...] | None = None
        for kinds in self._kind_choices():
            if kinds == kinds_first:
                continue
            melds = [self.options[g][kind] for g, kind in enumerate(kinds)]
            if lay_down_problems([m for m in melds if isinstance(m, Meld)], self.rules):
                continue
            masks = [
                mask & self._kind_bits(kind) for mask, kind in zip(self.masks, kinds, strict=True)
            ]
            found = first_assignment(masks, self.slots, count)
            if found is not None and (best is None or found < best):
                best = found
        if best is not None:
            return LayDownReport(round_number, self.contract, self.verdicts(best))
        return LayDownReport(round_number, self.contract, verdicts, tuple(cross))

    def kind(self, position: int) -> MeldKind:
        spec = self.values[self.slots[position]]
        assert spec is not None
        return spec.kind

    def _kind_bits(self, kind: MeldKind) -> int:
        return sum(
            1 << v for v, spec in enumerate(self.values) if spec is not None and spec.kind is kind
        )

    def _kind_choices(self) -> Iterator[tuple[MeldKind, ...]]:
        """Each way to read every group as a set or a run that still lets every group
        take a legal contract meld (pruned by matching: at most 2 ** groups read both
        ways, and a lay-down of exactly the contract has few groups)."""
        count = len(self.groups)
        capacity = [self.slots.count(v) for v in range(len(self.values))]
        bits = {kind: self._kind_bits(kind) for kind in MeldKind}
        chosen: list[MeldKind] = []

        def walk(index: int) -> Iterator[tuple[MeldKind, ...]]:
            if index == count:
                yield tuple(chosen)
                return
            for kind in MeldKind:
                if not self.masks[index] & bits[kind]:
                    continue
                chosen.append(kind)
                masks = [m & bits[k] for m, k in zip(self.masks, chosen, strict=False)]
                if most_legal([*masks, *self.masks[index + 1 :]], capacity) == count:
                    yield from walk(index + 1)
                chosen.pop()

        yield from walk(0)


def _free_melds(
    groups: Sequence[Sequence[Card]],
    options: list[dict[MeldKind, Meld | list[str]]],
    rules: Rules,
    round_number: int,
) -> LayDownReport:
    verdicts = []
    for group, per_kind in zip(groups, options, strict=True):
        meld = next((m for m in per_kind.values() if isinstance(m, Meld)), None)
        if meld is not None:
            verdicts.append(MeldVerdict(tuple(group), meld, None))
        else:
            reasons = _pick_reasons(group, per_kind, rules)
            verdicts.append(MeldVerdict(tuple(group), None, None, tuple(reasons)))
    return LayDownReport(round_number, None, tuple(verdicts))


def _pick_reasons(
    group: Sequence[Card], per_kind: dict[MeldKind, Meld | list[str]], rules: Rules
) -> list[str]:
    try:
        check_meld(group, rules)
    except IllegalMeldError as exc:
        return exc.reasons
    return []


def _verdict(
    group: tuple[Card, ...],
    per_kind: dict[MeldKind, Meld | list[str]],
    spec: MeldSpec | None,
    exact: bool,
) -> MeldVerdict:
    if spec is None:
        meld = next((m for m in per_kind.values() if isinstance(m, Meld)), None)
        return MeldVerdict(group, meld, None, ("the contract does not call for this meld",))
    outcome = per_kind[spec.kind]
    if not isinstance(outcome, Meld):
        return MeldVerdict(group, None, spec, (f"not a {spec.kind}: " + "; ".join(outcome),))
    if not _size_ok(outcome, spec, exact):
        need = f"exactly {spec.size}" if exact else f"at least {spec.size}"
        return MeldVerdict(
            group,
            outcome,
            spec,
            (
                f"the contract's {spec.kind} is laid down with {need} cards; "
                f"this has {outcome.size}",
            ),
        )
    return MeldVerdict(group, outcome, spec)


def verify_lay_down(
    groups: Sequence[Sequence[Card]], rules: Rules, round_number: int, *, ordered: bool = False
) -> list[Meld]:
    """Like `check_lay_down`, but raise `IllegalMeldError` with all reasons if illegal."""
    report = check_lay_down(groups, rules, round_number, ordered=ordered)
    if not report.valid:
        raise IllegalMeldError(report.all_reasons)
    return [v.meld for v in report.melds if v.meld is not None]


def can_lay_down(
    groups: Sequence[Sequence[Card]], rules: Rules, round_number: int, *, ordered: bool = False
) -> bool:
    return check_lay_down(groups, rules, round_number, ordered=ordered).valid


# ---------------------------------------------------------------------------------------
# Search for a grouping of ungrouped cards


@dataclass
class _Search:
    rules: Rules
    exact: bool
    use_all: bool
    order: list[Card]
    failed: set[tuple[object, ...]] = field(default_factory=set)

    def run(
        self,
        naturals: Counter[Card],
        wilds: int,
        specs: tuple[MeldSpec, ...],
        chosen: tuple[Meld, ...],
    ) -> tuple[Meld, ...] | None:
        if not specs:
            if self.use_all and (wilds or +naturals):
                return None
            return chosen
        # Counts in the fixed card order identify the remaining cards cheaply.
        key = (tuple(naturals[c] for c in self.order), wilds, specs, self._summary(chosen))
        if key in self.failed:
            return None
        if self.use_all and self._stranded(naturals, specs):
            self.failed.add(key)
            return None
        card = next((c for c in self.order if naturals[c] > 0), None)
        if card is None:
            self.failed.add(key)
            return None
        for spec in dict.fromkeys(specs):
            rest = list(specs)
            rest.remove(spec)
            for meld_naturals, meld_wilds, meld in self._melds_with(card, spec, naturals, wilds):
                trial = (*chosen, meld)
                if lay_down_problems(trial, self.rules):
                    continue
                naturals.subtract(meld_naturals)
                found = self.run(naturals, wilds - meld_wilds, tuple(rest), trial)
                naturals.update(meld_naturals)
                if found is not None:
                    return found
        if not self.use_all:
            naturals[card] -= 1
            found = self.run(naturals, wilds, specs, chosen)
            naturals[card] += 1
            if found is not None:
                return found
        self.failed.add(key)
        return None

    def _stranded(self, naturals: Counter[Card], specs: tuple[MeldSpec, ...]) -> bool:
        """A quick proof that the cards left cannot all go into the melds left (only
        when every card must be used): a natural whose rank is too scarce for a set
        must go into a run of its suit, and equal naturals need as many runs (two
        aces can share one run as its two ends)."""
        rules = self.rules
        variant = rules.variant
        runs_left = sum(1 for spec in specs if spec.kind is MeldKind.RUN)
        by_rank: Counter[int] = Counter()
        if runs_left < len(specs):
            for card, count in naturals.items():
                if count > 0:
                    by_rank[card.rank] += 1 if variant.set_distinct_suits else count
        runs_needed: dict[Suit, int] = {}
        for card, count in naturals.items():
            if count <= 0 or by_rank[card.rank] >= variant.min_naturals:
                continue
            runs = -(-count // len(rules.run_positions(card)))
            if runs > runs_needed.get(card.suit, 0):
                runs_needed[card.suit] = runs
        return sum(runs_needed.values()) > runs_left

    def _summary(self, chosen: tuple[Meld, ...]) -> tuple[object, ...]:
        """What of the melds chosen so far can still decide later choices: nothing,
        unless the variant has rules between the melds of a lay-down."""
        variant = self.rules.variant
        if variant.run_spacing is RunSpacing.ANY and not variant.distinct_set_ranks:
            return ()
        return tuple(sorted((m.kind.value, str(m.suit), m.low, m.high) for m in chosen))

    def _melds_with(
        self, card: Card, spec: MeldSpec, naturals: Counter[Card], wilds: int
    ) -> Iterator[tuple[Counter[Card], int, Meld]]:
        """Legal melds for `spec` that contain `card` and fit the cards available."""
        sizes = [spec.size] if self.exact else None
        if spec.kind is MeldKind.SET:
            yield from self._sets_with(card, spec, naturals, wilds, sizes)
        else:
            yield from self._runs_with(card, spec, naturals, wilds, sizes)

    def _limit(self, size: int) -> int:
        limit = self.rules.variant.wild_limits_lay_down.limit(size)
        return size if limit is None else limit

    def _sets_with(
        self,
        card: Card,
        spec: MeldSpec,
        naturals: Counter[Card],
        wilds: int,
        sizes: list[int] | None,
    ) -> Iterator[tuple[Counter[Card], int, Meld]]:
        variant = self.rules.variant
        same_rank = [c for c in self.order if c.rank == card.rank and naturals[c] > 0]
        pools = [range(naturals[c] + 1 - (c == card)) for c in same_rank]
        for counts in itertools.product(*pools):
            chosen = Counter({card: 1})
            for c, n in zip(same_rank, counts, strict=True):
                chosen[c] += n
            size_naturals = sum(chosen.values())
            for extra in range(0, wilds + 1):
                size = size_naturals + extra
                if size < spec.size or (sizes is not None and size not in sizes):
                    continue
                if variant.max_set is not None and size > variant.max_set:
                    break
                if extra > self._limit(size) or size_naturals < variant.min_naturals:
                    continue
                if variant.set_distinct_suits and any(n > 1 for n in chosen.values()):
                    continue
                cards = list(chosen.elements()) + [_WILD] * extra
                meld = Meld(
                    MeldKind.SET,
                    tuple(cards),
                    (card.rank,) * size,
                    (False,) * size_naturals + (True,) * extra,
                )
                yield chosen, extra, meld

    def _runs_with(
        self,
        card: Card,
        spec: MeldSpec,
        naturals: Counter[Card],
        wilds: int,
        sizes: list[int] | None,
    ) -> Iterator[tuple[Counter[Card], int, Meld]]:
        rules = self.rules
        bottom, top = rules.bottom_position, rules.top_position
        suit = card.suit
        by_place: dict[int, Card] = {}
        for c in self.order:
            if c.suit is suit and naturals[c] > 0:
                for p in rules.run_positions(c):
                    by_place.setdefault(p, c)
        for place in rules.run_positions(card):
            lengths = sizes or range(spec.size, top - bottom + 2)
            for length in lengths:
                limit = min(self._limit(length), wilds)
                for lo in range(max(bottom, place - length + 1), min(place, top - length + 1) + 1):
                    hi = lo + length - 1
                    others = [p for p in range(lo, hi + 1) if p != place]
                    missing = [p for p in others if p not in by_place]
                    if len(missing) > limit:
                        continue
                    present = [p for p in others if p in by_place]
                    spare = limit - len(missing)
                    for swapped in range(0, min(spare, len(present)) + 1):
                        for as_wild in itertools.combinations(present, swapped):
                            wild_places = set(missing) | set(as_wild)
                            if length - len(wild_places) < rules.variant.min_naturals:
                                continue
                            used = Counter({card: 1})
                            cards: list[Card] = []
                            ok = True
                            for p in range(lo, hi + 1):
                                if p == place:
                                    cards.append(card)
                                elif p in wild_places:
                                    cards.append(_WILD)
                                else:
                                    c = by_place[p]
                                    used[c] += 1
                                    ok = ok and used[c] <= naturals[c]
                                    cards.append(c)
                            if not ok:
                                continue
                            wild_flags = tuple(c is _WILD for c in cards)
                            meld = Meld(
                                MeldKind.RUN,
                                tuple(cards),
                                tuple(range(lo, hi + 1)),
                                wild_flags,
                                suit,
                            )
                            yield used, len(wild_places), meld


_WILD = Card.parse("JK")  # placeholder while searching; replaced by the real wild cards


def _wilds_short(naturals: Counter[Card], wilds: int, contract: Contract, rules: Rules) -> bool:
    """A quick proof that no grouping exists: even with every meld free to reuse cards
    (a relaxation), the melds would need more wilds than the hand holds.

    Most hands a player looks at are far from the contract; this answers them without
    the exhaustive search, and never rejects a hand the search would accept.
    """
    variant = rules.variant
    exact = variant.lay_down_exact
    set_specs = [spec for spec in contract.melds if spec.kind is MeldKind.SET]
    needed = 0
    if set_specs and len({spec.size for spec in set_specs}) == 1:
        size = set_specs[0].size
        limit = variant.wild_limits_lay_down.limit(size)
        per_set = variant.min_naturals
        if exact and limit is not None:
            per_set = max(per_set, size - limit)
        by_rank: Counter[int] = Counter()
        for card, count in naturals.items():
            by_rank[card.rank] += count
        # Wilds the j-th set of one rank adds: convex in j, so the cheapest len(set_specs)
        # of all of them are a lower bound for the sets' wilds.
        extra: list[int] = []
        for count in by_rank.values():
            for j in range(1, len(set_specs) + 1):
                if count < j * per_set:
                    break
                extra.append(max(0, j * size - count) - max(0, (j - 1) * size - count))
        if len(extra) < len(set_specs):
            return True
        needed += sum(sorted(extra)[: len(set_specs)])
    run_specs = [spec for spec in contract.melds if spec.kind is MeldKind.RUN]
    if run_specs:
        run_wilds = _run_wilds(naturals, run_specs, rules)
        if run_wilds is None:
            return True
        needed += run_wilds
    return needed > wilds


def _run_wilds(naturals: Counter[Card], specs: list[MeldSpec], rules: Rules) -> int | None:
    """A lower bound on the wilds the contract's runs need (None: they cannot be laid).

    Each run alone needs at least the places its best window of its suit lacks; the
    runs of one suit together can use each natural card of that suit only once, and
    where the variant keeps them apart they must fit side by side with a gap. Every way
    of giving the runs suits is tried (at most a few dozen).
    """
    variant = rules.variant
    exact = variant.lay_down_exact
    bottom, top = rules.bottom_position, rules.top_position
    places_by_suit: dict[Suit, set[int]] = {}
    cards_by_suit: Counter[Suit] = Counter()
    for card, count in naturals.items():
        if count > 0:
            places_by_suit.setdefault(card.suit, set()).update(rules.run_positions(card))
            cards_by_suit[card.suit] += count
    lacking: list[dict[Suit, int]] = []  # per run: fewest places lacking, by suit
    for spec in specs:
        limit = variant.wild_limits_lay_down.limit(spec.size) if exact else None
        by_suit: dict[Suit, int] = {}
        for suit, places in places_by_suit.items():
            for low in range(bottom, top - spec.size + 2):
                present = sum(1 for p in range(low, low + spec.size) if p in places)
                missing = spec.size - present
                if exact and (
                    present < variant.min_naturals or (limit is not None and missing > limit)
                ):
                    continue
                if missing < by_suit.get(suit, spec.size + 1):
                    by_suit[suit] = missing
        if not by_suit:
            return None
        lacking.append(by_suit)
    if len(specs) == 1:
        return min(lacking[0].values())
    span = top - bottom + 1
    apart = variant.run_spacing is RunSpacing.SEPARATED
    fewest: int | None = None
    for suits in itertools.product(*(sorted(by_suit) for by_suit in lacking)):
        total = 0
        for suit in set(suits):
            runs = [i for i, s in enumerate(suits) if s is suit]
            length = sum(specs[i].size for i in runs)
            if apart and length + len(runs) - 1 > span:
                break
            alone = sum(lacking[i][suit] for i in runs)
            total += max(alone, length - cards_by_suit[suit])
        else:
            if fewest is None or total < fewest:
                fewest = total
    return fewest


def find_lay_down(
    cards: Sequence[Card], rules: Rules, round_number: int, *, use_all: bool = True
) -> list[Meld] | None:
    """Group `cards` into the round's contract, or None if no grouping exists.

    With `use_all` every card must be used (a lay-down given ungrouped); without it the
    search picks any subset (a player deciding whether a hand can lay down).
    """
    contract = _contract_for(rules, round_number)
    wild_cards = [c for c in cards if rules.is_wild(c)]
    naturals = Counter(c for c in cards if not rules.is_wild(c))
    if any(not rules.accepts(c) for c in naturals):
        return None
    exact = rules.variant.lay_down_exact
    if use_all and exact and len(cards) != contract.card_count:
        return None
    if len(cards) < contract.card_count:
        return None  # every meld needs at least its contract size, with or without use_all
    if _wilds_short(naturals, len(wild_cards), contract, rules):
        return None
    # Longest, most constrained melds first: fewer dead ends.
    specs = tuple(sorted(contract.melds, key=lambda s: (s.kind is MeldKind.SET, -s.size)))
    order = sorted(naturals, key=lambda c: (c.suit.value, c.rank))
    search = _Search(rules, exact, use_all, order)
    found = search.run(naturals, len(wild_cards), specs, ())
    if found is None:
        return None
    spare = iter(wild_cards)
    out = []
    for meld in found:
        real = tuple(next(spare) if w else c for c, w in zip(meld.cards, meld.wild, strict=True))
        out.append(Meld(meld.kind, real, meld.places, meld.wild, meld.suit))
    return out
