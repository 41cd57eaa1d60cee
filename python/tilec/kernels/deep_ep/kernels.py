"""The per-token work of DeepEP's dispatch and combine as tilec kernels.

The collectives move contiguous per-destination blocks (torch.distributed's
`all_to_all_single` with split sizes); these kernels build the layout, pack the
blocks, place received tokens and reduce them back. Tokens keep the order of the
reference (`deep_ep.utils.refs`): a destination receives source rank 0's tokens
first, each rank's in token order; an expert's expanded slots follow that order.

Maps (all int32, -1 = none):
- `Slot[t, d]`: the position of token t in this rank's block for rank d;
- `Off[d]`: where the block for rank d starts (from the per-rank counts);
- `LanePos[i, k]`: the expanded row of received token i's top-k lane k;
- `RowOf[p]`: the received token an expanded row p holds (padding: -1).
One thread handles one token (or one rank, one expert) where an order matters,
and one hidden column where rows are copied or summed.
"""

from __future__ import annotations

import tilec.language as T

ROWS = 128  # tokens per block of the per-token kernels, one per thread
TILE = 256  # hidden columns a block copies or reduces


def dispatch_layout(num_topk: int) -> T.PrimFunc:
    """Idx (N, K) int64 -> Slot (N, R), Count (R,): block d numbers, in token order, the
    tokens with an expert on rank d; Invalid[0] counts entries outside [-1, E)."""
    N, R = T.symbolic("num_tokens"), T.symbolic("num_ranks")

    @T.prim_func
    def ep_dispatch_layout(
        Idx: T.Tensor((N, num_topk), "int64"),
        Slot: T.Tensor((N, R), "int32"),
        Count: T.Tensor((R,), "int32"),
        Invalid: T.Tensor((1,), "int32"),
        experts_per_rank: T.int64,
        num_experts: T.int64,
    ):
        with T.Kernel(R, threads=1) as bx:
            count = T.alloc_var("int32", init=0)
            bad = T.alloc_var("int32", init=0)
            hit = T.alloc_var("int32", init=0)
            lo = T.cast(bx, "int64") * experts_per_rank
            for t in T.serial(N):
                hit = 0
                for k in T.serial(num_topk):
                    expert = Idx[t, k]
                    if expert >= lo and expert < lo + experts_per_rank:
                        hit = 1
                    if expert < -1 or expert >= num_experts:
                        bad += 1
                if hit > 0:
                    Slot[t, bx] = count
                    count += 1
                else:
                    Slot[t, bx] = -1
            Count[bx] = count
            if bx == 0:
                Invalid[0] = bad

    return ep_dispatch_layout


def pack_rows(dtype: str) -> T.PrimFunc:
    """Dst[Off[d] + Slot[t, d], :] = Src[t, :] for every rank d token t goes to."""
    N, R, M, W = (
        T.symbolic("num_tokens"),
        T.symbolic("num_ranks"),
        T.symbolic("num_rows"),
        T.symbolic("width"),
    )

    @T.prim_func
    def ep_pack_rows(
        Src: T.Tensor((N, W), dtype),
        Slot: T.Tensor((N, R), "int32"),
        Off: T.Tensor((R,), "int32"),
        Dst: T.Tensor((M, W), dtype),
    ):
        with T.Kernel(T.ceildiv(W, TILE), N, threads=128) as (bx, by):
            row = T.alloc_fragment((TILE,), dtype)
            T.copy(Src[by, bx * TILE], row)
            for d in T.serial(R):
                slot = Slot[by, d]
                if slot >= 0:
                    T.copy(row, Dst[Off[d] + slot, bx * TILE])

    return ep_pack_rows


