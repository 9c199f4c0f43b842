"""Widening the locator (`datasets.widen`, `shanghai train widen`): the wider network
starts out computing what the narrower one computes, on a generated photo, and trains
from there."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import cv2
import numpy as np
import pytest

from shanghai.cli.main import main
from shanghai.vision.model_files import default_models_dir

pytestmark = [
    pytest.mark.train,
    pytest.mark.skipif(
        importlib.util.find_spec("ultralytics") is None, reason="needs the `train` extra"
    ),
    pytest.mark.skipif(
        not (default_models_dir() / "cards-detector.pt").is_file(),
        reason="the shipped locator's weights are not installed",
    ),
]


def _photo() -> np.ndarray:
    """A generated hand photo as the network's input (1, 3, H, W) in [0, 1]."""
    from shanghai.datasets.decks import code_looks
    from shanghai.datasets.hand_photos import photo_of_cards
    from shanghai.engine.cards import Card

    look = next(look for look in code_looks() if look.name == "code-classic")
    cards = [Card.parse(c) for c in ("7h", "8s", "Kd")]
    rendered, _ = photo_of_cards(np.random.default_rng(3), "train", look, cards)
    small = cv2.resize(rendered.image, (416, 320), interpolation=cv2.INTER_AREA)
    image = small[:, :, ::-1].astype(np.float32) / 255.0
    return np.ascontiguousarray(image.transpose(2, 0, 1)[None])


def test_a_wider_locator_starts_with_the_same_outputs(tmp_path: Path) -> None:
    import torch
    from ultralytics.nn.tasks import load_checkpoint

    shipped = default_models_dir() / "cards-detector.pt"
    out = tmp_path / "wide.pt"
    narrow, _ = load_checkpoint(str(shipped))
    width = 2 * float(narrow.yaml["scales"]["n"][1])  # twice the shipped locator's width
    assert main(["train", "widen", "--detector", str(shipped), "--width", f"{width:g}",
                 "--to", str(out)]) == 0  # fmt: skip
    wide, _ = load_checkpoint(str(out))
    narrow, wide = narrow.float().eval(), wide.float().eval()
    assert wide.yaml["scales"]["n"][1] == width
    count = sum(p.numel() for p in wide.parameters())
    assert count > 3 * sum(p.numel() for p in narrow.parameters())
    photo = torch.from_numpy(_photo())
    with torch.no_grad():
        a, b = narrow(photo)[0], wide(photo)[0]
    assert a.shape == b.shape
    assert float(a[:, 4:].max()) > 0.5  # it finds something: not a trivial comparison
    assert torch.allclose(a[:, 4:], b[:, 4:], atol=1e-5)  # class scores
    assert torch.allclose(a[:, :4], b[:, :4], atol=1e-2)  # boxes, in pixels
    # the new channels are there to learn: not every new weight is zero
    state = wide.state_dict()
    first = narrow.state_dict()["model.0.conv.weight"].shape[0]
    assert float(state["model.0.conv.weight"][first:].abs().sum()) > 0


def test_widen_refuses_what_it_cannot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shipped = default_models_dir() / "cards-detector.pt"
    missing = ["train", "widen", "--detector", str(tmp_path / "no.pt"), "--width", "0.25"]
    assert main([*missing, "--to", str(tmp_path / "w.pt")]) == 2
    assert "no such weights file" in capsys.readouterr().err
    narrower = ["train", "widen", "--detector", str(shipped), "--width", "0.0625"]
    assert main([*narrower, "--to", str(tmp_path / "w.pt")]) == 2
    assert "narrower" in capsys.readouterr().err
