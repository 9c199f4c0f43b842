"""`shanghai scan | watch | score IMAGE | check IMAGE`: exit codes, JSON keys, one-line
errors. The models are replaced by the ground-truth pipeline of a hand-placed table
(the real models are exercised in test_models.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from mini_table import TableReader

from shanghai.cli import vision_commands
from shanghai.cli.main import main
from shanghai.engine.cards import Card, DeckFamily
from shanghai.vision.deck_head import DeckHead, fit_head
from shanghai.vision.deck_store import HEAD_FILE, DeckStore, write_deck_file
from shanghai.vision.pipeline import CardPipeline
from shanghai.vision.read_cache import ReadCache
from shanghai.vision.reconstruct import Reconstructor
from shanghai.vision.snapshot import TableSnapshot


class _FakeModels(TableReader):
    """The models of `_FakePipeline`: the table, read perfectly (`TableReader`)."""

    def __init__(self, table: Any, read_cache: ReadCache | None) -> None:
        super().__init__(table)
        self.read_cache = read_cache


class _FakePipeline:
    """Stands in for `CardPipeline`: every frame shows the same hand-placed table."""

    def __init__(self, table: Any, reconstructor: Reconstructor, cache_reads: bool) -> None:
        self.table = table
        self.reconstructor = reconstructor
        self.models = _FakeModels(table, ReadCache() if cache_reads else None)

    def __call__(self, frame: np.ndarray) -> TableSnapshot:
        readings, boxes = self.table.measure()
        return self.reconstructor(readings, boxes, frame.shape[1], frame.shape[0])


ZOOMS: list[tuple[float, bool, bool]] = []
"""The `zoom`, `turned` and `cache_reads` each fake pipeline was loaded with."""
DECKS: list[Any] = []
"""The `deck` each fake pipeline was loaded with."""


@pytest.fixture
def fake_models(monkeypatch: pytest.MonkeyPatch, mini_table: Any) -> None:
    table = mini_table()
    table.row(["4h", "5h", "JK", "7h"], 600, 300, step=20)
    table.card("Kd", 600, 520)

    def load(
        models_dir: Any = None,
        *,
        rules: Any = None,
        players: int = 1,
        zones: Any = None,
        role: str = "auto",
        threads: Any = None,
        zoom: float = 2.0,
        min_read: float | None = None,
        turned: bool = True,
        cache_reads: bool = False,
        deck: Any = None,
    ) -> Any:
        ZOOMS.append((zoom, turned, cache_reads))
        DECKS.append(deck)
        return _FakePipeline(table, Reconstructor(rules, players, zones, role), cache_reads)

    monkeypatch.setattr(CardPipeline, "load", staticmethod(load))


@pytest.fixture
def photo(tmp_path: Path) -> Path:
    path = tmp_path / "table.png"
    image = np.full((900, 1200, 3), 40, np.uint8)
    cv2.rectangle(image, (500, 200), (700, 400), (230, 230, 230), -1)
    cv2.imwrite(str(path), image)
    return path


def test_scan_json_one_object_per_image(
    fake_models: None, photo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["scan", str(photo), str(photo), "--variant", "shanghai", "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    data = json.loads(lines[0])
    assert data["image"] == str(photo)
    assert sorted(c["card"] for c in data["cards"]) == ["4h", "5h", "7h", "JK", "Kd"]
    assert all(0 <= c["confidence"] <= 1 for c in data["cards"])
    assert [m["cards"] for m in data["melds"]] == [["4h", "5h", "JK", "7h"]]
    assert data["melds"][0]["valid"] is True
    assert data["hands"][0]["cards"] == ["Kd"] and data["hands"][0]["points"] == 10


def test_scan_text_and_annotations(
    fake_models: None, photo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "annotated"
    assert main(["scan", str(photo), "--variant", "shanghai", "--annotate", str(out)]) == 0
    text = capsys.readouterr().out
    assert "5 cards" in text and "4h 5h JK 7h — ok" in text and "hand: Kd (10 points)" in text
    assert (out / "table.jpg").is_file()


def test_scan_bad_file_is_one_line_and_exit_2(
    fake_models: None, photo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "notes.jpg"
    bad.write_text("not an image")
    assert main(["scan", str(bad), str(photo), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "not an image" in captured.err
    assert len(captured.out.strip().splitlines()) == 1  # the good image is still scanned


def test_score_and_check_take_a_photo(
    fake_models: None, photo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A photo of a hand is a hand: every card read is proposed, the row too. A photo of
    a lay-down: the row is a meld, the card on its own is loose. One line each."""
    assert main(["score", str(photo), str(photo), "--variant", "shanghai", "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    score = json.loads(lines[0])
    assert score["image"] == str(photo)
    assert score["points"] == 5 + 5 + 50 + 5 + 10
    assert sorted(score["hand"]) == sorted(c["card"] for c in score["cards"])
    assert sorted(score["hand"]) == sorted(["4h", "5h", "JK", "7h", "Kd"])
    assert score["warnings"] == []
    status = main(["check", str(photo), "--variant", "shanghai", "--round", "1", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert status == 1 and report["valid"] is False and report["reasons"]
    assert [m["cards"] for m in report["melds"]] == [["4h", "5h", "JK", "7h"]]
    assert report["loose"] == ["Kd"] and [w["code"] for w in report["warnings"]] == ["loose"]
    assert main(["score", str(photo), "--variant", "shanghai"]) == 0
    assert capsys.readouterr().out.startswith(f"{photo}: 75 points (")


def test_score_of_unreadable_images_says_why(
    fake_models: None, photo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 1x1 image and a one-colour one: a plain message each, the others go on."""
    tiny, plain = tmp_path / "tiny.png", tmp_path / "plain.png"
    cv2.imwrite(str(tiny), np.zeros((1, 1, 3), np.uint8))
    cv2.imwrite(str(plain), np.full((300, 400, 3), 128, np.uint8))
    args = ["score", str(tiny), str(plain), str(photo), "--variant", "shanghai", "--json"]
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.err.strip() == (
        f"shanghai: error: {tiny}: the image is 1x1 px: too small to show a card "
        "(at least 64 px on each side)"
    )
    first, second = (json.loads(x) for x in captured.out.strip().splitlines())
    assert first["image"] == str(plain) and first["points"] == 0
    assert [w["code"] for w in first["warnings"]] == ["no-cards"]
    assert second["points"] == 75


def test_text_or_photos_not_both(photo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(photo), "7h", "--variant", "shanghai"]) == 2
    assert "card text or photos, not both" in capsys.readouterr().err


def test_score_text_still_works(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", "7h 10s", "--variant", "shanghai", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["points"] == 15


def test_missing_model_is_one_line(
    photo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An installation without the model files (they ship in `models/`, so an empty
    folder stands in for the package's)."""
    empty = tmp_path / "no-models"
    empty.mkdir()
    monkeypatch.setattr("shanghai.vision.model_files.default_models_dir", lambda: empty)
    assert main(["scan", str(photo)]) == 2
    err = capsys.readouterr().err
    assert (
        err.strip()
        == "shanghai: error: the card model is not installed: models/cards-detector.onnx"
    )
    assert main(["scan", str(photo), "--models", str(empty)]) == 2
    assert str(empty / "cards-detector.onnx") in capsys.readouterr().err


def test_watch_camera_that_cannot_be_opened(
    fake_models: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["watch", "97"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "camera 97" in err


def test_watch_prints_the_stable_state(
    fake_models: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    video = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (320, 240))
    image = np.full((240, 320, 3), 60, np.uint8)
    cv2.rectangle(image, (100, 60), (200, 180), (230, 230, 230), -1)  # not one plain colour
    for _ in range(30):
        writer.write(image)
    writer.release()
    assert main(["watch", str(video), "--variant", "shanghai", "--hold", "0.5", "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.strip().splitlines()]
    assert len(lines) == 1  # the state held still: printed once
    assert lines[0]["stable"] is True and lines[0]["stability"] == 1.0
    assert [m["cards"] for m in lines[0]["melds"]] == [["4h", "5h", "JK", "7h"]]


def test_photo_passes_are_on_for_photos_off_for_video_and_checked(
    fake_models: None, photo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ZOOMS.clear()
    assert main(["scan", str(photo), "--json"]) == 0
    assert main(["scan", str(photo), "--json", "--zoom", "1"]) == 0
    video = tmp_path / "v.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (96, 72))
    writer.write(np.zeros((72, 96, 3), np.uint8))
    writer.release()
    assert main(["watch", str(video), "--json"]) == 0
    assert main(["watch", str(video), "--json", "--every-frame"]) == 0
    assert main(["watch", str(video), "--json", "--every-frame", "--cache-reads"]) == 0
    assert ZOOMS == [
        (2.0, True, False),
        (1.0, True, False),
        (2.0, True, False),  # settled frames: read as a photo is
        (1.0, False, False),
        (1.0, False, True),
    ]
    capsys.readouterr()
    assert main(["watch", str(video), "--cache-reads"]) == 2
    assert "--cache-reads goes with --every-frame" in capsys.readouterr().err
    tiny = tmp_path / "tiny.avi"
    writer = cv2.VideoWriter(str(tiny), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    writer.write(np.zeros((48, 64, 3), np.uint8))
    writer.release()
    assert main(["watch", str(tiny)]) == 2  # read as a photo is: too small for a card
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "too small to show a card" in err
    assert main(["scan", str(photo), "--zoom", "0.5"]) == 2
    assert "--zoom must be >= 1" in capsys.readouterr().err


def _store_deck(name: str, *, adapted: bool) -> None:
    """A taught deck of two cards in the data folder (`DeckStore()`), with a head
    fitted on made-up features if `adapted`."""

    def build(folder: Path) -> None:
        cards = [Card.parse("7h"), Card.parse("8s")]
        write_deck_file(folder, name=name, family=DeckFamily.STANDARD, cards=cards, photos=1)
        if adapted:
            rng = np.random.default_rng(0)
            features = rng.normal(0, 1, (8, 16)).astype(np.float32)
            features[4:] += 3  # two apart clusters
            fit_head(features, ["7h"] * 4 + ["8s"] * 4, reader="r").save(folder / HEAD_FILE)

    DeckStore().write(name, build)


def test_watch_reads_with_a_taught_deck(
    fake_models: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`watch --deck NAME` loads the deck's head as `scan --deck` does, in both ways of
    watching; a deck not stored or not adapted is a one-line usage error."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    _store_deck("home", adapted=True)
    _store_deck("half", adapted=False)
    video = tmp_path / "v.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (320, 240))
    image = np.full((240, 320, 3), 60, np.uint8)
    cv2.rectangle(image, (100, 60), (200, 180), (230, 230, 230), -1)
    for _ in range(5):
        writer.write(image)
    writer.release()
    DECKS.clear()
    assert main(["watch", str(video), "--json", "--deck", "home"]) == 0
    assert main(["watch", str(video), "--json", "--every-frame", "--deck", "home"]) == 0
    assert main(["watch", str(video), "--json"]) == 0
    assert [d.classes if isinstance(d, DeckHead) else d for d in DECKS] == [
        ("7h", "8s"),
        ("7h", "8s"),
        None,
    ]
    capsys.readouterr()
    assert main(["watch", str(video), "--deck", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no deck named 'nope'" in err
    assert main(["watch", str(video), "--deck", "half"]) == 2
    assert "deck half is not adapted" in capsys.readouterr().err


def test_looks_like_image() -> None:
    assert vision_commands.looks_like_image("photo.JPG")
    assert not vision_commands.looks_like_image("7h 8h 9h")
