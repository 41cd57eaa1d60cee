"""The emulators (simt.py, simt_hopper.py) run every op the cuda lowering can leave in a kernel.

The ops are found in the source, not in the kernels some test happens to compile: every
builder (`arith.addi(...)`, `scf.IfOp(...)`, `nvvm.barrier(...)`, `math.exp` in a table) in the cuda
conversion, the helpers it builds with, and the DSL, whose scalar code (arith, math, scf,
memref) passes through the lowering into the kernels. Each is resolved to its op name through
the MLIR Python bindings, so a renamed builder cannot hide an op. Ops that never reach the
IR the emulators run (`cse` stage: tile ops, the host's launch and function ops) are listed
apart, each with the reason.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from simt import _ELEMENTWISE, _Compiler
from simt_hopper import HopperCompiler

REPO = Path(__file__).resolve().parents[3]

# Where the ops of a cuda kernel are built.
SOURCES = [
    *sorted((REPO / "passes/conversion/tile_to_cuda").rglob("*.py")),
    *sorted((REPO / "passes/conversion").glob("*.py")),  # what every conversion shares
    REPO / "passes/conversion/tile_to_cpu/emulate_fp8.py",  # decode/encode of 8-bit floats
    *sorted((REPO / "python/tilec/language").rglob("*.py")),
]
DIALECTS = ("arith", "math", "memref", "scf", "gpu", "nvgpu", "nvvm", "vector", "llvm", "index",
            "affine", "cf", "func", "tile")
# Ops built by those sources that are not in the kernels the emulators run, and why.
NOT_IN_KERNELS = {
    "func.func": "the host function; run_launches walks its body",
    "func.return": "the host function's end; run_launches stops there",
    "gpu.launch": "run by run_launches, block by block",
    "tile.*": "lowered by convert-tile-to-cuda before the cse stage",
}

_OP_CLASS = re.compile(r"\b(\w+Op)\(")
# The modules whose names are dialects: MLIR's and tilec's.
_DIALECT_PACKAGES = ("mlir.dialects", "tilec.dialects")


def _aliases(tree: ast.Module) -> dict[str, str]:
    """The dialect modules a source imports, by the name it uses for them."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in _DIALECT_PACKAGES:
            for name in node.names:
                if name.name in DIALECTS:
                    found[name.asname or name.name] = name.name
    return found


def _op_name(module: object, attribute: str) -> str | None:
    """The op a builder of `module` (a class or a function returning one) makes."""
    builder = getattr(module, attribute, None)
    if builder is None:
        return None
    if inspect.isclass(builder):
        return getattr(builder, "OPERATION_NAME", None)
    try:
        source = inspect.getsource(builder)
    except (OSError, TypeError):
        return None
    classes = [getattr(module, name, None) for name in _OP_CLASS.findall(source)]
    names = {getattr(c, "OPERATION_NAME", None) for c in classes} - {None}
    return names.pop() if len(names) == 1 else None


def _built_ops() -> dict[str, set[str]]:
    """Op name -> the sources that build it."""
    modules = {name: importlib.import_module(f"mlir.dialects.{name}")
               for name in DIALECTS if name != "tile"}
    modules["tile"] = importlib.import_module("tilec.dialects.tile")
    found: dict[str, set[str]] = {}
    for path in SOURCES:
        tree = ast.parse(path.read_text())
        aliases = _aliases(tree)
        # `arith.addi(...)`, and builders kept in tables (`{"exp": math.exp}`)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute) or not isinstance(node.value, ast.Name):
                continue
            dialect = aliases.get(node.value.id)
            if dialect is None:
                continue
            name = _op_name(modules[dialect], node.attr)
            if name is not None:
                found.setdefault(name, set()).add(path.name)
    return found


def _emulated(name: str) -> bool:
    handler = "_" + name.replace(".", "_")
    if hasattr(_Compiler, handler) or hasattr(HopperCompiler, handler):
        return True
    dialect, _, short = name.partition(".")
    if dialect in ("arith", "math"):
        return short in _ELEMENTWISE or short in ("cmpi", "cmpf")
    return False


def _skipped(name: str) -> bool:
    return name in NOT_IN_KERNELS or f"{name.split('.')[0]}.*" in NOT_IN_KERNELS


def test_the_scan_finds_the_lowering_ops():
    """The scan sees the ops the lowering is known to build (it is not vacuous)."""
    built = _built_ops()
    for name in ("nvgpu.mma.sync", "nvgpu.ldmatrix", "gpu.barrier", "memref.alloca",
                 "scf.if", "arith.addi", "nvvm.wgmma.mma_async", "math.exp"):
        assert name in built, name


def test_every_exception_is_built():
    """An op listed as never reaching the emulators is one the sources build."""
    built = _built_ops()
    for listed in NOT_IN_KERNELS:
        dialect, _, name = listed.partition(".")
        assert any(op == listed or (name == "*" and op.startswith(f"{dialect}."))
                   for op in built), listed


@pytest.mark.parametrize("name", sorted(_built_ops()))
def test_emulator_runs_op(name):
    if _skipped(name):
        pytest.skip(NOT_IN_KERNELS.get(name) or NOT_IN_KERNELS[f"{name.split('.')[0]}.*"])
    assert _emulated(name), f"the emulators have no '{name}' (built in {_built_ops()[name]})"
