"""TileLang's examples/deepseek_deepgemm/example_deepgemm_fp8_2xAcc.py (factory form):
DeepGEMM-style float8 GEMM with fine-grained scales: A has one float32 scale per row and
128-wide K group, B one per 128x128 block. Each K tile (block_K = 128 = one group) is
multiplied into C_local, then promoted into C_local_accum times scales_a[m, k] *
scales_b[n // 128, k] (a scalar read of a global tensor in the pipelined loop). Uses
T.use_swizzle(panel_size=10) and the "float8_e4m3fn" dtype name; bfloat16 or float32 out."""

import ml_dtypes
import numpy as np
import pytest

import tilec
import tilec.language as T


@tilec.jit
def tl_gemm(M, N, K, block_N, in_dtype, out_dtype, accum_dtype):
    assert in_dtype in [T.float8_e4m3fn], "Currently only float8_e4m3 is supported"
    assert out_dtype in [T.bfloat16, T.float32], "Currently only bfloat16 and float32"

    group_size = 128
    block_M = 64
    block_K = 128

    A_shape = (M, K)
    Scales_A_shape = (M, T.ceildiv(K, group_size))
    B_shape = (N, K)
    Scales_B_shape = (T.ceildiv(N, group_size), T.ceildiv(K, group_size))
    A_shared_shape = (block_M, block_K)
    B_shared_shape = (block_N, block_K)
    C_shared_shape = (block_M, block_N)

    @T.prim_func
    def main(
        A: T.Tensor(A_shape, in_dtype),
        B: T.Tensor(B_shape, in_dtype),
        C: T.Tensor((M, N), out_dtype),
        scales_a: T.Tensor(Scales_A_shape, T.float32),
        scales_b: T.Tensor(Scales_B_shape, T.float32),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared(A_shared_shape, in_dtype)
            B_shared = T.alloc_shared(B_shared_shape, in_dtype)
            C_shared = T.alloc_shared(C_shared_shape, out_dtype)
            C_local = T.alloc_fragment(C_shared_shape, accum_dtype)
            C_local_accum = T.alloc_fragment(C_shared_shape, accum_dtype)

            T.use_swizzle(panel_size=10)

            T.clear(C_local)
            T.clear(C_local_accum)
            K_iters = T.ceildiv(K, block_K)
            for k in T.Pipelined(K_iters, num_stages=4):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * block_K], B_shared)
                Scale_B = scales_b[bx * block_N // group_size, k]

                T.gemm(A_shared, B_shared, C_local, transpose_B=True)
                # promote with the scales of this K group
                for i, j in T.Parallel(block_M, block_N):
                    C_local_accum[i, j] += C_local[i, j] * (scales_a[by * block_M + i, k] * Scale_B)
                T.clear(C_local)
            T.copy(C_local_accum, C_shared)
            T.copy(C_shared, C[by * block_M, bx * block_N])

    return main


def ceildiv(a, b):
    return (a + b - 1) // b


def per_token_cast_to_fp8(x):
    m, n = x.shape
    padded = np.zeros((m, ceildiv(n, 128) * 128), np.float32)
    padded[:, :n] = x
    view = padded.reshape(m, -1, 128)
    amax = np.maximum(np.abs(view).max(axis=2), 1e-4)
    scaled = (view * (448.0 / amax[:, :, None])).astype(ml_dtypes.float8_e4m3fn)
    return scaled.reshape(m, -1)[:, :n].copy(), (amax / 448.0).astype(np.float32)


def per_block_cast_to_fp8(x):
    m, n = x.shape
    padded = np.zeros((ceildiv(m, 128) * 128, ceildiv(n, 128) * 128), np.float32)
    padded[:m, :n] = x
    view = padded.reshape(-1, 128, padded.shape[1] // 128, 128)
    amax = np.maximum(np.abs(view).max(axis=(1, 3), keepdims=True), 1e-4)
    scaled = (view * (448.0 / amax)).astype(ml_dtypes.float8_e4m3fn)
    scales = (amax / 448.0).reshape(view.shape[0], view.shape[2]).astype(np.float32)
    return scaled.reshape(padded.shape)[:m, :n].copy(), scales


def ref_deepgemm_fp8(a_fp8, b_fp8, a_scale, b_scale):
    a = a_fp8.astype(np.float32) * np.repeat(a_scale, 128, axis=1)[:, : a_fp8.shape[1]]
    b_full = np.repeat(np.repeat(b_scale, 128, axis=0), 128, axis=1)
    b = b_fp8.astype(np.float32) * b_full[: b_fp8.shape[0], : b_fp8.shape[1]]
    return a @ b.T


def calc_diff(x, y):
    x, y = x.astype(np.float64), y.astype(np.float64)
    denominator = (x * x + y * y).sum()
    sim = 2 * (x * y).sum() / denominator
    return 1 - sim


@pytest.mark.parametrize("out_dtype", ["bfloat16", "float32"])
@pytest.mark.parametrize(("M", "N", "K"), [(100, 200, 300), (128, 256, 256)])  # ragged, aligned
def test_deepgemm_fp8_2xacc(M, N, K, out_dtype):
    rng = np.random.default_rng(14)
    a_fp8, a_scale = per_token_cast_to_fp8(rng.standard_normal((M, K)))
    b_fp8, b_scale = per_block_cast_to_fp8(rng.standard_normal((N, K)))
    np_out = ml_dtypes.bfloat16 if out_dtype == "bfloat16" else np.float32
    c = np.zeros((M, N), np_out)

    kernel = tl_gemm(M, N, K, 64, T.float8_e4m3fn, getattr(T, out_dtype), T.float32)
    kernel(a_fp8, b_fp8, c, a_scale, b_scale)

    assert calc_diff(c.astype(np.float32), ref_deepgemm_fp8(a_fp8, b_fp8, a_scale, b_scale)) < 1e-3
