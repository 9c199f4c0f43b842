"""Training uses every core of the CPU: ultralytics would keep one idle."""

from __future__ import annotations

import importlib.util
import os

import pytest

pytestmark = [
    pytest.mark.train,
    pytest.mark.skipif(
        importlib.util.find_spec("ultralytics") is None, reason="needs the `train` extra"
    ),
]


def test_choosing_the_cpu_gives_pytorch_every_core() -> None:
    """ultralytics sets PyTorch's threads to the cores less one when a training picks
    the CPU (one thread on a 2-core machine, half the CPU idle); after `_every_core`
    the same choice gives all of them, as `train_detector` and `train_reader` do."""
    import torch
    from ultralytics.utils import torch_utils

    from shanghai.datasets.training import _every_core

    cores = os.cpu_count() or 1
    saved = torch_utils.NUM_THREADS, torch.get_num_threads()
    try:
        torch_utils.NUM_THREADS = max(1, min(8, cores - 1))  # ultralytics' own choice
        torch_utils.select_device("cpu", verbose=False)  # (an earlier training changed it)
        assert torch.get_num_threads() == max(1, min(8, cores - 1))
        _every_core()
        torch_utils.select_device("cpu", verbose=False)
        assert torch.get_num_threads() == cores
    finally:
        torch_utils.NUM_THREADS = saved[0]
        torch.set_num_threads(saved[1])
