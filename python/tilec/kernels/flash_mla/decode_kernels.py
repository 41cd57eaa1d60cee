"""FlashMLA's decoding as tilec kernels: a split-KV flash-decoding kernel per cache
format (dense BF16/FP16 pages read through the block table; sparse FP8 tokens named by
top-k indices), the kernel that merges the splits, and the scheduler that decides how
many splits each batch gets.

The split kernels write a float32 partial output and a base-2 log-sum-exp per (batch,
split, KV head, row); `combine` merges a batch's splits into the final bfloat16/fp16
output and natural-log LSE. Rows are upstream's: the s_q x (h_q / h_k) queries that share
one KV head form one tile (`m = s_q_index * heads_per_kv + head_in_group`), so each
page read serves all of them.

Inputs whose strides upstream accepts arbitrarily (q, the block table, the indices, a
padded FP8 cache) are passed as flat views of their memory plus element strides, so no
copy is made; offsets are computed in `index` (64-bit) arithmetic.

Scores are accumulated in float32 and kept in log2 units (`q.k * scale * log2(e)`); P
is rounded to the cache dtype for the P @ V gemm, as upstream's kernels do. A row that
has seen no visible key keeps a max of -inf; its exponentials use 0 instead so that no
`-inf - -inf` appears, and its partial LSE stays -inf.
"""

from __future__ import annotations

import functools

import tilec.language as T

D_V = 512  # the latent (NoPE) part, also V
D_ROPE = 64  # the RoPE tail of q and K
BLOCK_N = 64  # keys per step (upstream's page block)
OVERHEAD_BLOCKS = 5  # upstream's fixed cost of a split, in key blocks
FP8_TOKEN_BYTES = D_V + 4 * 4 + 2 * D_ROPE  # 512 e4m3, 4 float32 scales, 64 bfloat16
FP8_TILE = 128  # NoPE values per scale
# MODEL1's FP8 cache (upstream tests/quant.py): q and K are 512 wide, 448 e4m3 NoPE values
# and the 64 bfloat16 RoPE ones, and V is all 512 of them. A page stores its tokens' 576
# NoPE+RoPE bytes one after another, then 8 bytes a token: 7 UE8M0 scales (one per 64
# values) and a pad byte.
MODEL1_NOPE = 448
MODEL1_TOKEN_BYTES = MODEL1_NOPE + 2 * D_ROPE  # 576, the NoPE+RoPE record
MODEL1_SCALE_BYTES = 8
MODEL1_TOKEN_SIZE = MODEL1_TOKEN_BYTES + MODEL1_SCALE_BYTES  # 584, the cache's last dim
MODEL1_TILE = 64
LOG2E = 1.4426950408889634
LN2 = 0.6931471805599453
NEG_INF = float("-inf")


def schedule(has_lengths: bool) -> T.PrimFunc:
    """Meta (B, 2) = (number of splits, keys per split) of each batch: upstream's
    balancing, which charges every batch its key blocks plus a fixed overhead and gives
    each of `parts` workers an equal share, so a long sequence is cut into several
    splits and short ones stay whole. Lengths come from `Lengths` (cache_seqlens or
    topk_length, clamped to `limit`) or are all `limit` (a fixed top-k)."""
    B = T.symbolic("B")

    @T.prim_func
    def flash_mla_schedule(
        Lengths: T.Tensor((B,), "int32"),
        Meta: T.Tensor((B, 2), "int32"),
        limit: T.int32,
        parts: T.int32,
    ):
        with T.Kernel(1, threads=32) as _:
            total = T.alloc_var("int32")
            total = 0
            for i in T.serial(B):
                length = T.min(Lengths[i], limit) if has_lengths else limit
                total += T.ceildiv(T.max(length, 0), BLOCK_N) + OVERHEAD_BLOCKS
            share = T.ceildiv(total, parts)
            for i in T.serial(B):
                length = T.max(T.min(Lengths[i], limit) if has_lengths else limit, 0)
                blocks = T.ceildiv(length, BLOCK_N)
                splits = T.min(T.max(T.ceildiv(blocks, share), 1), parts)
                Meta[i, 0] = splits
                Meta[i, 1] = T.ceildiv(blocks, splits) * BLOCK_N

    return flash_mla_schedule


