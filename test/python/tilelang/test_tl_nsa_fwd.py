"""TileLang's examples/deepseek_nsa/example_tilelang_nsa_fwd.py (factory form,
`out_idx=[-1]`, as before the eager migration; the kernel body is unchanged since): the
selected-block branch of native sparse attention. One block per (query token, value tile,
batch * KV head) handles the G query heads of a KV head; it walks the token's list of
selected key blocks (`BlockIndices`), skipping entries past the token with a Python `if` on
a value read from the index tensor, copies the key / value block through a slice that
starts at that run-time offset, applies the causal mask inside the block and runs the
online softmax with two gemms (`policy=T.GemmWarpPolicy.FullRow`). The loop variable `i`
of T.Pipelined is reused by the T.Parallel loops of its body, as upstream.

The pass configs are left out; `tilelang.math.next_power_of_2` / `tilelang.cdiv` are
written out. The numpy reference is reference.py's `naive_nsa` (gates of one, no sliding
window, per-token block counts). The kernel reads whole dim-wide tiles (dim is a power of
two, at most 128). Upstream draws a token's blocks from those before its own block (block 0
for the first block's tokens); here the token's own block is a candidate too, so the causal
mask inside a block and, in the ragged case (a sequence length that is not a multiple of
the block size), the last block running past the end are both exercised.

The extent of `K[i_b, i_s : i_s + BS, i_h, :]`, with `i_s` an int32 product of an element
of BlockIndices and BS, is proven from the int32 arithmetic, as TVM's simplifier proves it."""

import numpy as np
import pytest

import tilec
import tilec.language as T


def next_power_of_2(n):
    return 1 << (n - 1).bit_length()


def cdiv(a, b):
    return -(-a // b)


@tilec.jit(out_idx=[-1])
def native_sparse_attention(batch, heads, seq_len, dim, is_causal, scale=None, block_size=64,
                            groups=1, selected_blocks=16):
    if scale is None:  # noqa: SIM108
        scale = (1.0 / dim) ** 0.5 * 1.44269504  # log2(e)
    else:
        scale = scale * 1.44269504  # log2(e)

    head_kv = heads // groups
    q_shape = [batch, seq_len, heads, dim]
    kv_shape = [batch, seq_len, head_kv, dim]
    block_indices_shape = [batch, seq_len, head_kv, selected_blocks]
    block_indices_dtype = T.int32
    dtype = T.float16
    accum_dtype = T.float32
    block_S = block_size
    block_T = min(128, next_power_of_2(dim))

    NK = cdiv(dim, block_T)
    NV = cdiv(dim, block_T)
    assert NK == 1, "The key dimension can not be larger than 256"

    S = selected_blocks
    G = groups
    BS = block_S
    BK = BV = block_T
    num_stages = 2
    threads = 32

    @T.prim_func
    def native_sparse_attention(
        Q: T.Tensor(q_shape, dtype),
        K: T.Tensor(kv_shape, dtype),
        V: T.Tensor(kv_shape, dtype),
        BlockIndices: T.Tensor(block_indices_shape, block_indices_dtype),
        Output: T.Tensor(q_shape, dtype),
    ):
        with T.Kernel(seq_len, NV, batch * head_kv, threads=threads) as (bx, by, bz):
            Q_shared = T.alloc_shared([G, BK], dtype)
            K_shared = T.alloc_shared([BS, BK], dtype)
            V_shared = T.alloc_shared([BS, BV], dtype)
            O_shared = T.alloc_shared([G, BV], dtype)

            acc_s = T.alloc_fragment([G, BS], accum_dtype)
            acc_s_cast = T.alloc_fragment([G, BS], dtype)
            acc_o = T.alloc_fragment([G, BV], accum_dtype)
            scores_max = T.alloc_fragment([G], accum_dtype)
            scores_max_prev = T.alloc_fragment([G], accum_dtype)
            scores_scale = T.alloc_fragment([G], accum_dtype)
            scores_sum = T.alloc_fragment([G], accum_dtype)
            logsum = T.alloc_fragment([G], accum_dtype)

            i_t, i_v, i_bh = bx, by, bz
            i_b, i_h = i_bh // head_kv, i_bh % head_kv

            NS = S
            T.copy(Q[i_b, i_t, i_h * G : (i_h + 1) * G, :], Q_shared)

            T.fill(acc_o, 0)
            T.fill(logsum, 0)
            T.fill(scores_max, -T.infinity(accum_dtype))

            for i in T.Pipelined(NS, num_stages=num_stages):
                i_s = BlockIndices[i_b, i_t, i_h, i] * BS
                if i_s <= i_t and i_s >= 0:
                    # [BS, BK]
                    T.copy(K[i_b, i_s : i_s + BS, i_h, :], K_shared)

                    if is_causal:
                        for i, j in T.Parallel(G, BS):
                            acc_s[i, j] = T.if_then_else(
                                i_t >= (i_s + j), 0, -T.infinity(acc_s.dtype)
                            )
                    else:
                        T.clear(acc_s)

                    T.gemm(Q_shared, K_shared, acc_s, transpose_B=True,
                           policy=T.GemmWarpPolicy.FullRow)

                    # Softmax
                    T.copy(scores_max, scores_max_prev)
                    T.fill(scores_max, -T.infinity(accum_dtype))
                    T.reduce_max(acc_s, scores_max, dim=1, clear=True)
                    for i in T.Parallel(G):
                        scores_scale[i] = T.exp2(scores_max_prev[i] * scale - scores_max[i] * scale)
                    for i, j in T.Parallel(G, BS):
                        acc_s[i, j] = T.exp2(acc_s[i, j] * scale - scores_max[i] * scale)
                    T.reduce_sum(acc_s, scores_sum, dim=1)
                    for i in T.Parallel(G):
                        logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]
                    T.copy(acc_s, acc_s_cast)

                    # Rescale
                    for i, j in T.Parallel(G, BV):
                        acc_o[i, j] *= scores_scale[i]

                    # V * softmax(Q * K)
                    T.copy(V[i_b, i_s : i_s + BS, i_h, i_v * BV : (i_v + 1) * BV], V_shared)
                    T.gemm(acc_s_cast, V_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)

            for i, j in T.Parallel(G, BV):
                acc_o[i, j] /= logsum[i]
            T.copy(acc_o, O_shared)
            T.copy(O_shared, Output[i_b, i_t, i_h * G : (i_h + 1) * G, i_v * BV : (i_v + 1) * BV])

    return native_sparse_attention


