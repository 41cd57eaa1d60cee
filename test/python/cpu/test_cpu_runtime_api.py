"""tilec.compile's CompiledKernel: argument checks that name the
parameter, stages, timings and compile errors."""

from __future__ import annotations

import cpu_tile_ir as tile_ir
import numpy as np
import pytest

import tilec
from tilec.diagnostics import CompileError
from tilec.runtime.signature import ArgumentError
from tilec.targets import host_spec

HOST_CPU = host_spec("cpu")
"""What no target compiles for here."""

NAMED = """
func.func @axpy(%X: memref<?x8xf16> {tile.name = "X", tile.dims = ["N", "8"]},
                %Y: memref<?x8xf16> {tile.name = "Y", tile.dims = ["N", "8"]},
                %a: f32 {tile.name = "alpha"}, %rows: index {tile.name = "rows"})
    attributes {tile.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%rows) threads = 1 {
    %x = tile.alloc : memref<1x8xf16, #tile.scope<local>>
    %y = tile.alloc : memref<1x8xf16, #tile.scope<local>>
    tile.copy %X[%bx, %c0], %x[%c0, %c0] : memref<?x8xf16>, memref<1x8xf16, #tile.scope<local>>
    tile.copy %Y[%bx, %c0], %y[%c0, %c0] : memref<?x8xf16>, memref<1x8xf16, #tile.scope<local>>
    tile.parallel (%i, %j) in (1, 8) {
      %xv = memref.load %x[%i, %j] : memref<1x8xf16, #tile.scope<local>>
      %yv = memref.load %y[%i, %j] : memref<1x8xf16, #tile.scope<local>>
      %xf = arith.extf %xv : f16 to f32
      %yf = arith.extf %yv : f16 to f32
      %p = arith.mulf %xf, %a : f32
      %s = arith.addf %p, %yf : f32
      %r = arith.truncf %s : f32 to f16
      memref.store %r, %y[%i, %j] : memref<1x8xf16, #tile.scope<local>>
    }
    tile.copy %y[%c0, %c0], %Y[%bx, %c0] : memref<1x8xf16, #tile.scope<local>>, memref<?x8xf16>
  }
  return
}
"""


@pytest.fixture(scope="module")
def axpy():
    return tilec.compile(NAMED, timing=True)


def test_call_writes_outputs_in_place(axpy):
    x = np.arange(24, dtype=np.float16).reshape(3, 8)
    y = np.ones((3, 8), np.float16)
    axpy(x, y, 2.0, 3)
    np.testing.assert_array_equal(y, 2 * x + 1)


ARGUMENT_ERRORS = {
    "count": (
        lambda x, y: (x, y, 1.0),
        "kernel 'axpy' expects 4 arguments (X, Y, alpha, rows) but got 3",
    ),
    "dtype": (
        lambda x, y: (x.astype(np.float32), y, 1.0, 3),
        "argument 'X' expects float16 but got float32",
    ),
    "rank": (lambda x, y: (x, y[None], 1.0, 3), "argument 'Y' expects a 2-D array but got 3-D"),
    "static dim": (
        lambda x, y: (x, y[:, :4].copy(), 1.0, 3),
        "argument 'Y' expects shape (N, 8) but got (3, 4)",
    ),
    "symbolic dim": (
        lambda x, y: (x, y[:2].copy(), 1.0, 3),
        "argument 'Y' has N = 2 but argument 'X' has N = 3",
    ),
    "int scalar": (lambda x, y: (x, y, 1.0, 3.0), "argument 'rows' expects an int but got float"),
    "float scalar": (lambda x, y: (x, y, "a", 3), "argument 'alpha' expects a float but got str"),
    "strided": (
        lambda x, y: (x[:, ::2], y, 1.0, 3),
        "argument 'X' expects shape (N, 8) but got (3, 4)",
    ),
    "layout": (
        lambda x, y: (np.asfortranarray(x), y, 1.0, 3),
        "argument 'X' must be C-contiguous",
    ),
}


@pytest.mark.parametrize("args,message", ARGUMENT_ERRORS.values(), ids=ARGUMENT_ERRORS.keys())
def test_argument_errors_name_the_parameter(axpy, args, message):
    x = np.zeros((3, 8), np.float16)
    y = np.zeros((3, 8), np.float16)
    with pytest.raises(ArgumentError) as info:
        axpy(*args(x, y))
    assert message in str(info.value)


def test_stages_ir_and_timings(axpy, cpu_stage):
    stages = axpy.stages()
    assert stages[0] == "tile" and stages[-1] == "llvm"
    parallel = cpu_stage("tile.parallel")
    assert cpu_stage("tile.gemm") in stages and "convert-func-to-llvm" in stages
    assert "tile.parallel" in axpy.ir("tile")
    assert "tile.parallel" not in axpy.ir(parallel)
    assert "scf.for" in axpy.ir(parallel)
    assert "llvm.func @_mlir_ciface_axpy" in axpy.ir("llvm")
    with pytest.raises(KeyError, match="no stage 'nope'"):
        axpy.ir("nope")
    timings = axpy.timings()
    assert set(timings) == set(stages[1:-1]) | {"llvm-codegen"}
    assert all(t >= 0 for t in timings.values())
    assert 0 < axpy.compile_seconds < 60


def test_timings_need_timing_true():
    kernel = tilec.compile(tile_ir.copy_through_tile(4, 4, "f32", "f32"))
    with pytest.raises(RuntimeError, match="timing=True"):
        kernel.timings()


def test_compile_errors():
    with pytest.raises(CompileError, match=r"one function with the tile\.entry attribute"):
        tilec.compile("func.func @f() { return }")
    with pytest.raises(CompileError, match="expected"):
        tilec.compile("func.func @f( {")
    with pytest.raises(ValueError, match="unknown target 'tpu'"):
        tilec.compile(NAMED, target="tpu")
    with pytest.raises(
        TypeError,
        match=rf"unknown compile options for target {HOST_CPU}: fast \(options: timing, "
              r"opt_level\)",
    ):
        tilec.compile(NAMED, fast=True)
    with pytest.raises(TypeError, match="expects a DSL kernel"):
        tilec.compile(42)


def test_pass_errors_point_at_the_users_line():
    f8 = "memref<8x8xf8E4M3FNUZ, #tile.scope<shared>>"
    acc = "memref<8x8xf32, #tile.scope<fragment>>"
    bad = f"""
func.func @bad(%n: index) attributes {{tile.entry}} {{
  tile.kernel blocks(%bx) in (%n) threads = 1 {{
    %a = tile.alloc : {f8} loc("user.py":5:3)
    %b = tile.alloc : {acc}
    tile.copy %a[%bx, %bx], %b[%bx, %bx] : {f8}, {acc} loc("user.py":7:3)
  }}
  return
}}
"""
    with pytest.raises(CompileError) as info:
        tilec.compile(bad)
    message = f"element type f8E4M3FNUZ is not supported on {HOST_CPU}"
    assert str(info.value).startswith(f"user.py:5:3: error: {message} (supported: bf16, f16,")


def test_module_input_and_lazy_exports(context):
    from tilec import ir

    module = ir.parse_module(tile_ir.copy_through_tile(4, 4, "f32", "f32"))
    kernel = tilec.compile(module)
    a = np.arange(30, dtype=np.float32).reshape(5, 6)
    b = np.zeros_like(a)
    kernel(a, b)
    np.testing.assert_array_equal(a, b)
    assert repr(kernel) == f"<CompiledKernel copy(arg0, arg1) {HOST_CPU}>"
