"""DeepSeek MLA decode attention in the DSL (the computation of FlashMLA).

At decode time each sequence of the batch has one new query token with `heads`
query heads, and one latent KV cache that every head shares: KV (batch,
seqlen_kv, dim) holds the compressed keys, which are the values too, and K_pe
(batch, seqlen_kv, pe_dim) the rotary part of the keys. With queries Q (batch,
heads, dim) and Q_pe (batch, heads, pe_dim):

    scores = (Q KV^T + Q_pe K_pe^T) * softmax_scale      (batch, heads, seqlen_kv)
    O      = softmax(scores) KV                           (batch, heads, dim)

Because the heads share the cache, a block takes block_H heads of one
sequence at once: the heads are the M dim of both gemms, so one copy of a KV
tile serves all of them, and it is read once for the scores and again as the
values. The block walks the cache in tiles of block_N keys with online
softmax: the two score gemms accumulate into one fresh float32 tile, the keys
past the end of the cache are then set to -inf, the running max and sum are
kept per head in base 2 (T.exp2, scores scaled by log2(e)), and the output so
far is rescaled by 2 ** (old max - new max) when the max grows.

A decode step has few heads and one query, so the grid is small; with
num_split > 1 the cache is also split over blocks (FlashMLA's split-KV).
Split s takes a run of whole key tiles and writes its normalized partial
output and its log-sum-exp (base 2) into scratch global tensors; a second
kernel in the same prim_func merges the splits of each head:
O = sum_s 2 ** (lse_s - lse) O_s with lse = log2(sum_s 2 ** lse_s). A split
with no keys (possible when there are fewer key tiles than splits times the
tiles of a split) writes a zero output and lse = -inf, so its weight is 0.

Run `python examples/mla_decode.py` to check it against numpy on the cpu target.
"""

import math
import sys

import numpy as np

import tilec
import tilec.language as T

LOG2E = 1.4426950408889634


