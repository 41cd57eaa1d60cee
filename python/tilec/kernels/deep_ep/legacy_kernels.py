"""The per-token work of DeepEP's V1 `Buffer` that V2's kernels (`kernels`) do not
cover, as tilec kernels.

V1 routes normal dispatches by `is_token_in_rank` (not by top-k), zeroes the weights
of lanes that are not the receiver's, sums a combine over ranks in rank order without
weights, and (low-latency) casts to FP8 before sending, lays tokens out per local
expert (DeepGEMM's masked layout) and sums a combine over top-k lanes with weights.
Maps are int32, -1 = none, as in `kernels`.
"""

from __future__ import annotations

import tilec.language as T

from .kernels import ROWS, TILE

FP8_MAX = 448.0
FP8_MARGIN = 1e-4  # the smallest amax a scale is made from
SF_BLOCK = 128  # hidden elements per low-latency scale factor


def rank_slots() -> T.PrimFunc:
    """In (N, R) bool as uint8 -> Slot (N, R), Count (R,): block d numbers, in token
    order, the tokens that go to rank d."""
    N, R = T.symbolic("num_tokens"), T.symbolic("num_ranks")

    @T.prim_func
    def ep_rank_slots(
        In: T.Tensor((N, R), "uint8"),
        Slot: T.Tensor((N, R), "int32"),
        Count: T.Tensor((R,), "int32"),
    ):
        with T.Kernel(R, threads=1) as bx:
            count = T.alloc_var("int32", init=0)
            for t in T.serial(N):
                if In[t, bx] != 0:
                    Slot[t, bx] = count
                    count += 1
                else:
                    Slot[t, bx] = -1
            Count[bx] = count

    return ep_rank_slots


def token_in_rank() -> T.PrimFunc:
    """Slot (N, R) -> In (N, R) bool as uint8: Slot >= 0."""
    N, R = T.symbolic("num_tokens"), T.symbolic("num_ranks")

    @T.prim_func
    def ep_token_in_rank(Slot: T.Tensor((N, R), "int32"), In: T.Tensor((N, R), "uint8")):
        with T.Kernel(T.ceildiv(N, ROWS), threads=ROWS) as bx:
            t = bx * ROWS + T.get_thread_binding()
            if t < N:
                for d in T.serial(R):
                    In[t, d] = T.if_then_else(Slot[t, d] >= 0, T.uint8(1), T.uint8(0))

    return ep_token_in_rank


def finish_topk() -> T.PrimFunc:
    """Received top-k rows: a weight is kept only where its lane's expert is local
    (else 0, as DeepEP's sender zeroes it); rows from `num_valid` on (the padding of
    `num_worst_tokens`) get index -1 and weight 0."""
    M, K = T.symbolic("num_rows"), T.symbolic("num_topk")

    @T.prim_func
    def ep_finish_topk(
        Idx: T.Tensor((M, K), "int64"), W: T.Tensor((M, K), "float32"), num_valid: T.int32
    ):
        with T.Kernel(T.ceildiv(M, ROWS), threads=ROWS) as bx:
            i = bx * ROWS + T.get_thread_binding()
            if i < M:
                for k in T.serial(K):
                    if i >= num_valid:
                        Idx[i, k] = T.int64(-1)
                        W[i, k] = T.float32(0.0)
                    elif Idx[i, k] < 0:
                        W[i, k] = T.float32(0.0)

    return ep_finish_topk


def rank_rows() -> T.PrimFunc:
    """Row[t, d] = Off[d] + Slot[t, d], the row rank d's block holds token t at (-1 if
    token t did not go to rank d)."""
    N, R = T.symbolic("num_tokens"), T.symbolic("num_ranks")

    @T.prim_func
    def ep_rank_rows(
        Slot: T.Tensor((N, R), "int32"),
        Off: T.Tensor((R,), "int32"),
        Row: T.Tensor((N, R), "int32"),
    ):
        with T.Kernel(T.ceildiv(N, ROWS), threads=ROWS) as bx:
            t = bx * ROWS + T.get_thread_binding()
            if t < N:
                for d in T.serial(R):
                    slot = Slot[t, d]
                    Row[t, d] = T.if_then_else(slot >= 0, Off[d] + slot, -1)

    return ep_rank_rows


def sum_rank_weights() -> T.PrimFunc:
    """Out[t, k] = 0 + BackW[Row[t, 0], k] + BackW[Row[t, 1], k] + ... in float32, over
    the ranks token t went to, in rank order (V1's combined top-k weights)."""
    N, R, B, K = (
        T.symbolic("num_tokens"),
        T.symbolic("num_ranks"),
        T.symbolic("num_back_rows"),
        T.symbolic("num_topk"),
    )

    @T.prim_func
    def ep_sum_rank_weights(
        BackW: T.Tensor((B, K), "float32"),
        Row: T.Tensor((N, R), "int32"),
        Out: T.Tensor((N, K), "float32"),
    ):
        with T.Kernel(T.ceildiv(N, ROWS), threads=ROWS) as bx:
            t = bx * ROWS + T.get_thread_binding()
            if t < N:
                for k in T.serial(K):
                    acc = T.alloc_var("float32", init=0.0)
                    acc = T.float32(0.0)
                    for d in T.serial(R):
                        row = Row[t, d]
                        if row >= 0:
                            acc = acc + BackW[row, k]
                    Out[t, k] = acc

    return ep_sum_rank_weights


