"""surefoot's shape: its private modules import each other without a circle, counting imports
made only for type checkers (a circle there is a circle in the design), and no class grows past
what one reader holds."""

from __future__ import annotations

import ast
from pathlib import Path

import surefoot

ROOT = Path(surefoot.__file__).parent


def _graph() -> dict[str, set[str]]:
    modules = {
        ".".join(f.relative_to(ROOT.parent).with_suffix("").parts).removesuffix(".__init__"): f
        for f in ROOT.rglob("*.py")
    }
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.ImportFrom) and node.level):
                continue
            parts = package.split(".")[: len(package.split(".")) - node.level + 1]
            target = ".".join([*parts, *([node.module] if node.module else [])])
            found |= {target} & modules.keys()
            found |= {f"{target}.{a.name}" for a in node.names} & modules.keys()
        graph[name] = found - {name}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every circle reachable by a depth-first walk (packages' ``__init__`` re-exports are
    left out: they import their own private modules by design)."""
    circles: list[list[str]] = []
    done: set[str] = set()

    def walk(node: str, path: list[str]) -> None:
        for nxt in sorted(graph.get(node, ())):
            if nxt in path:
                circles.append([*path[path.index(nxt) :], nxt])
            elif nxt not in done:
                done.add(nxt)
                walk(nxt, [*path, nxt])

    for start in sorted(graph):
        if start not in done:
            done.add(start)
            walk(start, [start])
    packages = {n for n in graph if (ROOT.parent / n.replace(".", "/") / "__init__.py").exists()}
    return [c for c in circles if not packages & set(c)]


def test_no_import_circle_among_surefoot_modules() -> None:
    """No private module reaches itself through its imports (TYPE_CHECKING ones included)."""
    assert _circles(_graph()) == []


def test_the_check_sees_a_circle() -> None:
    """The walk finds a circle when there is one (it cannot pass by seeing nothing)."""
    graph = {"surefoot._a": {"surefoot._b"}, "surefoot._b": {"surefoot._a"}}
    assert _circles(graph) == [["surefoot._a", "surefoot._b", "surefoot._a"]]


def test_no_class_is_over_350_lines() -> None:
    """The loop and the executor stay split along their seams: no class of surefoot is over
    350 lines (``Agent`` was 516 and ``Executor`` 511 before)."""
    sizes = {
        f"{path.name}:{node.name}": node.end_lineno - node.lineno + 1
        for path in ROOT.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ClassDef) and node.end_lineno is not None
    }
    assert sizes
    assert {name: n for name, n in sizes.items() if n > 350} == {}


def test_surefoot_never_imports_the_reference_app() -> None:
    """No surefoot module (``surefoot.eval`` included) imports ``gymnasia``: the library and
    its evaluation run without the app."""
    found = []
    for path in ROOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            found += [f"{path.name}: {n}" for n in names if n.split(".")[0] == "gymnasia"]
    assert found == []
