"""Least-cost assignment of indices to boxes."""

from __future__ import annotations

from itertools import permutations

import numpy as np

from shanghai.vision.assignment import assign

INF = np.inf


def test_the_least_total_beats_the_best_first_pick() -> None:
    """Greedy would take the two zeros and leave row 2 the costly column 0; the
    least total keeps the diagonal (a row of cards not shifted by one)."""
    cost = np.array(
        [
            [0.05, 0.0, 0.14, INF],
            [0.14, 0.05, 0.0, 0.2],
            [0.29, 0.14, 0.05, 0.06],
            [0.43, INF, 0.14, 0.05],
        ]
    )
    assert assign(cost, leave=0.45) == [(0, 0), (1, 1), (2, 2), (3, 3)]


def test_matches_brute_force_on_random_squares() -> None:
    rng = np.random.default_rng(3)
    for _ in range(30):
        cost = rng.uniform(0, 1, (5, 5))
        best = min(permutations(range(5)), key=lambda p: sum(cost[i, p[i]] for i in range(5)))
        assert assign(cost, leave=10.0) == list(enumerate(best))


def test_rows_may_stay_unassigned() -> None:
    cost = np.array([[0.1, INF], [0.2, INF], [INF, INF]])
    # Two rows want the one column; the other is left at the leave cost. Row 2 has
    # no allowed column at all.
    assert assign(cost, leave=0.5) == [(0, 0)]
    # Leaving a row costs less than a poor fit.
    assert assign(np.array([[0.9]]), leave=0.5) == []


def test_independent_groups_are_solved_apart() -> None:
    cost = np.full((4, 4), INF)
    cost[:2, :2] = [[0.3, 0.1], [0.1, 0.3]]
    cost[2:, 2:] = [[0.2, 0.4], [0.4, 0.2]]
    assert assign(cost, leave=1.0) == [(0, 1), (1, 0), (2, 2), (3, 3)]
