"""Port of TileLang's examples/flash_attention/example_mha_fwd_varlen.py: flash attention
over packed sequences of different lengths (`cu_seqlens_q`/`cu_seqlens_k`, as
flash_attn_varlen_func takes them), one block per (query tile, head, sequence). The
slices of the packed tensors start at offsets read from `cu_seqlens` (`Q[q_start + bx *
block_M : q_start + bx * block_M + block_M, h, :]`), whose extent tilec proves to be
block_M as TVM does. Rows past a sequence's end are masked in the scores and, unlike the
upstream kernel (which leaves them to TMA's clipping at the tensor's end), not written,
so blocks of neighbouring sequences never write the same rows."""

import math

import numpy as np
import pytest

import tilec
import tilec.language as T


@tilec.jit(out_idx=[6])
def flashattn(batch_size, UQ, UKV, heads, dim, is_causal, block_M=32, block_N=32,
              num_stages=1, threads=128):
    scale = (1.0 / dim) ** 0.5 * 1.44269504  # log2(e)
    dtype = T.float16
    accum_dtype = T.float32

    @T.prim_func
    def main(
        Q_unpad: T.Tensor([UQ, heads, dim], dtype),
        K_unpad: T.Tensor([UKV, heads, dim], dtype),
        V_unpad: T.Tensor([UKV, heads, dim], dtype),
        cu_seqlens_q: T.Tensor([batch_size + 1], T.int32),
        cu_seqlens_k: T.Tensor([batch_size + 1], T.int32),
        max_seqlen_q: T.int32,
        Output_unpad: T.Tensor([UQ, heads, dim], dtype),
    ):
        with T.Kernel(T.ceildiv(max_seqlen_q, block_M), heads, batch_size,
                      threads=threads) as (bx, by, bz):
            Q_shared = T.alloc_shared([block_M, dim], dtype)
            K_shared = T.alloc_shared([block_N, dim], dtype)
            V_shared = T.alloc_shared([block_N, dim], dtype)
            acc_s = T.alloc_fragment([block_M, block_N], accum_dtype)
            acc_s_cast = T.alloc_fragment([block_M, block_N], dtype)
            acc_o = T.alloc_fragment([block_M, dim], accum_dtype)
            scores_max = T.alloc_fragment([block_M], accum_dtype)
            scores_max_prev = T.alloc_fragment([block_M], accum_dtype)
            scores_scale = T.alloc_fragment([block_M], accum_dtype)
            scores_sum = T.alloc_fragment([block_M], accum_dtype)
            logsum = T.alloc_fragment([block_M], accum_dtype)

            q_start = cu_seqlens_q[bz]
            k_start = cu_seqlens_k[bz]
            q_len = cu_seqlens_q[bz + 1] - q_start
            k_len = cu_seqlens_k[bz + 1] - k_start

            T.copy(Q_unpad[q_start + bx * block_M : q_start + bx * block_M + block_M, by, :],
                   Q_shared)
            T.fill(acc_o, 0)
            T.fill(logsum, 0)
            T.fill(scores_max, -T.infinity(accum_dtype))

            for k in T.Pipelined(T.ceildiv(k_len, block_N), num_stages=num_stages):
                T.copy(K_unpad[k_start + k * block_N : k_start + k * block_N + block_N, by, :],
                       K_shared)
                for i, j in T.Parallel(block_M, block_N):
                    hidden = (bx * block_M + i >= q_len) or (k * block_N + j >= k_len)
                    if is_causal:
                        hidden = hidden or (bx * block_M + i < k * block_N + j)
                    acc_s[i, j] = T.if_then_else(hidden, -T.infinity(accum_dtype), 0)
                T.gemm(Q_shared, K_shared, acc_s, transpose_B=True,
                       policy=T.GemmWarpPolicy.FullRow)
                T.copy(scores_max, scores_max_prev)
                T.reduce_max(acc_s, scores_max, dim=1, clear=False)
                for i in T.Parallel(block_M):
                    scores_scale[i] = T.exp2(scores_max_prev[i] * scale - scores_max[i] * scale)
                for i, j in T.Parallel(block_M, block_N):
                    acc_s[i, j] = T.exp2(acc_s[i, j] * scale - scores_max[i] * scale)
                T.reduce_sum(acc_s, scores_sum, dim=1)
                for i in T.Parallel(block_M):
                    logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]
                T.copy(acc_s, acc_s_cast)
                for i, j in T.Parallel(block_M, dim):
                    acc_o[i, j] *= scores_scale[i]
                T.copy(V_unpad[k_start + k * block_N : k_start + k * block_N + block_N, by, :],
                       V_shared)
                T.gemm(acc_s_cast, V_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)

            for i, j in T.Parallel(block_M, dim):
                if bx * block_M + i < q_len:
                    Output_unpad[q_start + bx * block_M + i, by, j] = acc_o[i, j] / logsum[i]

    return main


def reference(q, k, v, cu_q, cu_k, causal):
    out = np.zeros(q.shape, np.float32)
    scale = 1.0 / math.sqrt(q.shape[-1])
    for b in range(len(cu_q) - 1):
        qs, ks = slice(cu_q[b], cu_q[b + 1]), slice(cu_k[b], cu_k[b + 1])
        qb, kb, vb = (t.astype(np.float32).transpose(1, 0, 2) for t in (q[qs], k[ks], v[ks]))
        scores = qb @ kb.transpose(0, 2, 1) * scale
        if causal:
            rows, cols = scores.shape[1:]
            scores = np.where(np.tril(np.ones((rows, cols), bool)), scores, -np.inf)
        weights = np.exp(scores - scores.max(-1, keepdims=True))
        weights /= weights.sum(-1, keepdims=True)
        out[qs] = (weights @ vb).transpose(1, 0, 2)
    return out


@pytest.mark.parametrize(("q_lens", "k_lens", "causal"), [
    ([37, 64, 5], [50, 20, 70], False),  # ragged: no length a multiple of the tiles
    ([37, 64, 5], None, True),
])
def test_mha_fwd_varlen(q_lens, k_lens, causal):
    if causal:  # causal attention is square per sequence here
        k_lens = q_lens
    heads, dim = 2, 32
    cu_q = np.concatenate([[0], np.cumsum(q_lens)]).astype(np.int32)
    cu_k = np.concatenate([[0], np.cumsum(k_lens)]).astype(np.int32)
    rng = np.random.default_rng(len(q_lens) + causal)
    q = rng.standard_normal((cu_q[-1], heads, dim)).astype(np.float16)
    k, v = (rng.standard_normal((cu_k[-1], heads, dim)).astype(np.float16) for _ in range(2))
    kernel = flashattn(len(q_lens), int(cu_q[-1]), int(cu_k[-1]), heads, dim, causal)
    out = kernel(q, k, v, cu_q, cu_k, max(q_lens))
    np.testing.assert_allclose(out.astype(np.float32), reference(q, k, v, cu_q, cu_k, causal),
                               rtol=1e-2, atol=1e-2)
