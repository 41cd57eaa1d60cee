"""TileKernels' grouped MoE gate and its helpers as tilec kernels: group ranking by
top-k sums, the top-2-sum gate, the auxiliary-loss frequencies and per-token
deduplication of group indices. One thread handles one token, so ranks and choices
follow the torch references' stable orders exactly (ties go to the lower index).
"""

from __future__ import annotations

import tilec.language as T

from .routing_kernels import ROWS
from .scoring import ScoringFunc

DUPLICATE_PRIME = 23333  # spreads tokens over an expert's duplicates, as upstream


@T.macro
def group_scores(S, row, GS, num_groups: int, per_group: int, num_topk_sum: int) -> None:
    """GS[row, g] = the sum of the num_topk_sum (1 or 2) largest of group g's scores
    (the second largest counted again when the largest repeats, as torch.topk does)."""
    top1 = T.alloc_var("float32", init=0.0)
    top2 = T.alloc_var("float32", init=0.0)
    for g in T.serial(num_groups):
        top1 = -T.infinity("float32")
        top2 = -T.infinity("float32")
        for e in T.serial(per_group):
            value = S[row, g * per_group + e]
            if value > top1:
                top2 = top1
                top1 = value
            elif value > top2:
                top2 = value
        GS[row, g] = top1 if num_topk_sum == 1 else top1 + top2


@T.macro
def group_rank(GS, row, g, num_groups: int):
    """Group g's place in a stable descending sort of GS[row, :]."""
    rank = T.alloc_var("int32", init=0)
    for h in T.serial(num_groups):
        if GS[row, h] > GS[row, g] or (GS[row, h] == GS[row, g] and h < g):
            rank += 1
    return rank


def topk_sum_and_topk_group_idx(num_groups: int, per_group: int, num_topk_sum: int,
                                num_topk_groups: int) -> T.PrimFunc:
    """S (N, G * per_group) -> I (N, K) int64: the K groups of largest top-k sum, by
    rank (each group writes itself at its rank when that is below K)."""
    N = T.symbolic("num_tokens")

    @T.prim_func
    def topk_sum_and_topk_group_idx_kernel(
        S: T.Tensor((N, num_groups * per_group), "float32"),
        GS: T.Tensor((N, num_groups), "float32"),
        I: T.Tensor((N, num_topk_groups), "int64"),  # noqa: E741
    ):
        with T.Kernel(T.ceildiv(N, ROWS), threads=ROWS) as bx:
            row = bx * ROWS + T.get_thread_binding()
            if row < N:
                group_scores(S, row, GS, num_groups, per_group, num_topk_sum)
                for g in T.serial(num_groups):
                    rank = group_rank(GS, row, g, num_groups)
                    if rank < num_topk_groups:
                        I[row, rank] = T.cast(g, "int64")

    return topk_sum_and_topk_group_idx_kernel


def log1p(y):
    """log(1 + y) without losing y's low bits (Goldberg): log(u) scaled by the exact
    y / (u - 1), u = 1 + y rounded. tilec has no log1p of its own."""
    u = 1.0 + y
    return T.if_then_else(u == 1.0, y, T.log(u) * (y / (u - 1.0)))


