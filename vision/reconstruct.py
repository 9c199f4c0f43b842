"""From readings to a `TableSnapshot`: identification, rows, seats.

The one path that both the model pipeline and the ground-truth oracle take, so the
logic a player relies on is the logic the tests check.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

from shanghai.engine.variants import Rules

from .layout import RowGrouper, piled_cards, row_gaps
from .physical import CardIdentifier
from .readings import IndexReadings
from .seating import Seating
from .snapshot import ScanWarning, TableSnapshot
from .unread import unread_boxes
from .zones import ZoneConfig

__all__ = ["Reconstructor"]


@dataclass(frozen=True)
class Reconstructor:
    """`rules` (a variant resolved for the players) enables shoe checks and verdicts;
    `players` > 1 or `zones` place rows at several seats."""

    rules: Rules | None = None
    players: int = 1
    zones: ZoneConfig | None = None
    role: str = "auto"
    """What the rows are: `auto`, `melds` (a lay-down) or `hand` (see `Seating`)."""
    identifier: CardIdentifier = field(default_factory=CardIdentifier)
    grouper: RowGrouper = field(default_factory=RowGrouper)
    corner_span: float | None = None
    """A taught deck's corners apart in index sizes (`CardIdentifier.corner_span`)."""

    def __call__(
        self,
        readings: IndexReadings,
        card_boxes: npt.NDArray[np.float32],
        width: int,
        height: int,
    ) -> TableSnapshot:
        """`card_boxes` is (M, 4) xyxy of the face-up cards found."""
        identifier = self.identifier
        in_hand = self.role == "hand"  # cards pile across each other: split outlines
        if (
            identifier.rules is not self.rules
            or identifier.split_outlines is not in_hand
            or identifier.corner_span != self.corner_span
        ):
            identifier = replace(
                identifier, rules=self.rules, split_outlines=in_hand, corner_span=self.corner_span
            )
        found = identifier.identify(readings, card_boxes)
        seating = Seating(
            players=self.players,
            zones=self.zones,
            rules=self.rules,
            grouper=self.grouper,
            role=self.role,
        )
        unread = unread_boxes(card_boxes, found.cards, found.foreign_boxes + found.folded_boxes)
        seats, notes = seating.arrange(found.cards, width, height, unread)
        warnings = list(found.warnings) + notes
        rows = self.grouper.group(found.cards)[0]
        gaps = row_gaps(found.cards, rows)
        if gaps:
            where = ", ".join(f"{found.cards[a].card}-{found.cards[b].card}" for a, b in gaps)
            warnings.append(
                ScanWarning(
                    "gap",
                    f"a card may be missing where a row has a gap ({where}): add it if so",
                    tuple(i for pair in gaps for i in pair),
                )
            )
        piled = piled_cards(found.cards, rows) if self.role == "hand" else []
        if piled:
            warnings.append(
                ScanWarning(
                    "piled",
                    "cards lie piled on each other: a card beneath may show no corner; "
                    "spread them so every corner shows, or add any card missing",
                    tuple(piled),
                )
            )
        if len(unread):
            # A card seen but not read (face down, or its indices covered, blurred or too
            # small) is missing from the hands and melds: say so rather than score short.
            n = len(unread)
            warnings.append(
                ScanWarning(
                    "unread",
                    f"{n} card{'s' if n != 1 else ''} could not be read "
                    "(covered, blurred or too small): add " + ("it" if n == 1 else "them"),
                )
            )
        boxes = tuple(
            (float(b[0]), float(b[1]), float(b[2]), float(b[3])) for b in np.asarray(unread)
        )
        return TableSnapshot(
            width,
            height,
            tuple(found.cards),
            tuple(seats),
            tuple(warnings),
            self.rules,
            unread=boxes,
        )
