"""TileLang's examples/cast/example_per_token_cast_to_fp8.py (factory form, `out_idx=[1, 2]`):
per-token, per-128-column-group quantization to float8 e4m3: each group of a row is scaled
by its absolute max / 448 (T.reduce_absmax), clamped with T.clamp and converted by T.copy
into a float8_e4m3fn tile; the scales are written element by element. Uses TileLang's
`T.float` and `T.float8_e4m3fn` names."""

import ml_dtypes
import numpy as np
import pytest

import tilec
import tilec.language as T


@tilec.jit(out_idx=[1, 2])
def per_token_cast_to_fp8(M, N, blk_m):
    dtype = T.float
    group_size = 128
    fp8_min = -448.0
    fp8_max = 448.0

    @T.prim_func
    def per_token_cast(
        X: T.Tensor((M, N), dtype),
        X_fp8: T.Tensor((M, N), T.float8_e4m3fn),
        X_amax: T.Tensor((M, T.ceildiv(N, group_size)), dtype),
    ):
        with T.Kernel(T.ceildiv(M, blk_m), T.ceildiv(N, group_size), threads=128) as (bx, by):
            row = bx
            row_g_id = by
            y_local = T.alloc_fragment((blk_m, group_size), dtype)
            y_amax_local = T.alloc_fragment((blk_m,), dtype)
            y_s_local = T.alloc_fragment((blk_m,), dtype)
            y_q_local = T.alloc_fragment((blk_m, group_size), dtype)
            y_q_local_fp8 = T.alloc_fragment((blk_m, group_size), T.float8_e4m3fn)

            T.copy(
                X[
                    row * blk_m : (row + 1) * blk_m,
                    row_g_id * group_size : (row_g_id + 1) * group_size,
                ],
                y_local,
            )
            T.reduce_absmax(y_local, y_amax_local, dim=1)
            for i in T.Parallel(blk_m):
                y_amax_local[i] = T.max(y_amax_local[i], 1e-4)
                y_s_local[i] = y_amax_local[i] / fp8_max
            for i, j in T.Parallel(blk_m, group_size):
                y_q_local[i, j] = T.clamp(y_local[i, j] / y_s_local[i], fp8_min, fp8_max)
            T.copy(y_q_local, y_q_local_fp8)
            for i in T.Parallel(blk_m):
                X_amax[row * blk_m + i, row_g_id] = y_s_local[i]
            T.copy(
                y_q_local_fp8,
                X_fp8[
                    row * blk_m : (row + 1) * blk_m,
                    row_g_id * group_size : (row_g_id + 1) * group_size,
                ],
            )

    return per_token_cast


def ceil_div(x, y):
    return (x + y - 1) // y


def ref_program(x):
    m, n = x.shape
    padded = np.zeros((m, ceil_div(n, 128) * 128), np.float32)
    padded[:, :n] = x
    view = padded.reshape(m, -1, 128)
    amax = np.maximum(np.abs(view).max(axis=2), 1e-4)
    x_fp8 = (view * (448.0 / amax[:, :, None])).astype(ml_dtypes.float8_e4m3fn)
    return x_fp8.reshape(m, -1)[:, :n], amax / 448.0


@pytest.mark.parametrize(("M", "N"), [(50, 300), (64, 512)])  # ragged, aligned
def test_per_token_cast_to_fp8(M, N):
    x = np.random.default_rng(25).standard_normal((M, N)).astype(np.float32)
    x_fp8, x_amax = per_token_cast_to_fp8(M, N, blk_m=8)(x)

    ref_fp8, ref_amax = ref_program(x)
    np.testing.assert_allclose(x_amax, ref_amax, rtol=1e-6)
    # one float8 step of the larger value at most (x / s and x * (448 / amax) round apart)
    np.testing.assert_allclose(
        x_fp8.astype(np.float32), ref_fp8.astype(np.float32), rtol=0.125, atol=1e-2
    )
