"""From read indices and card boxes to physical cards.

A card shows its index in two (some decks: four) corners, and several decks put the
same face on the table more than once. The rules, in order:

1. **Corners of one card merge.** Indices with the same reading are one card when one
   card box holds them all and they sit where a card's corners do (see `card_fit`):
   four corners of a parallelogram; two on a diagonal whose card matches the box
   (`min_fill` IoU) with no other card's index on its face; or, in a frame showing a
   four-index card, two along a long side, with a twin pair beside them, their card
   holding the box (`max_overhang`). Failing a fit, same-name indices that are the only
   indices of one outline, and lie in no other, are one card too (the outline decides,
   not the distance); and two same-name indices that no outline took, lying as the
   two corners of one long side of a four-index card (`card_fit.along_one_side`), are
   the strip a fan leaves of that card; two lying as opposite corners of one card with
   no other card's index on its face (`card_fit.on_one_diagonal`) are a card whose
   outline the locator missed; in a hand, so are two such corners each in an outline
   of its own (a card lying across another's middle cuts its outline in two,
   `split_outlines`). Two copies of a card from two decks never
   pass this: in a row the cards between them lie on the face; loose, they lie in two
   different boxes, or beside each other, not a card's side apart. In a hand, two such
   opposite corners with other cards' indices on their face, none in line between them
   (a card under another's middle, not copies in a row), are one card too, `covered`:
   never proposed as sure.
2. **Copies stay copies.** Everything not merged is its own card, so two 7h are two.
   A card showing one index gets the box its pose fits (`card_fit.lone_fits`, turned
   near the whole cards around it), the assignment of least total cost over all of
   them (`assignment.assign`), not merely the smallest box holding it: in a turned
   row each strip's box also holds the next card's index.
3. **A read no outline holds is proposed, marked.** An index that no card box holds
   may be a card whose outline the locator lost (close up, in a tilted row, the
   outlines are often boxes around two cards' halves) or print on something else (a
   score pad, a chip): it stands as a card with `outlined` False, which the scan never
   proposes as sure (`scan.PhotoScanner.is_sure`). A card box without any index is a
   face-down card or a card seen only from its back: it is not a card.
4. **Not more than the decks hold.** With a variant's rules, copies beyond what its
   shoe holds are kept but flagged `excess` (lowest confidence first) and reported in
   `warnings`; a reading the variant cannot hold at all is dropped and reported.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

from shanghai.engine.cards import Card
from shanghai.engine.variants import Rules, build_shoe

from .arrays import Float32Array, Float64Array
from .assignment import assign
from .card_fit import (
    PairFit,
    QuadFit,
    along_one_side,
    card_shaped,
    in_line_between,
    lone_fits,
    on_one_diagonal,
    pair_fits,
    prior_axes,
    quad_fits,
    span_length,
    twin_pairs,
)
from .readings import IndexReadings
from .snapshot import ScanWarning, SeenCard

__all__ = ["CardIdentifier", "Identification", "one_card_pairs", "shoe_counts"]

FOLD_APART = 0.6
"""A boxless index folds into a same-name card only this many of the card box's long
sides away from that card's own indices (corners of one card: about 0.9 apart)."""
INDEX_TO_LENGTH = 4.4
"""A card is about this many index heights long (when no whole card shows its size)."""


@dataclass(frozen=True, slots=True)
class Identification:
    cards: tuple[SeenCard, ...]
    warnings: tuple[ScanWarning, ...] = ()
    foreign_boxes: tuple[int, ...] = ()
    """Card boxes of cards read but not in this game (reported in `warnings`): read, so
    not unread outlines."""
    folded_boxes: tuple[int, ...] = ()
    """Card boxes of a card's second outline, folded into the card (`_fold_lone_pairs`):
    read, so not unread outlines either."""


def shoe_counts(rules: Rules) -> Counter[Card]:
    """How many copies of each face the variant's decks hold (wild cards included)."""
    return Counter(build_shoe(rules.variant.family, rules.setup))


