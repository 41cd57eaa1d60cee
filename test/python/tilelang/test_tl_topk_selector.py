"""TileLang's examples/deepseek_v32/topk_selector.py (factory form `tl_topk_impl(topk)`,
plain `@tilelang.jit`, the index tensor passed in), DeepSeek-V3.2's top-k selector: one
1024-thread block per row picks the topk largest entries of `input[row, starts[row]:
ends[row]]` and writes their column indices, in no particular order. A radix select: a
256-bin histogram of an order-preserving 8-bit key (the top bits of the value as float16,
`T.reinterpret` and bit operators), a suffix sum over the bins between
`T.sync_threads(3, RADIX)` named barriers of the first 256 threads, and a threshold bin;
entries above it are written straight out at positions from
`T.atomic_add(..., return_prev=True)`, the threshold bin's are kept in shared memory and
refined over up to four rounds of 8 bits of the float32's bits (a T.serial loop with
`break`). Per-thread code: `T.get_thread_binding`, T.alloc_var scalars, element
T.fill, `if` / `elif`, T.dynamic batch and seq_len.

Ported from the current kernel body (the exact-boundary threshold fix and four entries per
thread in the first pass) in the factory form it had before the eager migration; the pass
config (TL_DISABLE_THREAD_STORAGE_SYNC) is left out. The selected set is compared per row
with numpy's argpartition. The inputs have no ties (distinct float32 values), so the set is
unique. As upstream assumes, each row's range holds at least topk entries and its
threshold bin fewer than 4096.

Runs as written: the tail pass's `break` out of its `T.serial` loop on a per-thread value
(`if l_new_topk <= 0: break`) is a flag the loop's remaining work tests, and the named
barriers under `if` on that value are allowed because every thread computes it alike (a
count read from shared memory). `T.reinterpret(value, dtype)`,
`T.atomic_add(..., return_prev=True)` and the named barriers of the first RADIX threads
(`T.sync_threads(3, RADIX)` inside `if tx < RADIX:`) are taken."""

import numpy as np
import pytest

import tilec
import tilec.language as T


def convert_to_uint16(x):
    hval = T.cast(x, T.float16)
    bits_uint = T.reinterpret(hval, T.uint16)
    bits_uint = T.if_then_else(x < 0, ~bits_uint & (0xFFFF), bits_uint | (0x8000))
    return bits_uint >> 8


def convert_to_uint32(x):
    bits_uint = T.reinterpret(x, T.uint32)
    bits_uint = T.if_then_else(
        x < 0,
        ~bits_uint & T.cast((0xFFFFFFFF), T.uint32),
        bits_uint | T.cast((0x80000000), T.uint32),
    )
    return bits_uint


