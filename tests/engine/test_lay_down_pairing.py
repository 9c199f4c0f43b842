"""Pairing a lay-down's groups with the contract's melds: the verdict of trying every
ordering of the melds (kept here as the reference), found without trying them."""

from __future__ import annotations

import itertools
import types
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from shanghai.engine import contracts
from shanghai.engine.cards import Card, parse_cards
from shanghai.engine.contracts import (
    LayDownReport,
    MeldVerdict,
    _verdict,
    check_lay_down,
    lay_down_problems,
)
from shanghai.engine.errors import IllegalMeldError
from shanghai.engine.melds import Meld, check_meld, run_place_card
from shanghai.engine.variant_files import find_variant, parse_variant
from shanghai.engine.variants import MeldKind, MeldSpec, Rules, build_shoe

# --- the reference: every ordering of the contract's melds, as the check once did -------


def _orderings(groups: int, specs: list[MeldSpec]) -> Iterator[tuple[MeldSpec | None, ...]]:
    padded: list[MeldSpec | None] = [*specs, *([None] * max(0, groups - len(specs)))]
    seen: set[tuple[MeldSpec | None, ...]] = set()
    for perm in itertools.permutations(padded, groups):
        if perm not in seen:
            seen.add(perm)
            yield perm


def reference_check(groups: Sequence[Sequence[Card]], rules: Rules, number: int) -> LayDownReport:
    contract = rules.round(number).contract
    assert contract is not None
    exact = rules.variant.lay_down_exact
    options: list[dict[MeldKind, Meld | list[str]]] = []
    for group in groups:
        per_kind: dict[MeldKind, Meld | list[str]] = {}
        for kind in (MeldKind.SET, MeldKind.RUN):
            try:
                per_kind[kind] = check_meld(group, rules, kind=kind)
            except IllegalMeldError as exc:
                per_kind[kind] = exc.reasons
        options.append(per_kind)
    reasons: list[str] = []
    if len(groups) != len(contract.melds):
        reasons.append(
            f"round {number} calls for {contract} ({len(contract.melds)} melds); "
            f"{len(groups)} {'was' if len(groups) == 1 else 'were'} laid down"
        )
    best: tuple[int, list[MeldVerdict]] | None = None
    crossed: tuple[list[MeldVerdict], list[str]] | None = None
    for assignment in _orderings(len(groups), list(contract.melds)):
        verdicts = [
            _verdict(tuple(group), per_kind, spec, exact)
            for group, per_kind, spec in zip(groups, options, assignment, strict=True)
        ]
        score = sum(v.valid for v in verdicts)
        if best is None or score > best[0]:
            best = (score, verdicts)
        if score == len(groups) and not reasons:
            cross = lay_down_problems([v.meld for v in verdicts if v.meld is not None], rules)
            if not cross:
                return LayDownReport(number, contract, tuple(verdicts))
            crossed = crossed or (verdicts, cross)
    if crossed is not None:
        return LayDownReport(number, contract, tuple(crossed[0]), tuple(crossed[1]))
    assert best is not None
    return LayDownReport(number, contract, tuple(best[1]), tuple(reasons))


# --- a lay-down far beyond the contract answers at once -----------------------------------

ONE_CARD_EACH = (
    "2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh Ah 2s 3s 4s 5s 6s 7s 8s "
    "9s 10s Js Qs Ks As 2d 3d 4d 5d 6d 7d 8d 9d 10d Jd Qd Kd Ad 2c"
)


