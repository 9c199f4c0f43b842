"""A deck taught before a new reader model is fitted again from its stored cards
(`deck_enrol.refit`): from the CLI (`shanghai deck refit`, named in the refusal and in
`deck list`) and, on the server, on the first scan that needs it."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from taught_deck import taught_deck

from shanghai.cli.main import main
from shanghai.server.deck_jobs import DeckScanners
from shanghai.vision.deck_enrol import refit
from shanghai.vision.deck_head import DeckHead
from shanghai.vision.deck_store import DeckReaderChanged, DeckStore, StoredDeck
from shanghai.vision.model_files import READER_FILE, default_models_dir
from shanghai.vision.pipeline import CardModels, models_installed
from shanghai.vision.scan import PhotoScanner

pytestmark = pytest.mark.skipif(not models_installed(), reason="card models not installed")

OLD_READER = "0123456789abcdef"
"""The fingerprint of a reader model that is not the shipped one (an older release's)."""


def _taught_before(deck: StoredDeck) -> DeckHead:
    """Make `deck`'s head one fitted for another reader; returns the head as it was."""
    head = DeckHead.load(deck.head_path)
    replace(head, reader=OLD_READER).save(deck.head_path)
    return head


@pytest.fixture(scope="module")
def models() -> CardModels:
    return CardModels()


def test_a_deck_taught_for_another_reader_is_fitted_again_from_its_cards(
    tmp_path: Path, models: CardModels
) -> None:
    deck = taught_deck(tmp_path, models)
    shutil.copyfile(default_models_dir() / READER_FILE, deck.reader_path)  # its own reader
    fitted = _taught_before(deck)
    with pytest.raises(DeckReaderChanged, match="shanghai deck refit"):
        CardModels(deck=deck.head())
    store = DeckStore(tmp_path / "decks")
    again = refit(store, "home", models)
    head = DeckHead.load(again.head_path)
    assert head.reader == models.reader_fingerprint
    # the same crops and reader give the same head: nothing was photographed again
    assert head.classes == fitted.classes and head.kind == fitted.kind
    np.testing.assert_array_equal(head.weights, fitted.weights)
    assert again.has_reader and again.cards == deck.cards
    assert CardModels(deck=again.head()).own_reader is not None


def test_the_cli_names_the_refit_and_does_it(
    tmp_path: Path,
    models: CardModels,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    store = DeckStore()
    deck = taught_deck(store.root.parent, models)
    photo = sorted(store.root.parent.glob("*.jpg"))[0]
    _taught_before(deck)
    capsys.readouterr()
    assert main(["deck", "list"]) == 0
    assert "taught for another reader model: shanghai deck refit home" in capsys.readouterr().out
    assert main(["scan", str(photo), "--deck", "home"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "`shanghai deck refit home` (seconds)" in err
    assert main(["deck", "refit", "home", "--quiet"]) == 0
    assert "deck home: fitted again for cards-reader.onnx" in capsys.readouterr().out
    assert main(["deck", "list"]) == 0
    assert "another reader" not in capsys.readouterr().out
    assert main(["scan", str(photo), "--deck", "home", "--json"]) == 0
    assert main(["deck", "refit", "nope"]) == 2
    assert "no deck named 'nope'" in capsys.readouterr().err


def test_the_server_fits_it_again_on_first_use(tmp_path: Path) -> None:
    """A game whose deck was taught before the server's reader model scans with the
    deck (fitted again once), not with the shipped reading alone in silence."""
    base = PhotoScanner.load()
    assert isinstance(base.models, CardModels)
    deck = taught_deck(tmp_path, base.models)
    _taught_before(deck)
    scanners = DeckScanners(DeckStore(tmp_path / "decks"))
    taught = scanners.for_deck(base, "home", deck.family)
    assert taught is not base and isinstance(taught, PhotoScanner)
    assert isinstance(taught.models, CardModels) and taught.models.deck is not None
    assert DeckHead.load(deck.head_path).reader == base.models.reader_fingerprint
    assert scanners.for_deck(base, "home", deck.family) is taught
