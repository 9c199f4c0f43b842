"""Reconstruction from ground-truth boxes on generated round-end scenes.

The oracle gives the pipeline exactly what a perfect detector and reader would (see
`shanghai.datasets.oracle`), so these tests measure the card logic alone: identification
(corners merged, copies kept) and layout (rows, table order, seats, hands).
Floors are set below what was measured (docs/vision.md) so that a regression shows.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from shanghai.datasets.oracle import truth_readings
from shanghai.datasets.roundend_check import check_round_end, scene_players, scene_rules
from shanghai.vision.physical import CardIdentifier
from shanghai.vision.reconstruct import Reconstructor

SCENES = 8


@pytest.fixture(scope="module")
def scenes(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    out = tmp_path_factory.mktemp("roundend")
    command = [sys.executable, "-m", "shanghai.cli.main", "data", "generate", "--out", str(out)]
    command += ["--kind", "roundend", "--n", str(SCENES), "--seed", "21", "--split", "test"]
    subprocess.run([*command, "--workers", "1", "--quiet"], check=True)
    paths = sorted((out / "roundend" / "test" / "meta").glob("*.json"))
    assert len(paths) == SCENES
    return [json.loads(Path(p).read_text()) for p in paths]


def test_identification_finds_every_readable_card_once(scenes: list[dict[str, Any]]) -> None:
    exact = 0
    for meta in scenes:
        readings, boxes = truth_readings(meta)
        found = CardIdentifier().identify(readings, boxes)
        got = Counter(str(c.card) for c in found.cards)
        want = Counter(
            c["card"]
            for c in meta["cards"]
            if c.get("face_up", True) and any(i["state"] == "visible" for i in c["indices"])
        )
        # Never more than one card per physical card read, never a card not on the table.
        assert not (got - want) or sum((got - want).values()) <= 1
        exact += got == want
    assert exact >= 0.6 * len(scenes)


def test_round_end_reconstruction_floor(scenes: list[dict[str, Any]]) -> None:
    checks = []
    for meta in scenes:
        readings, boxes = truth_readings(meta)
        rules = scene_rules(meta)
        snapshot = Reconstructor(rules, scene_players(meta))(
            readings, boxes, meta["width"], meta["height"]
        )
        checks += check_round_end(snapshot, meta)
    readable = [c for c in checks if c.readable]
    assert readable, "no player with every card readable in the sample"
    hand = sum(c.hand_right for c in readable) / len(readable)
    melds = sum(c.melds_right for c in readable) / len(readable)
    print(f"oracle: {len(readable)} readable players, hand {hand:.2f}, melds {melds:.2f}")
    assert hand >= 0.85
    assert melds >= 0.8
