"""The live benchmark must keep working: tiny videos (320x180, a second still), the
every-frame run capped; checked for its tables only (the figures are its output)."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest

from shanghai.vision.pipeline import models_installed


def test_live_benchmark_runs(
    capsys: pytest.CaptureFixture[str], benchmark_script: Callable[[str], ModuleType]
) -> None:
    module = benchmark_script("live_bench")
    module.main(["--seconds", "1", "--size", "320x180", "--full-frames", "3", "--zoom", "1"])
    out = capsys.readouterr().out
    assert out.startswith("live benchmark: 320x180 at 30 FPS, seed 19")
    assert "absolute times are pessimistic" in out
    if not models_installed():
        assert "nothing to time" in out
        return
    rows = {
        line.split("|")[0].strip(): line
        for line in out.splitlines()
        if "x |" in line and "reading" not in line
    }
    assert set(rows) == {
        "still, where changed",
        "still, every frame",
        "busy, where changed",
        "busy, every frame",
    }
    reads = {name: int(line.rsplit("|", 1)[1]) for name, line in rows.items()}
    assert reads["still, where changed"] == 1  # a still table is read once
    assert reads["still, every frame"] == 3  # capped
    for change in ("card laid down", "hand passing over", "card swapped", "card taken away"):
        assert any(line.strip().startswith(change) for line in out.splitlines())
    assert out.count("   spell ") == 5
