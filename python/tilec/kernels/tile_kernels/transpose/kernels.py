"""The transpose as a tilec kernel: Y[b, n, m] = X[b, m, n] for any strides of X.

X arrives as a flat view of its storage with its three strides as scalars, so one
build serves strided slices as well as contiguous tensors. Tiles past the edges read
the last row or column again (clamped indices, no branch) and are clipped on store.
"""

from __future__ import annotations

import tilec.language as T


def batched_transpose(dtype: str, block_M: int = 64, block_N: int = 64) -> T.PrimFunc:
    """X (B, M, N) through its storage -> Y (B, N, M) contiguous."""
    B, M, N, L = T.symbolic("B"), T.symbolic("M"), T.symbolic("N"), T.symbolic("L")

    @T.prim_func
    def batched_transpose(
        X: T.Tensor((L,), dtype),
        Y: T.Tensor((B, N, M), dtype),
        batch_stride: T.int64,
        row_stride: T.int64,
        column_stride: T.int64,
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), B,
                      threads=128) as (bn, bm, b):
            tile = T.alloc_fragment((block_N, block_M), dtype)
            for j, i in T.Parallel(block_N, block_M):
                row = T.min(bm * block_M + i, M - 1)
                column = T.min(bn * block_N + j, N - 1)
                tile[j, i] = X[b * batch_stride + row * row_stride + column * column_stride]
            T.copy(tile, Y[b, bn * block_N, bm * block_M])

    return batched_transpose
