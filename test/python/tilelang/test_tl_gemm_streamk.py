"""TileLang's examples/gemm_streamk/example_tilelang_gemm_streamk.py (factory form, plain
`@tilelang.jit`, C passed in): stream-K GEMM, C = A @ B^T with B stored (N, K). A fixed grid
of `streamk_programs` (= total_sm, 108) blocks first splits the K iterations of the
`streamk_tiles` leftover tiles evenly between them: each block walks its iteration range
with a Python `while` on a traced value (a one-element "local" int32 fragment), clears
its accumulator at each tile boundary, stores a tile it covered whole with T.copy and
adds a partial tile into the float32 C with element T.atomic_add. Then each block
computes `sm_patition_factor` whole tiles data-parallel (T.serial over a host int, an `if`
on a Python value); tiles past the grid's edge are clipped by the copies.

The example computes its stream-K plan at import time from its global A and B; here
`plan` does the same for the test's shapes and sets the same module globals the kernel
reads (`tilelang.cdiv` is written out as `cdiv`). Ragged M, N and K are fine: partial
tiles are clipped on reads (zero fill) and writes."""

import math

import numpy as np
import pytest

import tilec
import tilec.language as T


def cdiv(a, b):
    return math.ceil(a / b)


total_sm = 108

streamk_programs = total_sm
BLOCK_SIZE_M = 16
BLOCK_SIZE_N = 128
BLOCK_SIZE_K = 32


def plan(M, N, K):
    """The example's module-level stream-K plan for an (M, K) x (N, K) problem."""
    global iters_per_tile, streamk_tiles, streamk_full_tiles, streamk_partial_tiles
    global sm_patition_factor
    num_block_m = cdiv(M, BLOCK_SIZE_M)
    num_block_n = cdiv(N, BLOCK_SIZE_N)
    iters_per_tile = cdiv(K, BLOCK_SIZE_K)
    total_tiles = num_block_m * num_block_n

    # Two-tile SK + DP
    streamk_tiles = total_tiles % streamk_programs
    if total_tiles - streamk_tiles > streamk_programs:
        streamk_tiles += streamk_programs

    blocking_tiles = total_tiles - streamk_tiles
    streamk_iters = streamk_tiles * iters_per_tile

    streamk_full_tiles = streamk_iters // streamk_programs
    streamk_partial_tiles = streamk_iters % streamk_programs

    sm_patition_factor = max(blocking_tiles // total_sm, 1)


@tilec.jit
def tl_matmul_streamk(
    M,
    N,
    K,
    streamk_tiles,
    block_M,
    block_N,
    block_K,
    trans_A,
    trans_B,
    dtypeAB,
    dtypeC,
    accum_dtype,
    num_stages,
    threads,
):
    assert not trans_A
    A_shape = (M, K) if not trans_A else (K, M)
    B_shape = (K, N) if not trans_B else (N, K)
    A_shared_shape = (block_M, block_K) if not trans_A else (block_K, block_M)
    B_shared_shape = (block_K, block_N) if not trans_B else (block_N, block_K)

    @T.prim_func
    def main(
        A: T.Tensor(A_shape, dtypeAB),
        B: T.Tensor(B_shape, dtypeAB),
        C: T.Tensor((M, N), dtypeC),
    ):
        with T.Kernel(streamk_programs, threads=threads) as pid:
            A_shared = T.alloc_shared(A_shared_shape, dtypeAB)
            B_shared = T.alloc_shared(B_shared_shape, dtypeAB)
            A_shared_full_tiles = T.alloc_shared(A_shared_shape, dtypeAB)
            B_shared_full_tiles = T.alloc_shared(B_shared_shape, dtypeAB)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)

            # compute first wave
            start_iter = T.alloc_fragment((1,), T.int32, "local")
            end_iter = T.alloc_fragment((1,), T.int32, "local")

            start_iter[0] = pid * streamk_full_tiles + T.min(pid, streamk_partial_tiles)
            last_iter = (pid + 1) * streamk_full_tiles + T.min(pid + 1, streamk_partial_tiles)

            while start_iter[0] < last_iter:
                end_iter[0] = T.min(
                    start_iter[0] + (iters_per_tile - (start_iter[0] % iters_per_tile)),
                    last_iter,
                )

                tile_id = start_iter[0] // iters_per_tile
                remain_iters = start_iter[0] % iters_per_tile
                pid_m = tile_id // T.ceildiv(N, block_N)
                pid_n = tile_id % T.ceildiv(N, block_N)

                T.clear(C_local)
                for k in T.Pipelined(end_iter[0] - start_iter[0], num_stages=num_stages):
                    T.copy(
                        A[pid_m * block_M, (k + (start_iter[0] % iters_per_tile)) * block_K],
                        A_shared,
                    )
                    T.copy(
                        B[pid_n * block_N, (k + (start_iter[0] % iters_per_tile)) * block_K],
                        B_shared,
                    )
                    T.gemm(A_shared, B_shared, C_local, transpose_B=trans_B)

                # last iteration of the tile always happens before its start on another SM
                if remain_iters == 0 and (end_iter[0] % iters_per_tile == 0):
                    T.copy(C_local, C[pid_m * block_M, pid_n * block_N])
                else:
                    for i, j in T.Parallel(block_M, block_N):
                        T.atomic_add(C[pid_m * block_M + i, pid_n * block_N + j], C_local[i, j])

                start_iter[0] = end_iter[0]

            # compute full tiles
            if sm_patition_factor > 0:
                for p in T.serial(sm_patition_factor):
                    tile_id = pid + streamk_tiles + p * total_sm
                    pid_m = tile_id // T.ceildiv(N, block_N)
                    pid_n = tile_id % T.ceildiv(N, block_N)
                    T.clear(C_local)

                    for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=1):
                        T.copy(A[pid_m * block_M, k * block_K], A_shared_full_tiles)
                        T.copy(B[pid_n * block_N, k * block_K], B_shared_full_tiles)
                        T.gemm(
                            A_shared_full_tiles, B_shared_full_tiles, C_local, transpose_B=trans_B
                        )
                    T.copy(C_local, C[pid_m * block_M, pid_n * block_N])

    return main


@pytest.mark.parametrize(
    ("m", "n", "k"),
    [
        (200, 300, 200),  # ragged; 39 tiles, all stream-K (2-3 iterations a block)
        (250, 1000, 300),  # ragged; 128 tiles: 20 stream-K, 108 data-parallel
        (256, 1024, 512),  # aligned: the example's shape
    ],
)
def test_gemm_streamk(m, n, k):
    rng = np.random.default_rng(0)
    A = (rng.random((m, k)) * 2 - 1).astype(np.float16)
    B = (rng.random((n, k)) * 2 - 1).astype(np.float16)
    b_c = np.zeros((m, n), np.float32)

    plan(m, n, k)
    kernel = tl_matmul_streamk(
        m,
        n,
        k,
        streamk_tiles,
        BLOCK_SIZE_M,
        BLOCK_SIZE_N,
        BLOCK_SIZE_K,
        False,
        True,
        T.float16,
        T.float32,  # fp32 for atom add
        T.float32,
        2,
        64,
    )
    kernel(A, B, b_c)

    C = A.astype(np.float32) @ B.astype(np.float32).T
    np.testing.assert_allclose(b_c, C, rtol=1e-2, atol=1e-2)
