"""The import rule of DESIGN.md, checked on the source: engine <- vision <- server;
datasets may use engine and vision; nothing imports datasets or server at run time
(the CLI dispatcher excepted). The engine uses the standard library only."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "vision", "server", "datasets", "models")
FORBIDDEN = {
    "engine": {"vision", "server", "datasets", "cli"},
    "vision": {"server", "datasets", "cli"},
    "datasets": {"server", "cli"},
    "server": {"datasets", "cli"},
    "models": {"vision", "server", "datasets", "cli"},
}


def _imports(root: Path, path: Path) -> list[tuple[int, str]]:
    """Absolute module names imported by a file (relative imports resolved)."""
    here = list(path.relative_to(root).parts[:-1])
    tree = ast.parse(path.read_text(), filename=str(path))
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)]
                name = ".".join([*base, *([node.module] if node.module else [])])
                out.append((node.lineno, f"shanghai.{name}"))
            elif node.module:
                out.append((node.lineno, node.module))
    return out


def layering_violations(root: Path, package: str) -> list[str]:
    bad = []
    for path in sorted((root / package).rglob("*.py")):
        for line, module in _imports(root, path):
            parts = module.split(".")
            where = f"{path.relative_to(root)}:{line}"
            if parts[0] == "shanghai" and len(parts) > 1 and parts[1] in FORBIDDEN[package]:
                bad.append(f"{where} imports {module}")
            if parts[0] in PACKAGES:
                bad.append(f"{where} imports {module} (use shanghai.*)")
    return bad


def non_stdlib_imports(root: Path, package: str) -> list[str]:
    bad = []
    for path in sorted((root / package).rglob("*.py")):
        for line, module in _imports(root, path):
            top = module.split(".")[0]
            if module.startswith(f"shanghai.{package}") or top in sys.stdlib_module_names:
                continue
            if top != "__future__":
                bad.append(f"{path.relative_to(root)}:{line} imports {module}")
    return bad


@pytest.mark.parametrize("package", PACKAGES)
def test_layering(package: str) -> None:
    bad = layering_violations(ROOT, package)
    assert not bad, "\n".join(bad)


def test_engine_uses_only_the_standard_library() -> None:
    assert list((ROOT / "engine").rglob("*.py")), "the engine has no source files?"
    bad = non_stdlib_imports(ROOT, "engine")
    assert not bad, "\n".join(bad)


def test_checker_catches_forbidden_imports(tmp_path: Path) -> None:
    """The checks can fail: numpy, cv2 and a relative import of vision are reported."""
    (tmp_path / "engine" / "sub").mkdir(parents=True)
    (tmp_path / "engine" / "sub" / "probe.py").write_text(
        "import numpy\nimport cv2\nfrom ...vision import frames\nfrom . import fine\n"
    )
    assert [v.split()[-1] for v in non_stdlib_imports(tmp_path, "engine")] == [
        "numpy",
        "cv2",
        "shanghai.vision",
    ]
    assert layering_violations(tmp_path, "engine") == [
        "engine/sub/probe.py:3 imports shanghai.vision"
    ]
