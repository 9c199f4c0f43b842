"""Minimum-cost one-to-one assignment (the Hungarian method), for small problems.

Used to give read indices their card boxes: in a row of overlapping cards each box
also fits the neighbouring index nearly as well, and picking the best fits one by one
shifts a whole row by one card; the assignment with the least total cost does not.
The problem splits into independent groups (indices and boxes that could go
together), each solved with the O(n^2 m) method of potentials, numpy doing the inner
loop. No SciPy at run time.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .arrays import Float64Array

__all__ = ["assign"]


def assign(cost: Float64Array, leave: float) -> list[tuple[int, int]]:
    """(row, column) pairs of least total cost for the (n, m) `cost` matrix (inf where
    a pair may not go together); a row may stay unassigned at cost `leave` instead."""
    cost = np.asarray(cost, dtype=np.float64)
    allowed = np.isfinite(cost)
    out: list[tuple[int, int]] = []
    for rows, cols in _components(allowed):
        sub = cost[np.ix_(rows, cols)]
        for r, c in _hungarian(_with_leave(sub, leave)):
            if r < len(rows) and c < len(cols) and np.isfinite(sub[r, c]):
                out.append((int(rows[r]), int(cols[c])))
    return sorted(out)


def _components(allowed: npt.NDArray[np.bool_]) -> list[tuple[list[int], list[int]]]:
    """Connected groups of rows and columns linked by allowed pairs."""
    n = allowed.shape[0]
    seen_rows: set[int] = set()
    groups = []
    for start in range(n):
        if start in seen_rows or not allowed[start].any():
            continue
        rows, cols = {start}, set()
        stack = [start]
        while stack:
            r = stack.pop()
            for c in np.nonzero(allowed[r])[0].tolist():
                if c in cols:
                    continue
                cols.add(c)
                for r2 in np.nonzero(allowed[:, c])[0].tolist():
                    if r2 not in rows:
                        rows.add(r2)
                        stack.append(r2)
        seen_rows |= rows
        groups.append((sorted(rows), sorted(cols)))
    return groups


def _with_leave(cost: Float64Array, leave: float) -> Float64Array:
    """(n, m + n): each row may take a column, or its own "leave" column. Forbidden
    pairs cost more than any whole solution."""
    n, m = cost.shape
    finite = np.where(np.isfinite(cost), cost, 0.0)
    big = (leave + float(finite.max(initial=0.0))) * (n + 1) + 1.0
    out = np.full((n, m + n), big)
    out[:, :m] = np.where(np.isfinite(cost), cost, big)
    out[np.arange(n), m + np.arange(n)] = leave
    return out


def _hungarian(cost: Float64Array) -> list[tuple[int, int]]:
    """Optimal assignment of every row of an (n, m) matrix, n <= m, to its own column
    (method of potentials)."""
    n, m = cost.shape
    u = np.zeros(n + 1)
    v = np.zeros(m + 1)
    match = np.zeros(m + 1, dtype=int)  # match[column] = row, 1-based; 0 = free
    way = np.zeros(m + 1, dtype=int)
    for row in range(1, n + 1):
        match[0] = row
        col0 = 0
        minv = np.full(m + 1, np.inf)
        used = np.zeros(m + 1, dtype=bool)
        while True:
            used[col0] = True
            r0 = match[col0]
            free = ~used[1:]
            reduced = cost[r0 - 1] - u[r0] - v[1:]
            better = free & (reduced < minv[1:])
            minv[1:][better] = reduced[better]
            way[1:][better] = col0
            candidates = np.where(free, minv[1:], np.inf)
            col1 = int(np.argmin(candidates)) + 1
            delta = candidates[col1 - 1]
            u[match[used]] += delta
            v[used] -= delta
            minv[1:][free] -= delta
            col0 = col1
            if match[col0] == 0:
                break
        while col0:
            col1 = way[col0]
            match[col0] = match[col1]
            col0 = col1
    return [(int(match[c]) - 1, c - 1) for c in range(1, m + 1) if match[c]]