class _Groups:
    """Union-find over indices with the members of each group at hand."""

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))
        self.members: dict[int, list[int]] = {i: [i] for i in range(n)}

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        self.parent[rb] = ra
        self.members[ra] += self.members.pop(rb)


def _fold_outlineless(cards: list[SeenCard], boxes: Float32Array, margin: float) -> list[SeenCard]:
    """A card read without an outline of its own, whose indices all lie on the outline
    of a card of the same name, is that card's other corner: one physical card. In a
    tilted row or a fan the far corner of a card can peek out past the next card; no
    corner fit takes it (the next cards lie on the implied face), and counted alone it
    doubled the card's points on generated close-up rows. Two real copies each show an
    outline of their own, and a copy lying on another in a row has its index near the
    other's, not a card's length away (`FOLD_APART`)."""
    kept = list(cards)
    for card in cards:
        if card.box_id is not None:
            continue
        points = card.index_centers
        for k, owner in enumerate(kept):
            if owner is card or owner.card != card.card or owner.box_id is None:
                continue
            box = boxes[owner.box_id : owner.box_id + 1]
            holder = _contains(box, points, margin)
            length = float((box[0, 2:] - box[0, :2]).max())
            gaps = np.hypot(*(points[:, None, :] - owner.index_centers[None, :, :]).T)
            apart = bool(gaps.min() >= FOLD_APART * length)
            if holder.all() and apart and len(owner.index_xyxy) + len(card.index_xyxy) <= 4:
                kept[k] = replace(
                    owner,
                    index_xyxy=owner.index_xyxy + card.index_xyxy,
                    confidence=max(owner.confidence, card.confidence),
                )
                kept.remove(card)
                break
    return kept


