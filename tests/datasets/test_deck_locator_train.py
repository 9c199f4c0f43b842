"""Adapting the locator and the reader to a taught deck end to end, at toy size: scenes
of its faces, a few seconds of training of each from the shipped weights, the int8
exports into the deck's folder, and scans with the deck locating and reading with them."""

from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path

import pytest
from taught_deck import CARDS, taught_deck, teaching_photos

from shanghai.cli.main import main
from shanghai.datasets.deck_check import LEVELS
from shanghai.datasets.quantize import INT8_WEIGHT_REACH, int8_weight_reach
from shanghai.vision.deck_store import DeckError, DeckStore
from shanghai.vision.model_files import default_models_dir
from shanghai.vision.pipeline import CardModels, models_installed
from shanghai.vision.scan import PhotoKind, PhotoScanner
from shanghai.vision.sources import read_image

# ultralytics patches PIL when imported: only inside these tests (see test_training_smoke).
pytestmark = [
    pytest.mark.train,
    pytest.mark.skipif(
        importlib.util.find_spec("ultralytics") is None, reason="needs the `train` extra"
    ),
    pytest.mark.skipif(not models_installed(), reason="card models not installed"),
    pytest.mark.skipif(
        not (default_models_dir() / "cards-detector.pt").is_file(),
        reason="the shipped locator's weights are not installed",
    ),
]


def test_a_deck_gets_its_own_locator_and_scans_with_it(tmp_path: Path) -> None:
    from shanghai.datasets.deck_locator import LocatorPlan, teach_locator

    models = CardModels()
    deck = taught_deck(tmp_path, models)
    assert not deck.has_locator and deck.head().locator is None
    stages: set[str] = set()
    path = teach_locator(
        deck,
        models,
        LocatorPlan(scenes=6, other_scenes=2, minutes=0.1, reader_minutes=0.1, check_scenes=2),
        progress=lambda stage, done, total: stages.add(stage),
        work=tmp_path,
    )
    assert path == deck.locator_path and deck.has_locator and deck.has_reader
    assert stages == {"scenes", "train", "reader", "export", "check"}
    # the sure level chosen on photos of its own cards is stored and read with the deck
    level = deck.sure_read
    assert level in LEVELS and level >= models.files.sure_read
    assert deck.to_json()["sure_read"] == level
    assert not list(deck.folder.glob("*.partial"))
    assert deck.to_json()["locator"] is True and deck.to_json()["reader"] is True
    assert list(tmp_path.glob("tmp*")) == []  # the scenes and crops are not kept
    # int8 with 7-bit weights, as the shipped files: alike on CPUs without VNNI
    for path in (deck.locator_path, deck.reader_path):
        assert 0 < int8_weight_reach(path) <= INT8_WEIGHT_REACH

    head = deck.head()
    assert head.locator == deck.locator_path and head.own_reader == deck.reader_path
    scanner = PhotoScanner.load(deck=head)
    assert isinstance(scanner.models, CardModels)
    assert scanner.sure_level == level and scanner.models.taught
    shipped = CardModels()
    assert scanner.models.detector is not shipped.detector
    assert scanner.models.detector.names == shipped.detector.names
    assert scanner.models.own_reader is not None
    assert scanner.models.own_reader.names == shipped.reader.names
    photo = read_image(tmp_path / "enrol00.jpg")
    snapshot = scanner.scan(photo, kind=PhotoKind.HAND)
    assert {str(c.card) for c in snapshot.cards} <= set(CARDS)
    # reading without the deck locates with the shipped locator again
    scanner.models.use_deck(None)
    assert scanner.models.detector is scanner.models._shipped_detector


def test_a_broken_deck_locator_is_refused_with_a_message(tmp_path: Path) -> None:
    models = CardModels()
    deck = taught_deck(tmp_path, models)
    deck.locator_path.write_bytes(b"not a model")
    with pytest.raises(DeckError, match="teach its locator again"):
        CardModels(deck=deck.head())


@pytest.fixture
def toy_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's locator step at toy size: 8 scenes instead of 300, 2 check photos."""
    import functools

    from shanghai.datasets import deck_locator

    toy = functools.partial(deck_locator.LocatorPlan, scenes=6, other_scenes=2, check_scenes=2)
    monkeypatch.setattr(deck_locator, "LocatorPlan", toy)


@pytest.mark.usefixtures("toy_plan")
def test_the_cli_teaches_the_locator_with_the_deck(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`deck enroll --locator 1`, then `deck locator` for a deck taught already."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("SHANGHAI_DATA_DIR", raising=False)
    labels = teaching_photos(tmp_path)
    argv = ["deck", "enroll", "home", "--labels", str(labels), "--locator", "1"]
    assert main([*argv, "--reader-minutes", "0.2"]) == 0
    captured = capsys.readouterr()
    assert "its own locator and reader are adapted" in captured.out
    assert "adapting the locator" in captured.err  # the progress bars
    assert "fine-tuning the reader" in captured.err
    assert "checking its reads" in captured.err
    deck = DeckStore(tmp_path / "data" / "shanghai" / "decks").get("home")
    assert deck.has_locator and deck.has_reader
    assert main(["deck", "list"]) == 0
    listed = capsys.readouterr().out
    assert "own locator and reader (sure level 0." in listed
    photo = str(tmp_path / "enrol00.jpg")
    assert main(["scan", photo, "--deck", "home", "--photo", "hand", "--json"]) == 0
    capsys.readouterr()
    # a deck taught already (on the page) gets its locator adapted again later; with no
    # reader time, the head alone reads again
    argv = ["deck", "locator", "home", "--minutes", "1", "--reader-minutes", "0", "--quiet"]
    assert main(argv) == 0
    assert "deck home: locator adapted in" in capsys.readouterr().out
    assert deck.has_locator and not deck.has_reader
    assert main(["deck", "locator", "nothere", "--minutes", "1"]) == 2
    assert "no deck named 'nothere'" in capsys.readouterr().err


@pytest.mark.usefixtures("toy_plan")
def test_the_cli_reports_json_lines_the_server_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`deck locator --json-progress` (what the page's locator job runs), at toy size."""
    from shanghai.server.locator_job import parse_progress

    monkeypatch.setenv("SHANGHAI_DATA_DIR", str(tmp_path / "data"))
    taught_deck(tmp_path / "data", CardModels())
    argv = ["deck", "locator", "home", "--minutes", "1", "--reader-minutes", "0.1"]
    assert main([*argv, "--json-progress"]) == 0
    lines = capsys.readouterr().out.splitlines()
    steps = [step for step in map(parse_progress, lines) if step is not None]
    # 8 scenes and the reader's 24 class photos
    assert [s for s in steps if s[0] == "scenes"][-1] == ("scenes", 32, 32)
    train = [s for s in steps if s[0] == "train"]
    assert train[0] == ("train", 0, 60) and train[-1] == ("train", 60, 60)
    assert all(a[1] <= b[1] for a, b in itertools.pairwise(train))
    reader = [s for s in steps if s[0] == "reader"]
    assert reader[0] == ("reader", 0, 6) and reader[-1] == ("reader", 6, 6)
    assert steps.index(train[-1]) < steps.index(reader[0])
    # then the levels are chosen on photos of its cards (2 at toy size)
    assert steps.index(("export", 1, 1)) < steps.index(("check", 0, 2))
    assert steps[-1] == ("check", 2, 2)
    assert "its own locator and reader are adapted" in lines[-1]
    deck = DeckStore(tmp_path / "data" / "decks").get("home")
    assert deck.has_locator and deck.has_reader
