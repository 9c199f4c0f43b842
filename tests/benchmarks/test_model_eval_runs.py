"""The model benchmark must keep working with the shipped models: run here on two
generated test scenes with one latency sample; checked for its sections only (never
for speed or accuracy: those are the benchmark's figures, not a test's)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from shanghai.vision.pipeline import default_models_dir, models_installed

pytestmark = pytest.mark.skipif(
    not models_installed(), reason="card models not installed (models/cards-*.onnx)"
)


def test_model_benchmark_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = Path(__file__).with_name("model_eval.py")
    spec = importlib.util.spec_from_file_location("model_eval", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["model_eval"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    models = str(default_models_dir())
    module.main(["--data", str(tmp_path), "--n", "2", "--models", models, "--latency-runs", "1"])
    out = capsys.readouterr().out
    for section in ("card identity on 2", "cards as the pipeline returns", "mAP50-95", "ms"):
        assert section in out