def one_card_pairs(
    cards: Sequence[SeenCard],
    *,
    outlined: bool = False,
    covered: bool = False,
    span: float | None = None,
) -> list[tuple[float, int, int, bool]]:
    """(distance, i, j, across) for each two cards of one name, each read from one index
    with no outline (with `outlined`, or in two different outlines), that lie as two
    corners of one card, nearest first; the card's length is the median of the photo's
    outlines that hold a read card:

    - the two corners of one side of a four-index card (`card_fit.along_one_side`): a
      fan of such a deck shows each covered card's index twice down its strip, and
      when the locator misses the strip's outline both reads stood as cards, doubling
      its points without a word (two of the silent errors on the validation photos);
    - the two opposite corners of one card with no other card's index on its face
      (`card_fit.on_one_diagonal`): the top card of a fan whose outline was missed.

    `outlined` (a hand, where cards pile): each corner may have an outline of its own.
    A card lying across the middle of another splits its visible part in two, and the
    locator boxes each part (a 9c under an 8h, its two corners in two outlines, stood
    as two 9c on a taught deck's validation photos). Two copies in two outlines pass
    only as copies lying apart pass (`on_one_diagonal`). Not in a lay-down: its melds
    hold copies of wild cards laid apart, and on the validation lay-downs (seed 3101)
    two such copies (a 2h, a joker) were merged. Two corners in one outline were
    already weighed by the corner fits, which keep copies of one row apart.

    `covered` (a hand too): also two opposite corners whose face holds other cards'
    indices, none of them in line between the two (`across` True, after every pair
    without them): a card lying across the middle of another in a pile puts its own
    index there. On the three taught validation decks' 240 photos (2026-12-05), 10 of
    the 17 wrong cards were one card counted twice; this folds 6 of them (a 3s under a
    9d, a landscape 2G under a 3Y). Copies can lie so too, so such a card is never
    proposed as sure (`SeenCard.covered`); copies in a row have the indices of the
    cards between them in line (`_in_a_row`).

    `span` (a taught deck's, `card_fit.corner_span` at enrolment): two opposite corners
    may also lie a card apart whose length their own index boxes tell
    (`card_fit.span_length`), whatever the outlines say: on a taught deck whose locator
    cut its cards at a printed band, the outlines measured half cards and each card of
    a close-up stood twice (4 of the 4 wrong cards of a validation deck's steady
    close-ups; docs/decks.md, 2026-12-05).

    With no outline to tell the cards' size and no `span`, there are none."""
    held = [c for c in cards if c.box_id is not None]
    if not held and span is None:
        return []
    lengths = (
        [float(np.median([max(c.xyxy[2] - c.xyxy[0], c.xyxy[3] - c.xyxy[1]) for c in held]))]
        if held
        else []
    )
    lone = [i for i, c in enumerate(cards) if len(c.index_xyxy) == 1]
    centres = [(i, point) for i, c in enumerate(cards) for point in c.index_centers]

    def others(i: int, j: int, among: Collection[int] | None = None) -> Float64Array:
        """The indices of the cards other than `i` and `j` (of those `among` only): with
        the cards seen at one corner, what a row's middle cards show (`_in_a_row`)."""
        out = [p for k, p in centres if k not in (i, j) and (among is None or k in among)]
        return np.asarray(out, dtype=np.float64).reshape(-1, 2)

    one_corner = set(lone)
    nobody = np.zeros((0, 2), dtype=np.float64)
    pairs = []
    for n, i in enumerate(lone):
        for j in lone[n + 1 :]:
            a, b = cards[i], cards[j]
            if a.card != b.card or not _outlines_apart(a, b, outlined=outlined):
                continue
            corners = (a.index_xyxy[0], b.index_xyxy[0])
            rest = others(i, j)
            sizes = lengths + ([span_length(*corners, span)] if span is not None else [])
            if any(along_one_side(*corners, n) for n in lengths) or any(
                on_one_diagonal(*corners, n, rest) for n in sizes
            ):
                across = False
            elif (
                covered
                and any(on_one_diagonal(*corners, n, nobody) for n in sizes)
                and not _in_a_row(a, b, others(i, j, one_corner))
            ):
                across = True
            else:
                continue
            apart = float(np.hypot(*(a.index_centers[0] - b.index_centers[0])))
            pairs.append((apart, i, j, across))
    return sorted(pairs, key=lambda pair: (pair[3], pair[0]))


def _in_a_row(a: SeenCard, b: SeenCard, points: Float64Array) -> bool:
    """Whether another card's index (`points`, (K, 2) centres of cards seen at one corner
    only) lies in line between the two cards' one indices (`card_fit.in_line_between`,
    by their mean index height): two copies three cards apart in a row lie a card's
    diagonal apart with the cards between them on the face that diagonal implies, their
    indices in one line (two 12Y of a Rook row were folded into one on the validation
    hands, seed 3101). A row's middle cards are covered by the next, so each shows one
    corner; a card read at both corners lies whole, across the others, and its index on
    that line is chance (a 12Y lying across a band-look 10G whose two corners it split
    was counted as a second 10G on validation photo 67, seed 6)."""
    pa, pb = (c.index_centers[0].astype(np.float64) for c in (a, b))
    boxes = np.asarray([a.index_xyxy[0], b.index_xyxy[0]], dtype=np.float64)
    height = float(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]).mean())
    return any(in_line_between(point, pa, pb, height) for point in points)


def _outlines_apart(a: SeenCard, b: SeenCard, *, outlined: bool) -> bool:
    """Whether two reads may be one card's corners by where their outlines are: neither
    has one, or (`outlined`) they are not in the same one (see `one_card_pairs`)."""
    if a.box_id is None and b.box_id is None:
        return True
    return outlined and a.box_id != b.box_id