def pack_meta(num_topk: int) -> T.PrimFunc:
    """The per-destination routing of each packed token: its top-k indices local to the
    destination (others -1), its global index `rank * max_tokens + t`, and DeepEP's
    `dst_buffer_slot_idx` (on the first lane of each destination rank)."""
    N, R, M = T.symbolic("num_tokens"), T.symbolic("num_ranks"), T.symbolic("num_rows")

    @T.prim_func
    def ep_pack_meta(
        Idx: T.Tensor((N, num_topk), "int64"),
        Slot: T.Tensor((N, R), "int32"),
        Off: T.Tensor((R,), "int32"),
        SendIdx: T.Tensor((M, num_topk), "int64"),
        SendSrc: T.Tensor((M,), "int32"),
        DstSlot: T.Tensor((N, num_topk), "int32"),
        experts_per_rank: T.int64,
        rank: T.int32,
        max_tokens: T.int32,
    ):
        with T.Kernel(T.ceildiv(N, ROWS), threads=ROWS) as bx:
            t = bx * ROWS + T.get_thread_binding()
            if t < N:
                first = T.alloc_var("int32", init=1)
                for d in T.serial(R):
                    slot = Slot[t, d]
                    if slot >= 0:
                        row = Off[d] + slot
                        SendSrc[row] = T.cast(rank * max_tokens + t, "int32")
                        lo = T.cast(d, "int64") * experts_per_rank
                        for k in T.serial(num_topk):
                            expert = Idx[t, k]
                            inside = expert >= lo and expert < lo + experts_per_rank
                            SendIdx[row, k] = T.if_then_else(inside, expert - lo, T.int64(-1))
                for k in T.serial(num_topk):
                    expert = Idx[t, k]
                    first = 1
                    for j in T.serial(k):
                        other = Idx[t, j]
                        if (
                            other >= 0
                            and expert >= 0
                            and other // experts_per_rank == expert // experts_per_rank
                        ):
                            first = 0
                    if expert >= 0 and first > 0:
                        DstSlot[t, k] = T.cast(
                            rank * max_tokens
                            + Slot[t, T.cast(expert // experts_per_rank, "int32")],
                            "int32",
                        )
                    else:
                        DstSlot[t, k] = -1

    return ep_pack_meta


def expert_count() -> T.PrimFunc:
    """Idx (M, K) local expert indices -> Count (E,): block e counts expert e's lanes."""
    M, K, E = T.symbolic("num_recv_tokens"), T.symbolic("num_topk"), T.symbolic("num_local_experts")

    @T.prim_func
    def ep_expert_count(Idx: T.Tensor((M, K), "int64"), Count: T.Tensor((E,), "int32")):
        with T.Kernel(E, threads=1) as bx:
            count = T.alloc_var("int32", init=0)
            for i in T.serial(M):
                for k in T.serial(K):
                    if Idx[i, k] == T.cast(bx, "int64"):
                        count += 1
            Count[bx] = count

    return ep_expert_count


def expert_place(num_topk: int) -> T.PrimFunc:
    """Block e gives expert e's lanes, in received order, the rows Start[e], Start[e]+1,
    ... (LanePos, Meta[:, 2:], RowOf, ElemOf = i * K + k), and marks its alignment
    padding up to End[e] with -1 in RowOf and ElemOf."""
    M, E, P = (
        T.symbolic("num_recv_tokens"),
        T.symbolic("num_local_experts"),
        T.symbolic("num_expanded"),
    )

    @T.prim_func
    def ep_expert_place(
        Idx: T.Tensor((M, num_topk), "int64"),
        Start: T.Tensor((E,), "int32"),
        End: T.Tensor((E,), "int32"),
        LanePos: T.Tensor((M, num_topk), "int32"),
        Meta: T.Tensor((M, num_topk + 2), "int32"),
        RowOf: T.Tensor((P,), "int32"),
        ElemOf: T.Tensor((P,), "int32"),
    ):
        with T.Kernel(E, threads=1) as bx:
            pos = T.alloc_var("int32", init=0)
            pos = Start[bx]
            for i in T.serial(M):
                for k in T.serial(num_topk):
                    if Idx[i, k] == T.cast(bx, "int64"):
                        LanePos[i, k] = pos
                        Meta[i, k + 2] = pos
                        RowOf[pos] = T.cast(i, "int32")
                        ElemOf[pos] = T.cast(i * num_topk + k, "int32")
                        pos += 1
            for p in T.serial(End[bx] - pos):
                RowOf[pos + p] = -1
                ElemOf[pos + p] = -1

    return ep_expert_place


def recv_meta(num_topk: int) -> T.PrimFunc:
    """DeepEP's `recv_src_metadata` columns 0 and 1 (the source token's global index;
    source rank * K + its first lane on this rank), and -1 lane positions for lanes
    with no expert here."""
    M = T.symbolic("num_recv_tokens")

    @T.prim_func
    def ep_recv_meta(
        Idx: T.Tensor((M, num_topk), "int64"),
        Src: T.Tensor((M,), "int32"),
        LanePos: T.Tensor((M, num_topk), "int32"),
        Meta: T.Tensor((M, num_topk + 2), "int32"),
        max_tokens: T.int32,
    ):
        with T.Kernel(T.ceildiv(M, ROWS), threads=ROWS) as bx:
            i = bx * ROWS + T.get_thread_binding()
            if i < M:
                master = T.alloc_var("int32", init=-1)
                for k in T.serial(num_topk):
                    if Idx[i, k] < 0:
                        LanePos[i, k] = -1
                        Meta[i, k + 2] = -1
                    elif master < 0:
                        master = T.cast(k, "int32")
                Meta[i, 0] = Src[i]
                Meta[i, 1] = (Src[i] // max_tokens) * num_topk + master

    return ep_recv_meta


def gather_rows(dtype: str, transposed: bool) -> T.PrimFunc:
    """Dst[p, :] = Src[RowOf[p], :], zero where RowOf[p] < 0. `transposed` writes the
    column-major layout instead: Dst (W, Q) with Dst[:, p] the row (Q >= P)."""
    M, P, W, Q = (
        T.symbolic("num_rows"),
        T.symbolic("num_out_rows"),
        T.symbolic("width"),
        T.symbolic("num_out_rows_padded"),
    )
    out_shape = (W, Q) if transposed else (P, W)

    @T.prim_func
    def ep_gather_rows(
        Src: T.Tensor((M, W), dtype),
        RowOf: T.Tensor((P,), "int32"),
        Dst: T.Tensor(out_shape, dtype),
    ):
        with T.Kernel(T.ceildiv(W, TILE), P, threads=128) as (bx, by):
            row = T.alloc_fragment((TILE,), dtype)
            src = RowOf[by]
            if src >= 0:
                T.copy(Src[src, bx * TILE], row)
            else:
                T.clear(row)
            if transposed:
                for c in T.Parallel(TILE):
                    if bx * TILE + c < W:
                        Dst[bx * TILE + c, by] = row[c]
            else:
                T.copy(row, Dst[by, bx * TILE])

    return ep_gather_rows


def expand_reduce(num_topk: int) -> T.PrimFunc:
    """Out[i, :] = bf16(0 + X[LanePos[i, 0]] + X[LanePos[i, 1]] + ...) in float32, over the
    lanes placed here, in lane order: one rank's part of an expanded combine."""
    M, P, H = T.symbolic("num_recv_tokens"), T.symbolic("num_expanded"), T.symbolic("hidden")

    @T.prim_func
    def ep_expand_reduce(
        X: T.Tensor((P, H), "bfloat16"),
        LanePos: T.Tensor((M, num_topk), "int32"),
        Out: T.Tensor((M, H), "bfloat16"),
    ):
        with T.Kernel(T.ceildiv(H, TILE), M, threads=128) as (bx, by):
            acc = T.alloc_fragment((TILE,), "float32")
            row = T.alloc_fragment((TILE,), "bfloat16")
            result = T.alloc_fragment((TILE,), "bfloat16")
            T.clear(acc)
            for k in T.serial(num_topk):
                pos = LanePos[by, k]
                if pos >= 0:
                    T.copy(X[pos, bx * TILE], row)
                    for c in T.Parallel(TILE):
                        acc[c] = acc[c] + T.cast(row[c], "float32")
            for c in T.Parallel(TILE):
                result[c] = T.cast(acc[c], "bfloat16")
            T.copy(result, Out[by, bx * TILE])

    return ep_expand_reduce


def combine_map(num_topk: int, per_lane: bool) -> T.PrimFunc:
    """For token t's lane k on rank d: RankRow = Off[d] + Slot[t, d], the row rank d
    sent back; ReduceRow = the row the combine adds at lane k: RankRow on the last
    lane of each rank (the reference keeps a rank's partial sum there), or with
    `per_lane` (one row per lane sent back) RankRow * K + k on every lane; else -1."""
    N, R = T.symbolic("num_tokens"), T.symbolic("num_ranks")

    @T.prim_func
    def ep_combine_map(
        Idx: T.Tensor((N, num_topk), "int64"),
        Slot: T.Tensor((N, R), "int32"),
        Off: T.Tensor((R,), "int32"),
        RankRow: T.Tensor((N, num_topk), "int32"),
        ReduceRow: T.Tensor((N, num_topk), "int32"),
        experts_per_rank: T.int64,
    ):
        with T.Kernel(T.ceildiv(N, ROWS), threads=ROWS) as bx:
            t = bx * ROWS + T.get_thread_binding()
            if t < N:
                last = T.alloc_var("int32", init=1)
                for k in T.serial(num_topk):
                    expert = Idx[t, k]
                    if expert >= 0:
                        d = T.cast(expert // experts_per_rank, "int32")
                        row = Off[d] + Slot[t, d]
                        RankRow[t, k] = row
                        last = 1
                        for j in T.serial(num_topk - k - 1):
                            other = Idx[t, k + 1 + j]
                            if (
                                other >= 0
                                and other // experts_per_rank == expert // experts_per_rank
                            ):
                                last = 0
                        if per_lane:
                            ReduceRow[t, k] = row * num_topk + k
                        elif last > 0:
                            ReduceRow[t, k] = row
                        else:
                            ReduceRow[t, k] = -1
                    else:
                        RankRow[t, k] = -1
                        ReduceRow[t, k] = -1

    return ep_combine_map


def combine_reduce(num_topk: int, num_bias: int) -> T.PrimFunc:
    """Out[t, :] = bf16(b + v_0 + v_1 + ... + v_{K-1}) in float32, b = float(Bias0) (+
    float(Bias1)) or 0, v_k = float(Back[ReduceRow[t, k]]) or +0.0: the reference's
    ordered accumulation, zeros included."""
    N, B, H = T.symbolic("num_tokens"), T.symbolic("num_back_rows"), T.symbolic("hidden")

    @T.prim_func
    def ep_combine_reduce(
        Back: T.Tensor((B, H), "bfloat16"),
        ReduceRow: T.Tensor((N, num_topk), "int32"),
        Bias0: T.Tensor((N, H), "bfloat16"),
        Bias1: T.Tensor((N, H), "bfloat16"),
        Out: T.Tensor((N, H), "bfloat16"),
    ):
        with T.Kernel(T.ceildiv(H, TILE), N, threads=128) as (bx, by):
            acc = T.alloc_fragment((TILE,), "float32")
            row = T.alloc_fragment((TILE,), "bfloat16")
            bias = T.alloc_fragment((TILE,), "bfloat16")
            result = T.alloc_fragment((TILE,), "bfloat16")
            T.clear(acc)
            if num_bias > 0:
                T.copy(Bias0[by, bx * TILE], bias)
                for c in T.Parallel(TILE):
                    acc[c] = T.cast(bias[c], "float32")
            if num_bias > 1:
                T.copy(Bias1[by, bx * TILE], bias)
                for c in T.Parallel(TILE):
                    acc[c] = acc[c] + T.cast(bias[c], "float32")
            for k in T.serial(num_topk):
                src = ReduceRow[by, k]
                if src >= 0:
                    T.copy(Back[src, bx * TILE], row)
                    for c in T.Parallel(TILE):
                        acc[c] = acc[c] + T.cast(row[c], "float32")
                else:
                    for c in T.Parallel(TILE):
                        acc[c] = acc[c] + T.float32(0.0)
            for c in T.Parallel(TILE):
                result[c] = T.cast(acc[c], "bfloat16")
            T.copy(result, Out[by, bx * TILE])

    return ep_combine_reduce


def combine_weights(num_topk: int) -> T.PrimFunc:
    """Out[t, k] = BackW[RankRow[t, k], k] (the weight lane k's rank sent back), 0 where
    lane k has no expert."""
    N, B = T.symbolic("num_tokens"), T.symbolic("num_back_rows")

    @T.prim_func
    def ep_combine_weights(
        BackW: T.Tensor((B, num_topk), "float32"),
        RankRow: T.Tensor((N, num_topk), "int32"),
        Out: T.Tensor((N, num_topk), "float32"),
    ):
        with T.Kernel(T.ceildiv(N, ROWS), threads=ROWS) as bx:
            t = bx * ROWS + T.get_thread_binding()
            if t < N:
                for k in T.serial(num_topk):
                    src = RankRow[t, k]
                    Out[t, k] = T.if_then_else(src >= 0, BackW[T.max(src, 0), k], T.float32(0.0))

    return ep_combine_weights


def add_counts() -> T.PrimFunc:
    """Stats[e] += Count[e] (`cumulative_local_expert_recv_stats`)."""
    E = T.symbolic("num_local_experts")

    @T.prim_func
    def ep_add_counts(Stats: T.Tensor((E,), "int32"), Count: T.Tensor((E,), "int32")):
        with T.Kernel(T.ceildiv(E, ROWS), threads=ROWS) as bx:
            e = bx * ROWS + T.get_thread_binding()
            if e < E:
                Stats[e] = Stats[e] + Count[e]

    return ep_add_counts