def naive_nsa(q, k, v, block_indices, block_counts, block_size, scale=None):
    """reference.py's naive_nsa for gates of one, no window, fixed-length batches."""
    if scale is None:
        scale = k.shape[-1] ** -0.5
    B, T_, HQ, _ = q.shape
    G = HQ // k.shape[2]
    q, k, v = (x.astype(np.float32) for x in (q, k, v))
    # per query head: key heads, selected blocks and counts repeated over the group
    k, v, block_indices = (np.repeat(x, G, axis=2) for x in (k, v, block_indices))
    block_counts = np.repeat(block_counts, G, axis=2)
    S = block_indices.shape[-1]
    c = np.repeat(np.arange(S), block_size)  # slot of each gathered key
    o = np.zeros_like(v)
    for b in range(B):
        for i_q in range(T_):
            for h in range(HQ):
                i_i = (block_indices[b, i_q, h][:, None] * block_size
                       + np.arange(block_size)).reshape(-1)
                keys = np.clip(i_i, 0, T_ - 1)
                attn = (k[b, keys, h] @ (q[b, i_q, h] * scale))
                attn[(i_i < 0) | (i_i > i_q) | (c >= block_counts[b, i_q, h])] = -np.inf
                attn = np.exp(attn - attn.max())
                attn /= attn.sum()
                o[b, i_q, h] = attn @ v[b, keys, h]
    return o


@pytest.mark.parametrize(
    ("B", "SEQ_LEN", "H", "HQ", "D", "S", "block_size", "scale"),
    [
        (2, 50, 1, 16, 32, 2, 16, 0.1),  # ragged: the last key block runs past the end
        (1, 64, 2, 32, 64, 2, 16, None),
    ],
)
def test_nsa_fwd(B, SEQ_LEN, H, HQ, D, S, block_size, scale):
    rng = np.random.default_rng(0)
    Q = rng.standard_normal((B, SEQ_LEN, HQ, D)).astype(np.float16)
    K = rng.standard_normal((B, SEQ_LEN, H, D)).astype(np.float16)
    V = rng.standard_normal((B, SEQ_LEN, H, D)).astype(np.float16)

    block_indices = np.full((B, SEQ_LEN, H, S), SEQ_LEN, np.int64)
    block_counts = np.zeros((B, SEQ_LEN, H), np.int64)
    for b in range(B):
        for t in range(SEQ_LEN):
            for h in range(H):
                i_i = rng.permutation(t // block_size + 1)[:S]
                block_indices[b, t, h, : len(i_i)] = i_i
                block_counts[b, t, h] = (block_indices[b, t, h] != SEQ_LEN).sum()
    block_indices = np.sort(block_indices, -1)

    kernel = native_sparse_attention(batch=B, heads=HQ, seq_len=SEQ_LEN, dim=D, is_causal=True,
                                     block_size=block_size, groups=HQ // H, selected_blocks=S,
                                     scale=scale)
    out = kernel(Q, K, V, block_indices.astype(np.int32))

    ref = naive_nsa(Q, K, V, block_indices, block_counts, block_size, scale)
    np.testing.assert_allclose(out.astype(np.float32), ref, rtol=1e-2, atol=1e-2)