@T.macro
def _load_q(Q, q_nope, q_rope, first_row, rows: int, M, base_of_row) -> None:
    """Rows first_row .. first_row + rows of the tile, one copy per row and part (on
    the NPU a DMA straight into the cube's tile); a row past M repeats row M - 1,
    whose results are not stored. Without `q_rope` the row is one part."""
    for i in T.serial(rows):
        base = base_of_row(T.min(first_row + i, M - 1))
        T.copy(Q[base:base + D_V], q_nope[i, :])
        if q_rope is not None:
            T.copy(Q[base + D_V:base + D_V + D_ROPE], q_rope[i, :])


@T.macro
def _attend_step(q_nope, q_rope, k_nope, k_rope, p_tile, acc_s, acc_o, m_run, m_prev,
                 alpha, l_run, l_blk, visible, rows: int, keys: int, scale_log2) -> None:
    """One key block: scores, mask (`visible(i, j)`), online softmax, P @ V; without
    `q_rope` the score is the one 512-wide product."""
    T.gemm(q_nope, k_nope, acc_s, transpose_B=True, clear_accum=True)
    if q_rope is not None:
        T.gemm(q_rope, k_rope, acc_s, transpose_B=True)
    for i, j in T.Parallel(rows, keys):
        acc_s[i, j] = T.if_then_else(visible(i, j), acc_s[i, j] * scale_log2, NEG_INF)
    T.copy(m_run, m_prev)
    T.reduce_max(acc_s, m_run, dim=1, clear=False)
    for i in T.Parallel(rows):
        alpha[i] = T.exp2(m_prev[i] - T.if_then_else(m_run[i] == NEG_INF, 0.0, m_run[i]))
    for i, j in T.Parallel(rows, keys):
        acc_s[i, j] = T.exp2(acc_s[i, j] - T.if_then_else(m_run[i] == NEG_INF, 0.0, m_run[i]))
    T.reduce_sum(acc_s, l_blk, dim=1)
    for i in T.Parallel(rows):
        l_run[i] = l_run[i] * alpha[i] + l_blk[i]
    for i, d in T.Parallel(rows, D_V):
        acc_o[i, d] *= alpha[i]
    T.copy(acc_s, p_tile)
    T.gemm(p_tile, k_nope, acc_o)


@T.macro
def _store_partial(acc_o, m_run, l_run, lse, OAcc, LAcc, first, active) -> None:
    """The split's normalized output and base-2 LSE (-inf when it saw no key) of the
    tile's rows, copied to the accumulators from index `first` (rows past their end
    are dropped by the copies) when the split is `active`."""
    for i, d in T.Parallel(*acc_o.shape):
        acc_o[i, d] = T.if_then_else(l_run[i] > 0, acc_o[i, d] / l_run[i], 0.0)
    for i in T.Parallel(lse.shape[0]):
        lse[i] = T.if_then_else(l_run[i] > 0, T.log2(l_run[i]) + m_run[i], NEG_INF)
    if active:
        T.copy(acc_o, OAcc[(*first, 0)])
        T.copy(lse, LAcc[first])


def _tiles(rows: int, keys: int, dtype: str, rope: bool = True):
    """The block's tiles; without `rope` q and K are each one 512-wide tile."""
    q_nope = T.alloc_shared((rows, D_V), dtype)
    q_rope = T.alloc_shared((rows, D_ROPE), dtype) if rope else None
    k_nope = T.alloc_shared((keys, D_V), dtype)
    k_rope = T.alloc_shared((keys, D_ROPE), dtype) if rope else None
    p_tile = T.alloc_shared((rows, keys), dtype)
    acc_s = T.alloc_fragment((rows, keys), "float32")
    acc_o = T.alloc_fragment((rows, D_V), "float32")
    stats = [T.alloc_fragment((rows,), "float32") for _ in range(5)]
    T.clear(acc_o)
    T.fill(stats[0], NEG_INF)  # running max
    T.clear(stats[3])  # running sum
    return q_nope, q_rope, k_nope, k_rope, p_tile, acc_s, acc_o, stats


