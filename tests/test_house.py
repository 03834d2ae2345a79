"""The house's shape, read from the code's own imports (nothing is imported or executed here).

An edge is every `import` / `from ... import` statement, at module level or inside a function
(a deferred import still runs, just later), plus `importlib.import_module("a.literal.name")`.
Names that are only known at run time (the CLI's command table, the built-in scorer list, entry
points, the engine's preload setting) are plug-in points, not edges: that is how a lower layer may
load a higher one without knowing it.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("cli", "datasources", "schemas", "rewards")
"""Top-level folders, highest first: each may import only those after it."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _imports(path: Path, module: str, modules: set[str]) -> set[str]:
    """The project modules one file imports: `from pkg import x` names pkg.x when x is a module,
    else pkg itself; relative imports are resolved against the file's package."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and getattr(node.func, "id", getattr(node.func, "attr", None)) == "import_module"):
            found.add(str(node.args[0].value))
    return (found & modules) - {module}


def import_graph() -> dict[str, set[str]]:
    """module → the project modules it imports."""
    modules = _modules()
    return {name: _imports(path, name, set(modules)) for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path `[a, b, ..., a]`, or None."""
    state: dict[str, int] = {}   # 1 = on the stack, 2 = done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


@pytest.fixture(scope="module")
def graph():
    return import_graph()


def test_the_graph_sees_real_imports(graph):
    """Guard the reader itself: a few edges that certainly exist must be found."""
    assert "rewards.result" in graph["rewards.compose"]          # from .result import ...
    assert "rewards.registry" in graph["rewards.api"]
    assert "rewards.math.extract" in graph["rewards.scorers.boxed"]
    assert "cli.errors" in graph["cli.score"]


def test_no_import_cycle(graph):
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_top_level_runs_one_way(graph):
    """cli → datasources → schemas → rewards: a folder imports only the folders after it."""
    rank = {pkg: i for i, pkg in enumerate(PACKAGES)}
    upward = [f"{src} -> {dst}" for src, targets in graph.items() for dst in targets
              if rank[dst.split(".")[0]] < rank[src.split(".")[0]]]
    assert upward == []


def test_no_command_imports_the_cli_entry_point(graph):
    """`cli/main.py` loads every command by name: a command importing it back is a hidden circle."""
    assert sorted(src for src, targets in graph.items() if "cli.main" in targets) == []


def test_the_public_surface_is_small():
    """`rewards` exports what users call (at most 12 names); the rest lives in its own module."""
    import rewards

    assert len(rewards.__all__) <= 12
    assert all(hasattr(rewards, name) for name in rewards.__all__)


def test_the_map_of_the_house_names_real_functions():
    """Every `module:function` that docs/architecture.md names exists, so the map stays true."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:%s)(?:\.\w+)*):([\w.]+)`" % "|".join(PACKAGES), text))
    assert len(named) >= 20
    missing = []
    for module, path in sorted(named):
        obj = importlib.import_module(module)
        for attr in path.split("."):
            obj = getattr(obj, attr, None)
        if not callable(obj):
            missing.append(f"{module}:{path}")
    assert missing == []


def test_the_engine_knows_no_scorer(graph):
    leaks = [f"{src} -> {dst}" for src, targets in graph.items() if src.startswith("rewards.engine")
             for dst in targets if dst.startswith(("rewards.math", "rewards.scorers"))]
    assert leaks == []


def test_one_module_words_a_bad_json_row():
    """Every command reads rows through schemas/reader.py, which alone says why a row is unusable."""
    phrases = ("invalid JSON", "expected a JSON object")
    speakers = sorted(name for name, path in _modules().items()
                      if any(p in path.read_text(encoding="utf-8") for p in phrases))
    assert speakers == ["schemas.reader"]
