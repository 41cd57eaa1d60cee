"""The DSL and the simulator are layered: no module imports, however indirectly, itself.

Every import counts, also those under `if TYPE_CHECKING:` and inside functions:
a cycle that only type checkers or a late import see still ties the modules
together, so that neither can be read, tested or replaced without the other.
"""

from __future__ import annotations

import ast
from collections import deque
from pathlib import Path

import pytest

PYTHON_ROOT = Path(__file__).resolve().parents[3] / "python"
PACKAGES = ("tilec.language", "tilec.sim")

# module -> {imported module: (file, line) of the import}
Graph = dict[str, dict[str, tuple[Path, int]]]


def _module_name(root: Path, path: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(node: ast.Import | ast.ImportFrom, package: str, modules: set[str]) -> list[str]:
    """The modules an import statement names: `from pkg import mod` names pkg.mod."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        # `.` is the importing module's package, each further dot one package up.
        anchor = package.rsplit(".", node.level - 1)[0]
        base = f"{anchor}.{node.module}" if node.module else anchor
    return [
        f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
        for alias in node.names
    ]


def import_graph(root: Path, packages: tuple[str, ...]) -> Graph:
    """Which modules of `packages` (found under `root`) each of them imports."""
    files = {
        _module_name(root, path): path
        for package in packages
        for path in sorted((root / package.replace(".", "/")).rglob("*.py"))
    }
    modules = set(files)
    graph: Graph = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        statements = sorted(
            (node for node in ast.walk(ast.parse(path.read_text(), str(path)))
             if isinstance(node, ast.Import | ast.ImportFrom)),
            key=lambda node: node.lineno,
        )
        edges: dict[str, tuple[Path, int]] = {}
        for node in statements:
            for target in _imported(node, package, modules):
                if target in modules and target != name:
                    edges.setdefault(target, (path, node.lineno))
        graph[name] = edges
    return graph


def _shortest_path(graph: Graph, source: str, target: str) -> list[str] | None:
    """The modules on a shortest import path from `source` to `target`, both included."""
    previous: dict[str, str | None] = {source: None}
    queue = deque([source])
    while queue:
        node = queue.popleft()
        if node == target:
            path = [node]
            while (before := previous[path[-1]]) is not None:
                path.append(before)
            return path[::-1]
        for successor in sorted(graph[node]):
            if successor not in previous:
                previous[successor] = node
                queue.append(successor)
    return None


def import_cycles(graph: Graph, package: str) -> list[str]:
    """The import cycles through a module of `package`, with the imports that make them.

    One shortest cycle per import that closes one, so each import that has
    to go is named.
    """
    found: dict[tuple[str, ...], str] = {}
    for start in sorted(m for m in graph if m == package or m.startswith(package + ".")):
        for successor in sorted(graph[start]):
            back = _shortest_path(graph, successor, start)
            if back is None:
                continue
            cycle = [start, *back[:-1]]
            first = cycle.index(min(cycle))
            cycle = cycle[first:] + cycle[:first]
            lines = [" -> ".join([*cycle, cycle[0]])]
            for source, target in zip(cycle, [*cycle[1:], cycle[0]], strict=True):
                path, line = graph[source][target]
                lines.append(f"  {path}:{line} imports {target}")
            found[tuple(cycle)] = "\n".join(lines)
    return list(found.values())


@pytest.mark.parametrize("package", PACKAGES)
def test_package_has_no_import_cycles(package: str) -> None:
    cycles = import_cycles(import_graph(PYTHON_ROOT, PACKAGES), package)
    assert not cycles, f"import cycles in {package}:\n" + "\n".join(cycles)


def test_cycles_through_type_checking_and_function_imports_are_found(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import b\n"
    )
    (package / "b.py").write_text("def f():\n    from .c import g\n")
    (package / "c.py").write_text("import pkg.a\n")
    cycles = import_cycles(import_graph(tmp_path, ("pkg",)), "pkg")
    assert [c.splitlines()[0] for c in cycles] == ["pkg.a -> pkg.b -> pkg.c -> pkg.a"]