def _fold_lone_pairs(
    cards: list[SeenCard],
    *,
    outlined: bool = False,
    covered: bool = False,
    span: float | None = None,
) -> tuple[list[SeenCard], tuple[int, ...]]:
    """The pairs `one_card_pairs` finds (`outlined`, `covered`, `span` as there), each made
    one card; each card once. Returns the cards and the outlines folded away (a
    corner's own outline, when the card keeps its other corner's): read, so not
    outlines of a card left unread. The card keeps an outline of either corner; its box
    spans both corners'; folded across other cards' indices, it is `covered`."""
    merged: dict[int, SeenCard] = {}
    gone: set[int] = set()
    folded: list[int] = []
    for _, i, j, across in one_card_pairs(cards, outlined=outlined, covered=covered, span=span):
        if i in gone or j in gone or i in merged or j in merged:
            continue
        a, b = cards[i], cards[j]
        if a.box_id is None and b.box_id is not None:
            a, b = b, a
        if b.box_id is not None:
            folded.append(b.box_id)
        corners = np.asarray([a.xyxy, b.xyxy], dtype=np.float32)  # boxless: its indices' box
        x1, y1 = (float(v) for v in corners[:, :2].min(axis=0))
        x2, y2 = (float(v) for v in corners[:, 2:].max(axis=0))
        readings = [r for r in (a.reading, b.reading) if r is not None]
        scores = [r for r in (a.score_reading, b.score_reading) if r is not None]
        merged[i] = replace(
            a,
            confidence=max(a.confidence, b.confidence),
            reading=max(readings) if readings else None,
            score_reading=max(scores) if scores else None,
            xyxy=(x1, y1, x2, y2),
            index_xyxy=a.index_xyxy + b.index_xyxy,
            outlined=a.outlined or b.outlined,
            covered=across,
        )
        gone.add(j)
    return [merged.get(i, c) for i, c in enumerate(cards) if i not in gone], tuple(folded)


def _contains(boxes: Float32Array, points: Float32Array, margin: float) -> npt.NDArray[np.bool_]:
    """(P, B) whether point p lies in box b grown by `margin` x the box's shorter side."""
    wh = boxes[:, 2:] - boxes[:, :2]
    grow = (margin * wh.min(axis=1))[None, :]
    x, y = points[:, :1], points[:, 1:2]
    inside: npt.NDArray[np.bool_] = (
        (x >= boxes[None, :, 0] - grow)
        & (x <= boxes[None, :, 2] + grow)
        & (y >= boxes[None, :, 1] - grow)
        & (y <= boxes[None, :, 3] + grow)
    )
    return inside


