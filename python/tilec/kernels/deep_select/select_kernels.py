"""DeepSelect's top-k as one tilec kernel: a radix select over the bits of the floats.

One block takes one row, which it reads in tiles (`T.copy` into on-chip memory,
then element-wise work on the tile: vector instructions on the ascend target).
Every float becomes a key whose order is the float's (the magnitude bits of
negatives flipped, so -0.0 sits just below +0.0), NaNs included: +NaN ranks above
+inf and -NaN below -inf, as their bits do. Keys are exact in the tile's type:
float32 for bf16 (16-bit keys), int64 for float32 (32-bit keys), so the vector
unit, which compares and sums floats on every Ascend profile, does the counting.

The k-th largest key is found `digit` bits at a time, from the top (a radix select of
radix 2^digit): a sweep over the row counts, for each value d of the next digit, the
keys at or above the threshold so far plus d in that digit's place, and keeps the
largest d where they are at least k. The vector unit has no histogram, so a sweep
costs 2^digit - 1 counts of each tile it reads: 4-bit digits read the row 4 (bf16) or
8 (fp32) times for the threshold, 1-bit digits 16 or 32 times with the least counting
(the digit of each target: `interface.digit_bits`). A last sweep
counts the keys above the threshold and the NaNs; the ties to take are the rest
of the k. The compaction then walks the row in index order, keeping the keys above
the threshold and the first ties, so the selection comes out in ascending index
order (sorted_index costs nothing) and is deterministic. With sorted values it is
ordered by a bitonic sort (value descending, then index) before it is stored. The
selection is gathered on chip and stored in 32-element chunks, the tail of a row
element by element, so nothing past a row's `topk` is written; tiles past a row's
`end` are not read, and the part of its last tile past `end` is ignored.
"""

from __future__ import annotations

from typing import Literal

import tilec.language as T

TILE = 2048  # elements of the row per sweep step (4 KiB of bf16 bits)
MAX_TOPK = 4096  # the selection buffers: upstream's largest topk
CHUNK = 32  # elements per store of the selection (128 bytes of int32 indices)
THREADS = 128
NAN_GUARD = 0x3F3F3F3F  # the index written for a row that holds a NaN
INT32_MAX = (1 << 31) - 1

NanPolicy = Literal["cuda", "ascend"]


