"""TileLang's examples/deepseek_v32/sparse_mla_fwd.py, the DeepSeek-V3.2 sparse MLA forward:
each query token attends only to the top-k KV positions listed in `Indices` (one list per
token and KV group). Per block of key positions the kernel gathers the rows of KV through
the index tensor inside T.Parallel (`KV[b_i, Indices[...], g_i, d_i]`), masks positions past
the query (a bool fragment fed to T.if_then_else), scores with two gemms into one
accumulator (the latent part and the rope tail, read as column slices `Q_shared[:, :D]` /
`Q_shared[:, D:]` of one shared tile), runs the online softmax, and returns the output and
the base-2 log-sum-exp. `T.dynamic` batch / seq_len / seq_len_kv; the head count is padded to
a power of two (at least 16) inside the kernel.

Ported from the current kernel body in the `@tilelang.jit(out_idx=[-2, -1])` factory form
the example had before the eager migration; the pass configs are left out and
`tilelang.math.next_power_of_2` / `tilelang.cdiv` are written out. As upstream asserts, dim
and tail_dim must be powers of two and topk a multiple of block_I; unused index slots hold
seq_len_kv (out of range, masked), as in the upstream test. The ragged case has 12 heads
(padded to 16 in the kernel, so the Q / Output / Lse copies run past the head dim) and
sequence lengths that are not multiples of anything; the aligned one has 2 KV groups."""

import numpy as np
import pytest
from ml_dtypes import bfloat16

import tilec
import tilec.language as T


def next_power_of_2(n):
    return 1 << (n - 1).bit_length()