@dataclass(frozen=True)
class CardIdentifier:
    """Turns `IndexReadings` plus (M, 4) card boxes into physical cards."""

    max_overhang: float = 0.15
    """A merged pair's box reaches outside the card the pair implies by at most this
    many card lengths (summed over its four sides)."""
    min_fill: float = 0.55
    """A diagonal pair's card and its box overlap at least this much (IoU)."""
    lone_overhang: float = 0.45
    """A card showing one index takes a box only when its best pose reaches over it
    by at most this (card lengths, turning penalty included)."""
    corner_gap: float = 0.3
    """Any two corners of one card are at least this share of its length apart (the
    two top corners of a four-index card span about 0.56)."""
    box_margin: float = 0.08
    max_corners: int = 4
    split_outlines: bool = False
    """Also fold one card's two corners lying in two outlines of their own, or with
    other cards' indices on its face (`one_card_pairs`, `outlined` and `covered`): for
    a hand, where cards pile across each other."""
    corner_span: float | None = None
    """A taught deck's opposite corners apart in index sizes (`card_fit.corner_span`,
    measured at enrolment): pairs of corners fold by it too (`one_card_pairs`, `span`)."""
    rules: Rules | None = field(default=None)

    def identify(self, readings: IndexReadings, card_boxes: Float32Array) -> Identification:
        boxes = np.asarray(card_boxes, dtype=np.float32).reshape(-1, 4)
        centers = readings.centers
        inside = _contains(boxes, centers, self.box_margin)
        groups, group_fit = self._merge_corners(readings, boxes, inside)
        self._merge_by_outline(readings, boxes, inside, groups, group_fit)
        lone = self._lone_boxes(readings, boxes, inside, groups, group_fit)
        warnings: list[ScanWarning] = []
        cards: list[SeenCard] = []
        for root in sorted(groups.members, key=lambda r: min(groups.members[r])):
            members = sorted(groups.members[root])
            box_id: int | None = None
            axis: tuple[float, float] | None = None
            if root in group_fit:
                box_id, axis = group_fit[root].box, group_fit[root].axis
            elif members[0] in lone:
                box_id, axis = lone[members[0]]
            held = box_id is not None or bool(len(boxes) and inside[members[0]].any())
            cards.append(self._card(readings, members, boxes, box_id, axis, outlined=held))
        cards, folded = _fold_lone_pairs(
            _fold_outlineless(cards, boxes, self.box_margin),
            outlined=self.split_outlines,
            covered=self.split_outlines,
            span=self.corner_span,
        )
        foreign: tuple[int, ...] = ()
        if self.rules is not None:
            cards, foreign, notes = self._check_shoe(cards, self.rules)
            warnings += notes
        return Identification(tuple(cards), tuple(warnings), foreign, folded)

    def _merge_corners(
        self, readings: IndexReadings, boxes: Float32Array, inside: npt.NDArray[np.bool_]
    ) -> tuple[_Groups, dict[int, PairFit]]:
        """Greedy merging of same-name indices into cards, best-fitting pairs first:
        four-index cards seen whole, diagonal pairs, then side pairs, when the frame
        shows a four-index card whole and the pair has a twin (see `card_fit.twin_pairs`): a
        side pair alone says little, two copies a card's length apart fit as well."""
        n = len(readings)
        groups = _Groups(n)
        group_fit: dict[int, PairFit] = {}
        if n == 0 or len(boxes) == 0:
            return groups, group_fit
        centers = readings.centers.astype(np.float64)
        box_arr = boxes.astype(np.float64)
        fits: list[PairFit] = []
        by_name: dict[str, list[int]] = {}
        for i, name in enumerate(readings.names):
            by_name.setdefault(name, []).append(i)
        quads: list[QuadFit] = []
        names = np.asarray(readings.names)
        for name, same in by_name.items():
            if len(same) < 2:
                continue
            others = centers[names != name]
            if len(same) >= 4:
                for k in np.nonzero(inside[same].sum(axis=0) >= 4)[0]:
                    held = [i for i in same if inside[i, k]]
                    quads += quad_fits(
                        centers, held, box_arr, int(k), others, readings.xyxy.astype(np.float64)
                    )
            for a_pos, a in enumerate(same):
                for b in same[a_pos + 1 :]:
                    shared = [int(k) for k in np.nonzero(inside[a] & inside[b])[0]]
                    if shared:
                        fits += pair_fits(
                            centers,
                            a,
                            b,
                            box_arr,
                            shared,
                            min_fill=self.min_fill,
                            max_overhang=self.max_overhang,
                            others=others,
                        )
        for quad in sorted(quads, key=lambda q: q.cost):
            roots = {groups.find(i) for i in quad.members}
            if len(roots) < 4 or quad.box in {f.box for f in group_fit.values()}:
                continue
            for i in quad.members[1:]:
                groups.union(quad.members[0], i)
            group_fit[groups.find(quad.members[0])] = PairFit(
                quad.cost, quad.members[0], quad.members[2], quad.box, quad.axis, quad.length, True
            )
        twins = twin_pairs(centers, readings.names, {(f.a, f.b) for f in fits})
        diagonal = sorted(
            (f for f in fits if f.diagonal and (f.a, f.b) not in twins), key=lambda f: f.cost
        )
        self._union_fits(diagonal, groups, group_fit, centers)
        if quads:  # only a four-index deck shows two indices on one side of a card
            sides = sorted(
                (f for f in fits if not f.diagonal and (f.a, f.b) in twins), key=lambda f: f.cost
            )
            self._union_fits(sides, groups, group_fit, centers)
        return groups, group_fit

    def _merge_by_outline(
        self,
        readings: IndexReadings,
        boxes: Float32Array,
        inside: npt.NDArray[np.bool_],
        groups: _Groups,
        group_fit: dict[int, PairFit],
    ) -> None:
        """Same-name indices alone in one card outline are one card, when no corner fit
        took them: a photo's perspective or a bent card can spoil the fit of the card a
        pair implies, but two copies of a card are two outlines. So: an outline whose
        indices all read the same name and lie in no other outline, far enough apart to
        be corners of one card, holds one card (read in 5 of 53 real one-card photos as
        two cards before this rule)."""
        used = {f.box for f in group_fit.values()}
        centers = readings.centers.astype(np.float64)
        for k in range(len(boxes)):
            members = [int(i) for i in np.nonzero(inside[:, k])[0]]
            if k in used or not 2 <= len(members) <= self.max_corners:
                continue
            if len({readings.names[i] for i in members}) != 1:
                continue
            if inside[members].sum(axis=1).max() > 1:
                continue  # an index in two outlines may be a second copy's own
            roots = {groups.find(i) for i in members}
            if len(roots) < 2 or any(r in group_fit for r in roots):
                continue
            x1, y1, x2, y2 = (float(v) for v in boxes[k])
            length = max(x2 - x1, y2 - y1)
            if not self._spread_ok(centers, members, length):
                continue
            for i in members[1:]:
                groups.union(members[0], i)
            axis = (0.0, 1.0) if y2 - y1 >= x2 - x1 else (1.0, 0.0)
            group_fit[groups.find(members[0])] = PairFit(
                1.0, members[0], members[-1], k, axis, length, True
            )

    def _union_fits(
        self,
        fits: list[PairFit],
        groups: _Groups,
        group_fit: dict[int, PairFit],
        centers: npt.NDArray[np.float64],
    ) -> None:
        """Merge the pairs of `fits` in order, each card in one box, at most
        `max_corners` corners spread apart."""
        for fit in fits:
            ra, rb = groups.find(fit.a), groups.find(fit.b)
            if ra == rb:
                continue
            if any(r in group_fit and group_fit[r].box != fit.box for r in (ra, rb)):
                continue  # each side already belongs to another card box
            merged = groups.members[ra] + groups.members[rb]
            if len(merged) > self.max_corners or not self._spread_ok(centers, merged, fit.length):
                continue
            if len(merged) == 4 and not card_shaped(centers[merged]):
                continue  # two strips of copies side by side, not one card's corners
            kept = group_fit.get(ra) or group_fit.get(rb) or fit
            groups.union(ra, rb)
            group_fit.pop(ra, None)
            group_fit.pop(rb, None)
            group_fit[groups.find(fit.a)] = kept

    def _spread_ok(
        self, centers: npt.NDArray[np.float64], members: list[int], length: float
    ) -> bool:
        """Corners of one card are far apart: no two within `corner_gap` x its length."""
        pts = centers[members]
        gaps = np.hypot(*(pts[:, None, :] - pts[None, :, :]).transpose(2, 0, 1))
        np.fill_diagonal(gaps, np.inf)
        return bool(gaps.min() >= self.corner_gap * length)

    def _lone_boxes(
        self,
        readings: IndexReadings,
        boxes: Float32Array,
        inside: npt.NDArray[np.bool_],
        groups: _Groups,
        group_fit: dict[int, PairFit],
    ) -> dict[int, tuple[int, tuple[float, float]]]:
        """Index -> (box, axis) for the cards showing one index, each box to one card:
        the assignment of least total cost (`assign`), as picking the best fits one
        by one shifts a turned row's boxes by one card."""
        used = {f.box for f in group_fit.values()}
        lone = [
            members[0]
            for root, members in groups.members.items()
            if len(members) == 1 and root not in group_fit
        ]
        candidates = [
            (i, int(k)) for i in lone for k in np.nonzero(inside[i])[0] if int(k) not in used
        ]
        if not candidates:
            return {}
        centers = readings.centers.astype(np.float64)
        poses = [
            (centers[groups.members[r]].mean(axis=0), np.asarray(f.axis), f.length)
            for r, f in group_fit.items()
        ]
        sizes = (readings.xyxy[:, 2:] - readings.xyxy[:, :2]).max(axis=1)
        fallback = float(np.median(sizes)) * INDEX_TO_LENGTH if len(sizes) else 1.0
        axes, lengths, known, _ = prior_axes(centers, poses, fallback)
        fits = lone_fits(centers, candidates, boxes.astype(np.float64), axes, lengths, known)
        cost = np.full((len(readings), len(boxes)), np.inf)
        for fit in fits:
            if fit.cost <= self.lone_overhang:
                cost[fit.index, fit.box] = fit.cost
        chosen = assign(cost, self.lone_overhang)
        axis_of = {(f.index, f.box): f.axis for f in fits}
        return {i: (k, axis_of[(i, k)]) for i, k in chosen}

    @staticmethod
    def _card(
        readings: IndexReadings,
        members: list[int],
        boxes: Float32Array,
        box_id: int | None,
        axis: tuple[float, float] | None,
        *,
        outlined: bool = True,
    ) -> SeenCard:
        index_boxes = tuple(
            (float(x1), float(y1), float(x2), float(y2))
            for x1, y1, x2, y2 in readings.xyxy[members]
        )
        if box_id is not None:
            x1, y1, x2, y2 = (float(v) for v in boxes[box_id])
        else:
            arr = readings.xyxy[members]
            x1, y1 = (float(v) for v in arr[:, :2].min(axis=0))
            x2, y2 = (float(v) for v in arr[:, 2:].max(axis=0))
        return SeenCard(
            card=readings.cards[members[0]],
            confidence=float(readings.confidence[members].max()),
            reading=float(readings.reader_probability[members].max()),
            score_reading=float(readings.score_probability[members].max()),
            xyxy=(x1, y1, x2, y2),
            index_xyxy=index_boxes,
            box_id=box_id,
            axis=axis,
            outlined=outlined,
        )

    @staticmethod
    def _check_shoe(
        cards: Sequence[SeenCard], rules: Rules
    ) -> tuple[list[SeenCard], tuple[int, ...], list[ScanWarning]]:
        """Drop faces the game cannot hold (and say which boxes they had); flag copies
        beyond the shoe."""
        holds = shoe_counts(rules)
        notes: list[ScanWarning] = []
        kept = [c for c in cards if rules.accepts(c.card)]
        foreign = Counter(str(c.card) for c in cards if not rules.accepts(c.card))
        for name, count in sorted(foreign.items()):
            notes.append(
                ScanWarning(
                    "not-in-play",
                    f"{name} is not in play in {rules.variant.name}: {count} read "
                    "ignored; add the card if it is really there",
                )
            )
        seen = Counter(c.card for c in kept)
        excess_ids: set[int] = set()
        for card, count in sorted(seen.items()):
            limit = holds[card]
            if count <= limit:
                continue
            decks = rules.setup.decks
            copies = sorted(
                (i for i, c in enumerate(kept) if c.card == card),
                key=lambda i: kept[i].confidence,
            )
            excess_ids.update(copies[: count - limit])
            notes.append(
                ScanWarning(
                    "excess",
                    f"{count} copies of {card} seen; the {decks} deck{'s' if decks > 1 else ''} "
                    f"of {rules.variant.name} hold {limit}: check them",
                    tuple(sorted(copies)),
                )
            )
        out = [replace(c, excess=True) if i in excess_ids else c for i, c in enumerate(kept)]
        boxes = tuple(c.box_id for c in cards if not rules.accepts(c.card) and c.box_id is not None)
        return out, boxes, notes