def topk_select(width: int, index_dtype: str, has_end: bool, has_offset: bool,
                return_value: bool, sorted_value: bool, nan_policy: NanPolicy,
                digit: int = 1) -> T.PrimFunc:
    """X (batch, vocab) float bits (int32 for fp32, int16 for bf16) -> Idx (batch, topk)
    and, with return_value, Val (batch, topk) bits; Nan (batch,) is 1 where the row
    trips the NaN guard (the host aborts on it). End and Offset are (batch,) int32
    when given, else one-element placeholders that are not read; so is Val without
    return_value. Scalars: the index and value fill bits, and for sorted_value the
    bitonic length (a power of two >= topk) and its log2. `digit` (dividing `width`):
    the bits the threshold search settles per sweep of the row."""
    bits_dtype = "int32" if width == 32 else "int16"
    key_dtype = "int64" if width == 32 else "float32"
    least = -(1 << (width - 1))  # the least key, that of the bits 0xFF..F (a -NaN)
    below = least - 1  # the key of a place past the row's end: below every key
    inf_key = 0x7F800000 if width == 32 else 0x7F80  # +inf's key: its bits
    B, NE, NO = T.symbolic("batch"), T.symbolic("num_end"), T.symbolic("num_offset")
    LX, LV, LI = T.symbolic("input_span"), T.symbolic("value_span"), T.symbolic("index_span")

    def order_key(bits: object) -> object:
        """The key of the float with these bits (sign-extended), an involution: the
        bits of a key are order_key(key)."""
        b = T.cast(bits, key_dtype)
        return T.if_then_else(b < 0, least - 1 - b, b)

    assert width % digit == 0, (width, digit)
    radix = 1 << digit

    def next_place(step: object) -> object:
        """The value of the next digit's unit: keys span 2^width."""
        return step * (1.0 / radix) if key_dtype == "float32" else step // radix

    @T.prim_func
    def deep_select_topk(
        X: T.Tensor((LX,), bits_dtype),
        End: T.Tensor((NE,), "int32"),
        Offset: T.Tensor((NO,), "int32"),
        Val: T.Tensor((LV,), bits_dtype),
        Idx: T.Tensor((LI,), index_dtype),
        Nan: T.Tensor((B,), "int32"),
        vocab: T.int64,
        K: T.int64,
        x_stride: T.int64,
        val_stride: T.int64,
        idx_stride: T.int64,
        idx_fill: T.int64,
        value_fill: T.int64,
        sort_len: T.int64,
        sort_stages: T.int64,
    ):
        with T.Kernel(B, threads=THREADS) as row:
            x_row, v_row, i_row = row * x_stride, row * val_stride, row * idx_stride
            bits = T.alloc_shared((TILE,), bits_dtype)
            key = T.alloc_shared((TILE,), key_dtype)
            counted = T.alloc_fragment((TILE,), "float32")
            extra = T.alloc_fragment((TILE,), "float32")
            sums = T.alloc_fragment((1,), "float32")
            out_idx = T.alloc_shared((MAX_TOPK,), index_dtype)
            chunk_idx = T.alloc_shared((CHUNK,), index_dtype)
            if return_value:
                out_val = T.alloc_shared((MAX_TOPK,), bits_dtype)
                chunk_val = T.alloc_shared((CHUNK,), bits_dtype)
            if sorted_value:
                sort_key = T.alloc_shared((MAX_TOPK,), key_dtype)
                sort_idx = T.alloc_shared((MAX_TOPK,), "int32")
            tally = T.alloc_fragment((radix,), "float32")  # keys at or above each digit
            threshold = T.alloc_var(key_dtype, init=least)
            step = T.alloc_var(key_dtype, init=-2 * least)  # 2^width: the keys' span
            best = T.alloc_var("int32", init=0)
            slot = T.alloc_var("int32", init=0)
            ties = T.alloc_var("int32", init=0)

            n = T.cast(vocab, "int32")
            if has_end:
                n = T.max(T.min(End[row], n), 0)
            wanted = T.min(T.cast(K, "int32"), n)  # the selection's length
            tiles = T.ceildiv(n, TILE)

            def load(tile: object) -> object:
                """Tile `tile` of the row into `bits` and its keys into `key` (places past
                the row's end get a key below every key); the tile's first column."""
                base = tile * TILE
                T.copy(X[x_row + base], bits)
                for i in T.Parallel(TILE):
                    key[i] = order_key(bits[i])
                if base + TILE > n:  # the row ends in this tile
                    for i in T.Parallel(TILE):
                        key[i] = T.if_then_else(base + i < n, key[i], below)
                return base

            def count_above(bar: object) -> None:
                """counted += 1 where key > bar: keys are integers, so that is
                clamp(key - bar, 0, 1), which the vector unit computes with scalar
                operands (no compare, no select)."""
                for i in T.Parallel(TILE):
                    counted[i] = counted[i] + T.cast(T.min(T.max(key[i] - bar, 0), 1),
                                                     "float32")

            # 1. the threshold, the k-th largest key, a digit at a time from the top
            if wanted > 0:
                for _ in T.serial(width // digit):
                    step = next_place(step)
                    if digit == 1:  # one count: accumulated over the tiles, reduced once
                        T.clear(counted)
                        for tile in T.serial(tiles):
                            load(tile)
                            count_above(threshold + step - 1)
                        T.reduce_sum(counted, sums)
                        if T.cast(sums[0], "int32") >= wanted:
                            threshold = threshold + step
                    else:  # a count per digit value, each tile's reduced as it is read
                        T.clear(tally)
                        for tile in T.serial(tiles):
                            load(tile)
                            for d in T.serial(1, radix):
                                T.clear(counted)
                                count_above(threshold + T.cast(d, key_dtype) * step - 1)
                                T.reduce_sum(counted, sums)
                                tally[d] = tally[d] + sums[0]
                        best = 0
                        for d in T.serial(1, radix):  # the counts fall as d grows
                            if T.cast(tally[d], "int32") >= wanted:
                                best = d
                        threshold = threshold + T.cast(best, key_dtype) * step

            # 2. the keys above the threshold (the ties to take are the rest) and the NaNs
            T.clear(counted)
            T.clear(extra)
            for tile in T.serial(tiles):
                load(tile)
                count_above(threshold)
                # NaNs: keys above +inf's, or below -inf's and in the row (plain selects,
                # which the vector unit runs)
                for i in T.Parallel(TILE):
                    extra[i] = extra[i] + T.if_then_else(key[i] > inf_key, 1.0, 0.0) \
                        + T.if_then_else(key[i] < -inf_key - 1,
                                         T.if_then_else(key[i] > below, 1.0, 0.0), 0.0)
            T.reduce_sum(counted, sums)
            take = wanted - T.cast(sums[0], "int32")
            T.reduce_sum(extra, sums)
            nans = T.cast(sums[0], "int32")

            # 3. the compaction, in index order: the keys above the threshold and the
            # first `take` ties. The vector unit grades each key (2 above the threshold,
            # 1 a tie, 0 below it or past the row's end), so the scalar walk passes most
            # keys with one test.
            for tile in T.serial(tiles):
                base = load(tile)
                for i in T.Parallel(TILE):
                    counted[i] = T.cast(T.min(T.max(key[i] - threshold + 1, 0), 2), "float32")
                for i in T.serial(TILE):
                    grade = counted[i]
                    if grade > 0:
                        if grade > 1 or ties < take:
                            if sorted_value:
                                sort_key[slot] = key[i]
                                sort_idx[slot] = base + i
                            else:
                                out_idx[slot] = _out_index(base + i, Offset, row, has_offset,
                                                           index_dtype)
                                if return_value:
                                    out_val[slot] = bits[i]
                            slot += 1
                        if grade < 2:
                            ties += 1

            if sorted_value:
                # 4. a bitonic sort of the selection, value descending then index
                for e in T.Parallel(MAX_TOPK):
                    if e >= wanted:
                        sort_key[e] = below
                        sort_idx[e] = INT32_MAX
                for s in T.serial(sort_stages):
                    size = 2 << s
                    for t in T.serial(s + 1):
                        stride = size >> (t + 1)
                        for e in T.Parallel(MAX_TOPK):
                            partner = e ^ stride
                            if e < sort_len and partner > e:
                                ka, kb = sort_key[e], sort_key[partner]
                                ia, ib = sort_idx[e], sort_idx[partner]
                                b_first = kb > ka or (kb == ka and ib < ia)
                                a_first = ka > kb or (ka == kb and ia < ib)
                                # ascending-in-`before` runs where bit `size` is 0
                                rising = (e & size) == 0
                                if (rising and b_first) or (not rising and a_first):
                                    sort_key[e] = kb
                                    sort_key[partner] = ka
                                    sort_idx[e] = ib
                                    sort_idx[partner] = ia
                for e in T.Parallel(MAX_TOPK):
                    out_idx[e] = _out_index(sort_idx[e], Offset, row, has_offset, index_dtype)
                    out_val[e] = T.cast(order_key(sort_key[e]), bits_dtype)

            # 5. the slots past a short row's length, then the NaN guard
            for e in T.serial(T.cast(K, "int32") - wanted):
                out_idx[wanted + e] = T.cast(idx_fill, index_dtype)
                if return_value:
                    out_val[wanted + e] = T.cast(value_fill, bits_dtype)
            guard = nans > 0
            if nan_policy == "cuda":
                guard = guard and n > T.cast(K, "int32")
            if guard:
                if nan_policy == "cuda":
                    out_idx[0] = T.cast(NAN_GUARD, index_dtype)
                else:
                    for e in T.Parallel(MAX_TOPK):
                        out_idx[e] = T.cast(NAN_GUARD, index_dtype)
            Nan[row] = T.if_then_else(guard, 1, 0)

            # 6. the selection out: whole chunks, then the tail element by element
            whole = T.cast(K, "int32") // CHUNK * CHUNK
            for c in T.serial(whole // CHUNK):
                for e in T.Parallel(CHUNK):
                    chunk_idx[e] = out_idx[c * CHUNK + e]
                T.copy(chunk_idx, Idx[i_row + c * CHUNK])
                if return_value:
                    for e in T.Parallel(CHUNK):
                        chunk_val[e] = out_val[c * CHUNK + e]
                    T.copy(chunk_val, Val[v_row + c * CHUNK])
            for e in T.serial(T.cast(K, "int32") - whole):
                Idx[i_row + whole + e] = out_idx[whole + e]
                if return_value:
                    Val[v_row + whole + e] = out_val[whole + e]

    return deep_select_topk


def _out_index(j: object, offset: object, row: object, has_offset: bool,
               index_dtype: str) -> object:
    """Column j as the stored index: plus the row's offset when given, wrapping in the
    index dtype as upstream's int arithmetic does."""
    index = T.cast(j, index_dtype)
    if has_offset:
        index = index + T.cast(offset[row], index_dtype)
    return index
