"""tilec.kernels.tile_kernels.moe's grouped gates, aux_fi, inplace_unique_group_indices
and expand_to_fused_with_sf against small torch restatements of TileKernels'
references (tile_kernels/torch/moe.py, topk.py, expand_to_fused.py), bit for bit
where the reference's own float math allows it (see test_top2_sum_gate)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from tilec.kernels import use_target
from tilec.kernels.tile_kernels import moe, quant

NUM_TOKENS = 401


def bits_equal(actual: torch.Tensor, expected: torch.Tensor) -> None:
    """Same dtype, shape, strides and bytes (upstream's `assert_equal`)."""
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    assert actual.stride() == expected.stride()
    assert torch.equal(actual.contiguous().view(torch.uint8),
                       expected.contiguous().view(torch.uint8))


def routed_topk_idx(num_tokens: int, num_topk: int, num_experts: int, seed: int) -> torch.Tensor:
    """Top-k of num_experts * 4 experts, those of the other ranks replaced by -1."""
    g = torch.Generator().manual_seed(seed)
    idx = torch.rand((num_tokens, num_experts * 4), generator=g).topk(num_topk, dim=-1).indices
    idx[idx >= num_experts] = -1
    return idx.contiguous()


# -- the references, restated ---------------------------------------------------------

def ref_stable_topk(scores: torch.Tensor, num_topk: int) -> torch.Tensor:
    return torch.sort(scores, dim=1, descending=True, stable=True)[1][:, :num_topk].contiguous()


def ref_topk_sum_and_topk_group_idx(scores: torch.Tensor, num_topk_sum: int,
                                    num_topk_groups: int) -> torch.Tensor:
    group_scores = scores.topk(num_topk_sum, dim=-1, sorted=False).values.sum(-1)
    return ref_stable_topk(group_scores, num_topk_groups)


def ref_scores(logits: torch.Tensor, scoring_func: str) -> torch.Tensor:
    if scoring_func == "sigmoid":
        return torch.sigmoid(logits)
    if scoring_func == "sqrtsoftplus":
        return F.softplus(logits).sqrt()
    return torch.softmax(logits, dim=-1)


def ref_top2_sum_gate(logits, bias, num_topk, num_topk_groups, num_groups, use_shared_as_routed,
                      num_shared_experts, routed_scaling_factor, ep_rank, num_ep_ranks, tp_rank,
                      num_tp_ranks, scoring_func, mask=None, fix_routing_mask=None,
                      to_physical_map=None, logical_count=None, unmapped_topk_idx=None):
    num_tokens, num_routed = logits.shape
    num_shared = num_shared_experts if use_shared_as_routed else 0
    idx_out = torch.full((num_tokens, num_topk + num_shared), -1, dtype=torch.int64)
    weights_out = torch.zeros((num_tokens, num_topk + num_shared), dtype=torch.float32)
    active = mask if mask is not None else torch.ones(num_tokens, dtype=torch.bool)
    rows = active.nonzero().squeeze(1)
    logits_a = logits[rows]
    scores = ref_scores(logits_a, scoring_func)
    biased = (logits_a if scoring_func == "softmax" else scores) + bias.unsqueeze(0)
    fixed = (fix_routing_mask[rows] if fix_routing_mask is not None
             else torch.zeros(len(rows), dtype=torch.bool))
    idx = torch.full((len(rows), num_topk), -1, dtype=torch.int64)
    normal = (~fixed).nonzero().squeeze(1)
    sb = biased[normal]
    if num_groups != num_topk_groups:
        per_group = num_routed // num_groups
        groups = ref_topk_sum_and_topk_group_idx(sb.view(-1, num_groups, per_group), 2,
                                                 num_topk_groups)
        dropped = torch.ones((len(normal), num_groups), dtype=torch.bool).scatter_(1, groups, False)
        sb = sb.masked_fill(dropped.repeat_interleave(per_group, dim=1), float("-inf"))
    idx[normal] = ref_stable_topk(sb, num_topk)
    idx[fixed] = unmapped_topk_idx[rows[fixed]] if fixed.any() else idx[fixed]
    score = scores.gather(1, idx.clamp(min=0))
    if unmapped_topk_idx is not None:
        unmapped_topk_idx[rows] = idx
        unmapped_topk_idx[~active] = -1
    weights = score / score.sum(dim=-1, keepdim=True).clamp(min=1e-20) * routed_scaling_factor
    shared = torch.arange(num_routed, num_routed + num_shared).expand(len(rows), -1)
    idx = torch.cat([idx, shared], dim=1)
    weights = torch.cat([weights, torch.ones((len(rows), num_shared))], dim=1)
    if to_physical_map is not None:
        valid = idx >= 0
        dup = (ep_rank + rows.unsqueeze(1) * 23333) % logical_count[idx.clamp(min=0)].long()
        idx = torch.where(valid, to_physical_map[idx.clamp(min=0), dup].long(), idx)
    num_extra = to_physical_map.shape[1] - 1 if to_physical_map is not None else 0
    per_rank = (num_routed + num_extra) // num_ep_ranks
    per_dp = per_rank * num_tp_ranks
    valid = idx >= 0
    idx = torch.where(valid & ((idx // per_rank) % num_tp_ranks != tp_rank), -1, idx)
    valid = idx >= 0
    local = idx - tp_rank * per_rank
    remapped = local - (local // per_dp) * (per_dp - per_rank)
    idx = torch.where(valid & (remapped >= 0), remapped, torch.where(valid, -1, idx))
    idx_out[rows], weights_out[rows] = idx, weights
    return idx_out, weights_out


def ref_aux_fi(topk_idx: torch.Tensor, num_experts: int, num_aux_topk: int) -> torch.Tensor:
    if topk_idx.shape[0] == 0:
        return torch.zeros(num_experts, dtype=torch.float32)
    valid = topk_idx[topk_idx >= 0]
    counts = torch.zeros(num_experts, dtype=torch.int64).scatter_add_(0, valid,
                                                                        torch.ones_like(valid))
    return counts.float() * num_experts / (topk_idx.shape[0] * num_aux_topk)


def ref_inplace_unique_group_indices(group_indices: torch.Tensor) -> None:
    values, order = torch.sort(group_indices, dim=1, stable=True)
    repeat = torch.zeros_like(group_indices, dtype=torch.bool)
    repeat[:, 1:] = values[:, 1:] == values[:, :-1]
    group_indices[torch.zeros_like(repeat).scatter_(1, order, repeat)] = -1


def ref_expand_to_fused_with_sf(x, sf, to_pos, pos_to_expert, col_major):
    num_expanded = pos_to_expert.shape[0]
    out = torch.zeros((num_expanded, x.shape[1]), dtype=x.dtype)
    if col_major:
        padded = -(-num_expanded // 4) * 4
        out_sf = torch.zeros((sf.shape[1], padded), dtype=sf.dtype)[:, :num_expanded].T
    else:
        out_sf = torch.zeros((num_expanded, sf.shape[1]), dtype=sf.dtype)
    flat = to_pos.reshape(-1)
    k = to_pos.shape[1]
    out[flat[flat >= 0]] = x.repeat_interleave(k, dim=0)[flat >= 0]
    out_sf[flat[flat >= 0]] = sf.repeat_interleave(k, dim=0)[flat >= 0]
    return out, out_sf


# -- the tests --------------------------------------------------------------------------

@pytest.mark.parametrize(("num_groups", "per_group"), [(8, 9), (12, 6), (16, 16)])
@pytest.mark.parametrize("num_topk_sum", [1, 2])
def test_topk_sum_and_topk_group_idx(num_groups, per_group, num_topk_sum):
    g = torch.Generator().manual_seed(num_groups * per_group + num_topk_sum)
    scores = torch.randn((NUM_TOKENS, num_groups, per_group), generator=g)
    scores[:30] = torch.randint(0, 3, (30, num_groups, per_group), generator=g).float()  # ties
    for num_topk_groups in (2, 4):
        bits_equal(moe.topk_sum_and_topk_group_idx(scores, num_topk_sum, num_topk_groups),
                   ref_topk_sum_and_topk_group_idx(scores, num_topk_sum, num_topk_groups))


def gate_inputs(num_tokens: int, num_routed: int, num_groups: int, num_topk_groups: int,
                num_topk: int, scoring_func: str, seed: int):
    """Logits and bias whose choices are clear: like upstream's generator, tokens
    whose top-k (or best groups) are closer than float rounding are drawn again."""
    g = torch.Generator().manual_seed(seed)
    bias = torch.randn(num_routed, generator=g)
    kept = []
    while sum(len(k) for k in kept) < num_tokens:
        logits = torch.randn((num_tokens, num_routed), generator=g)
        scores = ref_scores(logits, scoring_func)
        biased = (logits if scoring_func == "softmax" else scores) + bias
        clear = torch.ones(num_tokens, dtype=torch.bool)
        if num_groups != num_topk_groups:
            grouped = biased.view(num_tokens, num_groups, -1).topk(2, dim=-1).values.sum(-1)
            grouped = grouped.sort(dim=-1, descending=True).values
            clear &= grouped[:, num_topk_groups - 1] - grouped[:, num_topk_groups] > 1e-6
            per_group = num_routed // num_groups
            best = ref_topk_sum_and_topk_group_idx(biased.view(num_tokens, num_groups, -1), 2,
                                                   num_topk_groups)
            dropped = torch.ones((num_tokens, num_groups), dtype=torch.bool)
            dropped.scatter_(1, best, False)
            biased = biased.masked_fill(dropped.repeat_interleave(per_group, dim=1), float("-inf"))
        top = biased.topk(num_topk + 1, dim=-1).values
        clear &= (top[:, :num_topk - 1] - top[:, 1:num_topk] > 2e-6).all(dim=1)
        kept.append(logits[clear])
    return torch.cat(kept)[:num_tokens].contiguous(), bias


SCORING_FUNCS = ["sigmoid", "sqrtsoftplus", "softmax"]
GATE_CASES = [  # (num_groups, num_topk_groups, num_routed, num_shared, num_topk), scoring
    *(((0, 0, 72, 1, 6), f) for f in SCORING_FUNCS),
    *(((8, 4, 64, 2, 8), f) for f in SCORING_FUNCS),
    ((4, 2, 36, 1, 4), "softmax"),
]


@pytest.mark.parametrize(("config", "scoring_func"), GATE_CASES, ids=str)
def test_top2_sum_gate(config, scoring_func):
    """Indices (topk_idx, unmapped_topk_idx) bit for bit. The weights come from
    torch's vectorised exp/log1p (SLEEF or its own polynomials, chosen per element by
    its place in a SIMD loop) and its summation order, which no kernel can follow;
    upstream's test compares them with allclose, here within 8 float32 ulps
    (about 5e-7 relative; 4-5 seen)."""
    num_groups, num_topk_groups, num_routed, num_shared, num_topk = config
    num_tokens, num_padded, num_ep_ranks, num_tp_ranks, num_extra = 97, 10, 4, 2, 32
    logits, bias = gate_inputs(num_tokens + num_padded, num_routed, num_groups,
                               num_topk_groups, num_topk, scoring_func, seed=num_routed)
    mask = torch.ones(num_tokens + num_padded, dtype=torch.bool)
    mask[-num_padded:] = False
    for tp_rank, use_shared, fix in [(0, False, False), (1, True, False), (0, True, True)]:
        kwargs = {"mask": mask}
        if use_shared:
            to_physical = torch.arange(num_routed + num_shared, dtype=torch.int32)
            kwargs["to_physical_map"] = to_physical.view(-1, 1).expand(
                -1, num_extra + 1).contiguous()
            kwargs["logical_count"] = torch.randint(
                1, num_extra + 2, (num_routed + num_shared,),
                generator=torch.Generator().manual_seed(tp_rank), dtype=torch.int32)
            kwargs["to_physical_map"] += torch.arange(num_extra + 1, dtype=torch.int32) * 3
        unmapped = torch.zeros((num_tokens + num_padded, num_topk), dtype=torch.int64)
        if fix:
            kwargs["fix_routing_mask"] = torch.arange(num_tokens + num_padded) % 3 == 0
            unmapped = torch.randint(0, num_routed, unmapped.shape,
                                     generator=torch.Generator().manual_seed(42))
        args = (logits, bias, num_topk, num_topk_groups, num_groups, use_shared, num_shared,
                1.5, 1, num_ep_ranks, tp_rank, num_tp_ranks, scoring_func)
        ref_unmapped = unmapped.clone()
        idx, weights = moe.top2_sum_gate(*args, **kwargs, unmapped_topk_idx=unmapped)
        ref_idx, ref_weights = ref_top2_sum_gate(*args, **kwargs,
                                                 unmapped_topk_idx=ref_unmapped)
        bits_equal(idx, ref_idx)
        bits_equal(unmapped, ref_unmapped)
        assert weights.dtype == torch.float32 and weights.shape == ref_weights.shape
        ulps = (weights.view(torch.int32) - ref_weights.view(torch.int32)).abs()
        assert int(ulps.max()) <= 8


def test_top2_sum_gate_is_stable():
    """All-equal scores: the lowest experts, in order, as upstream's stability check."""
    logits, bias = torch.zeros((37, 64)), torch.zeros(64)
    idx, weights = moe.top2_sum_gate(logits, bias, 8, 4, 8, False, 0, 1.0, 0, 1, 0, 1, "sigmoid")
    bits_equal(idx, torch.arange(8).expand(37, -1).contiguous())
    assert (weights == 0.125).all()


def test_top2_sum_gate_checks():
    with pytest.raises(ValueError, match=r"tile_kernels\.moe\.top2_sum_gate: num_topk_groups"):
        moe.top2_sum_gate(torch.zeros((3, 8)), torch.zeros(8), 2, 0, 4, False, 0, 1.0, 0, 1, 0,
                          1, "sigmoid")
    with pytest.raises(ValueError, match="not a valid ScoringFunc"):
        moe.top2_sum_gate(torch.zeros((3, 8)), torch.zeros(8), 2, 0, 0, False, 0, 1.0, 0, 1, 0,
                          1, "relu")


@pytest.mark.parametrize(("num_topk", "num_experts"), [(6, 72), (9, 256)])
def test_aux_fi(num_topk, num_experts):
    idx = routed_topk_idx(NUM_TOKENS, num_topk, num_experts, seed=num_topk)
    for num_aux_topk in (1, num_topk):
        bits_equal(moe.aux_fi(idx, num_experts, num_aux_topk),
                   ref_aux_fi(idx, num_experts, num_aux_topk))
    bits_equal(moe.aux_fi(idx[:0], num_experts, 1), ref_aux_fi(idx[:0], num_experts, 1))


@pytest.mark.parametrize(("num_groups", "dtype"), [(8, torch.int64), (72, torch.int64),
                                                   (16, torch.int32)])
def test_inplace_unique_group_indices(num_groups, dtype):
    idx = routed_topk_idx(NUM_TOKENS, 9, 256, seed=num_groups)
    groups = torch.where(idx >= 0, idx // (256 // num_groups * 4) * 4 % num_groups, idx)
    groups = groups.to(dtype)
    expected = groups.clone()
    ref_inplace_unique_group_indices(expected)
    assert moe.inplace_unique_group_indices(groups, num_groups) is None
    bits_equal(groups, expected)


@pytest.mark.parametrize("num_per_channels", [32, 128])
@pytest.mark.parametrize(("col_major", "packed"), [(False, False), (True, True), (True, False)])
def test_expand_to_fused_with_sf(num_per_channels, col_major, packed):
    hidden = 576
    idx = routed_topk_idx(NUM_TOKENS, 6, 16, seed=num_per_channels)
    to_expert, _, _, to_pos, *_ = moe.get_fused_mapping(idx, 16, 0, 16)
    x = torch.randn((NUM_TOKENS, hidden), generator=torch.Generator().manual_seed(3)).bfloat16()
    x_fp8, x_sf = quant.per_token_cast(x, "e4m3", num_per_channels=num_per_channels,
                                       use_tma_aligned_col_major_sf=col_major, round_sf=True)
    x_sf = x_sf.contiguous()
    if packed:  # four UE8M0 exponents per int32 (tilec's per_token_cast lacks the packing)
        x_sf = torch.randint(-2**31, 2**31 - 1, (NUM_TOKENS, -(-x_sf.shape[1] // 4)),
                             generator=torch.Generator().manual_seed(8), dtype=torch.int32)
    out, out_sf = moe.expand_to_fused_with_sf((x_fp8, x_sf), num_per_channels, to_pos, to_expert,
                                              col_major)
    ref_out, ref_out_sf = ref_expand_to_fused_with_sf(x_fp8, x_sf, to_pos, to_expert, col_major)
    bits_equal(out, ref_out)
    bits_equal(out_sf, ref_out_sf)


def test_on_the_ascend_simulator():
    """Every op on small shapes on ascend:950, against the same references."""
    g = torch.Generator().manual_seed(7)
    scores = torch.randn((37, 4, 6), generator=g)
    idx = routed_topk_idx(37, 6, 16, seed=7)
    groups = torch.where(idx >= 0, idx % 5, idx)
    expected = groups.clone()
    ref_inplace_unique_group_indices(expected)
    logits, bias = gate_inputs(17, 16, 4, 2, 2, "sigmoid", seed=3)
    gate_args = (logits, bias, 2, 2, 4, False, 0, 1.5, 0, 1, 0, 1, "sigmoid")
    to_expert, _, _, to_pos, *_ = moe.get_fused_mapping(idx, 16, 0, 4)
    x, sf = torch.randn((37, 256), generator=g).to(torch.float8_e4m3fn), torch.rand((37, 2))
    with use_target("ascend:950"):
        group_idx = moe.topk_sum_and_topk_group_idx(scores, 2, 2)
        fi = moe.aux_fi(idx, 16, 6)
        moe.inplace_unique_group_indices(groups, 5)
        gate_idx, gate_weights = moe.top2_sum_gate(*gate_args)
        expanded = [moe.expand_to_fused_with_sf((x, sf), 128, to_pos, to_expert, col_major)
                    for col_major in (False, True)]
    bits_equal(group_idx, ref_topk_sum_and_topk_group_idx(scores, 2, 2))
    bits_equal(fi, ref_aux_fi(idx, 16, 6))
    bits_equal(groups, expected)
    ref_idx, ref_weights = ref_top2_sum_gate(*gate_args)
    bits_equal(gate_idx, ref_idx)
    assert (gate_weights.view(torch.int32) - ref_weights.view(torch.int32)).abs().max() <= 8
    for col_major, (out, out_sf) in zip((False, True), expanded, strict=True):
        ref_out, ref_out_sf = ref_expand_to_fused_with_sf(x, sf, to_pos, to_expert, col_major)
        bits_equal(out, ref_out)
        bits_equal(out_sf, ref_out_sf)
