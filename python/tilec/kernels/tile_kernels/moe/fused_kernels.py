"""The fused (expert-major) MoE layout as tilec kernels: building the mapping
between (token, topk) slots and positions, expanding tokens into it and reducing
it back.

Layout: expert e owns positions [expert_start[e], expert_end[e]), its count
rounded up to `alignment`; its slots take the first positions of that range in
(token, topk) order, the rest are padding (-1 in the maps, zero rows when expanded).
Upstream leaves the order inside an expert's range to its warps; the stable order
here is one of the layouts its tests accept, and the same on every target.
"""

from __future__ import annotations

import tilec.language as T

CHUNK = 1024  # (token, topk) slots a block of the mapping kernels counts and places
HIDDEN_TILE = 256  # hidden columns a block copies or reduces


def mapping_count() -> T.PrimFunc:
    """Idx (L,) -> Counts (B, E): how many slots of each block's chunk go to each expert."""
    L, E = T.symbolic("numel"), T.symbolic("num_experts")

    @T.prim_func
    def fused_mapping_count(
        Idx: T.Tensor((L,), "int64"), Counts: T.Tensor((T.ceildiv(L, CHUNK), E), "int32")
    ):
        with T.Kernel(T.ceildiv(L, CHUNK), threads=1) as bx:
            for e in T.serial(E):
                Counts[bx, e] = 0
            for i in T.serial(T.min(CHUNK, L - bx * CHUNK)):
                expert = Idx[bx * CHUNK + i]
                if expert >= 0 and expert < E:
                    Counts[bx, expert] = Counts[bx, expert] + 1

    return fused_mapping_count


def mapping_ranges(alignment: int) -> T.PrimFunc:
    """Counts (B, E) -> each expert's range and, in place of the counts, the first
    position of each block's slots of that expert."""
    B, E = T.symbolic("num_blocks"), T.symbolic("num_experts")

    @T.prim_func
    def fused_mapping_ranges(
        Counts: T.Tensor((B, E), "int32"),
        Start: T.Tensor((E,), "int32"),
        End: T.Tensor((E,), "int32"),
        PerExpert: T.Tensor((E,), "int32"),
    ):
        with T.Kernel(1, threads=1):
            start = T.alloc_var("int32", init=0)
            total = T.alloc_var("int32", init=0)
            for e in T.serial(E):
                total = 0
                for b in T.serial(B):
                    count = Counts[b, e]
                    Counts[b, e] = start + total
                    total += count
                aligned = T.ceildiv(total, alignment) * alignment
                Start[e] = start
                End[e] = start + aligned
                PerExpert[e] = aligned
                start += aligned

    return fused_mapping_ranges


def fill_minus_one() -> T.PrimFunc:
    """The three position maps (P,) set to -1 (padding, until slots are placed)."""
    P = T.symbolic("num_expanded_tokens")

    @T.prim_func
    def fused_mapping_clear(
        ToExpert: T.Tensor((P,), "int32"),
        ToToken: T.Tensor((P,), "int32"),
        ToSlot: T.Tensor((P,), "int32"),
    ):
        with T.Kernel(T.ceildiv(P, CHUNK), threads=128) as bx:
            for i in T.Parallel(CHUNK):
                if bx * CHUNK + i < P:
                    ToExpert[bx * CHUNK + i] = -1
                    ToToken[bx * CHUNK + i] = -1
                    ToSlot[bx * CHUNK + i] = -1

    return fused_mapping_clear