def dense_split(dtype: str, causal: bool, rows: int, keys: int = BLOCK_N) -> T.PrimFunc:
    """Partial attention of one (KV head, tile of `rows` query rows, split, batch) over
    the keys [split * chunk, min((split + 1) * chunk, seqlen)) of its batch, read
    page by page through the block table. Causal rows see keys up to
    seqlen - s_q + their query index (upstream's tril(s_k - s_q)). A key position
    past the row's end is clamped to the last valid token before its page is looked up,
    so no read goes past cache_seqlens (the tail of the last page may be garbage).
    `keys` per step divides BLOCK_N, the unit of the metadata's chunks."""
    B, NS, HK, M = T.symbolic("B"), T.symbolic("NS"), T.symbolic("HK"), T.symbolic("M")
    QN, KN, TN = T.symbolic("QN"), T.symbolic("KN"), T.symbolic("TN")

    @T.prim_func
    def flash_mla_dense_split(
        Q: T.Tensor((QN,), dtype),
        KCache: T.Tensor((KN,), dtype),
        BlockTable: T.Tensor((TN,), "int32"),
        SeqLens: T.Tensor((B,), "int32"),
        Meta: T.Tensor((B, 2), "int32"),
        OAcc: T.Tensor((B, NS, HK, M, D_V), "float32"),
        LAcc: T.Tensor((B, NS, HK, M), "float32"),
        q_sb: T.int32, q_ss: T.int32, q_sh: T.int32,
        k_sblk: T.int32, k_stok: T.int32, k_sh: T.int32,
        bt_sb: T.int32, page: T.int32, s_q: T.int32, heads_per_kv: T.int32,
        scale_log2: T.float32,
        max_blocks: T.int32,
    ):
        with T.Kernel(HK * T.ceildiv(M, rows), NS, B, threads=128) as (bx, split, b):
            q_nope, q_rope, k_nope, k_rope, p_tile, acc_s, acc_o, stats = _tiles(
                rows, keys, dtype)
            m_run, m_prev, alpha, l_run, l_blk = stats
            row_end = T.alloc_fragment((rows,), "int32")
            hk = bx // T.ceildiv(M, rows)
            first_row = (bx % T.ceildiv(M, rows)) * rows
            seqlen = SeqLens[b]
            chunk = Meta[b, 1]
            start = split * chunk
            end = T.min(start + chunk, seqlen)
            active = split < Meta[b, 0]  # a split past the batch's count does nothing
            _load_q(Q, q_nope, q_rope, first_row, rows, M, lambda m: (
                b * q_sb + (m // heads_per_kv) * q_ss
                + (hk * heads_per_kv + m % heads_per_kv) * q_sh))
            for i in T.Parallel(rows):
                row_end[i] = end
                if causal:
                    row_end[i] = T.min(
                        end, seqlen - s_q + 1 + T.min(first_row + i, M - 1) // heads_per_kv)
            for step in T.serial(T.if_then_else(
                    active, T.ceildiv(T.max(end - start, 0), keys), 0)):
                key0 = start + step * keys
                for j in T.serial(keys):  # a key's row, one copy per part: a DMA on the NPU
                    token = T.min(key0 + j, seqlen - 1)
                    block = BlockTable[b * bt_sb + T.min(token // page, max_blocks - 1)]
                    base = T.cast(block, "int64") * k_sblk + (token % page) * k_stok + hk * k_sh
                    T.copy(KCache[base:base + D_V], k_nope[j, :])
                    T.copy(KCache[base + D_V:base + D_V + D_ROPE], k_rope[j, :])
                _attend_step(q_nope, q_rope, k_nope, k_rope, p_tile, acc_s, acc_o, m_run,
                             m_prev, alpha, l_run, l_blk,
                             lambda i, j, key0=key0: key0 + j < row_end[i], rows, keys,
                             scale_log2)
            _store_partial(acc_o, m_run, l_run, m_prev, OAcc, LAcc,
                           (b, split, hk, first_row), active)

    return flash_mla_dense_split


def _e4m3_value(byte):
    """An e4m3fn byte's value, decoded from its bits (sign, 4 exponent bits of bias 7,
    3 mantissa bits; exponent 0 is subnormal, all ones is NaN), since 8-bit float loads
    are not lowered on every target."""
    bits = T.cast(byte, "int32") & 0xFF
    sign, exponent, mantissa = bits >> 7, (bits >> 3) & 15, bits & 7
    normal = T.reinterpret((sign << 31) | ((exponent + 120) << 23) | (mantissa << 20),
                           "float32")
    subnormal = T.cast(mantissa, "float32") * (2.0 ** -9) * T.cast(1 - 2 * sign, "float32")
    nan = T.reinterpret(T.cast(0x7FC00000, "int32"), "float32")
    return T.if_then_else(exponent == 0, subnormal,
                          T.if_then_else((exponent == 15) & (mantissa == 7), nan, normal))


def _ue8m0_value(byte):
    """A UE8M0 scale byte's value, 2^(e - 127): the float32 with that exponent field
    (e = 0 is 2^-127, a subnormal; 255 is NaN)."""
    bits = T.cast(byte, "int32") & 0xFF
    nan = T.reinterpret(T.cast(0x7FC00000, "int32"), "float32")
    return T.if_then_else(bits == 0, T.reinterpret(T.cast(0x00400000, "int32"), "float32"),
                          T.if_then_else(bits == 255, nan, T.reinterpret(bits << 23, "float32")))


@T.macro
def _gather_v32(Nope, Scales, Rope, k_nope, k_rope, parts, row_base, keys: int) -> None:
    """V3.2's tokens: each row's three parts (512 e4m3 values, 4 float32 scales, 64
    bfloat16 RoPE values) one copy each (a DMA on the NPU) into the fragments `parts`
    (`_v32_parts`), at byte `row_base(j)` of the cache; then NoPE value * its tile's
    scale (the scales laid out per tile first, so that a tile's factors of the rows are
    consecutive: a broadcast per row on the NPU reads them so), rounded to bfloat16,
    one tile of FP8_TILE columns at a time: on the NPU
    whole-tile vector code, one region in a loop (unrolled, each copy's scratch would
    count against the next's UB and split it into strips of rows). With a staging
    tile the products go there first and K is written once (on the NPU one handoff to
    the cube, not one per column tile)."""
    nope8, scales, scale_cols, rope, wide = parts
    for j in T.serial(keys):
        base = row_base(j)
        T.copy(Nope[base:base + D_V], nope8[j, :])
        scale_at, rope_at = base // 4 + D_V // 4, base // 2 + (D_V + 16) // 2
        T.copy(Scales[scale_at:scale_at + D_V // FP8_TILE], scales[j, :D_V // FP8_TILE])
        T.copy(Rope[rope_at:rope_at + D_ROPE], rope[j, :])
    for t, j in T.Parallel(D_V // FP8_TILE, keys):
        scale_cols[t, j] = scales[j, t]
    for t in T.serial(D_V // FP8_TILE):
        for j, d in T.Parallel(keys, FP8_TILE):
            value = T.cast(nope8[j, t * FP8_TILE + d], "float32") * scale_cols[t, j]
            (k_nope if wide is None else wide)[j, t * FP8_TILE + d] = T.cast(value, "bfloat16")
    if wide is not None:
        T.copy(wide, k_nope)
    T.copy(rope, k_rope)


def _v32_parts(keys: int, staged: bool) -> tuple[object, ...]:
    """The fragments `_gather_v32` gathers a step's rows into: e4m3 values, scales (rows
    of one 32-byte block, where the NPU's DMAs into UB start; and the scales of each
    column tile in one row, for the NPU's per-row broadcast of consecutive values),
    RoPE values, and with `staged` a staging tile for the scaled values."""
    return (T.alloc_fragment((keys, D_V), "float8_e4m3"),
            T.alloc_fragment((keys, 8), "float32"),
            T.alloc_fragment((D_V // FP8_TILE, keys), "float32"),
            T.alloc_fragment((keys, D_ROPE), "bfloat16"),
            T.alloc_fragment((keys, D_V), "bfloat16") if staged else None)


def _slot_valid(index, in_range, num_tokens):
    """Whether a slot (`in_range`: below its list's end) names a token of the cache."""
    return in_range & (index >= 0) & (index < num_tokens)


def _row_base(index, in_range, num_tokens, page, k_sblk, past_end):
    """The first byte of the V3.2 record of token `index`, or `past_end` (the cache's
    size) for an invalid slot, whose copies then read zeros."""
    return T.if_then_else(_slot_valid(index, in_range, num_tokens),
                          T.cast(index // page, "int64") * k_sblk
                          + (index % page) * FP8_TOKEN_BYTES, T.cast(past_end, "int64"))


@T.macro
def _gather_model1(Nope, Rope, k, key_base, scale_base, valid, keys: int) -> None:
    """MODEL1's tokens: 448 NoPE values * their UE8M0 scales, then the 64 RoPE values,
    into one 512-wide row."""
    for j, d in T.Parallel(keys, MODEL1_NOPE):
        value = _e4m3_value(Nope[key_base[j] + d]) * _ue8m0_value(
            Nope[scale_base[j] + d // MODEL1_TILE])
        k[j, d] = T.if_then_else(valid[j] == 1.0, T.cast(value, "bfloat16"), 0)
    for j, d in T.Parallel(keys, D_ROPE):
        k[j, MODEL1_NOPE + d] = T.if_then_else(
            valid[j] == 1.0, Rope[(key_base[j] + MODEL1_NOPE) // 2 + d], 0)


def sparse_fp8_split(rows: int, has_lengths: bool, keys: int = BLOCK_N,
                     model1: bool = False, staged: bool = False) -> T.PrimFunc:
    """Partial attention of one (tile of `rows` heads and a query token, split, batch)
    over the slots [split * chunk, min((split + 1) * chunk, topk_length)) of the token's
    index list, with the FP8 cache dequantized while it is gathered: NoPE value *
    its tile's scale, rounded to bfloat16 (exact for upstream's power-of-two scales),
    and the bfloat16 RoPE tail as it is. A slot is valid when its index is in
    [0, num_blocks * page); an invalid one is gathered as zeros (V3.2: its copies start
    past the cache's end, which they pad with zeros; MODEL1: from a clamped address,
    selected away) and masked, so no NaN of an unused token reaches the product. The
    partials go to splits `split_base + split` (`split` < `parts`) of the accumulators,
    so that a second cache's (`extra_k_cache`) can follow the first's and one combine
    merges both.

    The cache comes as three views of one byte range: e4m3 values `Nope`, float32
    `Scales` and bfloat16 `Rope`; V3.2's token record starts at byte block * k_sblk +
    offset * 656, and a step gathers each token's record with one copy per part
    (`_gather_v32`: on the NPU the vector cores' DMAs, then whole-tile decoding), with
    a staging tile where `staged` (the NPUs, whose cube takes K in one handoff;
    elsewhere the products go straight into K). With `model1` q and K are 512 wide
    (MODEL1_*, `Nope` is bytes): a token's NoPE+RoPE record starts at block * k_sblk +
    offset * 576 and its scales at block * k_sblk + page * 576 + offset * 8, decoded
    element by element."""
    B, NS, SQ, H = T.symbolic("B"), T.symbolic("NS"), T.symbolic("SQ"), T.symbolic("H")
    KN, K4, K2 = T.symbolic("KN"), T.symbolic("K4"), T.symbolic("K2")
    QN, IN = T.symbolic("QN"), T.symbolic("IN")
    record = MODEL1_TOKEN_BYTES if model1 else FP8_TOKEN_BYTES

    @T.prim_func
    def flash_mla_sparse_fp8_split(
        Q: T.Tensor((QN,), "bfloat16"),
        Nope: T.Tensor((KN,), "uint8" if model1 else "float8_e4m3"),
        Scales: T.Tensor((K4,), "float32"),
        Rope: T.Tensor((K2,), "bfloat16"),
        Indices: T.Tensor((IN,), "int32"),
        Lengths: T.Tensor((B,), "int32"),
        Meta: T.Tensor((B, 2), "int32"),
        OAcc: T.Tensor((B, NS, SQ, H, D_V), "float32"),
        LAcc: T.Tensor((B, NS, SQ, H), "float32"),
        q_sb: T.int32, q_ss: T.int32, q_sh: T.int32,
        k_sblk: T.int32, page: T.int32, num_tokens: T.int32,
        i_sb: T.int32, i_ss: T.int32, topk: T.int32,
        scale_log2: T.float32, parts: T.int32, split_base: T.int32,
    ):
        with T.Kernel(SQ * T.ceildiv(H, rows), parts, B, threads=128) as (bx, split, b):
            q_nope, q_rope, k_nope, k_rope, p_tile, acc_s, acc_o, stats = _tiles(
                rows, keys, "bfloat16", rope=not model1)
            m_run, m_prev, alpha, l_run, l_blk = stats
            # 1.0/0.0: ascend has no i1 tiles, and the 910b's vector compare takes floats
            valid = T.alloc_fragment((keys,), "float32")
            slots = T.alloc_fragment((keys,), "int32")  # the step's indices
            key_base = T.alloc_fragment((keys,), "int64") if model1 else None
            scale_base = T.alloc_fragment((keys,), "int64") if model1 else None
            parts = None if model1 else _v32_parts(keys, staged)
            sq = bx // T.ceildiv(H, rows)
            first_head = (bx % T.ceildiv(H, rows)) * rows
            length = T.min(Lengths[b], topk) if has_lengths else topk
            chunk = Meta[b, 1]
            start = split * chunk
            end = T.min(start + chunk, length)
            active = split < Meta[b, 0]  # a split past the batch's count does nothing
            _load_q(Q, q_nope, q_rope, first_head, rows, H,
                    lambda h: b * q_sb + sq * q_ss + h * q_sh)
            for step in T.serial(T.if_then_else(
                    active, T.ceildiv(T.max(end - start, 0), keys), 0)):
                slot0 = start + step * keys
                # one copy (a DMA on the NPU); slots past `end` are not used
                first_slot = b * i_sb + sq * i_ss + slot0
                T.copy(Indices[first_slot:first_slot + keys], slots)
                for j in T.Parallel(keys):
                    index = slots[j]
                    valid[j] = T.if_then_else(
                        _slot_valid(index, slot0 + j < end, num_tokens), 1.0, 0.0)
                    if model1:
                        token = T.if_then_else(valid[j] == 1.0, index, 0)
                        key_base[j] = (T.cast(token // page, "int64") * k_sblk
                                       + (token % page) * record)
                        scale_base[j] = (T.cast(token // page, "int64") * k_sblk
                                         + page * record + (token % page) * MODEL1_SCALE_BYTES)
                if model1:
                    _gather_model1(Nope, Rope, k_nope, key_base, scale_base, valid, keys)
                else:
                    _gather_v32(Nope, Scales, Rope, k_nope, k_rope, parts,
                                lambda j, slot0=slot0: _row_base(
                                    slots[j], slot0 + j < end, num_tokens, page, k_sblk, KN),
                                keys)
                _attend_step(q_nope, q_rope, k_nope, k_rope, p_tile, acc_s, acc_o, m_run,
                             m_prev, alpha, l_run, l_blk, lambda i, j: valid[j] == 1.0, rows,
                             keys, scale_log2)
            _store_partial(acc_o, m_run, l_run, m_prev, OAcc, LAcc,
                           (b, split_base + split, sq, first_head), active)

    return flash_mla_sparse_fp8_split


def _split_count(first, extra, has_extra: bool):
    return first + extra if has_extra else first


def _split_at(s, first, extra_base, has_extra: bool):
    """The accumulators' index of a batch's s-th split (see `combine`)."""
    return T.if_then_else(s < first, s, s - first + extra_base) if has_extra else s


def combine(out_dtype: str, has_sink: bool, has_extra: bool = False) -> T.PrimFunc:
    """Out and LSE of one (row, KV head, batch) from its batch's splits: LSE = log of
    the sum of the splits' exp(LSE), the output their LSE-weighted mean. A row no key
    reached gets LSE +inf and a zero output (upstream's values). With a sink (per query
    head, natural units) the output is scaled by 1 / (1 + exp(sink - LSE)).

    The row's (query index, head) is (m // heads_per_kv, hk * heads_per_kv + m %
    heads_per_kv); `Lse` is a flat view written through its element strides, so the
    caller chooses upstream's layout (b, h_q, s_q) with its strides."""
    B, NS, HK, M = T.symbolic("B"), T.symbolic("NS"), T.symbolic("HK"), T.symbolic("M")
    SQ, HQ, LN, SN = T.symbolic("SQ"), T.symbolic("HQ"), T.symbolic("LN"), T.symbolic("SN")

    @T.prim_func
    def flash_mla_combine(
        OAcc: T.Tensor((B, NS, HK, M, D_V), "float32"),
        LAcc: T.Tensor((B, NS, HK, M), "float32"),
        Meta: T.Tensor((B, 2), "int32"),
        Sink: T.Tensor((SN,), "float32"),
        Out: T.Tensor((B, SQ, HQ, D_V), out_dtype),
        Lse: T.Tensor((LN,), "float32"),
        l_sb: T.int32, l_sh: T.int32, l_ss: T.int32, heads_per_kv: T.int32,
        Extra: T.Tensor((B, 2), "int32"), extra_base: T.int32,
    ):
        with T.Kernel(M, HK, B, threads=128) as (m, hk, b):
            acc = T.alloc_fragment((D_V,), "float32")
            top = T.alloc_var("float32")
            total = T.alloc_var("float32")
            lse = T.alloc_var("float32")
            lse2 = T.alloc_var("float32")
            factor = T.alloc_var("float32")
            first = Meta[b, 0]
            splits = _split_count(first, Extra[b, 0], has_extra)
            at = functools.partial(_split_at, first=first, extra_base=extra_base,
                                   has_extra=has_extra)
            sq = m // heads_per_kv
            head = hk * heads_per_kv + m % heads_per_kv
            top = NEG_INF
            for s in T.serial(splits):
                top = T.max(top, LAcc[b, at(s), hk, m])
            T.clear(acc)
            if top == NEG_INF:
                lse = float("inf")
            else:
                total = 0.0
                for s in T.serial(splits):
                    total += T.exp2(LAcc[b, at(s), hk, m] - top)
                lse2 = T.log2(total) + top
                lse = lse2 * LN2
                for s in T.serial(splits):
                    factor = T.exp2(LAcc[b, at(s), hk, m] - lse2)
                    for d in T.Parallel(D_V):
                        acc[d] += factor * OAcc[b, at(s), hk, m, d]
                if has_sink:
                    factor = 1.0 / (1.0 + T.exp(Sink[head] - lse))
                    for d in T.Parallel(D_V):
                        acc[d] *= factor
            for d in T.Parallel(D_V):
                Out[b, sq, head, d] = T.cast(acc[d], out_dtype)
            Lse[b * l_sb + head * l_sh + sq * l_ss] = lse

    return flash_mla_combine
