"""Golden rule cases: data files in tests/golden/ read for `pytest.mark.parametrize`."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).parent / "golden"


def golden(name: str, table: str = "case") -> list[dict[str, Any]]:
    """Cases from a golden data file, for `pytest.mark.parametrize`."""
    with (GOLDEN / name).open("rb") as handle:
        data: dict[str, Any] = tomllib.load(handle)
    return list(data.get(table, []))


def case_id(case: dict[str, Any]) -> str:
    return str(case.get("rule", case.get("cards", "?")))
