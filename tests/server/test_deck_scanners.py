"""The server's scanner for a taught deck (`deck_jobs.DeckScanners`): cached per deck,
and made again when the deck changes, its own locator and reader added later included
(`shanghai deck locator` run while the server is up)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from taught_deck import taught_deck

from shanghai.server.deck_jobs import DeckScanners
from shanghai.vision.deck_store import DeckStore
from shanghai.vision.model_files import DETECTOR_FILE, READER_FILE, default_models_dir
from shanghai.vision.pipeline import CardModels, models_installed
from shanghai.vision.scan import PhotoScanner

pytestmark = pytest.mark.skipif(not models_installed(), reason="card models not installed")


def test_a_locator_added_later_is_used(tmp_path: Path) -> None:
    base = PhotoScanner.load()
    assert isinstance(base.models, CardModels)
    deck = taught_deck(tmp_path, base.models)
    scanners = DeckScanners(DeckStore(tmp_path / "decks"))

    first = scanners.for_deck(base, "home", deck.family)
    assert first is not base and scanners.for_deck(base, "home", deck.family) is first
    assert isinstance(first, PhotoScanner) and isinstance(first.models, CardModels)
    assert first.models.detector is base.models.detector  # no locator of its own yet

    # the deck's own locator (here a copy of the shipped one: any valid locator file)
    shutil.copyfile(default_models_dir() / DETECTOR_FILE, deck.locator_path)
    again = scanners.for_deck(base, "home", deck.family)
    assert again is not first
    assert isinstance(again, PhotoScanner) and isinstance(again.models, CardModels)
    assert again.models.detector is not base.models.detector
    assert base.models.deck is None and base.models.detector is base.models._shipped_detector

    # its own reader, added later by the same step (a copy of the shipped one)
    assert again.models.own_reader is None
    shutil.copyfile(default_models_dir() / READER_FILE, deck.reader_path)
    third = scanners.for_deck(base, "home", deck.family)
    assert third is not again
    assert isinstance(third, PhotoScanner) and isinstance(third.models, CardModels)
    assert third.models.own_reader is not None and base.models.own_reader is None
    # The upright check leaves the deck's own reader the cards it learnt, as the CLI's
    # scanner for the same deck does (`PhotoScanner.reading_with`, one construction).
    assert first.upright is not None and first.upright.learnt == frozenset()
    assert third.upright is not None and third.upright.learnt == {str(c) for c in deck.cards}
    cli = PhotoScanner.load(deck=deck.head())
    assert cli.upright is not None and cli.upright.learnt == third.upright.learnt
