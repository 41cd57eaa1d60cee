"""Flash-attention forward in the DSL: O = softmax(Q K^T / sqrt(d)) V, causal or not,
with grouped-query attention (GQA) when K and V have fewer heads than Q.

One block computes block_M query rows of one head. It walks the keys in tiles
of block_N, keeping for each row a running max of the scores, a running sum
of their exponentials and an unnormalized output (online softmax); when the
max grows, the sum and the output so far are rescaled by 2 ** (old - new).
Scores are computed in base 2 (scaled by log2(e)), so T.exp2 does the work.
Masked scores start at -inf in the score tile and the gemm accumulates onto
them: keys after the query (causal), keys past the end of the sequence, and
with a sliding window keys more than `window` - 1 before the query. The causal
loop stops at the last key tile a query row can see, and a windowed one starts
at the first.

A row may see no key of a tile, then its running max stays -inf and
2 ** (score - max) would be 2 ** (-inf + inf) = NaN: the exponentials use 0 in
place of a -inf max, as FlashAttention does. With a window this is ordinary:
the first tile of a block is all masked for the block's later rows.

Q and O are (batch, heads, seq_len, dim), K and V (batch, heads_kv, seq_len, dim);
query head h reads key/value head h // (heads // heads_kv), so each group of
heads // heads_kv consecutive query heads shares one K and V (heads_kv == heads is
plain multi-head attention, heads_kv == 1 multi-query attention). T.copy of
Q[b, h, i, 0] into a (block_M, dim) tile drops the unit batch and head dims.

Run `python examples/flash_attention.py` to check it against numpy on the cpu target.
"""

import math
import sys

import numpy as np

import tilec
import tilec.language as T

LOG2E = 1.4426950408889634


def flash_attention(
    batch, heads, seq_len, dim, *, causal, dtype="float32", block_M=64, block_N=64, num_stages=2,
    heads_kv=None, window=None,
):
    """Attention forward for (batch, heads, seq_len, dim) queries; seq_len may be symbolic.

    K and V have heads_kv heads (default: heads), which must divide heads. A
    `window` (causal only) is sliding-window attention: query i sees keys
    i - window < j <= i.
    """
    heads_kv = heads if heads_kv is None else heads_kv
    if heads_kv < 1 or heads % heads_kv:
        raise ValueError(f"heads_kv={heads_kv} must divide heads={heads}")
    if window is not None and (not causal or window < 1):
        raise ValueError(f"window={window} needs causal=True and at least one key")
    group = heads // heads_kv
    shape = (batch, heads, seq_len, dim)
    kv_shape = (batch, heads_kv, seq_len, dim)
    scale = LOG2E / math.sqrt(dim)

    @T.prim_func
    def attention(
        Q: T.Tensor(shape, dtype),
        K: T.Tensor(kv_shape, dtype),
        V: T.Tensor(kv_shape, dtype),
        O: T.Tensor(shape, dtype),  # noqa: E741 - the usual name of the output
    ):
        with T.Kernel(T.ceildiv(seq_len, block_M), heads, batch, threads=128) as (bx, by, bz):
            Q_shared = T.alloc_shared((block_M, dim), dtype)
            K_shared = T.alloc_shared((block_N, dim), dtype)
            V_shared = T.alloc_shared((block_N, dim), dtype)
            scores = T.alloc_fragment((block_M, block_N), "float32")
            probs = T.alloc_fragment((block_M, block_N), dtype)
            acc_o = T.alloc_fragment((block_M, dim), "float32")
            row_max = T.alloc_fragment((block_M,), "float32")
            safe_max = T.alloc_fragment((block_M,), "float32")
            previous_max = T.alloc_fragment((block_M,), "float32")
            rescale = T.alloc_fragment((block_M,), "float32")
            tile_sum = T.alloc_fragment((block_M,), "float32")
            row_sum = T.alloc_fragment((block_M,), "float32")
            kv_head = by // group

            T.copy(Q[bz, by, bx * block_M, 0], Q_shared)
            T.clear(acc_o)
            T.clear(row_sum)
            T.fill(row_max, -T.infinity("float32"))
            key_tiles = T.ceildiv(seq_len, block_N)
            if causal:
                key_tiles = T.min(T.ceildiv((bx + 1) * block_M, block_N), key_tiles)
            first_tile = 0
            if window is not None:
                first_tile = T.max(bx * block_M - window + 1, 0) // block_N
            for t in T.Pipelined(key_tiles - first_tile, num_stages=num_stages):
                k = first_tile + t
                T.copy(K[bz, kv_head, k * block_N, 0], K_shared)
                for i, j in T.Parallel(block_M, block_N):
                    visible = k * block_N + j < seq_len
                    if causal:
                        visible = visible & (bx * block_M + i >= k * block_N + j)
                    if window is not None:
                        visible = visible & (bx * block_M + i - window < k * block_N + j)
                    scores[i, j] = T.if_then_else(visible, 0, -T.infinity("float32"))
                T.gemm(Q_shared, K_shared, scores, transpose_B=True)
                T.copy(row_max, previous_max)
                T.reduce_max(scores, row_max, dim=1, clear=False)
                for i in T.Parallel(block_M):
                    safe_max[i] = T.if_then_else(
                        row_max[i] == -T.infinity("float32"), 0, row_max[i]
                    )
                for i in T.Parallel(block_M):
                    rescale[i] = T.exp2((previous_max[i] - safe_max[i]) * scale)
                for i, j in T.Parallel(block_M, block_N):
                    scores[i, j] = T.exp2((scores[i, j] - safe_max[i]) * scale)
                T.reduce_sum(scores, tile_sum, dim=1)
                for i in T.Parallel(block_M):
                    row_sum[i] = row_sum[i] * rescale[i] + tile_sum[i]
                for i, j in T.Parallel(block_M, dim):
                    acc_o[i, j] *= rescale[i]
                T.copy(scores, probs)
                T.copy(V[bz, kv_head, k * block_N, 0], V_shared)
                T.gemm(probs, V_shared, acc_o)
            for i, j in T.Parallel(block_M, dim):
                acc_o[i, j] /= row_sum[i]
            T.copy(acc_o, O[bz, by, bx * block_M, 0])

    return attention


