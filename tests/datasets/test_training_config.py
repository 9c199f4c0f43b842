"""Training settings that reach ultralytics (no training here, no ultralytics import)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shanghai.datasets.training import (
    DetectorConfig,
    ReaderConfig,
    _common_args,
    _detector_args,
    _reader_args,
    mixed_crops,
    mixed_data_yaml,
)


def test_a_time_budget_becomes_ultralytics_time_in_hours() -> None:
    budget = _common_args(DetectorConfig(data=Path("d.yaml"), hours=1.5))
    assert budget["time"] == 1.5
    assert budget["epochs"] == 30  # still given: ultralytics refits it after epoch 1


def test_without_a_budget_the_epoch_count_rules() -> None:
    args = _common_args(ReaderConfig(data=Path("crops"), epochs=7))
    assert "time" not in args
    assert args["epochs"] == 7 and args["imgsz"] == 64 and args["plots"] is False


def test_extra_settings_override_the_defaults() -> None:
    """A fine-tune passes a lower `lr0`; it must replace the reader's default, not clash
    with it (two values for one keyword)."""
    reader = _reader_args(ReaderConfig(data=Path("crops"), extra={"lr0": 0.001}))
    assert reader["lr0"] == 0.001 and reader["optimizer"] == "AdamW"
    detector = _detector_args(DetectorConfig(data=Path("d.yaml"), extra={"mosaic": 0.0}))
    assert detector["mosaic"] == 0.0 and detector["close_mosaic"] == 2


def _tiles(folder: Path, kind: str, counts: dict[str, int]) -> None:
    (folder / kind).mkdir(parents=True)
    (folder / kind / "data.yaml").write_text("train: train/images\n")
    for split, n in counts.items():
        images = folder / kind / split / "images"
        images.mkdir(parents=True)
        for i in range(n):
            (images / f"{kind}-{i}.jpg").write_bytes(b"")


def test_a_stage_mixes_the_tiles_of_several_data_folders(tmp_path: Path) -> None:
    """Table tiles with their val, photo tiles of a fresh seed (train only) and the val
    photo tiles of every stage: one dataset of list files, crops and scenes left out."""
    _tiles(tmp_path / "train", "tiles", {"train": 3, "val": 2, "test": 1})
    (tmp_path / "train" / "crops" / "train").mkdir(parents=True)
    _tiles(tmp_path / "photos", "photo-tiles", {"train": 4})
    _tiles(tmp_path / "photos_val", "photo-tiles", {"val": 1})
    folders = [tmp_path / "train", tmp_path / "photos", tmp_path / "photos_val"]
    data_yaml = mixed_data_yaml(folders, tmp_path / "mix")
    train = (tmp_path / "mix" / "train.txt").read_text().split()
    val = (tmp_path / "mix" / "val.txt").read_text().split()
    assert len(train) == 7 and len(val) == 3
    assert all(Path(p).is_absolute() and Path(p).is_file() for p in train + val)
    assert not any("/test/" in p for p in train + val)
    text = data_yaml.read_text()
    assert f"train: {(tmp_path / 'mix' / 'train.txt').resolve()}" in text
    assert "  0: card\n  1: index" in text


def test_a_mix_without_locator_data_or_val_is_refused(tmp_path: Path) -> None:
    (tmp_path / "crops" / "crops" / "train").mkdir(parents=True)
    with pytest.raises(FileNotFoundError, match="no locator data"):
        mixed_data_yaml([tmp_path / "crops"], tmp_path / "mix")
    _tiles(tmp_path / "photos", "photo-tiles", {"train": 2})
    with pytest.raises(ValueError, match="no val images"):
        mixed_data_yaml([tmp_path / "photos"], tmp_path / "mix")


def _crops(folder: Path, split: str, counts: dict[str, int]) -> None:
    for cls, n in counts.items():
        (folder / "crops" / split / cls).mkdir(parents=True)
        for i in range(n):
            (folder / "crops" / split / cls / f"{i:06d}.png").write_bytes(
                f"{folder.name}{i}".encode()
            )


def test_a_reader_stage_mixes_the_crops_of_several_seeds(tmp_path: Path) -> None:
    """Two train seeds whose crops share file names, the fixed looks' val and the unseen
    looks' val (both choose the best epoch); test crops stay out; a second mix into the
    same folder keeps nothing of the first."""
    _crops(tmp_path / "t1", "train", {"AS": 2, "ROOK": 1})
    _crops(tmp_path / "t2", "train", {"AS": 2})
    _crops(tmp_path / "v1", "val", {"AS": 1})
    _crops(tmp_path / "v2", "val-unseen", {"ROOK": 1})
    _crops(tmp_path / "v2", "test", {"ROOK": 3})
    folders = [tmp_path / name for name in ("t1", "t2", "v1", "v2")]
    mix = mixed_crops(folders, tmp_path / "mix")
    train = sorted(p.relative_to(mix / "train") for p in (mix / "train").rglob("*.png"))
    val = sorted(p.relative_to(mix / "val") for p in (mix / "val").rglob("*.png"))
    assert [p.parent.name for p in train] == ["AS"] * 4 + ["ROOK"]
    assert {(mix / "train" / p).read_bytes() for p in train} == {b"t10", b"t11", b"t20", b"t21"}
    assert [str(p.parent) for p in val] == ["AS", "ROOK"]
    assert not (mix / "test").exists()
    mixed_crops(folders[1:], mix)
    assert sum(1 for _ in (mix / "train").rglob("*.png")) == 2


def test_a_reader_mix_without_crops_or_val_is_refused(tmp_path: Path) -> None:
    _tiles(tmp_path / "tiles", "tiles", {"train": 1, "val": 1})
    with pytest.raises(FileNotFoundError, match="no train or val reader crops"):
        mixed_crops([tmp_path / "tiles"], tmp_path / "mix")
    _crops(tmp_path / "t1", "train", {"AS": 1})
    with pytest.raises(ValueError, match="no val crops"):
        mixed_crops([tmp_path / "t1"], tmp_path / "mix")