def cdiv(a, b):
    return -(-a // b)


@tilec.jit(out_idx=[-2, -1])
def sparse_mla_fwd(
    heads,
    dim,
    tail_dim,
    topk,
    kv_group=1,
    sm_scale=None,
    is_causal=True,
    CP0=True,
    block_I=64,
    num_stages=2,
    threads=256,
):
    assert dim == next_power_of_2(dim), f"haven't check padding correctness yet, dim={dim}"
    assert tail_dim == next_power_of_2(tail_dim), (
        f"haven't check padding correctness yet, dim={tail_dim}"
    )
    assert is_causal == True, "non-casual is not supported"  # noqa: E712
    assert topk % block_I == 0, (
        "otherwise will load some index=0 thus causing wrong kv to be loaded"
    )
    if sm_scale is None:
        sm_scale = (1.0 / (dim + tail_dim)) ** 0.5 * 1.44269504  # log2(e)
    else:
        sm_scale = sm_scale * 1.44269504  # log2(e)

    batch = T.dynamic("batch")
    seq_len = T.dynamic("seq_len")
    seq_len_kv = T.dynamic("seq_len_kv")

    head_kv = heads // kv_group
    q_shape = [batch, seq_len, heads, dim + tail_dim]
    kv_shape = [batch, seq_len_kv, kv_group, dim + tail_dim]
    o_shape = [batch, seq_len, heads, dim]
    indices_shape = [batch, seq_len, kv_group, topk]
    lse_shape = [batch, seq_len, heads]
    indices_dtype = T.int32
    dtype = T.bfloat16
    accum_dtype = T.float32

    G = kv_group  # noqa: F841
    H = head_kv
    padded_H = max(next_power_of_2(head_kv), 16)
    if padded_H != H:
        assert kv_group == 1, (
            "here we solve the H padding automatically, other wise you should handle Q copy "
            "and Output copy with your mask (when kv_group == 1, use g_i * padded_H:(g_i+1) "
            "* padded_H would be handled automatically)"
        )
    BI = block_I
    NI = cdiv(topk, block_I)
    D = dim
    D_tail = tail_dim

    if head_kv > 64:
        assert head_kv % 64 == 0, "head_kv should be a multiple of 64"
        REPLICATE_H = head_kv // 64
    else:
        REPLICATE_H = 1

    H_per_block = padded_H if REPLICATE_H == 1 else 64

    @T.prim_func
    def main(
        Q: T.Tensor(q_shape, dtype),  # type: ignore
        KV: T.Tensor(kv_shape, dtype),  # type: ignore
        Indices: T.Tensor(indices_shape, indices_dtype),  # type: ignore
        Output: T.Tensor(o_shape, dtype),  # type: ignore
        Lse: T.Tensor(lse_shape, accum_dtype),  # type: ignore
    ):
        with T.Kernel(seq_len * REPLICATE_H, batch, kv_group, threads=threads) as (
            bx,
            by,
            bz,
        ):
            Q_shared = T.alloc_shared([H_per_block, D + D_tail], dtype)
            KV_shared = T.alloc_shared([BI, D], dtype)
            K_tail_shared = T.alloc_shared([BI, D_tail], dtype)
            mask = T.alloc_fragment([BI], "bool")

            acc_o = T.alloc_fragment([H_per_block, D], accum_dtype)
            acc_s = T.alloc_fragment([H_per_block, BI], accum_dtype)
            S_shared = T.alloc_shared([H_per_block, BI], dtype)
            sumexp = T.alloc_fragment([H_per_block], accum_dtype)
            sumexp_i = T.alloc_fragment([H_per_block], accum_dtype)
            alpha = T.alloc_fragment([H_per_block], accum_dtype)
            m_i = T.alloc_fragment([H_per_block], accum_dtype)
            m_i_prev = T.alloc_fragment([H_per_block], accum_dtype)

            T.fill(acc_o, 0)
            T.fill(sumexp, 0)
            T.fill(m_i, -(2**30))  # avoid -inf - inf to cause nan

            b_i, g_i = by, bz
            s_i = bx if REPLICATE_H == 1 else (bx // REPLICATE_H)
            q_i = s_i
            max_kv_i = q_i

            H0 = g_i * padded_H + (0 if REPLICATE_H == 1 else (bx % REPLICATE_H) * 64)
            H1 = H0 + H_per_block

            # TODO: merge the statements when the compiler has better support for
            # non-power-of-2 extents.
            T.copy(Q[b_i, s_i, H0:H1, :D], Q_shared[:, :D])
            T.copy(Q[b_i, s_i, H0:H1, D:], Q_shared[:, D:])

            for i_i in T.Pipelined(NI, num_stages=num_stages):
                for bi_i in T.Parallel(BI):
                    mask[bi_i] = Indices[b_i, s_i, g_i, i_i * BI + bi_i] <= max_kv_i

                for bi_i, d_i in T.Parallel(BI, D):
                    KV_shared[bi_i, d_i] = KV[
                        b_i, Indices[b_i, s_i, g_i, i_i * BI + bi_i], g_i, d_i
                    ]
                for bi_i, d_i in T.Parallel(BI, D_tail):
                    K_tail_shared[bi_i, d_i] = KV[
                        b_i, Indices[b_i, s_i, g_i, i_i * BI + bi_i], g_i, D + d_i
                    ]

                for h_i, bi_i in T.Parallel(H_per_block, BI):
                    acc_s[h_i, bi_i] = T.if_then_else(mask[bi_i], 0, -T.infinity(acc_s.dtype))
                T.gemm(
                    Q_shared[:, :D],
                    KV_shared,
                    acc_s,
                    transpose_B=True,
                    policy=T.GemmWarpPolicy.FullRow,
                )
                T.gemm(
                    Q_shared[:, D:],
                    K_tail_shared,
                    acc_s,
                    transpose_B=True,
                    policy=T.GemmWarpPolicy.FullRow,
                )
                T.copy(m_i, m_i_prev)
                T.reduce_max(acc_s, m_i, dim=1, clear=False)
                for h_i in T.Parallel(H_per_block):
                    m_i[h_i] = T.max(m_i[h_i], m_i_prev[h_i])
                for h_i in T.Parallel(H_per_block):
                    alpha[h_i] = T.exp2((m_i_prev[h_i] - m_i[h_i]) * sm_scale)
                for h_i, bi_i in T.Parallel(H_per_block, BI):
                    acc_s[h_i, bi_i] = T.exp2(acc_s[h_i, bi_i] * sm_scale - m_i[h_i] * sm_scale)
                T.reduce_sum(acc_s, sumexp_i, dim=1)
                for h_i in T.Parallel(H_per_block):
                    sumexp[h_i] = sumexp[h_i] * alpha[h_i] + sumexp_i[h_i]
                for h_i, d_i in T.Parallel(H_per_block, D):
                    acc_o[h_i, d_i] = acc_o[h_i, d_i] * alpha[h_i]

                T.copy(acc_s, S_shared)
                T.gemm(S_shared, KV_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)

            # Rescale
            for h_i, d_i in T.Parallel(H_per_block, D):
                acc_o[h_i, d_i] /= sumexp[h_i]
            for h_i in T.Parallel(H_per_block):
                sumexp[h_i] = T.log2(sumexp[h_i]) + m_i[h_i] * sm_scale

            T.copy(acc_o, Output[b_i, s_i, H0:H1, :])
            T.copy(sumexp, Lse[b_i, s_i, H0:H1])

    return main


def reference(q, kv, indices, dim):
    """The upstream torch reference in numpy, plus the kernel's base-2 log-sum-exp."""
    q, kv = q.astype(np.float32), kv.astype(np.float32)
    b, sq, h, dim_q = q.shape
    _, sk, g, _ = kv.shape
    v = kv[..., :dim]
    # (b, g, sq, sk + 1): the extra column takes the out-of-range slots
    mask = np.zeros((b, g, sq, sk + 1), bool)
    bi, si, gi, _ = np.indices(indices.shape)
    mask[bi, gi, si, indices] = True
    mask = mask[..., :-1] & (np.arange(sq)[:, None] >= np.arange(sk)[None, :])
    score = np.einsum("bmghd,bngd->bghmn", q.reshape(b, sq, g, -1, dim_q), kv)
    score = np.where(mask[:, :, None], score, -np.inf) * dim_q**-0.5
    m = score.max(-1, keepdims=True)
    p = np.exp(score - m)
    lse = (np.log(p.sum(-1)) + m[..., 0]) / np.log(2)  # (b, g, h/g, sq)
    p /= p.sum(-1, keepdims=True)
    o = np.einsum("bghmn,bngd->bmghd", p, v).reshape(b, sq, h, dim)
    return o, lse.reshape(b, h, sq).transpose(0, 2, 1)


@pytest.mark.parametrize(
    ("B", "S", "SKV", "H", "HKV"),
    [(2, 83, 90, 12, 1), (1, 64, 128, 32, 2)],  # ragged (padded heads), aligned (2 groups)
)
def test_sparse_mla_fwd(B, S, SKV, H, HKV):
    DV, tail, topk = 64, 32, 64
    rng = np.random.default_rng(0)
    q = rng.standard_normal((B, S, H, DV + tail)).astype(bfloat16)
    kv = rng.standard_normal((B, SKV, HKV, DV + tail)).astype(bfloat16)
    indices = np.full((B, S, HKV, topk), SKV, np.int32)
    for b in range(B):
        for t in range(S):
            for h in range(HKV):
                i_i = rng.permutation(max(1, t))[:topk]
                indices[b, t, h, : len(i_i)] = i_i

    kernel = sparse_mla_fwd(H, DV, tail, topk, HKV, block_I=32)
    out, lse = kernel(q, kv, indices)

    ref_out, ref_lse = reference(q, kv, indices, DV)
    np.testing.assert_allclose(out.astype(np.float32), ref_out, rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(lse, ref_lse, rtol=1e-3, atol=1e-3)
