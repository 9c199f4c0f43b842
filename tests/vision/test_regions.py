"""A settled live frame located again only where it changed (`vision.regions`): the
region grows to hold any card the change touches, the reads outside it are kept, and
the result is the table a full read of the new frame gives. Stand-in readers answer
from tables known by construction; the last test runs the shipped models."""

from __future__ import annotations

from collections import Counter

import cv2
import numpy as np
import pytest
from mini_table import MiniTable, TableReader

from shanghai.datasets.decks import code_looks, face_of
from shanghai.engine.cards import Card
from shanghai.vision.arrays import Frame
from shanghai.vision.live import LiveTable
from shanghai.vision.motion import Look, MotionGate
from shanghai.vision.pipeline import FrameReads, Passes, models_installed
from shanghai.vision.regions import Reread, changed_region, reread
from shanghai.vision.scan import PhotoKind, PhotoScanner

BLANK = np.random.default_rng(3).integers(0, 255, (900, 1200, 3), dtype=np.uint8)
"""Any picture: the stand-in readers answer from their tables, not from pixels."""


class CountingReader(TableReader):
    """`TableReader` that remembers the region of each call (None: the whole frame)."""

    def __init__(self, table: MiniTable) -> None:
        super().__init__(table)
        self.regions: list[tuple[int, int, int, int] | None] = []

    def read_frame(
        self,
        frame: np.ndarray,  # type: ignore[type-arg]
        rules: object = None,
        region: tuple[int, int, int, int] | None = None,
        like: Passes | None = None,
    ) -> FrameReads:
        self.regions.append(region)
        return super().read_frame(frame, None, region, like)


def table_of(cards: list[tuple[str, float, float]]) -> MiniTable:
    table = MiniTable()
    for name, x, y in cards:
        table.card(name, x, y)
    return table


