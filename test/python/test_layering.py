"""tilec is layered: no module imports, however indirectly, itself, and each
package imports only the layers below its own.

Every import counts, also those under `if TYPE_CHECKING:` and inside functions:
a cycle that only type checkers or a late import see still ties the modules
together, so that neither can be read, tested or replaced without the other.

The layers, lowest first (`LAYERS`): the IR and diagnostics, the dialects, the
target descriptions, then the DSL and the simulator (the machine model the
ascend sync pass shares), then the passes, then the backends with the runtime
that drives them, then the autotuner and the kernel library. So the compiler's
passes never import the runtime, a backend or the DSL: backends build pipelines
of passes, not the other way round, and a pass can be run by tile-opt on IR alone.
"""

from __future__ import annotations

import ast
from collections import deque
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# Where each package's sources are: passes/ is installed as tilec.passes.
SOURCES = {"tilec": REPO / "python" / "tilec", "tilec.passes": REPO / "passes"}
# Lowest first; a package may import its own layer and those below it. The package
# root `tilec` (the version and the re-exported API) is outside the layers.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("tilec._native", "tilec.diagnostics", "tilec.ir", "tilec.verify_diagnostics"),
    ("tilec.dialects",),
    ("tilec.targets",),
    ("tilec.language", "tilec.sim", "tilec.layout", "tilec.math", "tilec.pass_config"),
    ("tilec.passes",),
    ("tilec.backends", "tilec.runtime", "tilec.cache"),
    ("tilec.autotuner",),
    ("tilec.kernels",),
)

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


def import_graph(sources: dict[str, Path]) -> Graph:
    """Which modules of the packages in `sources` (package -> its folder) each of them
    imports. A package nested in another's folder by name (tilec.passes) may live elsewhere."""
    files = {
        f"{package}.{_module_name(folder, path)}".rstrip("."): path
        for package, folder in sources.items()
        for path in sorted(folder.rglob("*.py"))
        if "__pycache__" not in path.parts
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


GRAPH = import_graph(SOURCES)


def _package(module: str) -> str:
    """The top-level package of a module: `tilec.passes.registry` -> `tilec.passes`."""
    return ".".join(module.split(".")[:2])


PACKAGES = sorted({_package(m) for m in GRAPH} - {"tilec"})


@pytest.mark.parametrize("package", PACKAGES)
def test_package_has_no_import_cycles(package: str) -> None:
    cycles = import_cycles(GRAPH, package)
    assert not cycles, f"import cycles in {package}:\n" + "\n".join(cycles)


def test_every_package_has_a_layer() -> None:
    layered = [p for layer in LAYERS for p in layer]
    assert sorted(layered) == PACKAGES


@pytest.mark.parametrize("package", PACKAGES)
def test_package_imports_only_layers_below(package: str) -> None:
    rank = {p: number for number, layer in enumerate(LAYERS) for p in layer}
    upward = [
        f"{path}:{line}: {module} imports {target}"
        for module, edges in sorted(GRAPH.items()) if _package(module) == package
        for target, (path, line) in sorted(edges.items())
        if _package(target) != "tilec" and rank[_package(target)] > rank[package]
    ]
    assert not upward, "imports of a higher layer:\n" + "\n".join(upward)


def test_cycles_through_type_checking_and_function_imports_are_found(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import b\n"
    )
    (package / "b.py").write_text("def f():\n    from .c import g\n")
    (package / "c.py").write_text("import pkg.a\n")
    cycles = import_cycles(import_graph({"pkg": package}), "pkg")
    assert [c.splitlines()[0] for c in cycles] == ["pkg.a -> pkg.b -> pkg.c -> pkg.a"]
