"""TileKernels' MoE routing ops as tilec kernels: top-k selection, weight
normalisation, counting and TP masking of expert indices. One thread handles one
token (or one index), so each result is computed in the exact order of the torch
reference (a running sum from 1e-20, a stable descending order, floor division).
"""

from __future__ import annotations

import tilec.language as T

ROWS = 128  # tokens (or indices) per block, one per thread


def normalize_weight(num_topk: int) -> T.PrimFunc:
    """W (N, K) -> D (N,) = 1e-20 + W[:, 0] + ... + W[:, K-1] (left to right) and W / D."""
    N = T.symbolic("num_tokens")

    @T.prim_func
    def normalize_weight_kernel(
        W: T.Tensor((N, num_topk), "float32"),
        D: T.Tensor((N,), "float32"),
        Y: T.Tensor((N, num_topk), "float32"),
    ):
        with T.Kernel(T.ceildiv(N, ROWS), threads=ROWS) as bx:
            row = bx * ROWS + T.get_thread_binding()
            if row < N:
                total = T.alloc_var("float32", init=1e-20)
                for k in T.serial(num_topk):
                    total += W[row, k]
                D[row] = total
                for k in T.serial(num_topk):
                    Y[row, k] = W[row, k] / total

    return normalize_weight_kernel


def topk_gate(num_topk: int) -> T.PrimFunc:
    """S (N, E) -> I (N, K) int64: the first K columns of a stable descending sort of
    each row. Pick k is the best (highest score, then lowest index) of the entries that
    come after pick k-1 in that order, so no state but the last pick is kept."""
    N, E = T.symbolic("num_tokens"), T.symbolic("num_experts")

    @T.prim_func
    def topk_gate_kernel(S: T.Tensor((N, E), "float32"), I: T.Tensor((N, num_topk), "int64")):  # noqa: E741
        with T.Kernel(T.ceildiv(N, ROWS), threads=ROWS) as bx:
            row = bx * ROWS + T.get_thread_binding()
            if row < N:
                last_score = T.alloc_var("float32", init=T.infinity("float32"))
                last = T.alloc_var("int32", init=-1)
                best_score = T.alloc_var("float32", init=0.0)
                best = T.alloc_var("int32", init=-1)
                for k in T.serial(num_topk):
                    best = -1
                    for e in T.serial(E):
                        score = S[row, e]
                        after = (score < last_score) or (score == last_score and e > last)
                        if after and (best < 0 or score > best_score):
                            best_score = score
                            best = e
                    I[row, k] = T.cast(best, "int64")
                    # `[0]` loads: a bare `x = var` would rebind the name (tilec aliases
                    # one T.alloc_var to another instead of storing)
                    last_score = best_score[0]
                    last = best[0]

    return topk_gate_kernel


def group_count(index_dtype: str) -> T.PrimFunc:
    """G (N, K) -> C (num_groups,) int32: how often each group occurs; negative and
    out-of-range entries are not counted. One block: C is cleared, then counted into."""
    N, K, G = T.symbolic("num_tokens"), T.symbolic("num_topk"), T.symbolic("num_groups")

    @T.prim_func
    def group_count_kernel(Idx: T.Tensor((N, K), index_dtype), C: T.Tensor((G,), "int32")):
        with T.Kernel(1, threads=ROWS):
            tx = T.get_thread_binding()
            for g in T.serial(T.ceildiv(G, ROWS)):
                if g * ROWS + tx < G:
                    C[g * ROWS + tx] = 0
            T.sync_threads()
            for r in T.serial(T.ceildiv(N, ROWS)):
                row = r * ROWS + tx
                if row < N:
                    for k in T.serial(K):
                        group = Idx[row, k]
                        if group >= 0 and group < G:
                            T.atomic_add(C[group], 1)

    return group_count_kernel


def mask_indices_by_tp(index_dtype: str) -> T.PrimFunc:
    """X (L,) -> Y (L,): the expert index local to TP rank `tp_rank`, or -1 where the
    expert belongs to another TP rank (floor division, as the reference's `//`)."""
    L = T.symbolic("numel")

    @T.prim_func
    def mask_indices_by_tp_kernel(
        X: T.Tensor((L,), index_dtype),
        Y: T.Tensor((L,), index_dtype),
        per_gpu: T.int64,
        per_dp: T.int64,
        num_tp_ranks: T.int64,
        tp_rank: T.int64,
    ):
        with T.Kernel(T.ceildiv(L, ROWS), threads=ROWS) as bx:
            i = bx * ROWS + T.get_thread_binding()
            if i < L:
                value = T.cast(X[i], "int64")
                local = value - tp_rank * per_gpu
                local = local - (local // per_dp) * (per_dp - per_gpu)
                keep = value >= 0 and (value // per_gpu) % num_tp_ranks == tp_rank and local >= 0
                Y[i] = T.cast(T.if_then_else(keep, local, -1), index_dtype)

    return mask_indices_by_tp_kernel
