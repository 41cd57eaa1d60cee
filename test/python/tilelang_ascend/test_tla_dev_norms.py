"""tilelang-ascend's norms: the forward kernel of examples/normalization/rms_norm.py
(`as (cid, vid)` without a scope, T.cast scalars, T.reduce_sum into [ROWS, 1], T.tile.rsqrt;
its pass_configs left out: tilec synchronizes a kernel without scopes itself). Only the
imports changed (`import tilec as tilelang`, numpy arrays for torch's); the `@tilelang.jit`
decoration is applied per target in the test. It runs on cpu and in the simulator on the
910b and the 950 against numpy, on shapes its tiling divides, as it requires. (The layer
norm of examples/normalization is an expert kernel: test_tla_expert_norm.py.)"""

# ruff: noqa: E501 (the ported kernels keep upstream's lines)

import ml_dtypes
import numpy as np
import pytest

import tilec as tilelang
from tilec import language as T

TARGETS = ("cpu", "ascend:910b", "ascend:950")
DTYPES = {"float": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}


def _get_optimized_tiling(M, N, block_M_in, block_N_in, vec_num):
    budget = block_M_in * block_N_in
    ideal_n = budget // 16

    block_N = min(N // 2, ideal_n)
    if block_N < 128:
        block_N = 128 if N >= 256 else N

    while N % block_N != 0:
        block_N -= 1
        if block_N <= 0:
            block_N = 1
            break

    block_M = budget // block_N
    if M % block_M != 0:
        block_M = block_M_in if M % block_M_in == 0 else vec_num
    return block_M, block_N


def _rms_norm(M, N, block_M_in, block_N_in, eps=1e-5, dtype="float"):
    VEC_NUM = 2
    block_M, block_N = _get_optimized_tiling(M, N, block_M_in, block_N_in, VEC_NUM)
    m_num = M // block_M
    n_num = N // block_N
    ROWS = block_M // VEC_NUM
    tile_elements = ROWS * block_N

    need_cast = dtype not in ("float", "float32")
    acc_dtype = "float32" if need_cast else dtype

    @T.prim_func
    def tilelang_rms_norm(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(m_num, is_npu=True) as (cid, vid):
            # Use a single accumulator to save massive UB space and prevent OOM.
            a_ub_0 = T.alloc_ub([ROWS, block_N], dtype)
            a_ub_1 = T.alloc_ub([ROWS, block_N], dtype)
            a_ub_cast_0 = T.alloc_ub([ROWS, block_N], acc_dtype)
            a_ub_cast_1 = T.alloc_ub([ROWS, block_N], acc_dtype)

            # SINGLE accumulator: No need for double buffering here!
            sum_sq_acc = T.alloc_ub([ROWS, block_N], acc_dtype)
            sum_sq_row = T.alloc_ub([ROWS, 1], acc_dtype)
            inv_rms_ub = T.alloc_ub([ROWS, 1], acc_dtype)
            inv_rms_tile = T.alloc_ub([ROWS, block_N], acc_dtype)

            row_start = cid * block_M + vid * ROWS

            # Initialize single accumulator
            T.tile.fill(sum_sq_acc, 0.0)

            # Step 1: Accumulate squares with Ping-Pong Input Pipeline
            for by in T.serial(n_num // 2):
                # Buffer 0 (Even Blocks)
                col_off_0 = (by * 2) * block_N
                if need_cast:
                    T.copy(A[row_start : row_start + ROWS, col_off_0 : col_off_0 + block_N], a_ub_0)
                    T.tile.cast(a_ub_cast_0, a_ub_0, "CAST_NONE", tile_elements)
                else:
                    T.copy(A[row_start : row_start + ROWS, col_off_0 : col_off_0 + block_N], a_ub_cast_0)

                T.tile.mul(a_ub_cast_0, a_ub_cast_0, a_ub_cast_0)
                # Accumulate directly into single buffer
                T.tile.add(sum_sq_acc, sum_sq_acc, a_ub_cast_0)

                # Buffer 1 (Odd Blocks)
                col_off_1 = (by * 2 + 1) * block_N
                if need_cast:
                    T.copy(A[row_start : row_start + ROWS, col_off_1 : col_off_1 + block_N], a_ub_1)
                    T.tile.cast(a_ub_cast_1, a_ub_1, "CAST_NONE", tile_elements)
                else:
                    T.copy(A[row_start : row_start + ROWS, col_off_1 : col_off_1 + block_N], a_ub_cast_1)

                T.tile.mul(a_ub_cast_1, a_ub_cast_1, a_ub_cast_1)
                # Accumulate directly into single buffer
                T.tile.add(sum_sq_acc, sum_sq_acc, a_ub_cast_1)

            # Handle odd remainder
            if n_num % 2 != 0:
                col_off_rem = (n_num - 1) * block_N
                if need_cast:
                    T.copy(A[row_start : row_start + ROWS, col_off_rem : col_off_rem + block_N], a_ub_0)
                    T.tile.cast(a_ub_cast_0, a_ub_0, "CAST_NONE", tile_elements)
                else:
                    T.copy(A[row_start : row_start + ROWS, col_off_rem : col_off_rem + block_N], a_ub_cast_0)
                T.tile.mul(a_ub_cast_0, a_ub_cast_0, a_ub_cast_0)
                T.tile.add(sum_sq_acc, sum_sq_acc, a_ub_cast_0)

            # Step 2: Reduction
            T.reduce_sum(sum_sq_acc, sum_sq_row, dim=-1)

            # Step 3: Compute inv_rms
            inv_n = T.cast(1.0 / N, acc_dtype)
            eps_val = T.cast(eps, acc_dtype)
            T.tile.mul(sum_sq_row, sum_sq_row, inv_n)
            T.tile.add(sum_sq_row, sum_sq_row, eps_val)
            T.tile.rsqrt(inv_rms_ub, sum_sq_row)
            T.tile.broadcast(inv_rms_tile, inv_rms_ub)

            # Step 4: Normalize and write back with Ping-Pong Pipeline
            for by in T.serial(n_num // 2):
                # Buffer 0
                col_off_0 = (by * 2) * block_N
                if need_cast:
                    T.copy(A[row_start : row_start + ROWS, col_off_0 : col_off_0 + block_N], a_ub_0)
                    T.tile.cast(a_ub_cast_0, a_ub_0, "CAST_NONE", tile_elements)
                else:
                    T.copy(A[row_start : row_start + ROWS, col_off_0 : col_off_0 + block_N], a_ub_cast_0)

                T.tile.mul(a_ub_cast_0, a_ub_cast_0, inv_rms_tile)

                if need_cast:
                    T.tile.cast(a_ub_0, a_ub_cast_0, "CAST_RINT", tile_elements)
                    T.copy(a_ub_0, B[row_start : row_start + ROWS, col_off_0 : col_off_0 + block_N])
                else:
                    T.copy(a_ub_cast_0, B[row_start : row_start + ROWS, col_off_0 : col_off_0 + block_N])

                # Buffer 1
                col_off_1 = (by * 2 + 1) * block_N
                if need_cast:
                    T.copy(A[row_start : row_start + ROWS, col_off_1 : col_off_1 + block_N], a_ub_1)
                    T.tile.cast(a_ub_cast_1, a_ub_1, "CAST_NONE", tile_elements)
                else:
                    T.copy(A[row_start : row_start + ROWS, col_off_1 : col_off_1 + block_N], a_ub_cast_1)

                T.tile.mul(a_ub_cast_1, a_ub_cast_1, inv_rms_tile)

                if need_cast:
                    T.tile.cast(a_ub_1, a_ub_cast_1, "CAST_RINT", tile_elements)
                    T.copy(a_ub_1, B[row_start : row_start + ROWS, col_off_1 : col_off_1 + block_N])
                else:
                    T.copy(a_ub_cast_1, B[row_start : row_start + ROWS, col_off_1 : col_off_1 + block_N])

            # Handle odd remainder
            if n_num % 2 != 0:
                col_off_rem = (n_num - 1) * block_N
                if need_cast:
                    T.copy(A[row_start : row_start + ROWS, col_off_rem : col_off_rem + block_N], a_ub_0)
                    T.tile.cast(a_ub_cast_0, a_ub_0, "CAST_NONE", tile_elements)
                else:
                    T.copy(A[row_start : row_start + ROWS, col_off_rem : col_off_rem + block_N], a_ub_cast_0)

                T.tile.mul(a_ub_cast_0, a_ub_cast_0, inv_rms_tile)

                if need_cast:
                    T.tile.cast(a_ub_0, a_ub_cast_0, "CAST_RINT", tile_elements)
                    T.copy(a_ub_0, B[row_start : row_start + ROWS, col_off_rem : col_off_rem + block_N])
                else:
                    T.copy(a_ub_cast_0, B[row_start : row_start + ROWS, col_off_rem : col_off_rem + block_N])

    return tilelang_rms_norm


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("config", [(64, 256, 16, 64, "float"), (64, 384, 16, 64, "bfloat16")])
def test_rms_norm(target, config):
    M, N, block_M, block_N, dtype = config
    a = np.random.default_rng(1).standard_normal((M, N)).astype(DTYPES[dtype])
    b = tilelang.jit(out_idx=[1], target=target)(_rms_norm)(M, N, block_M, block_N, dtype=dtype)(a)
    x = a.astype(np.float64)
    ref_b = x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(b.astype(np.float64), ref_b, rtol=1e-2, atol=1e-2)
