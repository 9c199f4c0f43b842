"""The deck-teaching benchmark must keep working: run here on one held-out look with a
few cards enrolled and two test photos; its figures are checked for shape only (never
for speed or accuracy)."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest

from shanghai.vision.pipeline import models_installed

pytestmark = pytest.mark.skipif(not models_installed(), reason="card models not installed")


def test_deck_teaching_benchmark_runs(
    capsys: pytest.CaptureFixture[str], benchmark_script: Callable[[str], ModuleType]
) -> None:
    module = benchmark_script("deck_teach")
    figures = module.main(["code-caladea"], scenes=2, seed=3, per_photo=3, cards=6, misses=True)
    look = figures["code-caladea"]
    assert look["seconds"] > 0
    assert look["all_cards"] >= 1
    for when in ("before", "after"):
        assert 0.0 <= look[f"all_precision_{when}"] <= 1.0
        assert 0.0 <= look[f"all_recall_{when}"] <= 1.0
    out = capsys.readouterr().out
    assert "enrolled 6 cards from 2 photos" in out
    assert "before P" in out and "after P" in out and "reader alone" in out
    assert "the taught scan's wrong and missed cards, photo by photo" in out
    assert "hands, exact / right, flagged / wrong, flagged / wrong, silent:" in out
    assert "photos told they are blurred or shaken, before / after: " in out
    assert 0 <= look["all_silent_hands_after"] <= 2
    # Steady photos are split by index size at the DESIGN's webcam scale: the two bands
    # hold every steady card, each once.
    for distance in ("close-up", "table"):
        steady = look.get(f"{distance}, steady_cards")
        if steady is None:
            continue
        banded = [look.get(f"{distance}, steady{size}_cards", 0.0) for size in module.SIZES]
        assert sum(banded) == steady
