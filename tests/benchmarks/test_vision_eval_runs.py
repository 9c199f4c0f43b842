"""The vision evaluation script must keep working: run here in oracle mode on a few
generated scenes; its figures are checked for shape only (never for speed)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest


def test_vision_evaluation_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = Path(__file__).with_name("vision_eval.py")
    spec = importlib.util.spec_from_file_location("vision_eval", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    figures = module.main(data=tmp_path / "eval", n=3, seed=3, oracle_only=True)
    assert figures["oracle_players"] >= 3
    assert 0.0 <= figures["oracle_hand"] <= 1.0 and 0.0 <= figures["oracle_melds"] <= 1.0
    out = capsys.readouterr().out
    assert "hand exact" in out and "oracle" in out