def mapping_place(num_topk: int) -> T.PrimFunc:
    """Each block places its chunk's slots in order, from its first positions (Offsets,
    advanced in place), and writes both directions of the map."""
    L, E, P = T.symbolic("numel"), T.symbolic("num_experts"), T.symbolic("num_expanded_tokens")

    @T.prim_func
    def fused_mapping_place(
        Idx: T.Tensor((L,), "int64"),
        Offsets: T.Tensor((T.ceildiv(L, CHUNK), E), "int32"),
        SlotToPos: T.Tensor((L,), "int32"),
        ToExpert: T.Tensor((P,), "int32"),
        ToToken: T.Tensor((P,), "int32"),
        ToSlot: T.Tensor((P,), "int32"),
    ):
        with T.Kernel(T.ceildiv(L, CHUNK), threads=1) as bx:
            for i in T.serial(T.min(CHUNK, L - bx * CHUNK)):
                slot = bx * CHUNK + i
                expert = Idx[slot]
                SlotToPos[slot] = -1
                if expert >= 0 and expert < E:
                    pos = Offsets[bx, expert]
                    Offsets[bx, expert] = pos + 1
                    if pos < P:
                        SlotToPos[slot] = pos
                        ToExpert[pos] = T.cast(expert, "int32")
                        ToToken[pos] = T.cast(slot // num_topk, "int32")
                        ToSlot[pos] = T.cast(slot, "int32")

    return fused_mapping_place


def expand_zero_padding(dtype: str) -> T.PrimFunc:
    """Out[p, :] = 0 where ToExpert[p] < 0."""
    P, H = T.symbolic("num_expanded_tokens"), T.symbolic("hidden")

    @T.prim_func
    def expand_to_fused_padding(ToExpert: T.Tensor((P,), "int32"), Out: T.Tensor((P, H), dtype)):
        with T.Kernel(T.ceildiv(H, HIDDEN_TILE), P, threads=128) as (bx, by):
            if ToExpert[by] < 0:
                zeros = T.alloc_fragment((HIDDEN_TILE,), dtype)
                T.clear(zeros)
                T.copy(zeros, Out[by, bx * HIDDEN_TILE])

    return expand_to_fused_padding


def expand_scatter(dtype: str, num_topk: int) -> T.PrimFunc:
    """Out[SlotToPos[t, k], :] = X[t, :] for every slot placed (position >= 0)."""
    N, P, H = T.symbolic("num_tokens"), T.symbolic("num_expanded_tokens"), T.symbolic("hidden")

    @T.prim_func
    def expand_to_fused_scatter(
        X: T.Tensor((N, H), dtype),
        SlotToPos: T.Tensor((N, num_topk), "int32"),
        Out: T.Tensor((P, H), dtype),
    ):
        with T.Kernel(T.ceildiv(H, HIDDEN_TILE), N, threads=128) as (bx, by):
            row = T.alloc_fragment((HIDDEN_TILE,), dtype)
            T.copy(X[by, bx * HIDDEN_TILE], row)
            for k in T.serial(num_topk):
                pos = SlotToPos[by, k]
                if pos >= 0 and pos < P:
                    T.copy(row, Out[pos, bx * HIDDEN_TILE])

    return expand_to_fused_scatter


def fma_f32(a, b, c, exact: bool = True):
    """a * b + c in float32 with one rounding (CUDA's contracted multiply-add, which the
    reference's `elementwise_fma` asks for). The exact product and sum are formed in
    float64 and rounded to odd (Boldo and Melquiond), which makes the final rounding
    to float32 the correct one; tilec has no fused multiply-add of its own. Without
    `exact` (a target with no float64), two float32 roundings."""
    if not exact:
        return a * b + c
    product = T.cast(a, "float64") * T.cast(b, "float64")  # exact: 24 + 24 bits
    addend = T.cast(c, "float64")
    total = product + addend
    back = total - product
    error = (product - (total - back)) + (addend - back)  # TwoSum: total + error is exact
    bits = T.reinterpret(total, "int64")
    inexact_even = (error != 0.0) & ((bits & 1) == 0)
    away = (error > 0.0) == (total > 0.0)
    odd = T.if_then_else(inexact_even, T.if_then_else(away, bits + 1, bits - 1), bits)
    return T.cast(T.reinterpret(odd, "float64"), "float32")


def reduce_weighted(dtype: str, num_topk: int, with_weights: bool, with_x_sf: bool,
                    exact: bool = True) -> T.PrimFunc:
    """Out[t, :] = sum over placed slots k, in order, of X[pos, :] * s_k (one fma each,
    from zero), s_k = W[t, k] (or 1) times XSF[pos] (when given); cast to X's dtype.
    Without `exact` (no float64 on the target) each fma rounds twice."""
    N, P, H = T.symbolic("num_tokens"), T.symbolic("num_expanded_tokens"), T.symbolic("hidden")

    @T.prim_func
    def reduce_fused_kernel(
        X: T.Tensor((P, H), dtype),
        W: T.Tensor((N, num_topk), "float32"),
        SlotToPos: T.Tensor((N, num_topk), "int32"),
        XSF: T.Tensor((P,), "float32"),
        Out: T.Tensor((N, H), dtype),
    ):
        with T.Kernel(T.ceildiv(H, HIDDEN_TILE), N, threads=128) as (bx, by):
            acc = T.alloc_fragment((HIDDEN_TILE,), "float32")
            row = T.alloc_fragment((HIDDEN_TILE,), dtype)
            result = T.alloc_fragment((HIDDEN_TILE,), dtype)
            scale = T.alloc_var("float32", init=1.0)
            T.clear(acc)
            for k in T.serial(num_topk):
                pos = SlotToPos[by, k]
                if pos >= 0 and pos < P:
                    scale = W[by, k] if with_weights else 1.0
                    if with_x_sf:
                        scale = scale * XSF[pos]
                    T.copy(X[pos, bx * HIDDEN_TILE], row)
                    for i in T.Parallel(HIDDEN_TILE):
                        acc[i] = fma_f32(row[i], scale, acc[i], exact)
            for i in T.Parallel(HIDDEN_TILE):
                result[i] = T.cast(acc[i], dtype)
            T.copy(result, Out[by, bx * HIDDEN_TILE])

    return reduce_fused_kernel
