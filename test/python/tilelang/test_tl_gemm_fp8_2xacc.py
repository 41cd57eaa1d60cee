"""TileLang's examples/gemm_fp8/example_tilelang_gemm_fp8_2xAcc.py (factory form): float8
GEMM with two-level accumulation: the gemm accumulates `update_interval` K tiles in C_local,
which is then added into C_local_accum and cleared (a Python `if` on the traced loop
variable), with a tail step when the K tiles do not divide evenly. float32 output.
`determine_fp8_type` is replaced by the dtype names; checked with `calc_diff` as in the
original."""

import ml_dtypes
import numpy as np
import pytest

import tilec
import tilec.language as T


@tilec.jit(out_idx=[-1])
def matmul(M, N, K, block_M, block_N, block_K, dtype, accum_dtype=T.float32):
    # one promotion per 128 values of K
    update_interval = 128 // block_K if block_K < 128 else 1

    @T.prim_func
    def gemm_fp8_2xAcc(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((N, K), dtype),
        C: T.Tensor((M, N), accum_dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_N, block_K), dtype)
            C_shared = T.alloc_shared((block_M, block_N), accum_dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            C_local_accum = T.alloc_fragment((block_M, block_N), accum_dtype)

            T.clear(C_local)
            T.clear(C_local_accum)
            K_iters = T.ceildiv(K, block_K)
            for k in T.Pipelined(K_iters, num_stages=3):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * block_K], B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_B=True)
                # promote into the second accumulator
                if (k + 1) % update_interval == 0:
                    for i, j in T.Parallel(block_M, block_N):
                        C_local_accum[i, j] += C_local[i, j]
                    T.clear(C_local)
            # the tail of K
            if K_iters % update_interval != 0:
                for i, j in T.Parallel(block_M, block_N):
                    C_local_accum[i, j] += C_local[i, j]
            T.copy(C_local_accum, C_shared)
            T.copy(C_shared, C[by * block_M, bx * block_N])

    return gemm_fp8_2xAcc


def calc_diff(x, y):
    x, y = x.astype(np.float64), y.astype(np.float64)
    denominator = (x * x + y * y).sum()
    sim = 2 * (x * y).sum() / denominator
    return 1 - sim


NUMPY_FP8 = {"float8_e4m3fn": ml_dtypes.float8_e4m3fn, "float8_e5m2": ml_dtypes.float8_e5m2}


@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "float8_e5m2"])
@pytest.mark.parametrize(
    ("M", "N", "K"), [(100, 72, 300), (128, 128, 512)]  # ragged (5 K tiles: a tail), aligned
)
def test_gemm_fp8_2xacc(M, N, K, dtype):
    rng = np.random.default_rng(13)
    np_fp8 = NUMPY_FP8[dtype]
    a = (100 * (2 * rng.random((M, K)) - 1)).astype(np_fp8)
    b = (100 * (2 * rng.random((N, K)) - 1)).astype(np_fp8)

    kernel = matmul(M, N, K, 64, 64, 64, dtype)
    c = kernel(a, b)

    ref_c = a.astype(np.float32) @ b.astype(np.float32).T
    assert c.dtype == np.float32
    assert calc_diff(c, ref_c) < 1e-3