@tilec.jit
def tl_topk_impl(topk, in_dtype=T.float32, out_dtype=T.int32):
    batch = T.dynamic("batch")
    seq_len = T.dynamic("seq_len")
    RADIX = 1 << 8
    BLOCK_SIZE = 1024
    SMEM_INPUT_SIZE = 4096  # assume the threshold bucket size after first pass is less than 4K

    @T.prim_func
    def tl_topk_kernel(
        input: T.Tensor[(batch, seq_len), in_dtype],
        index: T.Tensor[(batch, topk), out_dtype],
        starts: T.Tensor[(batch), out_dtype],
        ends: T.Tensor[(batch), out_dtype],
    ):
        with T.Kernel(batch, threads=BLOCK_SIZE) as (bx):
            tx = T.get_thread_binding()

            s_threshold_bin_id = T.alloc_shared([1], T.int32)
            s_histogram = T.alloc_shared([RADIX + 1], T.int32)
            s_num_input = T.alloc_shared([2], T.int32)
            s_input_idx = T.alloc_shared([2, SMEM_INPUT_SIZE], T.int32)

            l_threshold_bin_id = T.alloc_var(T.int32)
            l_new_topk = T.alloc_var(T.int32)
            l_num_input = T.alloc_var(T.int32)
            l_bin_id32 = T.alloc_var(T.int32)
            l_val = T.alloc_var(T.int32)
            l_start_pos = T.alloc_var(T.int32)
            l_start_idx = T.alloc_var(T.int32)
            l_end_idx = T.alloc_var(T.int32)
            l_out_pos = T.alloc_var(T.int32)

            pos = T.alloc_var(T.int32)

            l_new_topk = topk
            l_start_idx = starts[bx]
            l_end_idx = ends[bx]

            # stage 1: use 8bit to do quick topk
            T.fill(s_histogram, 0)
            T.fill(s_num_input[0], 0)

            # Default to bin 0 in case no threshold crossing is found, e.g. when
            # the valid input range has no more than topk elements.
            T.fill(s_threshold_bin_id, 0)

            T.sync_threads()
            for s in T.serial(T.ceildiv(seq_len, BLOCK_SIZE * 4)):
                input_base = s * BLOCK_SIZE * 4 + tx * 4
                for j in T.serial(4):
                    input_idx = input_base + j
                    if input_idx < l_end_idx and input_idx >= l_start_idx and input_idx < seq_len:
                        inval_int16 = convert_to_uint16(input[bx, input_idx])
                        T.atomic_add(s_histogram[inval_int16], 1)
            T.sync_threads()

            # cumsum
            if tx < RADIX:
                for i in T.serial(8):
                    offset = 1 << i
                    T.sync_threads(3, RADIX)
                    if tx < RADIX - offset:
                        l_val = s_histogram[tx] + s_histogram[tx + offset]
                    T.sync_threads(3, RADIX)
                    if tx < RADIX - offset:
                        s_histogram[tx] = l_val

                # find threshold bin id
                T.sync_threads(3, RADIX)
                # s_histogram[tx] is the suffix count for bins >= tx. Use >=/< to
                # also catch the exact-boundary case where that count equals topk.
                if s_histogram[tx] >= l_new_topk and s_histogram[tx + 1] < l_new_topk:
                    s_threshold_bin_id[0] = tx
            T.sync_threads()
            l_threshold_bin_id = s_threshold_bin_id[0]
            l_new_topk = l_new_topk - s_histogram[l_threshold_bin_id + 1]
            T.sync_threads()

            # collect all elements with exponent ≥ threshold
            for s in T.serial(T.ceildiv(seq_len, BLOCK_SIZE * 4)):
                T.sync_threads()
                input_base = s * BLOCK_SIZE * 4 + tx * 4
                for j in T.serial(4):
                    input_idx = input_base + j
                    if input_idx < l_end_idx and input_idx >= l_start_idx and input_idx < seq_len:
                        bin_id = convert_to_uint16(input[bx, input_idx])
                        l_bin_id32 = T.cast(bin_id, T.int32)
                        if l_bin_id32 > l_threshold_bin_id:
                            # need a pos = T.atomic_add(s_histogram[bin_id32+1], 1)
                            pos = T.atomic_add(s_histogram[l_bin_id32 + 1], 1, return_prev=True)
                            index[bx, pos] = input_idx

                        elif l_bin_id32 == l_threshold_bin_id and l_new_topk > 0:
                            # pos = s_num_input[0]
                            pos = T.atomic_add(s_num_input[0], 1, return_prev=True)
                            s_input_idx[0, pos] = input_idx

            # stage 2: tail pass
            for round in T.serial(4):
                if l_new_topk <= 0:
                    break

                r_idx = round % 2
                l_start_pos = topk - l_new_topk

                T.sync_threads()
                T.fill(s_histogram, 0)
                if tx == 0:
                    s_num_input[r_idx ^ 1] = 0
                T.sync_threads()

                l_num_input = s_num_input[r_idx]
                for s in T.serial(T.ceildiv(l_num_input, BLOCK_SIZE)):
                    if s * BLOCK_SIZE + tx < l_num_input:
                        l_bin_id32 = T.cast(
                            ((convert_to_uint32(input[bx, s_input_idx[r_idx, s * BLOCK_SIZE + tx]])
                              >> (24 - round * 8)) & 0xFF),
                            T.int32,
                        )
                        T.atomic_add(s_histogram[l_bin_id32], 1)
                T.sync_threads()
                # cumsum
                if tx < RADIX:
                    for i in T.serial(8):
                        offset = 1 << i
                        T.sync_threads(3, RADIX)
                        if tx < RADIX - offset:
                            l_val = s_histogram[tx] + s_histogram[tx + offset]
                        T.sync_threads(3, RADIX)
                        if tx < RADIX - offset:
                            s_histogram[tx] = l_val

                    # find threshold bin id
                    T.sync_threads(3, RADIX)
                    # s_histogram[tx] is the suffix count for bins >= tx. Use >=/< to
                    # also catch the exact-boundary case where that count equals topk.
                    if s_histogram[tx] >= l_new_topk and s_histogram[tx + 1] < l_new_topk:
                        s_threshold_bin_id[0] = tx
                T.sync_threads()

                l_threshold_bin_id = s_threshold_bin_id[0]
                l_new_topk = l_new_topk - s_histogram[l_threshold_bin_id + 1]
                T.sync_threads()

                for s in T.serial(T.ceildiv(l_num_input, BLOCK_SIZE)):
                    T.sync_threads()
                    if s * BLOCK_SIZE + tx < l_num_input:
                        l_bin_id32 = T.cast(
                            ((convert_to_uint32(input[bx, s_input_idx[r_idx, s * BLOCK_SIZE + tx]])
                              >> (24 - round * 8)) & 0xFF),
                            T.int32,
                        )
                        if l_bin_id32 > l_threshold_bin_id:
                            pos = (T.atomic_add(s_histogram[l_bin_id32 + 1], 1, return_prev=True)
                                   + l_start_pos)
                            index[bx, pos] = s_input_idx[r_idx, s * BLOCK_SIZE + tx]
                        elif l_bin_id32 == l_threshold_bin_id and l_new_topk > 0:
                            if round == 3:
                                l_out_pos = (
                                    T.atomic_add(s_histogram[l_bin_id32 + 1], 1, return_prev=True)
                                    + l_start_pos
                                )
                                if l_out_pos < topk:
                                    index[bx, l_out_pos] = s_input_idx[r_idx, s * BLOCK_SIZE + tx]
                            else:
                                pos = T.atomic_add(s_num_input[r_idx ^ 1], 1, return_prev=True)
                                s_input_idx[r_idx ^ 1, pos] = s_input_idx[
                                    r_idx, s * BLOCK_SIZE + tx
                                ]

    return tl_topk_kernel


