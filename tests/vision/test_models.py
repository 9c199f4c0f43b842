"""The real models on generated images. Skipped only while the model files are not
installed (`models/cards-detector.onnx`, `models/cards-reader.onnx`); in CI they are
committed, so these run."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from shanghai.cli.main import main
from shanghai.vision.pipeline import CardPipeline, models_installed
from shanghai.vision.roundend_check import scene_rules
from shanghai.vision.sources import read_image

pytestmark = pytest.mark.skipif(
    not models_installed(), reason="card models not installed (models/cards-*.onnx)"
)


@pytest.fixture(scope="module")
def scenes(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Path, dict[str, Any]]]:
    out = tmp_path_factory.mktemp("scenes")
    command = [sys.executable, "-m", "shanghai.cli.main", "data", "generate", "--out", str(out)]
    command += ["--kind", "roundend", "--n", "4", "--seed", "5", "--split", "test"]
    subprocess.run([*command, "--workers", "1", "--quiet"], check=True)
    root = out / "roundend" / "test"
    metas = [json.loads(p.read_text()) for p in sorted((root / "meta").glob("*.json"))]
    return [(root / "images" / m["image"], m) for m in metas]


@pytest.fixture(scope="module")
def pipeline() -> CardPipeline:
    return CardPipeline.load()


def test_models_read_most_readable_cards(
    pipeline: CardPipeline, scenes: list[tuple[Path, dict[str, Any]]]
) -> None:
    found = wanted = 0
    for image, meta in scenes:
        snapshot = pipeline.with_table(rules=scene_rules(meta))(read_image(image))
        got = Counter(str(c.card) for c in snapshot.cards)
        want = Counter(
            c["card"]
            for c in meta["cards"]
            if c.get("face_up", True) and any(i["state"] == "visible" for i in c["indices"])
        )
        found += sum((got & want).values())
        wanted += sum(want.values())
        assert sum((got - want).values()) <= max(2, 0.1 * sum(want.values()))
    assert wanted and found / wanted >= 0.8


def test_scan_command_with_the_model(
    scenes: list[tuple[Path, dict[str, Any]]], capsys: pytest.CaptureFixture[str]
) -> None:
    paths = [str(p) for p, _ in scenes[:2]]
    assert main(["scan", *paths, "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.strip().splitlines()]
    assert [x["image"] for x in lines] == paths
    assert all({"cards", "melds", "hands"} <= set(x) for x in lines)
    assert any(x["cards"] for x in lines)


def test_server_uses_the_vision_scanner(scenes: list[tuple[Path, dict[str, Any]]]) -> None:
    from shanghai.server.scanning import CardScanner, ScanResult, default_scanner
    from shanghai.server.vision_scanner import VisionScanner

    scanner = default_scanner()
    assert isinstance(scanner, VisionScanner) and isinstance(scanner, CardScanner)
    result = scanner.scan(read_image(scenes[0][0]))
    assert isinstance(result, ScanResult) and result.cards
