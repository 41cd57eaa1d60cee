"""Malformed and random inputs never make tile-opt print a traceback or
abort: each gets diagnostics and exit code 1 (or is valid and gets 0).

The inputs and the runner are the fuzz harness's (tilec.tools.fuzz_tile_opt):
every input runs in a forked child, so an abort shows up as a finding
naming the input and the command, without killing the test runner.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tilec
from tilec.diagnostics import CompileError
from tilec.ir import MAX_NESTING
from tilec.sim import SimError, simulate
from tilec.tools.fuzz_tile_opt import Case, Runner, corpus, generic_op, mutate, op_names


def _assert_fine(runner: Runner, cases: list[Case]) -> None:
    bad = [
        f"{outcome.signature()}: {case.data[:300]!r} {' '.join(case.flags)}"
        for case, outcome in runner.run(cases)
        if outcome.signature() is not None
    ]
    assert not bad, "\n".join(bad[:5])


# The default suite runs the first cases of each campaign; the slow one all of them.
CAMPAIGN = [100, pytest.param(300, marks=pytest.mark.slow)]


@pytest.mark.parametrize("count", CAMPAIGN)
def test_malformed_inputs_get_diagnostics_not_crashes(repo, tmp_path, count):
    seeds = corpus(repo)
    rng = random.Random(1234)
    cases = [Case(mutate(rng.choice(seeds), rng, seeds), ("--tile-cleanup",))
             for _ in range(count)]
    _assert_fine(Runner(tmp_path), cases)


@pytest.mark.parametrize("count", CAMPAIGN)
def test_generic_form_ops_get_diagnostics_not_crashes(repo, tmp_path, count):
    rng = random.Random(99)
    names = op_names(repo)
    cases = [Case(generic_op(rng, names), ("--tile-cleanup",)) for _ in range(count + 100)]
    _assert_fine(Runner(tmp_path), cases)


def _nested_kernel(depth: int) -> str:
    """A tile kernel whose store sits under `depth` nested scf.if regions."""
    return (
        "func.func @k(%X: memref<8xf32>, %n: index) attributes {tile.entry} {\n"
        "  tile.kernel blocks(%bx) in (%n) threads = 32 {\n"
        "    %c0 = arith.constant 0 : index\n"
        "    %one = arith.constant 1.0 : f32\n"
        "    %c = arith.cmpi ult, %bx, %n : index\n"
        + "    scf.if %c {\n" * depth
        + "    memref.store %one, %X[%c0] : memref<8xf32>\n"
        + "    }\n" * depth
        + "  }\n  return\n}\n"
    )


def test_nesting_past_the_bound_is_a_located_error(tmp_path):
    """10,000 nested regions once crashed MLIR's parser (a segfault) in every entry
    point: a scan before parsing stops them at the first bracket too deep."""
    text = _nested_kernel(10_000)
    line = 5 + MAX_NESTING - 1  # the func's and the kernel's braces, then one per line from 6
    expected = f":{line}:"
    path = tmp_path / "deep.mlir"
    path.write_text(text)
    tools = Path(sys.executable).parent
    for command in ([tools / "tile-opt", path, "--tile-to-cpu"], [tools / "tile-sim", path]):
        run = subprocess.run(command, capture_output=True, text=True, timeout=120)
        assert run.returncode == 1, run.stderr
        assert f"{path}{expected}" in run.stderr and "nesting deeper than" in run.stderr
        assert "Traceback" not in run.stderr
    with pytest.raises(CompileError, match=f"<string>{expected}.*nesting deeper than"):
        tilec.compile(text, target="cpu")
    with pytest.raises(SimError, match="nesting deeper than"):
        simulate(text, [])


def test_a_dense_array_of_a_type_without_a_width_is_a_located_error(tmp_path):
    """`array<index: ...>` made MLIR's parser abort the process (an assertion asking
    the type for its bit width; found by the fuzz sample): a scan before parsing
    reports it at the type, in every entry point."""
    text = ('func.func @f(%a: memref<4xf32>) {\n'
            '  "tile.copy"(%a) <{operandSegmentSizes = array<index: 1, 0, 0, 0, 0>}> '
            ': (memref<4xf32>) -> ()\n  return\n}\n')
    path = tmp_path / "array.mlir"
    path.write_text(text)
    tools = Path(sys.executable).parent
    for command in ([tools / "tile-opt", path, "--tile-cleanup"], [tools / "tile-sim", path]):
        run = subprocess.run(command, capture_output=True, text=True, timeout=120)
        assert run.returncode == 1, run.stderr
        assert f"{path}:2:49: error: a dense array's elements must be integers or floats, " \
               "not 'index'" in run.stderr
    with pytest.raises(CompileError, match="not 'index'"):
        tilec.compile(text, target="cpu")
    # LLVM's array type is not a dense array
    from tilec.ir import dense_array_error

    assert dense_array_error("llvm.mlir.global internal @g() : !llvm.array<0 x i8>") is None
    # element types MLIR takes still parse (the verifier then judges the op)
    with pytest.raises(CompileError, match=r"2:3: error: 'tile\.copy' op expected"):
        tilec.compile(text.replace("array<index:", "array<i32:"), target="cpu")


def test_nesting_under_the_bound_compiles_on_every_target():
    """The passes' walks of nested regions stay inside Python's recursion limit up to
    the bound (1,000 nested regions once gave a RecursionError)."""
    text = _nested_kernel(MAX_NESTING - 4)
    kernel = tilec.compile(text, target="cpu")
    x = np.zeros(8, np.float32)
    kernel(x, 1)
    assert x[0] == 1.0
    kernel = tilec.compile(text, target="ascend:950")
    x = np.zeros(8, np.float32)
    kernel(x, 1)
    assert x[0] == 1.0
    assert "ld.param" in tilec.compile(text, target="cuda:sm_80").source()
