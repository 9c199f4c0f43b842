"""Two melds laid close together that read as one row: the scan says so."""

from __future__ import annotations

import numpy as np
from mini_table import MiniTable, TableReader

from shanghai.engine.variant_files import find_variant
from shanghai.vision.scan import PhotoKind, PhotoScanner

RULES = find_variant("shanghai").rules(4)
FRAME = np.random.default_rng(5).integers(60, 120, (900, 1200, 3), dtype=np.uint8)


def scan(rows: list[list[str]]):  # type: ignore[no-untyped-def]
    table = MiniTable()
    for k, names in enumerate(rows):
        table.row(names, 600, 250 + 300 * k, step=20)
    return PhotoScanner(TableReader(table)).scan(FRAME, rules=RULES, kind=PhotoKind.LAY_DOWN)


def test_two_runs_read_as_one_row_are_named_with_where_they_split() -> None:
    snap = scan([["Ah", "2h", "3h", "4h", "6h", "7h", "8h", "9h"]])
    joined = [w for w in snap.warnings if w.code == "joined"]
    assert len(joined) == 1
    assert joined[0].message.startswith("Ah 2h 3h 4h | 6h 7h 8h 9h may be two melds")
    assert len(joined[0].cards) == 8
    assert not snap.meld_verdicts(snap.seats[0])[0].valid  # said, not made


def test_legal_melds_and_a_row_that_no_split_makes_legal_are_not_flagged() -> None:
    snap = scan([["7h", "7s", "7c"], ["9d", "10d", "Jd", "Kd", "Ad"]])
    assert [v.valid for v in snap.meld_verdicts(snap.seats[0])].count(False) == 1
    assert "joined" not in {w.code for w in snap.warnings}
