"""The import rule of DESIGN.md, checked on the source: engine <- vision <- server;
datasets may use engine and vision; nothing imports datasets or server at run time
(the CLI dispatcher excepted). The engine uses the standard library only. The server's
routers (`server/routes/*.py`) share code through shared modules, never each other."""

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


def _from_imports(root: Path, path: Path) -> list[tuple[str, list[str]]]:
    """(module, names imported from it) for every import in a file (relative resolved)."""
    names_at = {
        node.lineno: [a.name for a in node.names]
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path)))
        if isinstance(node, ast.ImportFrom)
    }
    return [(module, names_at.get(line, [])) for line, module in _imports(root, path)]


def import_cycles(root: Path, packages: tuple[str, ...]) -> list[list[str]]:
    """Cycles among the project's modules, function-level imports included (a lazy
    import still ties two modules together). Each cycle once, as module names."""
    modules = {
        f"shanghai.{'.'.join(path.relative_to(root).with_suffix('').parts)}": path
        for package in packages
        for path in sorted((root / package).rglob("*.py"))
    }
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges = set()
        for module, names in _from_imports(root, path):
            # `from x import y` names a submodule x.y, or a name defined in x
            for candidate in [f"{module}.{n}" for n in names] or [module]:
                found = candidate if candidate in modules else module
                if found in modules and found != name:
                    edges.add(found)
        graph[name] = edges
    cycles: list[list[str]] = []
    seen: set[frozenset[str]] = set()
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt) :]
                if frozenset(cycle) not in seen:
                    seen.add(frozenset(cycle))
                    cycles.append(cycle)
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return cycles


def test_no_import_cycles() -> None:
    cycles = import_cycles(ROOT, (*PACKAGES, "cli"))
    assert not cycles, "\n".join(" -> ".join(c) for c in cycles)


def test_cycle_checker_finds_a_lazy_cycle(tmp_path: Path) -> None:
    (tmp_path / "cli").mkdir()
    (tmp_path / "cli" / "a.py").write_text("from .b import run\n")
    (tmp_path / "cli" / "b.py").write_text("def run():\n    from . import a\n")
    (tmp_path / "cli" / "c.py").write_text("from .b import run\n")
    assert import_cycles(tmp_path, ("cli",)) == [["shanghai.cli.a", "shanghai.cli.b"]]


def router_cross_imports(root: Path) -> list[str]:
    """Imports of one router by another: `server/routes/x.py` importing anything of
    `server/routes/y.py` (relative, absolute, `from . import y` alike)."""
    routes = root / "server" / "routes"
    routers = {path.stem for path in routes.glob("*.py")} - {"__init__"}
    package = "shanghai.server.routes"
    bad = []
    for path in sorted(routes.glob("*.py")):
        for module, names in _from_imports(root, path):
            for candidate in [module, *(f"{module}.{n}" for n in names)]:
                if not candidate.startswith(f"{package}."):
                    continue
                other = candidate.removeprefix(f"{package}.").split(".")[0]
                if other in routers and other != path.stem:
                    bad.append(f"{path.relative_to(root)} imports {package}.{other}")
    return sorted(set(bad))


def test_routers_do_not_import_each_other() -> None:
    assert list((ROOT / "server" / "routes").glob("*.py")), "no routers in server/routes?"
    bad = router_cross_imports(ROOT)
    assert not bad, "\n".join(bad)


def test_router_checker_catches_a_router_import(tmp_path: Path) -> None:
    routes = tmp_path / "server" / "routes"
    routes.mkdir(parents=True)
    (routes / "__init__.py").write_text("")
    (routes / "games.py").write_text("from ..deps import StateDep\nfrom .rounds import _player\n")
    (routes / "rounds.py").write_text("def _player():\n    from . import buys\n")
    (routes / "buys.py").write_text("import shanghai.server.routes.games\n")
    assert router_cross_imports(tmp_path) == [
        "server/routes/buys.py imports shanghai.server.routes.games",
        "server/routes/games.py imports shanghai.server.routes.rounds",
        "server/routes/rounds.py imports shanghai.server.routes.buys",
    ]
