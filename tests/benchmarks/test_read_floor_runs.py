"""The read-floor benchmark must keep working with the shipped models: one generated
validation scene per seed; checked for its table only (the figures are its output,
not a test's)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from shanghai.vision.pipeline import models_installed

pytestmark = pytest.mark.skipif(
    not models_installed(), reason="card models not installed (models/cards-*.onnx)"
)


def test_read_floor_benchmark_runs(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    benchmark_script: Callable[[str], ModuleType],
) -> None:
    module = benchmark_script("read_floor")
    module.main(["--data", str(tmp_path), "--n", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("read floor on 2 validation scenes")
    assert len(lines) == 2 + len(module.FLOORS)
