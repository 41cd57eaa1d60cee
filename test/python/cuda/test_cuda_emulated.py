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
