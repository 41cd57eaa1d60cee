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


@T.macro
def _gather_rows(KV, Indices, parts, s, slot0, limit, count: int):
    """Gathers the KV rows that slots slot0 .. slot0 + count of token `s`'s indices name
    into `parts`, (tile, first column) pairs that each take their tile's width of
    columns: one copy per row and part (on the NPU a DMA straight into the cube's tile).
    An invalid slot reads the row past KV's end, which the copy pads with zeros."""
    n_kv = KV.shape[0]
    for j in T.serial(count):
        index = Indices[s, 0, T.min(slot0 + j, Indices.shape[2] - 1)]
        row = T.if_then_else(slot0 + j < limit and index >= 0 and index < n_kv, index, n_kv)
        for tile, col0 in parts:
            T.copy(KV[row, col0:col0 + tile.shape[1]], tile[j, :])


def sparse_prefill(d_qk: int, d_v: int, has_sink: bool, has_topk_length: bool,
                   block_h: int = 16, block_i: int = 64) -> T.PrimFunc:
    """`flash_mla_sparse_fwd`: one block per (query token, `block_h` heads). Each key
    tile gathers `block_i` rows of KV through the token's indices; an index is valid when
    0 <= index < s_kv and its slot is below topk_length (if given). Invalid rows are
    gathered as zeros, so a NaN elsewhere in KV never reaches the product.
    `Sink`/`TopkLength` are read only when `has_sink`/`has_topk_length` (otherwise the
    call passes empty tensors).

    The gather is one copy per row and part, from indices read as scalars: on the NPU the
    cube's DMAs, straight into L1, and the vector cores copy the key tile's indices once
    for the mask. The parts are two tiles, the first `d_v` columns (the values, and the
    keys' NoPE part) and the `d_qk - d_v` left (RoPE), with Q split the same way, as
    upstream's kernels split K: the scores are the sum of two gemms into an accumulator
    of their own, and P @ V reads the first tile whole (the NPU's cube does not take a
    column slice of an L1 tile as a gemm operand yet)."""
    S_Q, S_KV, H, TOPK = T.symbolic("S_Q"), T.symbolic("S_KV"), T.symbolic("H"), T.symbolic(
        "TOPK")

    @T.prim_func
    def flash_mla_sparse_fwd(
        Q: T.Tensor((S_Q, H, d_qk), "bfloat16"),
        # kv (s_kv, 1, d_qk) without its unit dim: the NPU's copy of a row into L1 would
        # fix the row dim of a 3-D tensor (the copy's first unit-extent dim) and not pad
        # the row past its end
        KV: T.Tensor((S_KV, d_qk), "bfloat16"),
        Indices: T.Tensor((S_Q, 1, TOPK), "int32"),
        Sink: T.Tensor((T.symbolic("NUM_SINK"),), "float32"),
        TopkLength: T.Tensor((T.symbolic("NUM_TOPK_LENGTH"),), "int32"),
        sm_scale: T.float32,
        Out: T.Tensor((S_Q, H, d_v), "bfloat16"),
        MaxLogits: T.Tensor((S_Q, H), "float32"),
        Lse: T.Tensor((S_Q, H), "float32"),
    ):
        with T.Kernel(T.ceildiv(H, block_h), S_Q, threads=128) as (bx, s):
            d_rope = d_qk - d_v
            q_shared = T.alloc_shared((block_h, d_v), "bfloat16")
            kv_shared = T.alloc_shared((block_i, d_v), "bfloat16")
            parts = [(kv_shared, 0)]
            if d_rope:
                q_rope = T.alloc_shared((block_h, d_rope), "bfloat16")
                k_rope = T.alloc_shared((block_i, d_rope), "bfloat16")
                parts.append((k_rope, d_v))
            acc_qk = T.alloc_fragment((block_h, block_i), "float32")  # q.k, both gemms'
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
            if d_rope:
                T.copy(Q[s, h0, d_v], q_rope)
            T.fill(acc_o, 0)
            T.fill(l_sum, 0)
            T.fill(m, -T.infinity("float32"))
            limit = TOPK
            if has_topk_length:
                limit = T.max(T.min(TopkLength[s], TOPK), 0)
            for t in T.serial(T.ceildiv(limit, block_i)):
                T.copy(Indices[s, 0, t * block_i:t * block_i + block_i], rows)
                for j in T.Parallel(block_i):
                    rows[j] = T.if_then_else(
                        t * block_i + j < limit and rows[j] >= 0 and rows[j] < S_KV, rows[j],
                        -1)
                _gather_rows(KV, Indices, parts, s, t * block_i, limit, block_i)
                T.gemm(q_shared, kv_shared, acc_qk, transpose_B=True, clear_accum=True)
                if d_rope:
                    T.gemm(q_rope, k_rope, acc_qk, transpose_B=True)
                for i, j in T.Parallel(block_h, block_i):
                    acc_s[i, j] = T.if_then_else(rows[j] >= 0, acc_qk[i, j] * sm_scale,
                                                 -T.infinity("float32"))
                _online_softmax_step(acc_s, p_shared, m, m_prev, alpha, l_sum, l_blk, acc_o,
                                     block_h, block_i, d_v)
                T.gemm(p_shared, kv_shared, acc_o)

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


@T.macro
def _store_varlen_rows(Out, LseT, acc_o, l_sum, m, row0, h, valid_rows, rows: int, dv: int,
                       guarded: bool):
    """Rows row0 .. row0 + rows of the output and the LSE (out 0 and lse -inf for a row
    that saw no key); with `guarded`, only the first `valid_rows` of them."""
    for i, d in T.Parallel(rows, dv):
        value = T.cast(T.if_then_else(l_sum[i] == 0.0, 0.0, acc_o[i, d] / l_sum[i]),
                       "bfloat16")
        if guarded:
            if i < valid_rows:
                Out[row0 + i, h, d] = value
        else:
            Out[row0 + i, h, d] = value
    for i in T.Parallel(rows):
        lse = T.if_then_else(l_sum[i] == 0.0, -T.infinity("float32"), T.log(l_sum[i]) + m[i])
        if guarded:
            if i < valid_rows:
                LseT[h, row0 + i] = lse
        else:
            LseT[h, row0 + i] = lse


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

            # a tile inside its sequence is stored whole (on the NPU, element-wise vector
            # code and a DMA); only the last one of a sequence tests each row, as the
            # rows after it are the next sequence's
            if first + block_m <= q_len:
                _store_varlen_rows(Out, LseT, acc_o, l_sum, m, q_start + first, h, q_len - first,
                                   block_m, d_v, False)
            else:
                _store_varlen_rows(Out, LseT, acc_o, l_sum, m, q_start + first, h, q_len - first,
                                   block_m, d_v, True)

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
