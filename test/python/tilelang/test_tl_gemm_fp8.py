"""TileLang's examples/gemm_fp8/example_tilelang_gemm_fp8.py (factory form): C = A @ B^T on
float8 tiles (e4m3fn and e5m2, TileLang's dtype names) with a float32 accumulator and a
float8 output. `determine_fp8_type` (which picks the AMD variants on ROCm) is replaced by
the dtype names. Checked, as in the original, by the relative similarity `calc_diff` of
the result to the float8-rounded float32 product."""

import ml_dtypes
import numpy as np
import pytest

import tilec
import tilec.language as T


@tilec.jit(out_idx=[-1])
def matmul(M, N, K, block_M, block_N, block_K, dtype, accum_dtype=T.float32):
    @T.prim_func
    def gemm_fp8(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((N, K), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_N, block_K), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)

            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * block_K], B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_B=True)

            T.copy(C_local, C[by * block_M, bx * block_N])

    return gemm_fp8


def calc_diff(x, y):
    x, y = x.astype(np.float64), y.astype(np.float64)
    denominator = (x * x + y * y).sum()
    sim = 2 * (x * y).sum() / denominator
    return 1 - sim


NUMPY_FP8 = {"float8_e4m3fn": ml_dtypes.float8_e4m3fn, "float8_e5m2": ml_dtypes.float8_e5m2}


@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "float8_e5m2"])
@pytest.mark.parametrize(("M", "N", "K"), [(200, 136, 100), (256, 128, 128)])  # ragged, aligned
def test_gemm_fp8(M, N, K, dtype):
    rng = np.random.default_rng(12)
    np_fp8 = NUMPY_FP8[dtype]
    a = rng.standard_normal((M, K)).astype(np_fp8)
    b = rng.standard_normal((N, K)).astype(np_fp8)

    kernel = matmul(M, N, K, 128, 128, 64, dtype)
    c = kernel(a, b)

    ref_c = (a.astype(np.float32) @ b.astype(np.float32).T).astype(np_fp8)
    assert calc_diff(c.astype(np.float32), ref_c.astype(np.float32)) < 1e-3
