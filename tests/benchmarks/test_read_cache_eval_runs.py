"""The read-cache benchmark must keep working: one scene drawn twice, a two-frame
video; checked for its tables only (the figures are its output, not a test's)."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest

from shanghai.vision.pipeline import models_installed


def test_read_cache_benchmark_runs(
    capsys: pytest.CaptureFixture[str], benchmark_script: Callable[[str], ModuleType]
) -> None:
    module = benchmark_script("read_cache_eval")
    module.main(["--n", "1", "--frames", "2"])
    out = capsys.readouterr().out
    assert out.startswith("read cache on 1 validation scenes (seed 83)")
    assert out.count("<- max_change") == 1
    assert len([line for line in out.splitlines() if " of " in line and " | " in line]) == len(
        module.THRESHOLDS
    )
    if models_installed():
        assert "reads served from the cache:" in out and "swapped-in cards named" in out
