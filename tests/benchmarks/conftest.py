"""The benchmark scripts are scripts, not a package: tests load them by path."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest


@pytest.fixture
def benchmark_script() -> Callable[[str], ModuleType]:
    """`benchmark_script("vision_eval")` -> the module of tests/benchmarks/vision_eval.py."""

    def load(name: str) -> ModuleType:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
        return module

    return load