def cells_at(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:  # type: ignore[type-arg]
    """The gate's 15x20 cell grid for a 1200x900 frame, changed in the given box."""
    grid = np.zeros((15, 20), np.bool_)
    grid[int(y0 // 60) : int(np.ceil(y1 / 60)), int(x0 // 60) : int(np.ceil(x1 / 60))] = True
    return grid


def names(reads: FrameReads) -> Counter[str]:
    return Counter(reads.readings.names)


def test_the_region_holds_any_card_the_change_touches() -> None:
    cells = cells_at(600, 300, 660, 360)
    outer, inner = changed_region(cells, (900, 1200), grow=132) or ((0,) * 4, (0,) * 4)
    assert outer == (468, 168, 792, 492)
    assert inner == (534, 234, 726, 426)
    # nothing changed, or too much of the frame: no region (a full read)
    assert changed_region(np.zeros((15, 20), np.bool_), (900, 1200), 132) is None
    assert changed_region(cells_at(0, 0, 900, 600), (900, 1200), 132) is None
    # clipped at the frame's edges
    corner = changed_region(cells_at(0, 0, 60, 60), (900, 1200), 132)
    assert corner is not None and corner[0] == (0, 0, 192, 192)


@pytest.mark.parametrize(
    ("before", "after", "changed"),
    [
        # a card laid down beside the others
        (
            [("7h", 200, 200), ("Qs", 400, 200)],
            [("7h", 200, 200), ("Qs", 400, 200), ("Kd", 800, 600)],
            (750, 530, 850, 670),
        ),
        # a card taken away
        ([("7h", 200, 200), ("Qs", 400, 200)], [("7h", 200, 200)], (350, 130, 450, 270)),
        # a card swapped for another in its place, next to a card that stays
        (
            [("7h", 200, 200), ("Qs", 330, 200)],
            [("7h", 200, 200), ("Jc", 330, 200)],
            (280, 130, 380, 270),
        ),
    ],
)
def test_a_regional_read_gives_the_full_reads_of_the_new_frame(
    before: list[tuple[str, float, float]],
    after: list[tuple[str, float, float]],
    changed: tuple[float, float, float, float],
) -> None:
    memory = Reread()
    reader = CountingReader(table_of(before))
    reread(reader, BLANK, None, memory)
    assert reader.regions == [None] and memory.full == 1
    reader.table = table_of(after)
    memory.changed = cells_at(*changed)
    result = reread(reader, BLANK, None, memory)
    assert reader.regions[1] is not None and memory.regional == 1
    full = TableReader(table_of(after)).read_frame(BLANK)
    assert names(result) == names(full)
    assert len(result.card_xyxy) == len(full.card_xyxy)


def test_without_a_change_map_or_another_frame_size_it_reads_in_full() -> None:
    memory = Reread()
    reader = CountingReader(table_of([("7h", 200, 200)]))
    reread(reader, BLANK, None, memory)
    reread(reader, BLANK, None, memory)  # no cells: the caller did not say where
    memory.changed = cells_at(150, 130, 250, 270)
    reread(reader, BLANK[:450, :600], None, memory)  # a new camera size
    assert reader.regions == [None, None, None] and memory.regional == 0


def test_the_scan_of_a_regional_read_judges_the_whole_table() -> None:
    """The seats and melds come from the whole table's reads, as a full scan's do."""
    before = [("5h", 300, 300), ("6h", 330, 300), ("7h", 360, 300)]
    after = [*before, ("8h", 390, 300)]
    memory = Reread()
    reader = CountingReader(table_of(before))
    scanner = PhotoScanner(reader)
    scanner.scan(BLANK, kind=PhotoKind.LAY_DOWN, reread=memory)
    reader.table = table_of(after)
    memory.changed = cells_at(360, 230, 430, 370)
    regional = scanner.scan(BLANK, kind=PhotoKind.LAY_DOWN, reread=memory)
    full = PhotoScanner(TableReader(table_of(after))).scan(BLANK, kind=PhotoKind.LAY_DOWN)
    assert memory.regional == 1
    assert regional.seats == full.seats
    assert [str(c.card) for c in regional.cards] != [] and sorted(
        str(c.card) for c in regional.cards
    ) == sorted(str(c.card) for c in full.cards)


def printed(cards: dict[int, str]) -> Frame:
    """A 1280x720 felt with real faces (the generator's first drawn deck), 110x154 px
    (a table seen from a seat), in slots 0-4 of a row."""
    look = code_looks()[0]
    image = np.empty((720, 1280, 3), np.uint8)
    image[:] = (50, 110, 45)
    for slot, name in cards.items():
        x0, y0 = 80 + slot * 240, 280
        rgba = cv2.resize(face_of(look, Card.parse(name)).rgba, (110, 154))
        image[y0 : y0 + 154, x0 : x0 + 110] = cv2.cvtColor(rgba[..., :3], cv2.COLOR_RGB2BGR)
    return image


@pytest.mark.skipif(not models_installed(), reason="the shipped models are not installed")
def test_the_shipped_models_read_a_card_laid_down_in_its_region() -> None:
    scanner = PhotoScanner.load()
    before, after = (
        printed({0: "7h", 1: "Qs", 2: "Kd"}),
        printed({0: "7h", 1: "Qs", 2: "Kd", 4: "9c"}),
    )
    gate, memory = MotionGate(), Reread()
    gate.look(before, 0.0)
    scanner.scan(before, kind=PhotoKind.TABLE, reread=memory)
    gate.accept()
    memory.changed = gate.look(after, 1.0).changed_cells
    regional = scanner.scan(after, kind=PhotoKind.TABLE, reread=memory)
    full = scanner.scan(after, kind=PhotoKind.TABLE)
    assert memory.regional == 1 and memory.full == 1
    assert Counter(str(c.card) for c in regional.cards) == Counter(str(c.card) for c in full.cards)
    assert "9c" in {str(c.card) for c in full.cards}


def felt_with(cards: list[tuple[str, float, float]]) -> Frame:
    """A 1200x900 felt with a white card-sized patch where each card lies (what the
    change gate sees; the stand-in reader answers from its table)."""
    image = np.full((900, 1200, 3), (50, 110, 45), np.uint8)
    for _name, x, y in cards:
        cv2.rectangle(image, (int(x - 47), int(y - 66)), (int(x + 47), int(y + 66)), (235,) * 3, -1)
    return image


def test_a_live_table_reads_the_part_then_the_whole_once_it_holds_still() -> None:
    before = [("7h", 200, 200), ("Qs", 400, 200)]
    after = [*before, ("Kd", 800, 600)]
    reader = CountingReader(table_of(before))
    scanner = PhotoScanner(reader)
    live = LiveTable.gated(lambda f: scanner.scan(f, kind=PhotoKind.TABLE, reread=memory), 0.0)
    memory = live.reread
    states = [live.update(felt_with(before), k / 10) for k in range(10)]
    reader.table = table_of(after)
    states += [live.update(felt_with(after), k / 10) for k in range(10, 40)]
    assert live.reads == 3
    assert reader.regions[0] is None and reader.regions[1] is not None
    assert reader.regions[2] is None  # the whole table, once, a second after the part
    looks = [s.look for s in states]
    first = looks.index(Look.SETTLED, 1)
    then = looks.index(Look.SETTLED, first + 1)
    assert 12 <= first <= 13 and then - first == 10
    assert Counter(states[-1].smoothed.names) == Counter(["7h", "Qs", "Kd"])
