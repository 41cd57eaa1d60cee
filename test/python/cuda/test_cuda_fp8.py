"""8-bit floats (e4m3fn, e5m2) on every cuda arch, run against numpy in the emulators.

Their bytes are loaded, stored and copied as they are; conversions from and to them are
integer code (tile-cuda-expand-fp8-conversions) that rounds as ml_dtypes does, so the
emulated bytes must equal numpy's exactly; the operands of gemms not on wgmma are f16
tiles for mma.sync (tile-cuda-widen-fp8-operands). On sm_90a the element-wise code
around wgmma gemms is the same.
"""

from __future__ import annotations

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import tilec
import tilec.language as T
from tilec import ir
from tilec.backends.cuda.binary import find_ptxas
from tilec.diagnostics import CompileError

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import simt
import simt_hopper
from example_kernels import example

pytestmark = pytest.mark.e2e

FP8 = {"float8_e4m3fn": np.dtype(ml_dtypes.float8_e4m3fn),
       "float8_e5m2": np.dtype(ml_dtypes.float8_e5m2)}
RNG = np.random.default_rng(8)


def _run(kernel_fn, arch: str, *args) -> tilec.CompiledKernel:
    """Compiles for `arch` and runs the IR after convert-tile-to-cuda in its emulator."""
    kernel = tilec.compile(kernel_fn, target=f"cuda:{arch}")
    emulator = simt_hopper if arch == "sm_90a" else simt
    with ir.make_context() as context:
        module = ir.parse_module(kernel.ir("cse"), "<cuda>", context)
        emulator.run_launches(module, kernel.name, list(args))
    return kernel


def _quantize(m: int, n: int, block_m: int, dtype: str):
    """Each row scaled by its absolute max / 448 and cast to `dtype`; an f8 input too,
    doubled plus one in f8 arithmetic."""

    @T.prim_func
    def quantize(X: T.Tensor((m, n), "float32"), Y: T.Tensor((m, n), dtype),
                 S: T.Tensor((m,), "float32"), Z: T.Tensor((m, n), dtype),
                 W: T.Tensor((m, n), dtype)):
        with T.Kernel(T.ceildiv(m, block_m), threads=128) as bx:
            x = T.alloc_fragment((block_m, n), "float32")
            amax = T.alloc_fragment((block_m,), "float32")
            y = T.alloc_fragment((block_m, n), dtype)
            z = T.alloc_shared((block_m, n), dtype)
            T.copy(X[bx * block_m, 0], x)
            T.reduce_absmax(x, amax, dim=1)
            for i in T.Parallel(block_m):
                amax[i] = T.max(amax[i], 1e-4) / 448.0
            for i, j in T.Parallel(block_m, n):
                y[i, j] = x[i, j] / amax[i]
            T.copy(y, Y[bx * block_m, 0])
            T.copy(amax, S[bx * block_m])
            T.copy(Z[bx * block_m, 0], z)
            for i, j in T.Parallel(block_m, n):
                z[i, j] = z[i, j] * 2.0 + 1.0
            T.copy(z, W[bx * block_m, 0])

    return quantize


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("dtype", sorted(FP8))
def test_casts_and_element_wise_code_round_as_numpy(arch, dtype):
    m, n, block_m = 20, 48, 16  # two blocks, the second one ragged
    fp8 = FP8[dtype]
    x = (RNG.standard_normal((m, n)) * 30).astype(np.float32)
    # row 3 is scaled by 1: subnormals of e4m3 (2^-8) and e5m2 (3 * 2^-16), a tie of e4m3
    # (1.0625: to 1, the even neighbour) and e4m3's largest finite value
    x[3, :4] = [448.0, 2.0**-8, 3 * 2.0**-16, 1.0625]
    z = (RNG.standard_normal((m, n)) * 50).astype(fp8)
    y, s, w = np.zeros((m, n), fp8), np.zeros(m, np.float32), np.zeros((m, n), fp8)
    _run(_quantize(m, n, block_m, dtype), arch, x, y, s, z, w)
    scale = np.maximum(np.abs(x).max(axis=1), np.float32(1e-4)) / np.float32(448.0)
    np.testing.assert_allclose(s, scale, rtol=1e-6)
    expected_y = (x / scale[:, None]).astype(fp8)
    np.testing.assert_array_equal(y.view(np.uint8), expected_y.view(np.uint8))
    # f8 arithmetic is computed in f32, each op's result rounded to f8, as on the cpu
    doubled = (z.astype(np.float32) * 2).astype(fp8)
    expected_w = (doubled.astype(np.float32) + 1).astype(fp8)
    np.testing.assert_array_equal(w.view(np.uint8), expected_w.view(np.uint8))


@pytest.mark.parametrize("dtype", sorted(FP8))
def test_gemm_operands_are_f16_for_mma_sync(dtype):
    """An 8-bit float gemm on sm_80 converts its operands to f16 tiles and runs on
    mma.sync (exact: f16 holds every 8-bit float); the f32 result matches numpy."""
    m, n, k = 100, 72, 64
    fp8 = FP8[dtype]
    a = RNG.standard_normal((m, k)).astype(fp8)
    b = RNG.standard_normal((k, n)).astype(fp8)
    c = np.zeros((m, n), np.float32)
    kernel = _run(example("gemm").matmul(m, n, k, in_dtype=dtype.replace("fn", "")), "sm_80",
                  a, b, c)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5,
                               atol=1e-5)
    lowered = kernel.ir("cse")
    assert "nvgpu.mma.sync" in lowered and "vector<4x2xf16>" in lowered
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in kernel.source()
    if find_ptxas() is not None:
        assert kernel.resources().spill_stores == 0


def test_atomic_add_of_fp8_is_a_located_error_before_llvm():
    """PTX has no atomic add of 8-bit floats: an error at the user's line, not an abort."""

    @T.prim_func
    def accumulate(A: T.Tensor((64,), "float8_e4m3fn"), B: T.Tensor((64,), "float8_e4m3fn")):
        with T.Kernel(1, threads=64):
            t = T.alloc_fragment((64,), "float8_e4m3fn")
            T.copy(A, t)
            T.atomic_add(B, t)

    with pytest.raises(CompileError, match="atomic adds of 8-bit floats are not lowered for "
                                           "cuda") as failure:
        tilec.compile(accumulate, target="cuda:sm_80")
    assert "test_cuda_fp8.py" in str(failure.value)
