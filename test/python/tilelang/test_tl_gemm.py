"""TileLang's examples/gemm/example_gemm.py (the `@tilelang.jit(out_idx=[-1])` factory form):
a tiled float16 GEMM with a float32 accumulator and a software-pipelined K loop."""

import numpy as np
import pytest

import tilec
import tilec.language as T


@tilec.jit(out_idx=[-1])
def matmul(M, N, K, block_M, block_N, block_K, dtype=T.float16, accum_dtype=T.float32):
    @T.prim_func
    def gemm(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)

            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)

            T.copy(C_local, C[by * block_M, bx * block_N])

    return gemm


@pytest.mark.parametrize(
    ("M", "N", "K"),
    [(200, 136, 72), (256, 128, 64)],  # ragged (no dim a multiple of its tile), aligned
)
def test_matmul(M, N, K):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)

    kernel = matmul(M, N, K, 128, 128, 32)
    c = kernel(a, b)

    assert c.shape == (M, N) and c.dtype == np.float16
    ref_c = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c.astype(np.float32), ref_c, rtol=1e-2, atol=1e-2)
