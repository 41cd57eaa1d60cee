"""FlashMLA's prefill attention as tilec kernels: sparse MLA (each query token attends to
the KV rows its top-k indices name) and dense variable-length attention (packed
sequences described by cumulative lengths, optional bottom-right causal mask, GQA).

Both run FlashAttention's online softmax over key tiles: scores in float32, a running
row max and sum, the probabilities rounded to bfloat16 for the P @ V product (as
upstream's kernels do), and one rescale at the end. Scores are kept in natural units
(`q.k * scale`) and exponentiated as exp2 of their log2(e) multiple. A row with no
visible key never sees a finite max; its max is taken as 0 for the exponentials so that
no `-inf - -inf` appears, and the epilogue gives it the values upstream defines.
Sequence lengths, head counts and top-k are symbolic: one build serves every shape.
"""

from __future__ import annotations

import tilec.language as T

LOG2E = 1.4426950408889634


@T.macro
def _online_softmax_step(acc_s, p_shared, m, m_prev, alpha, l_sum, l_blk, acc_o,
                         rows: int, cols: int, dv: int):
    """Folds one tile of masked scores `acc_s` (natural units, -inf where hidden) into the
    running max `m`, sum `l_sum` and output `acc_o`; leaves P in `p_shared` (bfloat16)
    for the caller's P @ V gemm."""
    T.copy(m, m_prev)
    T.reduce_max(acc_s, m, dim=1, clear=False)
    for i in T.Parallel(rows):
        # m_prev is -inf until a row sees a key: alpha is then 0, and m (still -inf
        # when this tile hides the whole row) is replaced by 0 below
        alpha[i] = T.exp2((m_prev[i] - T.if_then_else(m[i] == -T.infinity("float32"), 0.0,
                                                      m[i])) * LOG2E)
    for i, j in T.Parallel(rows, cols):
        acc_s[i, j] = T.exp2((acc_s[i, j] - T.if_then_else(
            m[i] == -T.infinity("float32"), 0.0, m[i])) * LOG2E)
    T.reduce_sum(acc_s, l_blk, dim=1)
    for i in T.Parallel(rows):
        l_sum[i] = l_sum[i] * alpha[i] + l_blk[i]
    for i, d in T.Parallel(rows, dv):
        acc_o[i, d] *= alpha[i]
    T.copy(acc_s, p_shared)


