"""Top-k-indexed gathers in the DSL, the memory pattern of sparse attention and MoE combine.

Each token t has `topk` selected row indices Idx[t, :] (e.g. the top-k scores
of a router or of an attention indexer) into a table X of shape (rows, D).

- `topk_gather`: Out[t, k, :] = X[Idx[t, k], :], the gathered rows.
- `topk_weighted_sum`: Out[t, :] = sum_k Wt[t, k] * X[Idx[t, k], :], the
  gathered rows combined with their weights, accumulated in float32.

A block covers block_T tokens and block_D columns: the index tile comes in
with T.copy, and the rows are read element by element with indirect
indexing, X[idx[t, k], col]. Column indices are clamped to the last column so
that the reads of a partial edge tile stay inside X (their writes are dropped
by T.copy anyway).

Run `python examples/topk_gather.py` to check both against numpy on the cpu target.
"""

import sys

import numpy as np

import tilec
import tilec.language as T


def topk_gather(tokens, topk, rows, D, *, dtype="float32", block_T=16, block_D=64):
    """Out[t, k, :] = X[Idx[t, k], :] for (tokens, topk) int32 indices into (rows, D)."""

    @T.prim_func
    def gather(
        X: T.Tensor((rows, D), dtype),
        Idx: T.Tensor((tokens, topk), "int32"),
        Out: T.Tensor((tokens, topk, D), dtype),
    ):
        with T.Kernel(T.ceildiv(D, block_D), T.ceildiv(tokens, block_T)) as (bx, by):
            idx = T.alloc_fragment((block_T, topk), "int32")
            out = T.alloc_fragment((block_T, topk, block_D), dtype)
            T.copy(Idx[by * block_T, 0], idx)
            for t, k, d in T.Parallel(block_T, topk, block_D):
                out[t, k, d] = X[idx[t, k], T.min(bx * block_D + d, D - 1)]
            T.copy(out, Out[by * block_T, 0, bx * block_D])

    return gather


def topk_weighted_sum(tokens, topk, rows, D, *, dtype="float32", block_T=16, block_D=64):
    """Out[t, :] = sum_k Wt[t, k] * X[Idx[t, k], :], accumulated in float32."""

    @T.prim_func
    def weighted_sum(
        X: T.Tensor((rows, D), dtype),
        Idx: T.Tensor((tokens, topk), "int32"),
        Wt: T.Tensor((tokens, topk), "float32"),
        Out: T.Tensor((tokens, D), dtype),
    ):
        with T.Kernel(T.ceildiv(D, block_D), T.ceildiv(tokens, block_T)) as (bx, by):
            idx = T.alloc_fragment((block_T, topk), "int32")
            weight = T.alloc_fragment((block_T, topk), "float32")
            acc = T.alloc_fragment((block_T, block_D), "float32")
            T.copy(Idx[by * block_T, 0], idx)
            T.copy(Wt[by * block_T, 0], weight)
            T.clear(acc)
            for t, d in T.Parallel(block_T, block_D):
                column = T.min(bx * block_D + d, D - 1)
                for k in T.serial(topk):
                    row = X[idx[t, k], column]
                    acc[t, d] = acc[t, d] + weight[t, k] * T.cast(row, "float32")
            T.copy(acc, Out[by * block_T, bx * block_D])

    return weighted_sum


def select_topk(scores, topk):
    """The indices of the `topk` largest scores of each row, largest first, as int32."""
    order = np.argsort(-scores, axis=1, kind="stable")[:, :topk]
    return order.astype(np.int32)


def check(tokens, topk, rows, D, dtype="float32", dynamic=False, target=None):
    """Max absolute errors of both kernels against numpy on random data."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((rows, D)).astype(dtype)
    scores = rng.standard_normal((tokens, rows))
    idx = select_topk(scores, topk)
    weights = rng.random((tokens, topk)).astype(np.float32)
    shape = (tokens, topk, rows, D)
    if dynamic:
        shape = (T.symbolic("tokens"), topk, T.symbolic("rows"), D)

    gathered = np.zeros((tokens, topk, D), dtype)
    tilec.compile(topk_gather(*shape, dtype=dtype), target=target)(x, idx, gathered)
    gather_error = float(np.max(np.abs(gathered.astype(np.float32) - x[idx].astype(np.float32))))

    combined = np.zeros((tokens, D), dtype)
    tilec.compile(topk_weighted_sum(*shape, dtype=dtype), target=target)(
        x, idx, weights, combined
    )
    expected = np.einsum("tk,tkd->td", weights, x[idx].astype(np.float32))
    sum_error = float(np.max(np.abs(combined.astype(np.float32) - expected)))
    return gather_error, sum_error


def main():
    failures = 0
    for tokens, topk, rows, D, dtype, dynamic, tolerance in [
        (64, 8, 512, 128, "float32", False, 1e-5),
        (50, 5, 300, 72, "float32", True, 1e-5),
        (40, 4, 100, 96, "float16", False, 1e-2),
    ]:
        errors = check(tokens, topk, rows, D, dtype, dynamic)
        ok = max(errors) <= tolerance
        failures += not ok
        print(
            f"top-{topk} gather of {tokens} tokens from {rows}x{D} {dtype}: max errors "
            f"{errors[0]:.2e} (gather), {errors[1]:.2e} (weighted sum) {'ok' if ok else 'FAIL'}"
        )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