def distinct_rows(rng, batch, seq_len):
    """float32 rows without repeated values (so each row's top-k set is unique)."""
    x = rng.standard_normal((batch, seq_len)).astype(np.float32)
    for row in x:
        while len(np.unique(row)) < seq_len:
            row[:] = rng.standard_normal(seq_len).astype(np.float32)
    return x


@pytest.mark.parametrize(
    ("seq_len", "topk", "ranges"),
    [
        # ragged: seq_len not a multiple of the 4096 entries a pass covers; a row of negatives
        # only; ranges not starting at 0; a range of exactly topk entries
        (5000, 100, [(0, 5000), (0, 5000), (37, 4321), (1000, 1100)]),
        (4096, 64, [(0, 4096), (0, 4096)]),  # aligned
    ],
)
def test_topk_selector(seq_len, topk, ranges):
    batch = len(ranges)
    rng = np.random.default_rng(1)
    x = distinct_rows(rng, batch, seq_len)
    if seq_len == 5000:
        x[1] = -np.abs(x[1])  # every value negative: the sign flip of the 8- and 32-bit keys
    starts = np.array([r[0] for r in ranges], np.int32)
    ends = np.array([r[1] for r in ranges], np.int32)
    index = np.zeros((batch, topk), np.int32)

    kernel = tl_topk_impl(topk)
    kernel(x, index, starts, ends)

    for row, (start, end) in enumerate(ranges):
        window = x[row, start:end]
        ref = np.argpartition(-window, topk - 1)[:topk] + start
        assert len(set(index[row].tolist())) == topk, f"row {row}: repeated indices"
        assert set(index[row].tolist()) == set(ref.tolist()), f"row {row}"