class Work:
    """Counts what judging a lay-down costs: meld verdicts, and orderings of the
    contract's melds enumerated (`itertools.permutations`). Past `limit` of either it
    stops the check with an error, so a search over every ordering fails this test at
    once instead of running for longer than the universe."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, limit: int) -> None:
        self.verdicts = 0
        self.orderings = 0
        self.limit = limit
        judge = contracts._verdict
        real = itertools.permutations

        def counted_verdict(*args: Any) -> MeldVerdict:
            self.verdicts += 1
            self._check()
            return judge(*args)

        def counted_permutations(items: Any, r: Any = None) -> Iterator[tuple[Any, ...]]:
            for ordering in real(items, r):
                self.orderings += 1
                self._check()
                yield ordering

        tools = types.SimpleNamespace(**vars(itertools))
        tools.permutations = counted_permutations
        monkeypatch.setattr(contracts, "_verdict", counted_verdict)
        monkeypatch.setattr(contracts, "itertools", tools)

    def _check(self) -> None:
        if self.verdicts > self.limit or self.orderings > self.limit:
            raise RuntimeError(f"more than {self.limit} steps to judge one lay-down")


@pytest.mark.parametrize("count", [12, 40])
def test_many_one_card_melds_answer_with_a_clear_verdict(
    count: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = find_variant("shanghai").rules(4)
    groups = [[card] for card in parse_cards(ONE_CARD_EACH)[:count]]
    # Each group is judged once against each distinct contract meld and the empty slot.
    work = Work(monkeypatch, limit=count * 2)
    report = check_lay_down(groups, rules, 1)
    assert not report.valid
    assert report.reasons == (f"round 1 calls for 2 sets of 3 (2 melds); {count} were laid down",)
    assert len(report.melds) == count
    assert all(not verdict.valid for verdict in report.melds)
    assert work.verdicts <= count * 2
    assert work.orderings == 0


def test_legal_melds_among_many_groups_are_found(monkeypatch: pytest.MonkeyPatch) -> None:
    work = Work(monkeypatch, limit=200)
    rules = find_variant("shanghai").rules(4)
    sets = [parse_cards("7h 7s 7c"), parse_cards("Kd Kd Kh")]
    loose = [[card] for card in parse_cards(ONE_CARD_EACH)[:38]]
    groups = [*loose[:20], sets[0], *loose[20:], sets[1]]
    report = check_lay_down(groups, rules, 1)
    assert not report.valid
    valid = [i for i, verdict in enumerate(report.melds) if verdict.valid]
    assert valid == [20, 39]
    assert "40 were laid down" in report.reasons[0]
    # The same verdict as trying every ordering, on a smaller lay-down of the same shape.
    small = [*loose[:3], sets[0], *loose[3:5], sets[1]]
    assert check_lay_down(small, rules, 1) == reference_check(small, rules, 1)
    assert work.orderings == 0


def test_matching_counts_the_most_groups_placed() -> None:
    from shanghai.engine.assignment import first_assignment, most_legal

    # Three groups that can only take value 0 (one slot): one of them is placed.
    assert most_legal([0b1, 0b1, 0b1], [1, 2]) == 1
    assert most_legal([0b1, 0b11, 0b10], [1, 1]) == 2
    assert first_assignment([0b1, 0b1, 0b1], [0, 1, 1], 1) == (0, 1, 2)
    # The second group alone can take value 1: the first must leave it free.
    assert first_assignment([0b11, 0b10], [1, 0], 2) == (1, 0)
    assert first_assignment([0b10, 0b10], [1, 0], 2) is None


# --- the same verdict as every ordering ---------------------------------------------------

# Groups read both as a set and as a run (one natural card), rules between melds.
LOOSE_RULES = parse_variant(
    {
        "extends": "shanghai",
        "name": "loose",
        "melds": {"min_naturals": 1, "min_run": 3},
        "wilds": {"limit_at_lay_down": "none"},
        "lay_down": {"exact": False, "run_spacing": "separated", "distinct_set_ranks": True},
        "rounds": [
            {"contract": "1 set of 3 + 1 run of 3"},
            {"contract": "2 sets of 3 + 1 run of 4"},
            {"contract": "1 set of 3 + 2 runs of 3"},
            {"contract": "3 runs of 3"},
        ],
    }
)


def _group(draw: st.DrawFn, rules: Rules, kind: str, size: int) -> list[Card]:
    """Cards of about a meld: `size` cards of one rank (a set) or in a row of one suit (a
    run), a wild in place of one now and then; `any`: cards at random."""
    naturals = sorted(
        {c for c in build_shoe(rules.variant.family, rules.setup) if not rules.is_wild(c)}
    )
    if kind == "set":
        rank = draw(st.sampled_from(sorted({c.rank for c in naturals})))
        pool = [c for c in naturals if c.rank == rank]
        group = [draw(st.sampled_from(pool)) for _ in range(size)]
    elif kind == "run":
        suit = draw(st.sampled_from(sorted({c.suit for c in naturals})))
        low = draw(st.integers(rules.bottom_position, rules.top_position - size + 1))
        group = [run_place_card(suit, p) for p in range(low, low + size)]
    else:
        group = [draw(st.sampled_from(naturals)) for _ in range(size)]
    wilds = sorted(rules.wild_cards)
    for _ in range(draw(st.integers(0, 2)) if wilds else 0):
        group[draw(st.integers(0, size - 1))] = draw(st.sampled_from(wilds))
    return [c for c in group if rules.accepts(c)]


@st.composite
def lay_downs(draw: st.DrawFn) -> tuple[Rules, int, list[list[Card]]]:
    """Mostly the contract's shape (a group per meld, of its kind and about its size,
    some with wilds), sometimes more or fewer groups, and groups of any cards."""
    name = draw(st.sampled_from(["shanghai", "rook", "shafer", "family", "loose"]))
    variant = LOOSE_RULES if name == "loose" else find_variant(name)
    rules = variant.rules()
    number = draw(st.integers(1, len(variant.rounds)))
    contract = rules.round(number).contract
    assert contract is not None
    shapes = [(str(spec.kind), spec.size) for spec in contract.melds]
    shapes = draw(st.permutations(shapes))
    extra = draw(st.sampled_from([0, 0, 0, -1, 1, 2, 3]))
    if extra < 0:
        shapes = shapes[:extra]
    kinds = st.sampled_from(["set", "run", "any"])
    shapes += [(draw(kinds), draw(st.integers(1, 4))) for _ in range(max(0, extra))]
    # Now and then a meld one card longer or shorter than the contract says.
    shapes = [
        (kind, max(1, size + draw(st.sampled_from([0, 0, 0, 1, -1])))) for kind, size in shapes
    ]
    groups = [_group(draw, rules, kind, size) for kind, size in shapes]
    return rules, number, [g for g in groups if g]


@settings(max_examples=400, deadline=None)
@given(lay_downs())
def test_pairing_gives_the_verdict_of_every_ordering(
    case: tuple[Rules, int, list[list[Card]]],
) -> None:
    rules, number, groups = case
    report = check_lay_down(groups, rules, number)
    if report.valid:
        event("legal")
    elif all(verdict.valid for verdict in report.melds):
        event("legal melds, illegal together" if report.reasons else "legal melds")
    else:
        event("illegal melds")
    assert report == reference_check(groups, rules, number)


def test_a_group_read_as_the_other_kind_passes_the_rules_between_melds() -> None:
    """`7h JK JK` and `7s JK JK` are each a set of sevens or a run. The first ordering
    reads the first as the set and the second as a spade run, which overlaps `8s 9s
    10s`; read the other way round the lay-down is legal."""
    rules = LOOSE_RULES.rules()
    groups = [parse_cards("7h JK JK"), parse_cards("7s JK JK"), parse_cards("8s 9s 10s")]
    a, b, c = groups
    first_reading = [
        check_meld(a, rules, kind=MeldKind.SET),
        check_meld(b, rules, kind=MeldKind.RUN),
        check_meld(c, rules, kind=MeldKind.RUN),
    ]
    assert lay_down_problems(first_reading, rules)
    report = check_lay_down(groups, rules, 3)
    assert report == reference_check(groups, rules, 3)
    assert report.valid, report.all_reasons
    assert [v.meld.kind for v in report.melds if v.meld] == [
        MeldKind.RUN,
        MeldKind.SET,
        MeldKind.RUN,
    ]
