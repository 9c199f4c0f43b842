"""The vision evaluation script must keep working: run here in oracle mode on a few
generated scenes; its figures are checked for shape only (never for speed)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest


def test_vision_evaluation_runs(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    benchmark_script: Callable[[str], ModuleType],
) -> None:
    module = benchmark_script("vision_eval")
    figures = module.main(data=tmp_path / "eval", n=3, seed=3, oracle_only=True)
    assert figures["oracle_players"] >= 3
    assert 0.0 <= figures["oracle_hand"] <= 1.0 and 0.0 <= figures["oracle_melds"] <= 1.0
    out = capsys.readouterr().out
    assert "hand exact" in out and "oracle" in out
