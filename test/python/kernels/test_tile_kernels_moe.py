"""tilec.kernels.tile_kernels.moe against small torch restatements of TileKernels'
references (tile_kernels/torch/moe.py, topk.py, expand_to_fused.py,
reduce_fused.py), compared bit for bit on ragged shapes."""

from __future__ import annotations

import pytest
import torch

from tilec.kernels import use_target
from tilec.kernels.tile_kernels import moe

NUM_TOKENS = 401


def bits_equal(actual: torch.Tensor, expected: torch.Tensor) -> None:
    """Same dtype, shape, strides and bytes (upstream's `assert_equal`)."""
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    assert actual.stride() == expected.stride()
    assert torch.equal(actual.view(torch.uint8), expected.view(torch.uint8))


def routed_topk_idx(num_tokens: int, num_topk: int, num_experts: int, seed: int) -> torch.Tensor:
    """Like upstream's generator: top-k of num_experts * 4 experts, those of the other
    ranks replaced by -1."""
    g = torch.Generator().manual_seed(seed)
    scores = torch.rand((num_tokens, num_experts * 4), generator=g)
    idx = scores.topk(num_topk, dim=-1).indices
    idx[idx >= num_experts] = -1
    return idx.contiguous()


# -- the references, restated ---------------------------------------------------------