def sparse_prefill(d_qk: int, d_v: int, has_sink: bool, has_topk_length: bool,
                   block_h: int = 16, block_i: int = 64) -> T.PrimFunc:
    """`flash_mla_sparse_fwd`: one block per (query token, `block_h` heads). Each key
    tile gathers `block_i` rows of KV through the token's indices; an index is valid when
    0 <= index < s_kv and its slot is below topk_length (if given). Invalid rows are
    gathered as zeros, so a NaN elsewhere in KV never reaches the product.
    `Sink`/`TopkLength` are read only when `has_sink`/`has_topk_length` (otherwise the
    call passes empty tensors)."""
    S_Q, S_KV, H, TOPK = T.symbolic("S_Q"), T.symbolic("S_KV"), T.symbolic("H"), T.symbolic(
        "TOPK")

    @T.prim_func
    def flash_mla_sparse_fwd(
        Q: T.Tensor((S_Q, H, d_qk), "bfloat16"),
        KV: T.Tensor((S_KV, 1, d_qk), "bfloat16"),
        Indices: T.Tensor((S_Q, 1, TOPK), "int32"),
        Sink: T.Tensor((T.symbolic("NUM_SINK"),), "float32"),
        TopkLength: T.Tensor((T.symbolic("NUM_TOPK_LENGTH"),), "int32"),
        sm_scale: T.float32,
        Out: T.Tensor((S_Q, H, d_v), "bfloat16"),
        MaxLogits: T.Tensor((S_Q, H), "float32"),
        Lse: T.Tensor((S_Q, H), "float32"),
    ):
        with T.Kernel(T.ceildiv(H, block_h), S_Q, threads=128) as (bx, s):
            q_shared = T.alloc_shared((block_h, d_qk), "bfloat16")
            kv_shared = T.alloc_shared((block_i, d_qk), "bfloat16")
            p_shared = T.alloc_shared((block_h, block_i), "bfloat16")
            acc_s = T.alloc_fragment((block_h, block_i), "float32")
            acc_o = T.alloc_fragment((block_h, d_v), "float32")
            rows = T.alloc_fragment((block_i,), "int32")  # the KV row, or -1: invalid
            m = T.alloc_fragment((block_h,), "float32")
            m_prev = T.alloc_fragment((block_h,), "float32")
            alpha = T.alloc_fragment((block_h,), "float32")
            l_sum = T.alloc_fragment((block_h,), "float32")
            l_blk = T.alloc_fragment((block_h,), "float32")
            scale = T.alloc_fragment((block_h,), "float32")
            lse = T.alloc_fragment((block_h,), "float32")
            limit = T.alloc_var("int32")

            h0 = bx * block_h
            T.copy(Q[s, h0, 0], q_shared)
            T.fill(acc_o, 0)
            T.fill(l_sum, 0)
            T.fill(m, -T.infinity("float32"))
            limit = TOPK
            if has_topk_length:
                limit = T.max(T.min(TopkLength[s], TOPK), 0)
            for t in T.serial(T.ceildiv(limit, block_i)):
                for j in T.Parallel(block_i):
                    rows[j] = -1
                    if t * block_i + j < limit:
                        rows[j] = Indices[s, 0, t * block_i + j]
                    rows[j] = T.if_then_else(rows[j] < S_KV, rows[j], -1)
                for j, d in T.Parallel(block_i, d_qk):
                    if rows[j] >= 0:
                        kv_shared[j, d] = KV[rows[j], 0, d]
                    else:
                        kv_shared[j, d] = T.bfloat16(0)
                T.gemm(q_shared, kv_shared, acc_s, transpose_B=True, clear_accum=True)
                for i, j in T.Parallel(block_h, block_i):
                    acc_s[i, j] = T.if_then_else(rows[j] >= 0, acc_s[i, j] * sm_scale,
                                                 -T.infinity("float32"))
                _online_softmax_step(acc_s, p_shared, m, m_prev, alpha, l_sum, l_blk, acc_o,
                                     block_h, block_i, d_v)
                T.gemm(p_shared, kv_shared[:, :d_v], acc_o)

            for i in T.Parallel(block_h):
                # a head with no valid key: out 0, max_logits -inf, lse +inf (upstream's
                # "lonely" rows); the sink scales O only, as exp(lse) / (exp(lse) + exp(sink))
                if has_sink:
                    sink = Sink[T.min(h0 + i, H - 1)]
                    scale[i] = 1.0 / (l_sum[i] + T.exp2((sink - m[i]) * LOG2E))
                else:
                    scale[i] = 1.0 / l_sum[i]
                scale[i] = T.if_then_else(l_sum[i] == 0.0, 0.0, scale[i])
                lse[i] = T.if_then_else(l_sum[i] == 0.0, T.infinity("float32"),
                                        T.log(l_sum[i]) + m[i])
            for i, d in T.Parallel(block_h, d_v):
                acc_o[i, d] *= scale[i]
            T.copy(acc_o, Out[s, h0, 0])
            T.copy(m, MaxLogits[s, h0:h0 + block_h])
            T.copy(lse, Lse[s, h0:h0 + block_h])

    return flash_mla_sparse_fwd


