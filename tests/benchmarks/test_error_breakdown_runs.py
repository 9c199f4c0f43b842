"""The error-breakdown benchmark must keep working with the shipped models: two generated
test scenes; checked for its tables and its contact sheet only (the figures are its
output, not a test's)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import cv2
import numpy as np
import pytest

from shanghai.vision.pipeline import models_installed

pytestmark = pytest.mark.skipif(
    not models_installed(), reason="card models not installed (models/cards-*.onnx)"
)


def test_error_breakdown_benchmark_runs(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    benchmark_script: Callable[[str], ModuleType],
) -> None:
    module = benchmark_script("error_breakdown")
    sheet = tmp_path / "out" / "sheet.png"
    argv = ["--data", str(tmp_path / "eval"), "--n", "2", "--sheet", str(sheet)]
    figures = module.main([*argv, "--tiles", "3", "--threads", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("error breakdown on 2 test scenes")
    assert figures["indices"] > 0
    assert sum(figures["outcomes"].values()) == figures["indices"]

    titles = [line for line in lines if line.startswith("by ")]
    assert titles == [f"by {title}:" for title, _, _ in module.BREAKDOWNS]
    heads = [line for line in lines if " | " in line and " n |" in line]
    assert len(heads) == len(module.BREAKDOWNS)
    assert all(all(o in head for o in module.OUTCOMES) for head in heads)
    rows = [line for line in lines if re.match(r"  \S.* \| +\d+ \|", line)]
    groups = {title: 0 for title, _, _ in module.BREAKDOWNS}
    title = ""
    for line in lines:
        if line.startswith("by "):
            title = line[3:-1]
        elif line in rows:
            groups[title] += int(line.split("|")[1])
    assert set(groups.values()) == {figures["indices"]}  # every table covers every index
    for row in rows:
        ours, alone = row.split("||")
        ours_shares = [float(v) for v in re.findall(r"([\d.]+)%", ours)]
        alone_shares = [float(v) for v in re.findall(r"([\d.]+)%", alone)]
        assert len(ours_shares) == len(module.OUTCOMES)
        assert len(alone_shares) == len(module.READER_OUTCOMES)
        assert abs(sum(ours_shares) - 100) < 0.3 and abs(sum(alone_shares) - 100) < 0.3
    assert lines[-1].startswith(f"Summary: of {figures['indices']} visible indices")

    errors = figures["outcomes"]["misread"] + figures["outcomes"]["not located"]
    assert figures["tiles"] == min(3, errors)
    image = cv2.imread(str(sheet))
    assert image is not None
    rows_, columns = figures["grid"]
    assert image.shape == (rows_ * (module.TILE + module.LABEL), columns * module.TILE, 3)
    assert rows_ * columns >= figures["tiles"] > (rows_ - 1) * columns or figures["tiles"] == 0
    for k in range(figures["tiles"]):  # each tile holds a crop, not the blank sheet
        r, c = divmod(k, columns)
        y, x = r * (module.TILE + module.LABEL) + module.LABEL, c * module.TILE
        assert np.ptp(image[y : y + module.TILE, x : x + module.TILE]) > 0