def mla_decode(
    batch,
    heads,
    seqlen_kv,
    dim=512,
    pe_dim=64,
    *,
    softmax_scale=None,
    dtype="float16",
    block_H=64,
    block_N=64,
    num_split=1,
    num_stages=2,
    threads=128,
):
    """MLA decode over a latent cache of seqlen_kv keys (an int or T.symbolic).

    softmax_scale defaults to 1 / sqrt(dim + pe_dim); Q, Q_pe, KV, K_pe and O are `dtype`,
    the gemms accumulate in float32 and the probabilities are rounded to `dtype` for the
    P KV gemm, as FlashMLA does.
    """
    if num_split < 1:
        raise ValueError(f"num_split={num_split} must be at least 1")
    if softmax_scale is None:
        softmax_scale = 1.0 / math.sqrt(dim + pe_dim)
    scale = softmax_scale * LOG2E
    accum = "float32"
    head_blocks = T.ceildiv(heads, block_H)

    @T.macro
    def attend(Q, Q_pe, KV, K_pe, b, h0, first_tile, tile_count, acc_o, row_max, row_sum):
        """Online softmax of block_H heads over key tiles first_tile.. of sequence b:
        leaves the unnormalized output, the max (unscaled) and the sum per head."""
        Q_shared = T.alloc_shared((block_H, dim), dtype)
        Q_pe_shared = T.alloc_shared((block_H, pe_dim), dtype)
        KV_shared = T.alloc_shared((block_N, dim), dtype)
        K_pe_shared = T.alloc_shared((block_N, pe_dim), dtype)
        scores = T.alloc_fragment((block_H, block_N), accum)
        probs = T.alloc_fragment((block_H, block_N), dtype)
        previous_max = T.alloc_fragment((block_H,), accum)
        rescale = T.alloc_fragment((block_H,), accum)
        tile_sum = T.alloc_fragment((block_H,), accum)

        T.copy(Q[b, h0, 0], Q_shared)
        T.copy(Q_pe[b, h0, 0], Q_pe_shared)
        T.clear(acc_o)
        T.clear(row_sum)
        T.fill(row_max, -T.infinity(accum))
        for k in T.Pipelined(tile_count, num_stages=num_stages):
            key0 = (first_tile + k) * block_N
            T.copy(KV[b, key0, 0], KV_shared)
            T.copy(K_pe[b, key0, 0], K_pe_shared)
            T.gemm(Q_shared, KV_shared, scores, transpose_B=True, clear_accum=True)
            T.gemm(Q_pe_shared, K_pe_shared, scores, transpose_B=True)
            for i, j in T.Parallel(block_H, block_N):
                scores[i, j] = T.if_then_else(
                    key0 + j < seqlen_kv, scores[i, j], -T.infinity(accum)
                )
            T.copy(row_max, previous_max)
            T.reduce_max(scores, row_max, dim=1, clear=False)
            for i in T.Parallel(block_H):
                rescale[i] = T.exp2((previous_max[i] - row_max[i]) * scale)
            for i, j in T.Parallel(block_H, block_N):
                scores[i, j] = T.exp2((scores[i, j] - row_max[i]) * scale)
            T.reduce_sum(scores, tile_sum, dim=1)
            for i in T.Parallel(block_H):
                row_sum[i] = row_sum[i] * rescale[i] + tile_sum[i]
            for i, j in T.Parallel(block_H, dim):
                acc_o[i, j] *= rescale[i]
            T.copy(scores, probs)
            T.gemm(probs, KV_shared, acc_o)  # the latent keys are the values

    @T.prim_func
    def mla_decode_single(
        Q: T.Tensor((batch, heads, dim), dtype),
        Q_pe: T.Tensor((batch, heads, pe_dim), dtype),
        KV: T.Tensor((batch, seqlen_kv, dim), dtype),
        K_pe: T.Tensor((batch, seqlen_kv, pe_dim), dtype),
        O: T.Tensor((batch, heads, dim), dtype),  # noqa: E741 - the usual name of the output
    ):
        with T.Kernel(head_blocks, batch, threads=threads) as (bx, by):
            acc_o = T.alloc_fragment((block_H, dim), accum)
            row_max = T.alloc_fragment((block_H,), accum)
            row_sum = T.alloc_fragment((block_H,), accum)
            key_tiles = T.ceildiv(seqlen_kv, block_N)
            attend(Q, Q_pe, KV, K_pe, by, bx * block_H, 0, key_tiles, acc_o, row_max, row_sum)
            for i, j in T.Parallel(block_H, dim):
                acc_o[i, j] /= row_sum[i]
            T.copy(acc_o, O[by, bx * block_H, 0])

    @T.prim_func
    def mla_decode_split(
        Q: T.Tensor((batch, heads, dim), dtype),
        Q_pe: T.Tensor((batch, heads, pe_dim), dtype),
        KV: T.Tensor((batch, seqlen_kv, dim), dtype),
        K_pe: T.Tensor((batch, seqlen_kv, pe_dim), dtype),
        O: T.Tensor((batch, heads, dim), dtype),  # noqa: E741 - the usual name of the output
    ):
        # Split-major scratch, so a block's rows of one split are contiguous.
        O_partial = T.alloc_global((batch, num_split, heads, dim), accum)
        LSE = T.alloc_global((batch, num_split, heads), accum)
        with T.Kernel(head_blocks, num_split, batch, threads=threads) as (bx, by, bz):
            acc_o = T.alloc_fragment((block_H, dim), accum)
            row_max = T.alloc_fragment((block_H,), accum)
            row_sum = T.alloc_fragment((block_H,), accum)
            lse = T.alloc_fragment((block_H,), accum)
            key_tiles = T.ceildiv(seqlen_kv, block_N)
            tiles_per_split = T.ceildiv(key_tiles, num_split)
            first_tile = by * tiles_per_split
            tile_count = T.max(T.min(tiles_per_split, key_tiles - first_tile), 0)
            attend(Q, Q_pe, KV, K_pe, bz, bx * block_H, first_tile, tile_count,
                   acc_o, row_max, row_sum)
            for i, j in T.Parallel(block_H, dim):
                acc_o[i, j] = T.if_then_else(row_sum[i] > 0, acc_o[i, j] / row_sum[i], 0)
            for i in T.Parallel(block_H):
                lse[i] = T.if_then_else(
                    row_sum[i] > 0, T.log2(row_sum[i]) + row_max[i] * scale, -T.infinity(accum)
                )
            T.copy(acc_o, O_partial[bz, by, bx * block_H, 0])
            T.copy(lse, LSE[bz, by, bx * block_H : (bx + 1) * block_H])

        with T.Kernel(head_blocks, batch, threads=threads) as (bx, by):
            split_lse = T.alloc_fragment((num_split, block_H), accum)
            lse_max = T.alloc_fragment((block_H,), accum)
            weights = T.alloc_fragment((num_split, block_H), accum)
            weight_sum = T.alloc_fragment((block_H,), accum)
            partial = T.alloc_fragment((block_H, dim), accum)
            acc_o = T.alloc_fragment((block_H, dim), accum)
            T.copy(LSE[by, 0, bx * block_H], split_lse)
            T.reduce_max(split_lse, lse_max, dim=0)
            for s, i in T.Parallel(num_split, block_H):
                weights[s, i] = T.exp2(split_lse[s, i] - lse_max[i])
            T.reduce_sum(weights, weight_sum, dim=0)
            T.clear(acc_o)
            for s in T.serial(num_split):
                T.copy(O_partial[by, s, bx * block_H, 0], partial)
                for i, j in T.Parallel(block_H, dim):
                    acc_o[i, j] += partial[i, j] * (weights[s, i] / weight_sum[i])
            T.copy(acc_o, O[by, bx * block_H, 0])

    return mla_decode_split if num_split > 1 else mla_decode_single


