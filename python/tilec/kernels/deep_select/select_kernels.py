"""DeepSelect's top-k as one tilec kernel: a radix select over the bits of the floats.

One block takes one row. Every float is mapped to an integer key whose order is
the float's (flip the magnitude bits of negatives), NaNs included: +NaN ranks above
+inf and -NaN below -inf, as their bits do. The k-th largest key is then found a
byte at a time, from the top: a 256-bin histogram of the next byte of the keys that
share the bytes fixed so far, and a scan from the top bin for the bin where the
count of larger keys reaches k (2 passes for bf16, 4 for fp32). The result is the
exact threshold key and how many of its ties complete the k. Each thread counts
into its own histogram row, summed per bin afterwards: the ascend target has no
atomic add into on-chip memory, so the kernel uses none.

The compaction gives each thread a contiguous chunk of the row; an exclusive scan
of the per-thread counts of keys above the threshold (and of ties, of which the
first ones in index order are taken) gives every thread its first output slot, so
the selection comes out in ascending index order (sorted_index costs nothing) and is
deterministic. With sorted values, the selection is instead written to shared
memory and ordered by a bitonic sort (value descending, then index) before it is
stored. No pass reads beyond the row's `end`.
"""

from __future__ import annotations

from typing import Literal

import tilec.language as T

THREADS = 64  # each with its own histogram row (64 KiB of int32 counts)
RADIX = 256
MAX_TOPK = 4096  # the sort buffer: upstream's largest topk
NAN_GUARD = 0x3F3F3F3F  # the index written for a row that holds a NaN
INT32_MIN = -(1 << 31)

NanPolicy = Literal["cuda", "ascend"]


def _signed32(value: int) -> int:
    """A 32-bit pattern as the int32 constant of the same bits."""
    return value - (1 << 32) if value >= 1 << 31 else value


def _order_key(bits: object, width: int) -> object:
    """An int32 whose signed order is the float order of `bits` (sign-extended to 32
    bits): negatives get their magnitude bits flipped, so -0.0 sits just below +0.0."""
    magnitude = (1 << (width - 1)) - 1
    return T.if_then_else(bits < 0, bits ^ magnitude, bits)


def _radix_key(key: object, width: int) -> object:
    """The order key as the unsigned bit pattern the histogram passes read a byte at a
    time (held in an int32; only its bits matter)."""
    return key ^ INT32_MIN if width == 32 else key + (1 << 15)


def _from_radix_key(radix: object, width: int) -> object:
    return radix ^ INT32_MIN if width == 32 else radix - (1 << 15)


def _is_nan(bits: object, width: int) -> object:
    magnitude = (1 << (width - 1)) - 1
    infinity_bits = 0x7F800000 if width == 32 else 0x7F80
    return (bits & magnitude) > infinity_bits


