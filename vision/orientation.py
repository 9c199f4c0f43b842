"""Which way each card lies and how big it looks, from its read indices and its box.

Only axis-aligned boxes are known, yet they tell a card's orientation in two ways:

- **A whole card** (two or four corner indices read): identification fitted its pose
  (`SeenCard.axis`, see `card_fit`); without one, the line from one index to the
  other runs along the card's diagonal, `card_model.DIAGONAL_TURN_DEG` short of its
  long side. That gives the long axis, not which end is up: a card reads the same
  turned half a turn.
- **A covered card** (one index read): its visible pixels lie on the body side of the
  index, so the vector from the index to its box's centre points roughly down the
  card. Roughly: a wide strip tilts it towards the uncovered side (`layout` later
  reads the axis off the line of indices of the row instead).

Both are lines (`card_axes`, unsigned); neighbours smooth them, since the cards of one
row or fan lie nearly parallel. Each index also has a `body` vector, from the index
towards the rest of its card, which says on which side of a line of indices the card
lies.

Scale is local: perspective makes near cards larger than far ones, so each card
takes its length from the whole cards nearest to it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .arrays import Float64Array
from .card_model import DIAGONAL_TO_LENGTH, diagonal_axis
from .snapshot import SeenCard

__all__ = ["body_vectors", "card_axes", "local_lengths"]


NEAREST_WHOLE = 3
"""Cards take their length from this many whole cards nearest them."""
SMOOTH_RADIUS = 0.6
"""Axes are smoothed over the cards with an index this near (card lengths)."""


def body_vectors(card: SeenCard, points: Float64Array | None = None) -> Float64Array:
    """(K, 2) for each read index: from the index towards the rest of the card (the
    other indices' centre for a whole card, the visible box's centre for a covered
    one); zeros when nothing tells. `points`: the card's index centres, if at hand."""
    pts = card.index_centers.astype(np.float64) if points is None else points
    if len(pts) >= 2:
        return np.asarray(pts.mean(axis=0) - pts, dtype=np.float64)
    if card.box_id is None:
        return np.zeros_like(pts)
    return np.asarray(np.asarray(card.center, dtype=np.float64) - pts, dtype=np.float64)


def _raw_axis(card: SeenCard, pts: Float64Array, body: Float64Array) -> tuple[Float64Array, float]:
    """A card's own estimate of its long axis (unit, unsigned) and how much to trust it:
    for a whole card the pose fitted at identification. A covered card's fitted pose
    leans on the whole cards near it, which in a fan turn away from it; its box,
    even a neighbour's, hangs on the body side of the index line, so the box tells
    its own card's direction better."""
    if card.axis is not None and len(pts) >= 2:
        return np.asarray(card.axis, dtype=np.float64), 2.0
    if len(pts) == 2:
        axis = diagonal_axis(pts[0], pts[1])
        return axis, 2.0 if np.any(axis) else 0.0
    if len(pts) == 1:
        norm = float(np.hypot(*body[0]))
        if norm > 1e-6:
            return body[0] / norm, 1.0
    return np.zeros(2), 0.0


def card_axes(
    cards: Sequence[SeenCard],
    lengths: Float64Array,
    points: Sequence[Float64Array] | None = None,
    bodies: Sequence[Float64Array] | None = None,
) -> Float64Array:
    """(N, 2) unit long axes ("down" up to sign), each the weighted mean of the card's
    own estimate and those of the cards whose indices lie within `SMOOTH_RADIUS` of
    its own length from its indices (its neighbours in a row or fan: near enough to
    lie nearly parallel even in a fan, whose cards' centres all crowd together); when
    a card shows one index, the axis points from it towards the card's body.
    `points` and `bodies` (per card, see `body_vectors`) save computing them again."""
    n = len(cards)
    raw = np.zeros((n, 2))
    weight = np.zeros(n)
    if n == 0:
        return raw
    if points is None:
        points = [c.index_centers.astype(np.float64) for c in cards]
    if bodies is None:
        bodies = [body_vectors(c, p) for c, p in zip(cards, points, strict=True)]
    for i, card in enumerate(cards):
        raw[i], weight[i] = _raw_axis(card, points[i], bodies[i])
    counts = np.asarray([len(p) for p in points])
    owner = np.repeat(np.arange(n), counts)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    pts = np.concatenate(points).reshape(-1, 2)
    gaps = np.hypot(pts[:, None, 0] - pts[None, :, 0], pts[:, None, 1] - pts[None, :, 1])
    close = gaps <= SMOOTH_RADIUS * lengths[owner][:, None]
    # Per pair of cards: whether any index of one is close to any index of the other.
    near = np.logical_or.reduceat(np.logical_or.reduceat(close, starts, axis=0), starts, axis=1)
    doubled = np.stack([raw[:, 0] ** 2 - raw[:, 1] ** 2, 2 * raw[:, 0] * raw[:, 1]], axis=1)
    w = near * weight[None, :] + np.diag(weight)  # the card's own estimate counts twice
    total = w @ doubled
    half = np.arctan2(total[:, 1], total[:, 0]) / 2
    out = np.stack([np.cos(half), np.sin(half)], axis=1)
    out[np.hypot(total[:, 0], total[:, 1]) < 1e-9] = 0.0
    flip = (counts == 1) & ((out * raw).sum(axis=1) < 0)
    out[flip] = -out[flip]
    return out


def local_lengths(
    cards: Sequence[SeenCard], fallback: float, points: Sequence[Float64Array] | None = None
) -> Float64Array:
    """(N,) card length in pixels near each card: the mean over the `NEAREST_WHOLE`
    whole cards nearest it, `fallback` when no card shows two indices."""
    if points is None:
        points = [c.index_centers.astype(np.float64) for c in cards]
    centres = np.asarray([c.center for c in cards], dtype=np.float64).reshape(-1, 2)
    where, size = [], []
    for card, centre, pts in zip(cards, centres, points, strict=True):
        if len(pts) >= 2:
            where.append(centre)
            size.append(card.index_span / DIAGONAL_TO_LENGTH)
    if not where:
        return np.full(len(cards), fallback)
    spots = np.asarray(where)
    dist = np.hypot(
        centres[:, None, 0] - spots[None, :, 0], centres[:, None, 1] - spots[None, :, 1]
    )
    nearest = np.argsort(dist, axis=1)[:, :NEAREST_WHOLE]
    out: Float64Array = np.asarray(size)[nearest].mean(axis=1)
    return out
