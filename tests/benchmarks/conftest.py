"""The benchmark scripts are scripts, not a package: tests load them by path."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest
from bench_scripts import load_script


@pytest.fixture
def benchmark_script() -> Callable[[str], ModuleType]:
    """`benchmark_script("vision_eval")` -> the module of tests/benchmarks/vision_eval.py."""
    return load_script