def topk_select(width: int, index_dtype: str, has_end: bool, has_offset: bool,
                return_value: bool, sorted_value: bool, nan_policy: NanPolicy) -> T.PrimFunc:
    """X (batch, vocab) float bits (int32 for fp32, int16 for bf16) -> Idx (batch, topk)
    and, with return_value, Val (batch, topk) bits; Nan (batch,) is 1 where the row
    trips the NaN guard (the host aborts on it). End and Offset are (batch,) int32
    when given, else one-element placeholders that are not read; so is Val without
    return_value. Scalars: the index and value fill bits, and for sorted_value the
    bitonic length (a power of two >= topk) and its log2."""
    bits_dtype = "int32" if width == 32 else "int16"
    B, NE, NO = T.symbolic("batch"), T.symbolic("num_end"), T.symbolic("num_offset")
    LX, LV, LI = T.symbolic("input_span"), T.symbolic("value_span"), T.symbolic("index_span")
    passes = width // 8

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
            tx = T.get_thread_binding()
            x_row, v_row, i_row = row * x_stride, row * val_stride, row * idx_stride
            hist = T.alloc_shared((THREADS, RADIX), "int32")  # a row per thread
            total = T.alloc_shared((RADIX,), "int32")
            nan_part = T.alloc_shared((THREADS,), "int32")
            # n (the row's length), ties still to take, the threshold's radix key so
            # far, the NaNs seen
            state = T.alloc_shared((4,), "int32")
            first_above = T.alloc_shared((THREADS,), "int32")
            first_tie = T.alloc_shared((THREADS,), "int32")
            if sorted_value:
                sort_key = T.alloc_shared((MAX_TOPK,), "int32")
                sort_idx = T.alloc_shared((MAX_TOPK,), "int32")
            nans = T.alloc_var("int32", init=0)
            above = T.alloc_var("int32", init=0)
            chosen = T.alloc_var("int32", init=-1)
            ties = T.alloc_var("int32", init=0)
            slot = T.alloc_var("int32", init=0)
            running = T.alloc_var("int32", init=0)
            running_ties = T.alloc_var("int32", init=0)
            count = T.alloc_var("int32", init=0)

            if tx == 0:
                length = T.cast(vocab, "int32")
                if has_end:
                    length = T.max(T.min(End[row], length), 0)
                state[0] = length
                state[1] = T.min(T.cast(K, "int32"), length)
                state[2] = 0
                state[3] = 0

            # 1. the threshold: one histogram pass per byte of the key, top byte first
            for p in range(passes):
                shift = width - 8 * (p + 1)
                fixed = _signed32(((1 << width) - 1) ^ ((1 << (shift + 8)) - 1))
                for d in T.serial(RADIX):
                    hist[tx, d] = 0
                T.sync_threads()
                n = state[0]
                chunk = T.ceildiv(n, THREADS)
                if state[1] > 0:
                    prefix = state[2]
                    nans = 0
                    for i in T.serial(chunk):
                        j = tx * chunk + i
                        if j < n:
                            bits = T.cast(X[x_row + j], "int32")
                            radix = _radix_key(_order_key(bits, width), width)
                            if (radix & fixed) == prefix:
                                digit = (radix >> shift) & (RADIX - 1)
                                hist[tx, digit] = hist[tx, digit] + 1
                            if p == 0 and _is_nan(bits, width):
                                nans += 1
                    if p == 0:
                        nan_part[tx] = nans
                T.sync_threads()
                for d in T.serial(RADIX // THREADS):
                    bin_ = d * THREADS + tx
                    count = 0
                    for t in T.serial(THREADS):
                        count += hist[t, bin_]
                    total[bin_] = count
                T.sync_threads()
                if tx == 0 and state[1] > 0:
                    wanted = state[1]
                    if p == 0:
                        nans = 0
                        for t in T.serial(THREADS):
                            nans += nan_part[t]
                        state[3] = nans
                    above = 0
                    chosen = -1
                    for r in T.serial(RADIX):
                        if chosen < 0:
                            if above + total[RADIX - 1 - r] >= wanted:
                                chosen = RADIX - 1 - r
                            else:
                                above += total[RADIX - 1 - r]
                    state[1] = wanted - above
                    state[2] = state[2] | (chosen << shift)
                T.sync_threads()

            # 2. each thread's first slot: exclusive scans of the per-thread counts
            n = state[0]
            chunk = T.ceildiv(n, THREADS)
            threshold = _from_radix_key(state[2], width)
            above = 0
            ties = 0
            for i in T.serial(chunk):
                j = tx * chunk + i
                if j < n:
                    key = _order_key(T.cast(X[x_row + j], "int32"), width)
                    if key > threshold:
                        above += 1
                    elif key == threshold:
                        ties += 1
            first_above[tx] = above
            first_tie[tx] = ties
            T.sync_threads()
            if tx == 0:
                running = 0
                running_ties = 0
                for t in T.serial(THREADS):
                    count = first_above[t]
                    first_above[t] = running
                    running += count
                    count = first_tie[t]
                    first_tie[t] = running_ties
                    running_ties += count
            T.sync_threads()

            # 3. the compaction, in index order: all keys above the threshold and the
            # first `state[1]` ties
            take = state[1]
            selected = T.min(T.cast(K, "int32"), n)
            ties = first_tie[tx]
            slot = first_above[tx] + T.min(ties, take)
            for i in T.serial(chunk):
                j = tx * chunk + i
                if j < n:
                    bits = X[x_row + j]
                    key = _order_key(T.cast(bits, "int32"), width)
                    keep = key > threshold or (key == threshold and ties < take)
                    if key == threshold:
                        ties += 1
                    if keep:
                        if sorted_value:
                            sort_key[slot] = key
                            sort_idx[slot] = T.cast(j, "int32")
                        else:
                            Idx[i_row + slot] = _out_index(j, Offset, row, has_offset, index_dtype)
                            if return_value:
                                Val[v_row + slot] = bits
                        slot += 1

            if sorted_value:
                # 4. a bitonic sort of the selection, value descending then index
                for i in T.serial(T.ceildiv(sort_len, THREADS)):
                    e = i * THREADS + tx
                    if e >= selected and e < sort_len:
                        sort_key[e] = INT32_MIN
                        sort_idx[e] = 0x7FFFFFFF
                T.sync_threads()
                for s in T.serial(sort_stages):
                    size = 2 << s
                    for t in T.serial(s + 1):
                        stride = size >> (t + 1)
                        for i in T.serial(T.ceildiv(sort_len, THREADS)):
                            e = i * THREADS + tx
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
                        T.sync_threads()
                for i in T.serial(T.ceildiv(selected, THREADS)):
                    e = i * THREADS + tx
                    if e < selected:
                        j = sort_idx[e]
                        Idx[i_row + e] = _out_index(j, Offset, row, has_offset, index_dtype)
                        Val[v_row + e] = X[x_row + j]

            # 5. the slots past a short row's length, then the NaN guard
            for i in T.serial(T.ceildiv(K, THREADS)):
                e = i * THREADS + tx
                if e >= selected and e < K:
                    Idx[i_row + e] = T.cast(idx_fill, index_dtype)
                    if return_value:
                        Val[v_row + e] = T.cast(value_fill, bits_dtype)
            T.sync_threads()
            guard = state[3] > 0
            if nan_policy == "cuda":
                guard = guard and n > T.cast(K, "int32")
            if guard:
                if nan_policy == "cuda":
                    if tx == 0:
                        Idx[i_row] = T.cast(NAN_GUARD, index_dtype)
                else:
                    for i in T.serial(T.ceildiv(K, THREADS)):
                        e = i * THREADS + tx
                        if e < K:
                            Idx[i_row + e] = T.cast(NAN_GUARD, index_dtype)
            if tx == 0:
                Nan[row] = T.if_then_else(guard, 1, 0)

    return deep_select_topk


def _out_index(j: object, offset: object, row: object, has_offset: bool,
                  index_dtype: str) -> object:
    """Column j as the stored index: plus the row's offset when given (in int64, then
    narrowed to the index dtype as upstream's int arithmetic wraps)."""
    index = T.cast(j, "int64")
    if has_offset:
        index = index + T.cast(offset[row], "int64")
    return T.cast(index, index_dtype)