def numpy_dtype(name):
    if name == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def reference(q, q_pe, kv, k_pe, softmax_scale=None):
    """MLA decode in float64: softmax((Q KV^T + Q_pe K_pe^T) * scale) KV."""
    q, q_pe, kv, k_pe = (t.astype(np.float64) for t in (q, q_pe, kv, k_pe))
    if softmax_scale is None:
        softmax_scale = 1.0 / math.sqrt(q.shape[-1] + q_pe.shape[-1])
    scores = (q @ kv.transpose(0, 2, 1) + q_pe @ k_pe.transpose(0, 2, 1)) * softmax_scale
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (weights / weights.sum(axis=-1, keepdims=True)) @ kv


def check(batch, heads, seqlen_kv, dim=512, pe_dim=64, *, dtype="float16", num_split=1,
          dynamic_seq=False, target=None, **tiles):
    """Runs MLA decode on random inputs; returns the max error relative to max |O|.

    With `dynamic_seq` the kernel is compiled for any cache length (a symbolic dim);
    tiles (block_H, block_N, num_stages, threads, softmax_scale) reach the
    kernel.
    """
    np_dtype = numpy_dtype(dtype)
    rng = np.random.default_rng(0)
    q = rng.standard_normal((batch, heads, dim)).astype(np_dtype)
    q_pe = rng.standard_normal((batch, heads, pe_dim)).astype(np_dtype)
    kv = rng.standard_normal((batch, seqlen_kv, dim)).astype(np_dtype)
    k_pe = rng.standard_normal((batch, seqlen_kv, pe_dim)).astype(np_dtype)
    out = np.zeros((batch, heads, dim), np_dtype)
    length = T.symbolic("S") if dynamic_seq else seqlen_kv
    kernel = tilec.compile(
        mla_decode(batch, heads, length, dim, pe_dim, dtype=dtype, num_split=num_split, **tiles),
        target=target,
    )
    kernel(q, q_pe, kv, k_pe, out)
    expected = reference(q, q_pe, kv, k_pe, tiles.get("softmax_scale"))
    return float(np.max(np.abs(out.astype(np.float64) - expected)) / np.max(np.abs(expected)))


def main():
    failures = 0
    for batch, heads, seqlen_kv, dim, pe_dim, dtype, num_split, tolerance in [
        (2, 16, 256, 512, 64, "float16", 1, 5e-3),
        (1, 16, 300, 512, 64, "float16", 3, 5e-3),
        (2, 8, 130, 64, 16, "float32", 1, 1e-5),
        (2, 8, 130, 64, 16, "float32", 4, 1e-5),
        (1, 20, 77, 64, 16, "bfloat16", 2, 3e-2),
    ]:
        error = check(batch, heads, seqlen_kv, dim, pe_dim, dtype=dtype, num_split=num_split,
                      block_H=16, block_N=32)
        ok = error <= tolerance
        failures += not ok
        print(
            f"mla decode {batch}x{heads}x{seqlen_kv} dim {dim}+{pe_dim} {dtype:<8} "
            f"{num_split} split(s) rel. error {error:.2e} {'ok' if ok else 'FAIL'}"
        )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
