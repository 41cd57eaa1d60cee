"""The cuda lowering's kernels run against numpy in the SIMT emulator (simt.py).

No GPU here: the IR convert-tile-to-cuda makes (threads, barriers, shared
memory, cp.async, ldmatrix, mma.sync) runs thread by thread, so the
placements, layouts, bounds and barriers are checked on numbers. Small
shapes with partial edge tiles keep it fast.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import tilec
from tilec import ir
from tilec.backends.cuda.compiler import find_ptxas

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from example_kernels import example
from simt import run_launches


def emulate(kernel_fn, *args) -> tilec.CompiledKernel:
    """Compiles for cuda:sm_80 and runs the IR after convert-tile-to-cuda on `args`."""
    kernel = tilec.compile(kernel_fn, target="cuda:sm_80")
    with ir.make_context() as context:
        module = ir.parse_module(kernel.ir("cse"), "<cuda>", context)
        run_launches(module, kernel.name, list(args))
    return kernel


def _relative_error(actual, expected) -> float:
    return float(np.max(np.abs(actual.astype(np.float32) - expected)) / np.max(np.abs(expected)))


GEMMS = {
    "f32 fma": ({}, 1e-5),
    "f16 mma": ({"in_dtype": "float16"}, 2e-3),
    "f16 mma A transposed": ({"in_dtype": "float16", "trans_A": True}, 2e-3),
    "f16 mma B transposed": ({"in_dtype": "float16", "trans_B": True}, 2e-3),
    "f16 mma both transposed": ({"in_dtype": "float16", "trans_A": True, "trans_B": True}, 2e-3),
    "bf16 mma": ({"in_dtype": "bfloat16"}, 1e-5),
    "f16 mma f16 out relu": ({"in_dtype": "float16", "out_dtype": "float16", "relu": True}, 3e-3),
    # 3-stage pipelines: K = 72 is 3 aligned k-tiles; K = 100 has rows that
    # are not 16-byte aligned, so the element-copy fallback runs in the stages.
    "f16 mma 3 stages": ({"in_dtype": "float16", "num_stages": 3, "K": 72}, 2e-3),
    "f16 mma 3 stages unaligned": ({"in_dtype": "float16", "num_stages": 3, "K": 100}, 2e-3),
}


@pytest.mark.parametrize("name", sorted(GEMMS))
def test_gemm_matches_numpy(name):
    variant, tolerance = GEMMS[name]
    variant = dict(variant)
    gemm = example("gemm")
    m, n, k = 70, 72, variant.pop("K", 40)
    in_dtype = gemm.numpy_dtype(variant.get("in_dtype", "float32"))
    out_dtype = gemm.numpy_dtype(variant.get("out_dtype", "float32"))
    trans_a, trans_b = variant.get("trans_A", False), variant.get("trans_B", False)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((k, m) if trans_a else (m, k)).astype(in_dtype)
    b = rng.standard_normal((n, k) if trans_b else (k, n)).astype(in_dtype)
    c = np.zeros((m, n), out_dtype)
    kernel = emulate(gemm.matmul(m, n, k, block_M=64, block_N=64, block_K=32, **variant), a, b, c)
    if "mma" in name:
        assert "mma.sync" in kernel.source()
    expected = gemm.reference(a, b, trans_A=trans_a, trans_B=trans_b,
                              relu=variant.get("relu", False))
    assert _relative_error(c, expected) <= tolerance


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_flash_attention_matches_numpy(dtype):
    attention = example("flash_attention")
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((1, 1, 40, 32)).astype(dtype) for _ in range(3))
    out = np.zeros_like(q)
    emulate(attention.flash_attention(1, 1, 40, 32, causal=True, dtype=dtype, block_M=32,
                                      block_N=32), q, k, v, out)
    error = float(np.max(np.abs(out.astype(np.float32) - attention.reference(q, k, v, True))))
    assert error <= (1e-5 if dtype == "float32" else 3e-3)


def test_softmax_matches_numpy():
    softmax = example("softmax")
    x = np.random.default_rng(0).standard_normal((20, 150)).astype(np.float32)
    y = np.zeros_like(x)
    emulate(softmax.softmax(20, 150), x, y)
    np.testing.assert_allclose(y, softmax.reference(x), rtol=1e-5, atol=1e-6)


def test_rmsnorm_matches_numpy():
    rmsnorm = example("rmsnorm")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((20, 150)).astype(np.float32)
    w = rng.standard_normal(150).astype(np.float32)
    y = np.zeros_like(x)
    emulate(rmsnorm.rmsnorm(20, 150), x, w, y)
    np.testing.assert_allclose(y, rmsnorm.reference(x, w), rtol=1e-5, atol=1e-5)


def test_topk_gather_matches_numpy():
    topk = example("topk_gather")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((30, 72)).astype(np.float32)
    idx = topk.select_topk(rng.standard_normal((20, 30)), 3)
    weights = rng.random((20, 3)).astype(np.float32)
    gathered = np.zeros((20, 3, 72), np.float32)
    emulate(topk.topk_gather(20, 3, 30, 72), x, idx, gathered)
    np.testing.assert_array_equal(gathered, x[idx])
    combined = np.zeros((20, 72), np.float32)
    emulate(topk.topk_weighted_sum(20, 3, 30, 72), x, idx, weights, combined)
    np.testing.assert_allclose(combined, np.einsum("tk,tkd->td", weights, x[idx]), rtol=1e-5)


def _two_pass_row_sums(rows: int, cols: int):
    """Row sums in two kernels through a global workspace: partial sums of
    halves of each row, then their total (a split-K pattern)."""
    import tilec.language as T

    @T.prim_func
    def row_sums(X: T.Tensor((rows, cols), "float32"), Out: T.Tensor((rows,), "float32")):
        partial = T.alloc_global((2, rows), "float32")
        with T.Kernel(2, threads=32) as half:
            tile = T.alloc_fragment((rows, cols // 2), "float32")
            sums = T.alloc_fragment((rows,), "float32")
            T.copy(X[0, half * (cols // 2)], tile)
            T.reduce_sum(tile, sums, dim=1)
            T.copy(sums, partial[half, 0])
        with T.Kernel(1, threads=32) as _:
            both = T.alloc_fragment((2, rows), "float32")
            total = T.alloc_fragment((rows,), "float32")
            T.copy(partial[0, 0], both)
            T.reduce_sum(both, total, dim=0)
            T.copy(total, Out[0])

    return row_sums


def test_two_kernels_share_a_global_workspace():
    x = np.random.default_rng(0).standard_normal((8, 64)).astype(np.float32)
    out = np.zeros(8, np.float32)
    kernel = emulate(_two_pass_row_sums(8, 64), x, out)
    plan = kernel.binary.plan
    assert [launch.kernel for launch in plan.launches] == ["row_sums_kernel", "row_sums_kernel_0"]
    assert plan.workspaces == (("f32", (["const", 2], ["const", 8])),)
    assert kernel.source().count(".entry") == 2
    np.testing.assert_allclose(out, x.sum(axis=1), rtol=1e-5, atol=1e-5)


def _policy_gemm(policy):
    """One block's 64x64x32 f16 gemm, its 4 warps placed by `policy`."""
    import tilec.language as T

    @T.prim_func
    def gemm(A: T.Tensor((64, 32), "float16"), B: T.Tensor((32, 64), "float16"),
             C: T.Tensor((64, 64), "float32")):
        with T.Kernel(1, threads=128) as _:
            a = T.alloc_shared((64, 32), "float16")
            b = T.alloc_shared((32, 64), "float16")
            c = T.alloc_fragment((64, 64), "float32")
            T.clear(c)
            T.copy(A[0, 0], a)
            T.copy(B[0, 0], b)
            T.gemm(a, b, c, policy=policy)
            T.copy(c, C[0, 0])

    return gemm


