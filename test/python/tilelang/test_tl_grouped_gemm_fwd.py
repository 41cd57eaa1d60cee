"""TileLang's examples/grouped_gemm/example_grouped_gemm_fwd.py (factory form, `out_idx=[2]`):
grouped GEMM, C[rows of group g] = A[rows of group g] @ B[g], for groups of different sizes
stacked along the rows of A. Each group's rows are padded to whole block_M tiles; a block
finds its group by scanning the padded offsets (a Python loop over the groups reassigning
the T.alloc_var scalar `cur_batch_idx` with T.if_then_else), then stores only the rows of
its group (a Python `if` on a traced value inside T.Parallel)."""

import math

import numpy as np
import pytest

import tilec
import tilec.language as T


@tilec.jit(out_idx=[2])
def grouped_gemm(batch_sizes_list, K, N, block_M, block_N, block_K, num_stages=2, threads=128,
                 dtype=T.float16):
    batch_sum = sum(batch_sizes_list)
    batch_count = len(batch_sizes_list)
    accum_dtype = T.float32
    total_m_blocks = sum((size + block_M - 1) // block_M for size in batch_sizes_list)

    @T.prim_func
    def kernel(
        A: T.Tensor([batch_sum, K], dtype),
        B: T.Tensor([batch_count, K, N], dtype),
        C: T.Tensor([batch_sum, N], dtype),
        batch_sizes: T.Tensor([batch_count], T.int32),
        batch_offsets: T.Tensor([batch_count], T.int32),
        batch_padded_offsets: T.Tensor([batch_count], T.int32),
    ):
        with T.Kernel(total_m_blocks, T.ceildiv(N, block_N), threads=threads) as (bx, by):
            A_shared = T.alloc_shared([block_M, block_K], dtype)
            B_shared = T.alloc_shared([block_K, block_N], dtype)
            C_local = T.alloc_fragment([block_M, block_N], accum_dtype)
            cur_batch_idx = T.alloc_var(dtype=T.int32)
            cur_batch_size = T.alloc_var(dtype=T.int32)

            m_start_padded = bx * block_M

            for i in range(batch_count):
                in_cur_batch_idx = m_start_padded >= batch_padded_offsets[i]
                cur_batch_idx = T.if_then_else(in_cur_batch_idx, i, cur_batch_idx)

            cur_batch_size = batch_sizes[cur_batch_idx]
            m_start = (
                m_start_padded - batch_padded_offsets[cur_batch_idx] + batch_offsets[cur_batch_idx]
            )
            actual_rows = T.max(
                0,
                T.min(
                    block_M,
                    cur_batch_size + batch_padded_offsets[cur_batch_idx] - m_start_padded,
                ),
            )

            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[m_start : m_start + block_M, k * block_K : (k + 1) * block_K], A_shared)
                T.copy(
                    B[
                        cur_batch_idx,
                        k * block_K : (k + 1) * block_K,
                        by * block_N : (by + 1) * block_N,
                    ],
                    B_shared,
                )
                T.gemm(A_shared, B_shared, C_local)

            for i, j in T.Parallel(block_M, block_N):
                if i < actual_rows:
                    C[m_start + i, by * block_N + j] = C_local[i, j]

    return kernel


def construct_inputs(batch_sizes_list, K, N, padding_M, rng):
    batch_sum = sum(batch_sizes_list)
    batch_count = len(batch_sizes_list)
    batch_offsets_list = [0]
    batch_padded_offsets_list = [0]
    for i in range(batch_count - 1):
        batch_offsets_list.append(batch_offsets_list[-1] + batch_sizes_list[i])
        batch_padded_offsets_list.append(
            batch_padded_offsets_list[-1] + math.ceil(batch_sizes_list[i] / padding_M) * padding_M
        )
    A = rng.standard_normal((batch_sum, K)).astype(np.float16)
    B = rng.standard_normal((batch_count, K, N)).astype(np.float16)
    as_int32 = lambda values: np.array(values, np.int32)  # noqa: E731
    return A, B, as_int32(batch_sizes_list), as_int32(batch_offsets_list), as_int32(
        batch_padded_offsets_list
    )


def ref_gmm(a, b, batch_sizes):
    out, start = [], 0
    for g, size in enumerate(batch_sizes):
        out.append(a[start : start + size].astype(np.float32) @ b[g].astype(np.float32))
        start += size
    return np.concatenate(out)


@pytest.mark.parametrize(
    ("batch_sizes_list", "K", "N"),
    [((63, 77, 111), 100, 72), ((64, 128), 128, 128)],  # ragged groups and K, N; aligned
)
def test_grouped_gemm_fwd(batch_sizes_list, K, N):
    block_M, block_N, block_K = 64, 64, 64
    A, B, sizes, offsets, padded = construct_inputs(
        batch_sizes_list, K, N, block_M, np.random.default_rng(15)
    )
    kernel = grouped_gemm(tuple(batch_sizes_list), K, N, block_M, block_N, block_K)
    out = kernel(A, B, sizes, offsets, padded)

    np.testing.assert_allclose(
        out.astype(np.float32), ref_gmm(A, B, batch_sizes_list), rtol=1e-2, atol=1e-2
    )
