"""Loading a benchmark script of this folder as a module: they are scripts run by path,
not a package, yet tests and other benchmarks reuse their functions."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

__all__ = ["load_script"]


def load_script(name: str) -> ModuleType:
    """`load_script("model_eval")` -> the module of tests/benchmarks/model_eval.py, loaded
    once (later calls give the same module)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module