@pytest.mark.parametrize("policy, grid", [("Square", "2x2"), ("FullRow", "4x1"),
                                          ("FullCol", "1x4")])
def test_gemm_warp_policy_places_the_warps(policy, grid):
    import tilec.language as T

    rng = np.random.default_rng(2)
    a = rng.standard_normal((64, 32)).astype(np.float16)
    b = rng.standard_normal((32, 64)).astype(np.float16)
    c = np.zeros((64, 64), np.float32)
    kernel = emulate(_policy_gemm(getattr(T.GemmWarpPolicy, policy)), a, b, c)
    assert f'tile.cuda_layout = "mma:{grid}"' in kernel.ir("cse")
    expected = a.astype(np.float32) @ b.astype(np.float32)
    assert _relative_error(c, expected) <= 2e-3


def _int8_gemm(m: int, n: int, k: int, block: int = 64):
    """C (i32) = A (M x K, i8) x B (N x K, i8)^T, 2-stage pipeline."""
    import tilec.language as T

    @T.prim_func
    def gemm(A: T.Tensor((m, k), "int8"), B: T.Tensor((n, k), "int8"),
             C: T.Tensor((m, n), "int32")):
        with T.Kernel(T.ceildiv(n, block), T.ceildiv(m, block), threads=128) as (bx, by):
            a = T.alloc_shared((block, block), "int8")
            b = T.alloc_shared((block, block), "int8")
            c = T.alloc_fragment((block, block), "int32")
            T.clear(c)
            for kk in T.Pipelined(T.ceildiv(k, block), num_stages=2):
                T.copy(A[by * block, kk * block], a)
                T.copy(B[bx * block, kk * block], b)
                T.gemm(a, b, c, transpose_B=True)
            T.copy(c, C[by * block, bx * block])

    return gemm