def ll_cast(round_scale: bool) -> T.PrimFunc:
    """X (N, H) bf16 -> Y (N, H) float8_e4m3fn and SF (N, H / 128): DeepEP's low-latency
    cast. Per 128 columns amax = max(1e-4, max |x|); scale = 448 / amax and sf = amax *
    float32(1 / 448), or with `round_scale` sf = 2^ceil(log2(amax * float32(1 / 448)))
    (from the bits) and scale = 1 / sf; y = e4m3(float32(x) * scale)."""
    N, S = T.symbolic("num_tokens"), T.symbolic("num_scales")

    @T.prim_func
    def ep_ll_cast(
        X: T.Tensor((N, S * SF_BLOCK), "bfloat16"),
        Y: T.Tensor((N, S * SF_BLOCK), "float8_e4m3"),
        SF: T.Tensor((N, S), "float32"),
    ):
        with T.Kernel(S, N, threads=128) as (bx, by):
            x = T.alloc_fragment((1, SF_BLOCK), "bfloat16")
            y = T.alloc_fragment((1, SF_BLOCK), "float8_e4m3")
            amax = T.alloc_fragment((1,), "float32")
            T.copy(X[by, bx * SF_BLOCK], x)
            T.reduce_absmax(x, amax, dim=1)
            a = T.max(amax[0], T.float32(FP8_MARGIN))
            scale = T.alloc_var("float32", init=0.0)
            sf = T.alloc_var("float32", init=0.0)
            if round_scale:
                bits = T.reinterpret(a * T.float32(1.0 / FP8_MAX), "int32")
                exponent = ((bits >> 23) & 0xFF) - 127 + T.cast((bits & 0x7FFFFF) != 0, "int32")
                scale = T.reinterpret((127 - exponent) << 23, "float32")
                sf = T.reinterpret((exponent + 127) << 23, "float32")
            else:
                scale = T.float32(FP8_MAX) / a
                sf = a * T.float32(1.0 / FP8_MAX)
            for i, j in T.Parallel(1, SF_BLOCK):
                y[i, j] = T.cast(T.cast(x[i, j], "float32") * scale, "float8_e4m3")
            T.copy(y, Y[by, bx * SF_BLOCK])
            SF[by, bx] = sf

    return ep_ll_cast


def ll_place_scales(ue8m0: bool) -> T.PrimFunc:
    """Scales of received rows into the column-major per-expert layout: row p of expert
    e is Src[RowOf[e, p]] (0 where -1). Dst is (E, S, Q) float32, or with `ue8m0`
    the bytes of (E, S / 4, Q) int32: scale c's exponent byte at [e, c / 4, p * 4 + c % 4]."""
    M, S, E, Q = (
        T.symbolic("num_rows"),
        T.symbolic("num_scales"),
        T.symbolic("num_local_experts"),
        T.symbolic("num_slots"),
    )
    group = 4 if ue8m0 else 1
    dst_shape = (E, T.ceildiv(S, group), Q * group)

    @T.prim_func
    def ep_ll_place_scales(
        Src: T.Tensor((M, S), "float32"),
        RowOf: T.Tensor((E, Q), "int32"),
        Dst: T.Tensor(dst_shape, "uint8" if ue8m0 else "float32"),
    ):
        with T.Kernel(T.ceildiv(Q, ROWS), E, threads=ROWS) as (bx, by):
            p = bx * ROWS + T.get_thread_binding()
            if p < Q:
                row = RowOf[by, p]
                for c in T.serial(S):
                    value = T.if_then_else(row >= 0, Src[T.max(row, 0), c], T.float32(0.0))
                    if ue8m0:
                        byte = (T.reinterpret(value, "int32") >> 23) & 0xFF
                        Dst[by, c // 4, p * 4 + c % 4] = T.cast(byte, "uint8")
                    else:
                        Dst[by, c, p] = value

    return ep_ll_place_scales


def weighted_reduce(num_topk: int) -> T.PrimFunc:
    """Out[t, :] = bf16(0 + x_0 * w_0 + x_1 * w_1 + ...) in float32 over the lanes with a
    row (x_k = float(Back[ReduceRow[t, k]]), w_k = W[t, k]), in lane order: the
    low-latency combine."""
    N, B, H = T.symbolic("num_tokens"), T.symbolic("num_back_rows"), T.symbolic("hidden")

    @T.prim_func
    def ep_weighted_reduce(
        Back: T.Tensor((B, H), "bfloat16"),
        ReduceRow: T.Tensor((N, num_topk), "int32"),
        W: T.Tensor((N, num_topk), "float32"),
        Out: T.Tensor((N, H), "bfloat16"),
    ):
        with T.Kernel(T.ceildiv(H, TILE), N, threads=128) as (bx, by):
            acc = T.alloc_fragment((TILE,), "float32")
            row = T.alloc_fragment((TILE,), "bfloat16")
            result = T.alloc_fragment((TILE,), "bfloat16")
            T.clear(acc)
            for k in T.serial(num_topk):
                src = ReduceRow[by, k]
                if src >= 0:
                    weight = W[by, k]
                    T.copy(Back[src, bx * TILE], row)
                    for c in T.Parallel(TILE):
                        acc[c] = acc[c] + T.cast(row[c], "float32") * weight
            for c in T.Parallel(TILE):
                result[c] = T.cast(acc[c], "bfloat16")
            T.copy(result, Out[by, bx * TILE])

    return ep_weighted_reduce
