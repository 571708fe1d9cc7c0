"""Imports point one way: no package of toolwire imports itself round in a circle.

Every import of every module of the package counts, wherever it is written: at module
level, inside a function, or under ``if TYPE_CHECKING:`` (a type-only import is still a
dependency of the module that writes it). The source is parsed with ``ast``, nothing is
imported, relative imports are resolved against the module's package, and a cycle is
reported with its modules in order.

Importing a submodule runs its package's ``__init__`` first; that implicit step is not
an edge (it would make every package a cycle with its lazy ``__init__``), but an
explicit ``from toolwire.registry import Registry`` is one, to the ``__init__`` module.
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

Graph = Mapping[str, frozenset[str]]


def package_root(package: str) -> Path:
    """Return the directory of an installed package."""
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.submodule_search_locations, package
    return Path(next(iter(spec.submodule_search_locations)))


def modules_of(root: Path, package: str) -> dict[str, Path]:
    """Return module name -> source file for the package at ``root`` and its subpackages."""
    found: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if any(not p.isidentifier() for p in parts):
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join((package, *parts))] = path
    return found


def _imported(
    node: ast.AST, module: str, is_package: bool, known: Mapping[str, Path]
) -> Iterator[str]:
    """Yield the modules an ``import`` or ``from … import`` statement imports.

    ``from . import db`` imports the submodule ``db``; ``from pkg import Name``, where
    ``Name`` is not a submodule, imports ``pkg`` itself (its ``__init__``).
    """
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            base = module.split(".")
            if not is_package:
                base = base[:-1]
            base = base[: len(base) - (node.level - 1)]
            prefix = ".".join([*base, *([node.module] if node.module else [])])
        else:
            prefix = node.module or ""
        for alias in node.names:
            submodule = f"{prefix}.{alias.name}"
            yield submodule if submodule in known else prefix


def import_graph(root: Path, package: str) -> dict[str, frozenset[str]]:
    """Return module -> the modules of the same package it imports, anywhere in its source."""
    files = modules_of(root, package)
    graph: dict[str, frozenset[str]] = {}
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        graph[module] = frozenset(
            name
            for node in ast.walk(tree)
            for name in _imported(node, module, is_package, files)
            if name in files and name != module
        )
    return graph


def find_cycle(graph: Graph) -> list[str] | None:
    """Return one cycle of ``graph`` as its modules in order (first repeated last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state:
                found = visit(target)
                if found is not None:
                    return found
        path.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state:
            found = visit(module)
            if found is not None:
                return found
    return None


def assert_no_cycle(graph: Graph) -> None:
    """Fail naming the modules of a cycle, when there is one."""
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or ())


@pytest.mark.parametrize("package", ["toolwire.convert", "toolwire.registry"])
def test_package_imports_point_one_way(package: str) -> None:
    graph = import_graph(package_root(package), package)
    assert len(graph) > 5, f"no modules found for {package}"
    assert_no_cycle(graph)


def _write(root: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_a_cycle_through_every_kind_of_import_is_found(tmp_path: Path) -> None:
    _write(
        tmp_path / "pkg",
        {
            "__init__.py": "",
            "a.py": "from . import b\n",
            "b.py": "def f():\n    from .sub.c import g\n",
            "sub/__init__.py": "",
            "sub/c.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..a import thing\n"
            ),
        },
    )
    graph = import_graph(tmp_path / "pkg", "pkg")
    assert graph["pkg.a"] == {"pkg.b"}
    assert graph["pkg.b"] == {"pkg.sub.c"}
    assert graph["pkg.sub.c"] == {"pkg.a"}
    with pytest.raises(AssertionError, match=r"pkg\.a -> pkg\.b -> pkg\.sub\.c -> pkg\.a"):
        assert_no_cycle(graph)


def test_absolute_imports_and_the_package_facade_count(tmp_path: Path) -> None:
    _write(
        tmp_path / "pkg",
        {
            "__init__.py": "import typing\nif typing.TYPE_CHECKING:\n    from .low import X\n",
            "low.py": "import pkg.mid\n",
            "mid.py": "from pkg import X\n",
        },
    )
    graph = import_graph(tmp_path / "pkg", "pkg")
    assert graph == {
        "pkg": {"pkg.low"},
        "pkg.low": {"pkg.mid"},
        "pkg.mid": {"pkg"},
    }
    assert find_cycle(graph) == ["pkg", "pkg.low", "pkg.mid", "pkg"]


def test_one_way_imports_pass(tmp_path: Path) -> None:
    _write(
        tmp_path / "pkg",
        {
            "__init__.py": "from .top import run\n",
            "top.py": "from .low import X\nfrom . import low\nimport os\n",
            "low.py": "X = 1\nimport json\n",
        },
    )
    graph = import_graph(tmp_path / "pkg", "pkg")
    assert graph == {"pkg": {"pkg.top"}, "pkg.top": {"pkg.low"}, "pkg.low": frozenset()}
    assert find_cycle(graph) is None
