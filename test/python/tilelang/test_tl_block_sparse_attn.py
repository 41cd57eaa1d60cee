"""TileLang's examples/blocksparse_attention/example_tilelang_block_sparse_attn.py
(`blocksparse_flashattn`, `out_idx=[4]`): causal flash attention that visits only the key
blocks a boolean block mask selects for each query block (a Python `if` on the loaded
mask element around the tile ops of the loop body); the factory nests a `kernel_func`
that returns the prim_func, and the gemms pass `policy=T.GemmWarpPolicy.FullRow`.
The fast-math pass config is left out; the torch top-k mask builder is numpy here.

As in the original's test, the diagonal block is always kept (so no query row is left
without keys); keys past seq_len are masked by the causal test itself."""

import math

import numpy as np
import pytest

import tilec
import tilec.language as T


@tilec.jit(out_idx=[4])
def blocksparse_flashattn(batch, heads, seq_len, dim, downsample_len, is_causal):
    block_M = 64
    block_N = 64
    num_stages = 1
    threads = 128
    scale = (1.0 / dim) ** 0.5 * 1.44269504  # log2(e)
    shape = [batch, heads, seq_len, dim]
    block_mask_shape = [batch, heads, downsample_len, downsample_len]

    dtype = T.float16
    accum_dtype = T.float32
    block_mask_dtype = T.bool

    def kernel_func(block_M, block_N, num_stages, threads):
        @T.prim_func
        def blocksparse_flashattn(
            Q: T.Tensor(shape, dtype),
            K: T.Tensor(shape, dtype),
            V: T.Tensor(shape, dtype),
            BlockSparseMask: T.Tensor(block_mask_shape, block_mask_dtype),
            Output: T.Tensor(shape, dtype),
        ):
            with T.Kernel(T.ceildiv(seq_len, block_M), heads, batch, threads=threads) as (
                bx,
                by,
                bz,
            ):
                Q_shared = T.alloc_shared([block_M, dim], dtype)
                K_shared = T.alloc_shared([block_N, dim], dtype)
                V_shared = T.alloc_shared([block_N, dim], dtype)
                O_shared = T.alloc_shared([block_M, dim], dtype)
                acc_s = T.alloc_fragment([block_M, block_N], accum_dtype)
                acc_s_cast = T.alloc_fragment([block_M, block_N], dtype)
                acc_o = T.alloc_fragment([block_M, dim], accum_dtype)
                scores_max = T.alloc_fragment([block_M], accum_dtype)
                scores_max_prev = T.alloc_fragment([block_M], accum_dtype)
                scores_scale = T.alloc_fragment([block_M], accum_dtype)
                scores_sum = T.alloc_fragment([block_M], accum_dtype)
                logsum = T.alloc_fragment([block_M], accum_dtype)
                block_mask = T.alloc_fragment([downsample_len], block_mask_dtype)

                T.copy(Q[bz, by, bx * block_M : (bx + 1) * block_M, :], Q_shared)
                T.fill(acc_o, 0)
                T.fill(logsum, 0)
                T.fill(scores_max, -T.infinity(accum_dtype))

                T.copy(BlockSparseMask[bz, by, bx, :], block_mask)

                loop_range = (
                    T.min(T.ceildiv(seq_len, block_N), T.ceildiv((bx + 1) * block_M, block_N))
                    if is_causal
                    else T.ceildiv(seq_len, block_N)
                )

                for k in T.Pipelined(loop_range, num_stages=num_stages):
                    if block_mask[k] != 0:
                        T.copy(K[bz, by, k * block_N : (k + 1) * block_N, :], K_shared)
                        if is_causal:
                            for i, j in T.Parallel(block_M, block_N):
                                acc_s[i, j] = T.if_then_else(
                                    bx * block_M + i >= k * block_N + j,
                                    0,
                                    -T.infinity(acc_s.dtype),
                                )
                        else:
                            T.clear(acc_s)
                        T.gemm(
                            Q_shared, K_shared, acc_s, transpose_B=True,
                            policy=T.GemmWarpPolicy.FullRow,
                        )

                        T.copy(scores_max, scores_max_prev)
                        T.fill(scores_max, -T.infinity(accum_dtype))
                        T.reduce_max(acc_s, scores_max, dim=1, clear=False)
                        for i in T.Parallel(block_M):
                            scores_scale[i] = T.exp2(
                                scores_max_prev[i] * scale - scores_max[i] * scale
                            )
                        for i, j in T.Parallel(block_M, block_N):
                            acc_s[i, j] = T.exp2(acc_s[i, j] * scale - scores_max[i] * scale)
                        T.reduce_sum(acc_s, scores_sum, dim=1)
                        for i in T.Parallel(block_M):
                            logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]
                        T.copy(acc_s, acc_s_cast)

                        for i, j in T.Parallel(block_M, dim):
                            acc_o[i, j] *= scores_scale[i]

                        T.copy(V[bz, by, k * block_N : (k + 1) * block_N, :], V_shared)
                        T.gemm(acc_s_cast, V_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)

                for i, j in T.Parallel(block_M, dim):
                    acc_o[i, j] /= logsum[i]
                T.copy(acc_o, O_shared)
                T.copy(O_shared, Output[bz, by, bx * block_M : (bx + 1) * block_M, :])

        return blocksparse_flashattn

    return kernel_func(block_M, block_N, num_stages, threads)


def get_sparse_attn_mask_from_topk(x, topk):
    """The top-k blocks of each row of block scores x, lower triangle only."""
    order = np.argsort(-x, axis=-1, kind="stable")[..., :topk]
    dense_mask = np.zeros(x.shape, bool)
    np.put_along_axis(dense_mask, order, True, axis=-1)
    return np.tril(dense_mask)


def ref_program(q, k, v, block_mask, block):
    seq_len = q.shape[2]
    full_mask = np.kron(block_mask, np.ones((block, block), bool))[..., :seq_len, :seq_len]
    full_mask &= np.tril(np.ones((seq_len, seq_len), bool))
    q, k, v = (t.astype(np.float32) for t in (q, k, v))
    scores = np.einsum("bhsd,bhtd->bhst", q, k) / math.sqrt(q.shape[-1])
    scores = np.where(full_mask, scores, -np.inf)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    return np.einsum("bhst,bhtd->bhsd", weights, v)


@pytest.mark.parametrize(
    ("batch", "heads", "seq_len", "dim", "topk"),
    [(1, 2, 200, 32, 2), (1, 1, 256, 64, 2)],  # ragged, aligned
)
def test_block_sparse_attn(batch, heads, seq_len, dim, topk):
    rng = np.random.default_rng(27)
    q, k, v = (rng.standard_normal((batch, heads, seq_len, dim)).astype(np.float16) for _ in "qkv")
    downsample_len = math.ceil(seq_len / 64)
    x_ds = rng.standard_normal((batch, heads, downsample_len, downsample_len))
    x_ds[..., 0] = 100
    block_mask = get_sparse_attn_mask_from_topk(x_ds, topk)
    block_mask |= np.eye(downsample_len, dtype=bool)  # every query block sees its own keys

    kernel = blocksparse_flashattn(batch, heads, seq_len, dim, downsample_len, is_causal=True)
    out = kernel(q, k, v, block_mask)

    ref = ref_program(q, k, v, block_mask, 64)
    np.testing.assert_allclose(out.astype(np.float32), ref, rtol=1e-2, atol=1e-2)