def varlen_prefill(d_qk: int, d_v: int, causal: bool, block_m: int = 32,
                   block_n: int = 32) -> T.PrimFunc:
    """`flash_attn_varlen_func`'s forward: one block per (query tile, query head,
    sequence). Query head h reads KV head h // (H / HK) (GQA). With `causal`, query row i
    of a sequence sees key j when j <= i + (k_len - q_len) (the mask aligned to the
    bottom-right corner, upstream's). The LSE is written (H, total_q) so the caller's
    transposed view has upstream's strides. Rows with no visible key get out 0, lse -inf."""
    TQ, TK, H, HK = T.symbolic("TQ"), T.symbolic("TK"), T.symbolic("H"), T.symbolic("HK")
    NUM_SEQS = T.symbolic("NUM_SEQS_PLUS_1")

    @T.prim_func
    def flash_attn_varlen_fwd(
        Q: T.Tensor((TQ, H, d_qk), "bfloat16"),
        K: T.Tensor((TK, HK, d_qk), "bfloat16"),
        V: T.Tensor((TK, HK, d_v), "bfloat16"),
        CuSeqlensQ: T.Tensor((NUM_SEQS,), "int32"),
        CuSeqlensK: T.Tensor((NUM_SEQS,), "int32"),
        max_seqlen_q: T.int32,
        softmax_scale: T.float32,
        Out: T.Tensor((TQ, H, d_v), "bfloat16"),
        LseT: T.Tensor((H, TQ), "float32"),
    ):
        with T.Kernel(T.ceildiv(max_seqlen_q, block_m), H, NUM_SEQS - 1, threads=128) as (
                bx, h, b):
            q_shared = T.alloc_shared((block_m, d_qk), "bfloat16")
            k_shared = T.alloc_shared((block_n, d_qk), "bfloat16")
            v_shared = T.alloc_shared((block_n, d_v), "bfloat16")
            p_shared = T.alloc_shared((block_m, block_n), "bfloat16")
            acc_s = T.alloc_fragment((block_m, block_n), "float32")
            acc_o = T.alloc_fragment((block_m, d_v), "float32")
            m = T.alloc_fragment((block_m,), "float32")
            m_prev = T.alloc_fragment((block_m,), "float32")
            alpha = T.alloc_fragment((block_m,), "float32")
            l_sum = T.alloc_fragment((block_m,), "float32")
            l_blk = T.alloc_fragment((block_m,), "float32")
            k_end = T.alloc_var("int32")

            q_start = CuSeqlensQ[b]
            k_start = CuSeqlensK[b]
            q_len = CuSeqlensQ[b + 1] - q_start
            k_len = CuSeqlensK[b + 1] - k_start
            kv_head = h // (H // HK)
            first = bx * block_m
            shift = k_len - q_len  # query row i sees keys up to i + shift when causal

            T.copy(Q[q_start + first:q_start + first + block_m, h, :], q_shared)
            T.fill(acc_o, 0)
            T.fill(l_sum, 0)
            T.fill(m, -T.infinity("float32"))
            k_end = k_len
            if first >= q_len:
                k_end = 0
            if causal:
                k_end = T.max(T.min(k_end, first + block_m + shift), 0)
            for t in T.serial(T.ceildiv(k_end, block_n)):
                T.copy(K[k_start + t * block_n:k_start + t * block_n + block_n, kv_head, :],
                       k_shared)
                T.copy(V[k_start + t * block_n:k_start + t * block_n + block_n, kv_head, :],
                       v_shared)
                T.gemm(q_shared, k_shared, acc_s, transpose_B=True, clear_accum=True)
                for i, j in T.Parallel(block_m, block_n):
                    hidden = t * block_n + j >= k_len
                    if causal:
                        hidden = hidden or t * block_n + j > first + i + shift
                    acc_s[i, j] = T.if_then_else(hidden, -T.infinity("float32"),
                                                 acc_s[i, j] * softmax_scale)
                _online_softmax_step(acc_s, p_shared, m, m_prev, alpha, l_sum, l_blk, acc_o,
                                     block_m, block_n, d_v)
                T.gemm(p_shared, v_shared, acc_o)

            for i, d in T.Parallel(block_m, d_v):
                if first + i < q_len:
                    Out[q_start + first + i, h, d] = T.cast(
                        T.if_then_else(l_sum[i] == 0.0, 0.0, acc_o[i, d] / l_sum[i]),
                        "bfloat16")
            for i in T.Parallel(block_m):
                if first + i < q_len:
                    LseT[h, q_start + first + i] = T.if_then_else(
                        l_sum[i] == 0.0, -T.infinity("float32"), T.log(l_sum[i]) + m[i])

    return flash_attn_varlen_fwd


def strided_to_contiguous(dtype: str, block_c: int = 128) -> T.PrimFunc:
    """Copies a 3-D tensor with row strides (`stride_a`, `stride_b`) and a unit last
    stride, seen as the flat run of storage it spans, into a row-major (A, B, C) tensor:
    upstream takes any tensor whose last dim is contiguous, and tilec kernels take
    row-major arrays."""
    A, B, C = T.symbolic("A"), T.symbolic("B"), T.symbolic("C")

    @T.prim_func
    def strided_to_contiguous(
        Src: T.Tensor((T.symbolic("SPAN"),), dtype),
        stride_a: T.int64,
        stride_b: T.int64,
        Dst: T.Tensor((A, B, C), dtype),
    ):
        with T.Kernel(T.ceildiv(C, block_c), B, A, threads=128) as (bx, b, a):
            for j in T.Parallel(block_c):
                if bx * block_c + j < C:
                    Dst[a, b, bx * block_c + j] = Src[a * stride_a + b * stride_b
                                                      + bx * block_c + j]

    return strided_to_contiguous