def top2_sum_gate(scoring: int, num_routed_experts: int, num_topk: int, num_groups: int,
                  num_topk_groups: int, num_shared_experts: int, has_mask: bool,
                  has_fix: bool, has_unmapped: bool, has_map: bool) -> T.PrimFunc:
    """Logits (N, E) -> Idx, W (N, num_topk + num_shared_experts): per active token the
    scores (Swb), the biased ranking scores (Sb, masked to the best groups), a stable
    top-k (or the fixed routing in Unmapped), top-sum normalised weights, shared
    slots, the logical -> physical map and the EP/TP masking of tile_kernels.torch."""
    N = T.symbolic("num_tokens")
    E, K, P = num_routed_experts, num_topk, num_topk + num_shared_experts
    LE, D = T.symbolic("num_logical_experts"), T.symbolic("num_duplicates")
    grouped = num_groups != num_topk_groups
    G = max(num_groups, 1)
    per_group = E // G

    @T.prim_func
    def top2_sum_gate_kernel(
        Logits: T.Tensor((N, E), "float32"),
        Bias: T.Tensor((E,), "float32"),
        Mask: T.Tensor((N,), "uint8"),
        Fix: T.Tensor((N,), "uint8"),
        Map: T.Tensor((LE, D), "int32"),
        Count: T.Tensor((LE,), "int32"),
        Idx: T.Tensor((N, P), "int64"),
        Unmapped: T.Tensor((N, K), "int64"),
        W: T.Tensor((N, P), "float32"),
        Swb: T.Tensor((N, E), "float32"),
        Sb: T.Tensor((N, E), "float32"),
        GS: T.Tensor((N, G), "float32"),
        num_extra_experts: T.int64,
        routed_scaling_factor: T.float32,
        ep_rank: T.int64,
        num_ep_ranks: T.int64,
        tp_rank: T.int64,
        num_tp_ranks: T.int64,
    ):
        with T.Kernel(T.ceildiv(N, ROWS), threads=ROWS) as bx:
            t = bx * ROWS + T.get_thread_binding()
            if t < N:
                active = T.alloc_var("int32", init=1)
                if has_mask:
                    active = T.cast(Mask[t], "int32")
                if active == 0:
                    for k in T.serial(P):
                        Idx[t, k] = T.int64(-1)
                        W[t, k] = 0.0
                    if has_unmapped:
                        for k in T.serial(K):
                            Unmapped[t, k] = T.int64(-1)
                else:
                    # 1-2. scores, and the biased scores that rank experts
                    if scoring == ScoringFunc.SOFTMAX:
                        peak = T.alloc_var("float32", init=-T.infinity("float32"))
                        total = T.alloc_var("float32", init=0.0)
                        for e in T.serial(E):
                            peak = T.max(peak, Logits[t, e])
                        for e in T.serial(E):
                            total += T.exp(Logits[t, e] - peak)
                        for e in T.serial(E):
                            Swb[t, e] = T.exp(Logits[t, e] - peak) / total
                            Sb[t, e] = Logits[t, e] + Bias[e]
                    else:
                        for e in T.serial(E):
                            x = Logits[t, e]
                            if scoring == ScoringFunc.SIGMOID:
                                score = 1.0 / (1.0 + T.exp(0.0 - x))
                            else:
                                score = T.sqrt(T.if_then_else(x > 20.0, x, log1p(T.exp(x))))
                            Swb[t, e] = score
                            Sb[t, e] = score + Bias[e]
                    fixed = T.alloc_var("int32", init=0)
                    if has_fix:
                        fixed = T.cast(Fix[t], "int32")
                    # 4. the best groups' experts keep their scores, the others -inf
                    if grouped and fixed == 0:
                        group_scores(Sb, t, GS, num_groups, per_group, 2)
                        for g in T.serial(num_groups):
                            if group_rank(GS, t, g, num_groups) >= num_topk_groups:
                                for e in T.serial(per_group):
                                    Sb[t, g * per_group + e] = -T.infinity("float32")
                    # 4-7. choices (pick k: the best after pick k-1 in the stable
                    # order), their scores' sum and the normalised weights
                    last_score = T.alloc_var("float32", init=T.infinity("float32"))
                    last = T.alloc_var("int64", init=-1)
                    best_score = T.alloc_var("float32", init=0.0)
                    best = T.alloc_var("int64", init=-1)
                    score_sum = T.alloc_var("float32", init=0.0)
                    for k in T.serial(K):
                        if fixed == 0:
                            best = T.int64(-1)
                            for e in T.serial(E):
                                score = Sb[t, e]
                                after = (score < last_score) or (score == last_score and e > last)
                                if after and (best < 0 or score > best_score):
                                    best_score = score
                                    best = T.cast(e, "int64")
                            last_score = best_score
                            last = best
                            Idx[t, k] = best
                        else:
                            Idx[t, k] = Unmapped[t, k]
                        if has_unmapped:
                            Unmapped[t, k] = Idx[t, k]
                        W[t, k] = Swb[t, T.max(Idx[t, k], T.int64(0))]
                        score_sum += W[t, k]
                    score_sum = T.max(score_sum, 1e-20)
                    for k in T.serial(K):
                        W[t, k] = W[t, k] / score_sum * routed_scaling_factor
                    for k in T.serial(K, P):
                        Idx[t, k] = T.cast(E + k - K, "int64")
                        W[t, k] = 1.0
                    # 9-10. logical -> physical experts, then EP / TP masking
                    per_rank = (E + num_extra_experts) // num_ep_ranks
                    per_dp = per_rank * num_tp_ranks
                    for k in T.serial(P):
                        expert = Idx[t, k]
                        if expert >= 0:
                            if has_map:
                                dup = (ep_rank + T.cast(t, "int64") * DUPLICATE_PRIME) % T.cast(
                                    Count[expert], "int64")
                                expert = T.cast(Map[expert, dup], "int64")
                            local = expert - tp_rank * per_rank
                            local = local - (local // per_dp) * (per_dp - per_rank)
                            keep = expert >= 0 and (expert // per_rank) % num_tp_ranks == tp_rank
                            # a negative physical index stays as it is, as in the reference
                            dropped = T.if_then_else(expert >= 0, T.int64(-1), expert)
                            Idx[t, k] = T.if_then_else(keep and local >= 0, local, dropped)

    return top2_sum_gate_kernel


def aux_fi() -> T.PrimFunc:
    """Counts (E,) int32 -> F (E,) float32 = float(count) * E / float(N * num_aux_topk),
    rounded after each step as the float32 reference; zeros when there are no tokens."""
    E = T.symbolic("num_experts")

    @T.prim_func
    def aux_fi_kernel(
        C: T.Tensor((E,), "int32"),
        F: T.Tensor((E,), "float32"),
        num_tokens: T.int64,
        denominator: T.int64,
    ):
        with T.Kernel(T.ceildiv(E, ROWS), threads=ROWS) as bx:
            e = bx * ROWS + T.get_thread_binding()
            if e < E:
                scaled = T.cast(C[e], "float32") * T.cast(E, "float32")
                F[e] = T.if_then_else(num_tokens == 0, 0.0,
                                      scaled / T.cast(denominator, "float32"))

    return aux_fi_kernel


def unique_group_indices(index_dtype: str) -> T.PrimFunc:
    """G (N, K), in place: an entry equal to an earlier one of its row becomes -1 (the
    first occurrence is never changed, so comparing with updated entries is safe)."""
    N, K = T.symbolic("num_tokens"), T.symbolic("num_topk")

    @T.prim_func
    def inplace_unique_group_indices_kernel(G: T.Tensor((N, K), index_dtype)):
        with T.Kernel(T.ceildiv(N, ROWS), threads=ROWS) as bx:
            row = bx * ROWS + T.get_thread_binding()
            if row < N:
                for j in T.serial(1, K):
                    seen = T.alloc_var("int32", init=0)
                    for i in T.serial(j):
                        if G[row, i] == G[row, j]:
                            seen = 1
                    if seen != 0:
                        G[row, j] = T.cast(-1, index_dtype)

    return inplace_unique_group_indices_kernel

