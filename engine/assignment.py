"""Giving each group of a lay-down one of the contract's melds, in polynomial time.

The groups a player laid down are paired with slots: the contract's melds in order, then
an empty slot for each group beyond the contract. Equal melds ("2 sets of 3") are equal
slots, so a slot is named by its *value* (an index), and a group may legally take a
value when that value's bit is set in the group's *mask*.

`first_assignment` answers the question the contract check asks: of all the ways to give
every group a slot, taken in the order `itertools.permutations` lists them, which is the
first that makes `target` groups legal? Listing the orderings costs n! (12 one-card
melds never finish); here each group takes the earliest slot from which `target` is
still reachable, and reachability is a maximum bipartite matching (`most_legal`), so the
whole answer costs a polynomial in the number of groups.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

__all__ = ["MAX_VALUES", "first_assignment", "most_legal"]

MAX_VALUES = 16
"""Most distinct slot values a group may take legally (`most_legal` is exponential in
this number, never in the number of groups; a contract has at most a few kinds)."""


def most_legal(masks: Iterable[int], capacity: Sequence[int]) -> int:
    """How many groups can take a legal slot at once, with `capacity[v]` slots of value
    `v` left: the size of a maximum bipartite b-matching.

    By the max-flow min-cut theorem (König's, with capacities) this is the least, over
    every set X of values, of the slots of X plus the groups that could take a value
    outside X; only values some group can take are enumerated.
    """
    counts = Counter(mask for mask in masks if mask)
    live = 0
    for mask in counts:
        live |= mask
    if live.bit_count() > MAX_VALUES:
        raise ValueError(f"more than {MAX_VALUES} distinct melds to match groups with")
    best = sum(counts.values())  # X empty: every group that can take anything
    subset = live
    while subset:
        total = sum(capacity[v] for v in range(subset.bit_length()) if subset >> v & 1)
        if total < best:
            total += sum(n for mask, n in counts.items() if mask & ~subset)
            best = min(best, total)
        subset = (subset - 1) & live
    return best


def first_assignment(
    masks: Sequence[int], slots: Sequence[int], target: int
) -> tuple[int, ...] | None:
    """The slot position of each group in the first assignment, in permutation order,
    that makes at least `target` groups legal (None: no assignment does).

    `slots[p]` is the value of slot position `p`; there must be a slot for every group.
    Group `g` may legally take value `v` when `masks[g] >> v & 1`. Of equal slots the
    earliest free one is always taken, as the first permutation yielding an assignment
    does.
    """
    if len(masks) > len(slots):
        raise ValueError(f"{len(masks)} groups but only {len(slots)} slots")
    positions: dict[int, list[int]] = {}
    for position, value in enumerate(slots):
        positions.setdefault(value, []).append(position)
    capacity = [0] * (max(slots, default=-1) + 1)
    for value, where in positions.items():
        capacity[value] = len(where)
    if most_legal(masks, capacity) < target:
        return None
    taken = dict.fromkeys(positions, 0)
    chosen: list[int] = []
    legal = 0
    for index, mask in enumerate(masks):
        rest = masks[index + 1 :]
        # The earliest free slot of each value, earliest first.
        candidates = sorted(
            (where[taken[value]], value)
            for value, where in positions.items()
            if taken[value] < len(where)
        )
        for position, value in candidates:
            gain = mask >> value & 1
            capacity[value] -= 1
            if legal + gain + most_legal(rest, capacity) >= target:
                taken[value] += 1
                legal += gain
                chosen.append(position)
                break
            capacity[value] += 1
        else:  # pragma: no cover - `target` was reachable before this group chose
            raise AssertionError("no slot keeps the target reachable")
    return tuple(chosen)