def test_int8_gemm_uses_m16n8k32_and_matches_numpy():
    """i8 x i8 -> i32 on the tensor cores, exact (edge tiles zero-filled)."""
    m, n, k = 70, 72, 96
    rng = np.random.default_rng(3)
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (n, k)).astype(np.int8)
    c = np.zeros((m, n), np.int32)
    kernel = emulate(_int8_gemm(m, n, k), a, b, c)
    source = kernel.source()
    # Per warp (2x2 warps over 64x64) and k-tile: 2 k-steps x 2 x 4 mma.
    assert source.count("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32") == 16
    assert source.count("ldmatrix.sync.aligned") == 8
    np.testing.assert_array_equal(c, a.astype(np.int32) @ b.astype(np.int32).T)
    if find_ptxas() is not None:  # the assembler accepts it, without spills
        assert kernel.resources().spill_stores == 0


def _transcendentals(n: int, dtype: str):
    import tilec.language as T

    @T.prim_func
    def kernel(X: T.Tensor((n,), dtype), Y: T.Tensor((n,), dtype)):
        with T.Kernel(1, threads=64) as _:
            x = T.alloc_fragment((n,), dtype)
            T.copy(X[0], x)
            for i in T.Parallel(n):
                x[i] = T.tanh(T.log(T.exp(x[i]) + 1) - T.log2(x[i] * x[i] + 1))
            T.copy(x, Y[0])

    return kernel


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_fast_math_uses_approximate_instructions_and_keeps_the_values(dtype):
    """fast_math=True: exp, log, log2, tanh become ex2/lg2/tanh.approx (no
    libdevice sequence); the rewritten arithmetic (log2(e) and ln(2)
    scaling) gives numpy's values in the emulator."""
    kernel_fn = _transcendentals(128, dtype)
    accurate = tilec.compile(kernel_fn, target="cuda:sm_80").source()
    fast = tilec.compile(kernel_fn, target="cuda:sm_80", fast_math=True)
    source = fast.source()
    assert "tanh.approx.f32" not in accurate and "lg2.approx" not in accurate
    assert source.count("ex2.approx.f32") == 2  # 128 elements over 64 threads
    assert source.count("lg2.approx.f32") == 4
    assert source.count("tanh.approx.f32") == 2
    x = np.random.default_rng(4).uniform(-3, 3, 128).astype(dtype)
    y = np.zeros_like(x)
    with ir.make_context() as context:
        module = ir.parse_module(fast.ir("cse"), "<cuda>", context)
        run_launches(module, fast.name, [x, y])
    wide = x.astype(np.float64)
    expected = np.tanh(np.log(np.exp(wide) + 1) - np.log2(wide * wide + 1))
    np.testing.assert_allclose(y, expected, rtol=1e-5 if dtype == "float32" else 2e-2,
                               atol=1e-5 if dtype == "float32" else 2e-2)
