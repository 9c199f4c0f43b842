"""A wider locator that starts out computing exactly what a narrower one computes.

Why: on 1,000 tiles it trained on, 1,000 it never saw of the same kind, and 300 of the
validation looks, the eighth-stage locator (width 0.125, 0.81 M parameters) scored the
same mAP50-95 (0.725, 0.723, 0.724; models/MODEL_CARD.md). It does no better on what it
has seen than on what it has not: it underfits, so capacity, not data, limits it. A
network trained from scratch at a larger width would have to redo the ten stages (about
25 CPU hours) before it caught up; widening keeps what was learnt.

How (the Net2Net idea, with zeros instead of copies): every convolution of the wide
network gets the narrow one's weights at the positions of the narrow channels, and a
zero weight from every new input channel into an old output channel; a new channel's
own weights keep their random initialisation. So every old channel computes what it
computed before whatever the new channels hold, and the output is the same; training
then grows the new channels. The positions are a prefix of each tensor's channels,
except where ultralytics splits or joins tensors along channels: a `C3k2`'s or
`C2PSA`'s first convolution is split in two halves, and the convolutions after a
`torch.cat` (`C3k2.cv2`, `C3k.cv3`, `SPPF.cv2`, `C2PSA.cv2`, and a layer after a
`Concat`) read segments, each of which keeps its own prefix. `C2PSA`'s attention keeps
its head as head 0 of the wide one (64 channels a head at both widths). Needs the
`train` extra; checked by `tests/datasets/test_widen_train.py` (the same outputs).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

__all__ = ["widen_detector"]


def widen_detector(weights: Path, out: Path, *, width: float, depth: float = 0.33) -> Path:
    """Write to `out` a locator checkpoint of `width` whose outputs equal those of the
    narrower `weights` (ultralytics `.pt`); train it with `DetectorConfig.init_from`."""
    import torch
    from ultralytics.nn.tasks import DetectionModel, load_checkpoint

    from .training import model_yaml

    loaded, _ = load_checkpoint(str(weights))  # type: ignore[no-untyped-call]
    narrow: Any = loaded.float().eval()
    with tempfile.TemporaryDirectory() as tmp:
        cfg = model_yaml("detect", nc=int(narrow.nc), width=width, depth=depth, folder=Path(tmp))
        built = DetectionModel(str(cfg), nc=int(narrow.nc), verbose=False)  # type: ignore[no-untyped-call]
        wide: Any = built.float().eval()
    if len(wide.model) != len(narrow.model):
        raise ValueError(f"{weights}: another depth or layer list than width {width} has")
    narrow_ch, wide_ch = _layer_channels(narrow), _layer_channels(wide)
    state = wide.state_dict()
    for key, old in narrow.state_dict().items():
        new = state[key]
        if old.shape == new.shape:
            new.copy_(old)
            continue
        out_map = _out_map(narrow, wide, key, old.shape[0], new.shape[0])
        if old.ndim == 1:
            new[out_map] = old
            continue
        in_map = _in_map(narrow, wide, key, (narrow_ch, wide_ch), old.shape[1], new.shape[1])
        new[out_map] = 0.0
        rows = new[out_map]
        rows[:, in_map] = old
        new[out_map] = rows
    wide.load_state_dict(state)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": wide, "train_args": {}, "date": None, "version": None}, out)
    return out


def _layer_channels(model: Any) -> list[int]:
    """Each layer's output channels, from one small forward pass."""
    import torch

    channels: list[int] = []
    hooks = [
        layer.register_forward_hook(
            lambda _m, _i, o: channels.append(
                int((o[0] if isinstance(o, list | tuple) else o).shape[1])
            )
        )
        for layer in model.model
    ]
    with torch.no_grad():
        model(torch.zeros(1, 3, 64, 64))
    for hook in hooks:
        hook.remove()
    return channels


def _parts(key: str) -> tuple[int, str]:
    """("model.13.cv1.conv.weight") -> (13, "cv1")."""
    bits = key.split(".")
    path = bits[2:-1]
    if path and path[-1] in ("conv", "bn"):
        path = path[:-1]
    return int(bits[1]), ".".join(path)


def _segments(old: list[int], new: list[int]) -> Any:
    """Positions in the wide tensor of the narrow one's channels, segment by segment."""
    import torch

    index: list[int] = []
    start = 0
    for a, b in zip(old, new, strict=True):
        if a > b:
            raise ValueError("a segment narrower in the wide network")
        index.extend(range(start, start + a))
        start += b
    return torch.tensor(index, dtype=torch.long)


def _halves(old: int, new: int) -> tuple[list[int], list[int]]:
    return [old // 2] * 2, [new // 2] * 2


def _out_map(narrow: Any, wide: Any, key: str, old: int, new: int) -> Any:
    layer, path = _parts(key)
    kind = type(narrow.model[layer]).__name__
    if path == "cv1" and kind in ("C3k2", "C2f", "C2PSA"):
        return _segments(*_halves(old, new))
    return _segments([old], [new])


def _in_map(
    narrow: Any, wide: Any, key: str, channels: tuple[list[int], list[int]], old: int, new: int
) -> Any:
    layer, path = _parts(key)
    module = narrow.model[layer]
    kind = type(module).__name__
    if path == "cv2" and kind in ("C3k2", "C2f"):
        k = 2 + len(module.m)
        return _segments([old // k] * k, [new // k] * k)
    if path == "cv2" and kind in ("C2PSA", "SPPF"):
        k = 2 if kind == "C2PSA" else 4
        return _segments([old // k] * k, [new // k] * k)
    if kind in ("C3k2", "C2f") and path.endswith(".cv3"):  # a C3k inside: cat of two
        return _segments(*_halves(old, new))
    source = narrow.model[layer - 1] if layer > 0 else None
    first = path == "cv1" or (kind == "Conv" and path == "")
    if first and source is not None and type(source).__name__ == "Concat":
        narrow_ch, wide_ch = channels
        inputs = [layer - 2 if f == -1 else f for f in source.f]
        return _segments([narrow_ch[i] for i in inputs], [wide_ch[i] for i in inputs])
    return _segments([old], [new])
