"""Reader crops turned half a turn for a taught deck's reader (`datasets.crops.half_turn`)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from shanghai.datasets.crops import half_turn


def _crops(root: Path, count: int) -> dict[Path, np.ndarray]:
    """`count` distinct, lopsided crops in two class folders."""
    rng = np.random.default_rng(3)
    made = {}
    for i in range(count):
        crop = np.zeros((16, 16, 3), np.uint8)
        crop[:4, :8] = 255  # a mark in the top-left only: a turn moves it
        crop[8:, 8:] = rng.integers(0, 255, (8, 8, 3), dtype=np.uint8)
        path = root / ("7G" if i % 2 else "10R") / f"c{i:03d}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(path), crop)
        made[path] = crop
    return made


def test_every_crop_turned_at_share_one_none_at_zero(tmp_path: Path) -> None:
    made = _crops(tmp_path, 6)
    assert half_turn(tmp_path, 0.0, np.random.default_rng(0)) == 0
    assert all(np.array_equal(cv2.imread(str(p)), c) for p, c in made.items())
    assert half_turn(tmp_path, 1.0, np.random.default_rng(0)) == 6
    for path, crop in made.items():
        read = cv2.imread(str(path))
        assert np.array_equal(read, crop[::-1, ::-1])
        assert read[-4:, -8:].min() == 255 and read[:4, :8].max() < 255


def test_about_the_share_is_turned_and_the_rest_left_as_cut(tmp_path: Path) -> None:
    made = _crops(tmp_path, 200)
    turned = half_turn(tmp_path, 0.5, np.random.default_rng(1))
    assert 70 <= turned <= 130
    as_cut = sum(np.array_equal(cv2.imread(str(p)), c) for p, c in made.items())
    assert as_cut == 200 - turned


def test_a_broken_crop_is_named(tmp_path: Path) -> None:
    (tmp_path / "7G").mkdir()
    (tmp_path / "7G" / "bad.png").write_bytes(b"not a png")
    with pytest.raises(ValueError, match=r"bad\.png"):
        half_turn(tmp_path, 1.0, np.random.default_rng(0))
