"""Training settings that reach ultralytics (no training here, no ultralytics import)."""

from __future__ import annotations

from pathlib import Path

from shanghai.datasets.training import (
    DetectorConfig,
    ReaderConfig,
    _common_args,
    _detector_args,
    _reader_args,
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