def ref_normalize_weight(w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    denominator = torch.full((w.shape[0],), 1e-20, dtype=torch.float32)
    for k in range(w.shape[1]):
        denominator = denominator + w[:, k]
    return denominator, w / denominator.unsqueeze(1)


def ref_stable_topk(scores: torch.Tensor, num_topk: int) -> torch.Tensor:
    return torch.sort(scores, dim=1, descending=True, stable=True)[1][:, :num_topk].contiguous()


def ref_group_count(idx: torch.Tensor, num_groups: int) -> torch.Tensor:
    valid = idx[idx >= 0]
    counts = torch.zeros(num_groups, dtype=torch.int32)
    return counts.scatter_add_(0, valid, torch.ones_like(valid, dtype=torch.int32))


def ref_mask_indices_by_tp(idx: torch.Tensor, n: int, num_ep_ranks: int, tp_rank: int,
                           num_tp_ranks: int) -> torch.Tensor:
    per_gpu = n // num_ep_ranks
    per_dp = num_tp_ranks * per_gpu
    value = idx.clone()
    invalid = (value < 0) | ((value // per_gpu) % num_tp_ranks != tp_rank)
    value = value - tp_rank * per_gpu
    value = value - (value // per_dp) * (per_dp - per_gpu)
    value[invalid | (value < 0)] = -1
    return value


def ref_expand_to_fused(x: torch.Tensor, to_pos: torch.Tensor, pos_to_expert: torch.Tensor):
    out = torch.zeros((pos_to_expert.shape[0], x.shape[1]), dtype=x.dtype)
    flat = to_pos.reshape(-1)
    repeated = x.unsqueeze(1).expand(-1, to_pos.shape[1], -1).reshape(-1, x.shape[1])
    out[flat[flat >= 0]] = repeated[flat >= 0]
    return out


def fma(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """a * b + c rounded once (the reference's `elementwise_fma`), through float64:
    the product is exact there, the sum rounds twice only in cases these random
    inputs do not reach (the kernel's own rounding is checked on one below)."""
    return (a.double() * b.double() + c.double()).float()


def ref_reduce_fused(x, weights, to_pos: torch.Tensor) -> torch.Tensor:
    x, x_sf = x if isinstance(x, tuple) else (x, None)
    reduced = torch.zeros((to_pos.shape[0], x.shape[1]), dtype=torch.float32)
    for k in range(to_pos.shape[1]):
        pos, valid = to_pos[:, k].clamp(min=0).long(), to_pos[:, k] >= 0
        s = weights[:, k].clone() if weights is not None else torch.ones(to_pos.shape[0])
        if x_sf is not None:
            s = s * x_sf[pos]
        reduced = torch.where(valid.unsqueeze(1), fma(x[pos].float(), s.unsqueeze(1), reduced),
                              reduced)
    return reduced.to(x.dtype)


# -- the tests --------------------------------------------------------------------------

@pytest.mark.parametrize("num_topk", [2, 9])
def test_normalize_weight(num_topk):
    w = torch.rand((NUM_TOKENS, num_topk), generator=torch.Generator().manual_seed(num_topk))
    denominator, normalized = moe.normalize_weight(w)
    ref_denominator, ref_normalized = ref_normalize_weight(w)
    bits_equal(denominator, ref_denominator)
    bits_equal(normalized, ref_normalized)


@pytest.mark.parametrize(("num_experts", "num_topk"), [(72, 6), (36, 6), (256, 8)])
def test_topk_gate(num_experts, num_topk):
    g = torch.Generator().manual_seed(num_experts)
    scores = torch.randn((NUM_TOKENS, num_experts), generator=g)
    scores[:40] = torch.randint(0, 3, (40, num_experts), generator=g).float()  # many ties
    scores[40, :] = -float("inf")
    topk_idx = moe.topk_gate(scores, num_topk)
    bits_equal(topk_idx, ref_stable_topk(scores, num_topk))
    assert moe.topk_gate(scores[:0], num_topk).shape == (0, num_topk)


def test_topk_gate_checks_num_topk():
    with pytest.raises(ValueError, match=r"tile_kernels\.moe\.topk_gate: num_topk"):
        moe.topk_gate(torch.zeros((3, 4)), 5)


@pytest.mark.parametrize(("num_topk", "num_groups"), [(6, 32), (9, 300)])
def test_group_count(num_topk, num_groups):
    idx = routed_topk_idx(NUM_TOKENS, num_topk, num_groups, seed=num_groups)
    bits_equal(moe.group_count(idx, num_groups), ref_group_count(idx, num_groups))


@pytest.mark.parametrize("num_tp_ranks", [2, 8])
def test_mask_indices_by_tp(num_tp_ranks):
    num_experts, num_ep_ranks = 32, 8
    n = num_experts * num_ep_ranks
    idx = routed_topk_idx(NUM_TOKENS, 6, n, seed=num_tp_ranks)
    for tp_rank in range(num_tp_ranks):
        masked = moe.mask_indices_by_tp(idx, n, num_ep_ranks, tp_rank, num_tp_ranks)
        bits_equal(masked, ref_mask_indices_by_tp(idx, n, num_ep_ranks, tp_rank, num_tp_ranks))
    idx32 = idx.int()
    bits_equal(moe.mask_indices_by_tp(idx32, n, num_ep_ranks, 1, num_tp_ranks),
               ref_mask_indices_by_tp(idx32, n, num_ep_ranks, 1, num_tp_ranks))


@pytest.mark.parametrize(("num_tokens", "num_topk", "num_experts", "alignment"),
                         [(401, 6, 9, 64), (1037, 8, 32, 16), (0, 2, 4, 128)])
def test_get_fused_mapping(num_tokens, num_topk, num_experts, alignment):
    idx = routed_topk_idx(num_tokens, num_topk, num_experts, seed=num_experts)
    (to_expert, to_token, to_slot, to_pos, start, end, per_expert,
     per_expert_list) = moe.get_fused_mapping(idx, num_experts, 0, alignment)
    counts = ref_group_count(idx, num_experts)
    aligned = (counts + alignment - 1) // alignment * alignment
    bits_equal(per_expert, aligned)
    assert per_expert_list == aligned.tolist()
    bits_equal(end, aligned.cumsum(0).int())
    bits_equal(start, end - aligned)
    # Each expert's slots fill the front of its range in (token, topk) order.
    flat = idx.reshape(-1)
    ref_to_expert = torch.full((int(aligned.sum()),), -1, dtype=torch.int32)
    ref_to_slot = ref_to_expert.clone()
    ref_to_pos = torch.full((flat.numel(),), -1, dtype=torch.int32)
    for e in range(num_experts):
        slots = (flat == e).nonzero().flatten()
        positions = torch.arange(len(slots)) + int(start[e])
        ref_to_expert[positions], ref_to_slot[positions] = e, slots.int()
        ref_to_pos[slots] = positions.int()
    bits_equal(to_expert, ref_to_expert)
    bits_equal(to_slot, ref_to_slot)
    bits_equal(to_token, torch.where(ref_to_slot >= 0, ref_to_slot // num_topk, -1).int())
    bits_equal(to_pos, ref_to_pos.view(num_tokens, num_topk))


def test_get_fused_mapping_with_a_given_size():
    idx = routed_topk_idx(37, 2, 4, seed=1)
    to_expert, _, _, to_pos, _, _, _, per_expert_list = moe.get_fused_mapping(idx, 4, 600, 8)
    assert to_expert.shape == (600,) and per_expert_list == []
    used = int(moe.get_fused_mapping(idx, 4, 0, 8)[6].sum())
    assert (to_expert[used:] == -1).all() and to_pos.max() < used


@pytest.mark.parametrize(("dtype", "hidden"), [(torch.bfloat16, 576), (torch.float32, 300)])
def test_expand_to_fused(dtype, hidden):
    idx = routed_topk_idx(NUM_TOKENS, 6, 16, seed=3)
    to_expert, _, _, to_pos, *_ = moe.get_fused_mapping(idx, 16, 0, 16)
    x = torch.randn((NUM_TOKENS, hidden), generator=torch.Generator().manual_seed(4)).to(dtype)
    bits_equal(moe.expand_to_fused(x, to_pos, to_expert), ref_expand_to_fused(x, to_pos, to_expert))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
@pytest.mark.parametrize(("with_weights", "with_x_sf"),
                         [(True, False), (False, True), (True, True)])
def test_reduce_fused(dtype, with_weights, with_x_sf):
    num_topk, hidden = 6, 768
    g = torch.Generator().manual_seed(5)
    idx = routed_topk_idx(NUM_TOKENS, num_topk, 16, seed=5)
    to_pos = moe.get_fused_mapping(idx, 16, 0, 1)[3]
    expanded = torch.randn((NUM_TOKENS * num_topk, hidden), generator=g).to(dtype)
    weights = torch.rand((NUM_TOKENS, num_topk), generator=g) if with_weights else None
    x = (expanded, torch.randn((expanded.shape[0],), generator=g)) if with_x_sf else expanded
    bits_equal(moe.reduce_fused(x, weights, to_pos), ref_reduce_fused(x, weights, to_pos))


def test_reduce_fused_rounds_each_multiply_add_once():
    """x1 * w1 = 1 + 2^-7 + 2^-17 + 2^-24 lies halfway between two floats; the 2^-70
    accumulated before it decides the rounding: up, as one fused rounding gives (a
    multiply rounded first would tie to even, down)."""
    x = torch.zeros((2, 256), dtype=torch.float32)
    x[0, 0], x[1, 0] = 2.0**-70, 1 + 2.0**-7
    weights = torch.tensor([[1.0, 1 + 2.0**-17]])
    to_pos = torch.tensor([[0, 1]], dtype=torch.int32)
    out = moe.reduce_fused(x, weights, to_pos)
    assert out[0, 0].item() == 1 + 2.0**-7 + 2.0**-17 + 2.0**-23


def test_reduce_fused_checks():
    to_pos = torch.zeros((1, 1), dtype=torch.int32)
    with pytest.raises(ValueError, match=r"tile_kernels\.moe\.reduce_fused: hidden"):
        moe.reduce_fused(torch.zeros((1, 576)), None, to_pos)
    with pytest.raises(NotImplementedError, match="e4m3"):
        moe.reduce_fused(torch.zeros((1, 256)), None, to_pos, "e4m3", torch.ones(1))


def test_on_the_ascend_simulator():
    """The routing ops on small shapes on ascend:950, against the same references
    (reduce_fused: below)."""
    g = torch.Generator().manual_seed(7)
    idx = routed_topk_idx(37, 2, 8, seed=7)
    weights, scores = torch.rand((37, 2), generator=g), torch.randn((37, 16), generator=g)
    x = torch.randn((37, 256), generator=g).bfloat16()
    with use_target("ascend:950"):
        denominator, normalized = moe.normalize_weight(weights)
        topk_idx = moe.topk_gate(scores, 2)
        counts = moe.group_count(idx, 8)
        masked = moe.mask_indices_by_tp(idx, 16, 2, 1, 2)
        to_expert, _, _, to_pos, *_ = moe.get_fused_mapping(idx, 8, 0, 4)
        expanded = moe.expand_to_fused(x, to_pos, to_expert)
    ref_denominator, ref_normalized = ref_normalize_weight(weights)
    bits_equal(denominator, ref_denominator)
    bits_equal(normalized, ref_normalized)
    bits_equal(topk_idx, ref_stable_topk(scores, 2))
    bits_equal(counts, ref_group_count(idx, 8))
    bits_equal(masked, ref_mask_indices_by_tp(idx, 16, 2, 1, 2))
    bits_equal(to_pos, moe.get_fused_mapping(idx, 8, 0, 4)[3])
    bits_equal(expanded, ref_expand_to_fused(x, to_pos, to_expert))


def test_reduce_fused_on_the_ascend_simulator():
    """reduce_fused on ascend:950, whose fma rounds twice (the NPU has no float64 for the
    exact one): within a few float32 ulps of the terms (~1 here) of the exact sums."""
    g = torch.Generator().manual_seed(8)
    idx = routed_topk_idx(9, 3, 8, seed=8)
    to_pos = moe.get_fused_mapping(idx, 8, 0, 1)[3]
    expanded = torch.randn((9 * 3, 256), generator=g)
    weights = torch.rand((9, 3), generator=g)
    with use_target("ascend:950"):
        out = moe.reduce_fused(expanded, weights, to_pos)
    torch.testing.assert_close(out, ref_reduce_fused(expanded, weights, to_pos), rtol=2.0**-21,
                               atol=2.0**-20)
