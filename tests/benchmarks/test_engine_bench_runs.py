"""The benchmark script must keep working; it is run here with few repeats and its
figures are checked for shape only (never for speed)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest


def test_engine_benchmark_runs(capsys: pytest.CaptureFixture[str]) -> None:
    path = Path(__file__).with_name("engine_bench.py")
    spec = importlib.util.spec_from_file_location("engine_bench", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    figures = module.main(repeats=3)
    assert len(figures) == 5 and all(v > 0 for v in figures.values())
    assert "target <= 1 ms" in capsys.readouterr().out