def reference(q, k, v, causal, window=None):
    """Attention in float32; k and v may have fewer heads than q (GQA)."""
    group = q.shape[1] // k.shape[1]
    q32 = q.astype(np.float32)
    k32, v32 = (np.repeat(t.astype(np.float32), group, axis=1) for t in (k, v))
    scores = q32 @ k32.transpose(0, 1, 3, 2) / math.sqrt(q.shape[-1])
    if causal:
        seq_len = q.shape[2]
        visible = np.tril(np.ones((seq_len, seq_len), bool))
        if window is not None:
            visible &= np.triu(visible, 1 - window)
        scores = np.where(visible, scores, -np.inf)
    scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (scores / scores.sum(axis=-1, keepdims=True)) @ v32


def check(batch, heads, seq_len, dim, *, causal, dtype="float32", dynamic_seq=False,
          target=None, heads_kv=None, window=None, **tiles):
    """Max absolute error against numpy on random inputs.

    heads_kv < heads checks GQA, `window` sliding windows; tiles (block_M,
    block_N, num_stages) reach the kernel.
    """
    heads_kv = heads if heads_kv is None else heads_kv
    rng = np.random.default_rng(0)
    q = rng.standard_normal((batch, heads, seq_len, dim)).astype(dtype)
    k, v = (rng.standard_normal((batch, heads_kv, seq_len, dim)).astype(dtype) for _ in range(2))
    out = np.zeros_like(q)
    length = T.symbolic("S") if dynamic_seq else seq_len
    kernel = tilec.compile(
        flash_attention(
            batch, heads, length, dim, causal=causal, dtype=dtype, heads_kv=heads_kv,
            window=window, **tiles
        ),
        target=target,
    )
    kernel(q, k, v, out)
    return float(np.max(np.abs(out.astype(np.float32) - reference(q, k, v, causal, window))))


def main():
    failures = 0
    for batch, heads, heads_kv, seq_len, dim, causal, window, dtype, dynamic_seq, tolerance in [
        (1, 2, 2, 256, 64, False, None, "float32", False, 1e-5),
        (1, 2, 2, 256, 64, True, None, "float32", False, 1e-5),
        (2, 1, 1, 100, 32, True, None, "float32", True, 1e-5),
        (2, 1, 1, 100, 32, False, None, "float16", False, 2e-3),
        (1, 8, 2, 100, 32, True, None, "float32", False, 1e-5),
        (2, 4, 1, 90, 32, False, None, "float16", False, 2e-3),
        (1, 2, 2, 200, 32, True, 24, "float32", True, 1e-5),
    ]:
        error = check(
            batch, heads, seq_len, dim, causal=causal, dtype=dtype, dynamic_seq=dynamic_seq,
            heads_kv=heads_kv, window=window,
        )
        ok = error <= tolerance
        failures += not ok
        kind = f"window {window}" if window else "causal" if causal else "full"
        print(
            f"flash attention {batch}x{heads}/{heads_kv}x{seq_len}x{dim} {kind:<9} {dtype} "
            f"max error {error:.2e} {'ok' if ok else 'FAIL'}"
        )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
