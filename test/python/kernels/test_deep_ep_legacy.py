"""tilec.kernels.deep_ep's V1 `Buffer` across processes (gloo ranks made by
torch.multiprocessing.spawn, with test_deep_ep's spawn helper): the layout exactly,
normal dispatch/combine and low-latency dispatch/combine bitwise against a
restatement of what DeepEP's intranode and low-latency kernels compute (the order
upstream's test_intranode.py / test_low_latency.py check, then the exact values), and
upstream's calc_diff bounds. Every rank builds every rank's inputs from the same
seeds, so the reference needs no communication."""

from __future__ import annotations

import time

import pytest
import torch
from test_deep_ep import _bits, _same, _spawn

# ---- inputs and the reference, restated from DeepEP's kernels ------------------------


def _inputs(rank: int, case: dict) -> dict:
    """Rank `rank`'s tokens: bf16 x, distinct experts per token (some -1), fp32 weights."""
    gen = torch.Generator().manual_seed(1000 * case["seed"] + rank)
    num_tokens, hidden, topk = case["tokens"][rank], case["hidden"], case["topk"]
    scores = torch.rand((num_tokens, case["experts"]), generator=gen)
    idx = scores.topk(topk, dim=1).indices.to(torch.int64)
    idx[torch.rand((num_tokens, topk), generator=gen) < 0.2] = -1
    weights = torch.rand((num_tokens, topk), generator=gen, dtype=torch.float32)
    x = torch.randn((num_tokens, hidden), generator=gen, dtype=torch.float32).to(torch.bfloat16)
    biases = tuple(
        torch.randn((num_tokens, hidden), generator=gen).to(torch.bfloat16)
        for _ in range(case.get("num_bias", 0))
    )
    return dict(x=x, idx=idx, weights=weights, biases=biases)


def _ref_layout(idx: torch.Tensor, experts: int, world: int):
    per_rank = experts // world
    owner = torch.where(idx >= 0, idx // per_rank, -1)
    in_rank = torch.stack([(owner == d).any(dim=1) for d in range(world)], dim=1)
    per_expert = torch.tensor([int((idx == e).sum()) for e in range(experts)], dtype=torch.int32)
    return in_rank.sum(dim=0).to(torch.int32), per_expert, in_rank


def _fp8_cast(x: torch.Tensor, round_scale: bool):
    """DeepEP's low-latency cast: per 128 columns amax = max(1e-4, max |x|); scale = 448 /
    amax, sf = amax * f32(1 / 448), or sf = 2^ceil(log2(amax * f32(1 / 448))), scale =
    1 / sf; e4m3(x * scale)."""
    blocks = x.float().view(x.shape[0], x.shape[1] // 128, 128)
    amax = blocks.abs().amax(dim=2).clamp(min=1e-4)
    inv = torch.tensor(1 / 448, dtype=torch.float32)
    if round_scale:
        bits = (amax * inv).view(torch.int32)
        exponent = ((bits >> 23) & 0xFF) - 127 + ((bits & 0x7FFFFF) != 0).int()
        sf = ((exponent + 127) << 23).view(torch.float32)
        scale = ((127 - exponent) << 23).view(torch.float32)
    else:
        # a true division (torch's `448.0 / amax` multiplies by the reciprocal instead)
        sf, scale = amax * inv, torch.full_like(amax, 448.0) / amax
    y = (blocks * scale.unsqueeze(2)).to(torch.float8_e4m3fn).view(x.shape)
    return y, sf


def _cast_back(y: torch.Tensor, sf: torch.Tensor) -> torch.Tensor:
    return (
        (y.float().view(y.shape[0], y.shape[1] // 128, 128) * sf.unsqueeze(2))
        .view(y.shape)
        .bfloat16()
    )


def _ue8m0_bytes(packed: torch.Tensor) -> torch.Tensor:
    """The scale bytes of UE8M0-packed int32 scales (four per int, low byte first)."""
    flat = packed.reshape(-1).contiguous().view(torch.uint8)
    return flat.view(*packed.shape[:-1], packed.shape[-1] * 4)


def _calc_diff(x: torch.Tensor, y: torch.Tensor) -> float:
    """deep_ep.utils.math.calc_diff."""
    x, y = x.double() + 1, y.double() + 1
    return (1 - 2 * (x * y).sum() / (x * x + y * y).sum()).item()


# ---- normal (intranode) mode ---------------------------------------------------------


def _check_normal(rank: int, world: int, group, case: dict) -> None:
    import tilec.kernels.deep_ep as deep_ep

    experts, align = case["experts"], case["alignment"]
    per_rank = experts // world
    lo = rank * per_rank
    buffer = deep_ep.Buffer(group, num_nvl_bytes=1 << 20)
    inputs = [_inputs(s, case) for s in range(world)]
    mine = inputs[rank]

    # layout: exactly the counts and membership of topk_idx
    per_rank_count, rdma_count, per_expert, in_rank, _ = buffer.get_dispatch_layout(
        mine["idx"], experts
    )
    assert rdma_count is None
    ref_count, ref_expert, ref_in_rank = _ref_layout(mine["idx"], experts, world)
    _same(per_rank_count, ref_count, "num_tokens_per_rank")
    _same(per_expert, ref_expert, "num_tokens_per_expert")
    _same(in_rank, ref_in_rank, "is_token_in_rank")

    # what this rank receives: source rank 0's tokens first, each rank's in token order
    sel = [_ref_layout(inp["idx"], experts, world)[2][:, rank].nonzero()[:, 0] for inp in inputs]
    ref_x = torch.cat([inp["x"][s] for inp, s in zip(inputs, sel, strict=True)])
    local = [
        torch.where((inp["idx"] >= lo) & (inp["idx"] < lo + per_rank), inp["idx"] - lo, -1)[s]
        for inp, s in zip(inputs, sel, strict=True)
    ]
    ref_idx = torch.cat(local)
    ref_w = torch.where(
        ref_idx >= 0, torch.cat([inp["weights"][s] for inp, s in zip(inputs, sel, strict=True)]), 0
    )
    ref_list = [
        -(-sum(int((inp["idx"] == lo + e).sum()) for inp in inputs) // align) * align
        for e in range(per_rank)
    ]
    num_recv = ref_x.shape[0]
    args = dict(
        num_tokens_per_rank=per_rank_count,
        is_token_in_rank=in_rank,
        num_tokens_per_expert=per_expert,
        expert_alignment=align,
        config=deep_ep.Config(20, 8, 256),
    )
    x = mine["x"]
    if case["fp8"]:
        y, sf = _fp8_cast(x, False)
        x = (y, sf.T.contiguous().T)  # upstream's test passes column-major scales
        ref_sf = torch.cat(
            [_fp8_cast(inp["x"], False)[1][s] for inp, s in zip(inputs, sel, strict=True)]
        )
        ref_x = torch.cat(
            [_fp8_cast(inp["x"], False)[0][s] for inp, s in zip(inputs, sel, strict=True)]
        )

    def same_x(got, what):
        if case["fp8"]:
            _same(got[0], ref_x, what)
            _same(got[1], ref_sf, f"{what} scales")
        else:
            _same(got, ref_x, what)

    recv_x, recv_idx, recv_w, recv_list, handle, event = buffer.dispatch(
        x, topk_idx=mine["idx"], topk_weights=mine["weights"], **args
    )
    event.current_stream_wait()
    same_x(recv_x, "recv_x")
    _same(recv_idx, ref_idx, "recv_topk_idx")
    _same(recv_w, ref_w, "recv_topk_weights")
    assert recv_list == ref_list
    counts = torch.tensor(
        [
            [len(_ref_layout(inp["idx"], experts, world)[2][:, d].nonzero()) for d in range(world)]
            for inp in inputs
        ]
    )
    _same(handle[0], counts.cumsum(0).to(torch.int32), "rank_prefix_matrix")
    _same(handle[3], torch.cat(sel).to(torch.int32), "recv_src_idx")

    # without top-k and cached: the same rows
    plain_x, none_idx, none_w, plain_list, plain_handle, _ = buffer.dispatch(x, **args)
    same_x(plain_x, "recv_x without top-k")
    assert none_idx is None and none_w is None and plain_list == ref_list
    cached = buffer.dispatch(x, handle=plain_handle)
    same_x(cached[0], "cached recv_x")
    assert cached[1:5] == (None, None, None, None)

    # num_worst_tokens: padded, top-k index -1 past the received rows, no list
    worst = num_recv + 5
    w_x, w_idx, w_w, w_list, _, _ = buffer.dispatch(
        x, topk_idx=mine["idx"], topk_weights=mine["weights"], num_worst_tokens=worst, **args
    )
    assert w_list == [] and w_idx.shape[0] == worst
    same_x((w_x[0][:num_recv], w_x[1][:num_recv]) if case["fp8"] else w_x[:num_recv], "worst x")
    _same(w_idx[:num_recv], ref_idx, "worst recv_topk_idx")
    _same(w_w[:num_recv], ref_w, "worst recv_topk_weights")
    assert (w_idx[num_recv:] == -1).all()

    # combine: rank d returns its rows scaled by SCALES[d]; sums in rank order, no weights
    scales = [1.0, -0.375, 2.5, 0.8125]
    dispatched = _cast_back(ref_x, ref_sf) if case["fp8"] else ref_x
    combine_x = (dispatched.float() * scales[rank]).to(torch.bfloat16)
    bias = mine["biases"]
    combined, combined_w, _ = buffer.combine(
        combine_x, handle, topk_weights=recv_w, bias=bias[0] if len(bias) == 1 else bias or None
    )
    base = inputs[rank]["x"] if not case["fp8"] else _cast_back(*_fp8_cast(mine["x"], False))
    acc = torch.zeros(base.shape, dtype=torch.float32)
    if bias:
        acc = bias[0].float() + (bias[1].float() if len(bias) == 2 else 0.0)
    for d in range(world):
        part = (base.float() * scales[d]).to(torch.bfloat16).float()
        acc = torch.where(ref_in_rank[:, d : d + 1], acc + part, acc)
    _same(combined, acc.to(torch.bfloat16), "combined_x")
    _same(combined_w, torch.where(mine["idx"] >= 0, mine["weights"], 0.0), "combined_topk_weights")
    # upstream's check: combining the dispatched rows gives x times the number of ranks
    plain_combined, _, _ = buffer.combine(
        plain_x if not case["fp8"] else _cast_back(*plain_x), plain_handle
    )
    check = plain_combined.float() / in_rank.sum(dim=1, keepdim=True).clamp(min=1)
    sent = in_rank.any(dim=1)
    assert not sent.any() or _calc_diff(check[sent], base[sent]) < 5e-6


# ---- low-latency mode ----------------------------------------------------------------


def _check_low_latency(rank: int, world: int, group, case: dict) -> None:
    import tilec.kernels.deep_ep as deep_ep

    experts, hidden, max_tokens = case["experts"], case["hidden"], case["max_tokens"]
    per_rank, slots = experts // world, world * max_tokens
    size = deep_ep.Buffer.get_low_latency_rdma_size_hint(max_tokens, hidden, world, experts)
    assert size > 0 and size % 128 == 0
    buffer = deep_ep.Buffer(group, num_rdma_bytes=size, low_latency_mode=True)
    inputs = [_inputs(s, case) for s in range(world)]
    mine = inputs[rank]
    fp8, round_scale, ue8m0 = case["fp8"], case["round_scale"], case["ue8m0"]
    stats = torch.zeros((per_rank,), dtype=torch.int32)
    recv_x, recv_count, handle, _, hook = buffer.low_latency_dispatch(
        mine["x"],
        mine["idx"],
        max_tokens,
        experts,
        cumulative_local_expert_recv_stats=stats,
        use_fp8=fp8,
        round_scale=round_scale,
        use_ue8m0=ue8m0,
        return_recv_hook=True,
    )
    hook()
    src_info, layout_range = handle[0], handle[1]
    data, sf = recv_x if fp8 else (recv_x, None)
    assert data.shape == (per_rank, slots, hidden)
    if fp8:
        groups = hidden // (512 if ue8m0 else 128)
        assert sf.shape == (per_rank, slots, groups)
        assert sf.stride() == (groups * slots, 1, slots)  # column-major per expert
        assert sf.dtype == (torch.int32 if ue8m0 else torch.float32)
    casts = [_fp8_cast(inp["x"], round_scale) for inp in inputs]
    expert_inputs = []  # what each local expert holds: (source rank, source token) rows
    for e in range(per_rank):
        expert = rank * per_rank + e
        rows = [
            (s, (inp["idx"] == expert).any(dim=1).nonzero()[:, 0]) for s, inp in enumerate(inputs)
        ]
        n = sum(len(t) for _, t in rows)
        assert recv_count[e].item() == n and stats[e].item() == n
        begin = 0
        for s, tokens in rows:
            assert layout_range[e, s].item() == (begin << 32) | len(tokens)
            begin += len(tokens)
        _same(src_info[e, :n], torch.cat([t for _, t in rows]).to(torch.int32), f"src_info {e}")
        if fp8:
            _same(data[e, :n], torch.cat([casts[s][0][t] for s, t in rows]), f"fp8 x of {e}")
            ref_sf = torch.cat([casts[s][1][t] for s, t in rows])
            if ue8m0:
                got = _ue8m0_bytes(sf[e, :n])
                _same(got, (ref_sf.view(torch.int32) >> 23).to(torch.uint8), f"ue8m0 of {e}")
            else:
                _same(sf[e, :n], ref_sf, f"scales of {e}")
        else:
            _same(data[e, :n], torch.cat([inputs[s]["x"][t] for s, t in rows]), f"x of {e}")
        assert not _bits(data[e, n:]).any()  # unused slots are zero
        expert_inputs.append(rows)

    # combine: expert e returns its rows scaled by (e + 1) / 4; sums x * weight per lane
    values = data
    if fp8:  # what a GEMM would read: the FP8 rows times their scales
        scales = sf.contiguous()
        if ue8m0:
            scales = (_ue8m0_bytes(scales).int() << 23).view(torch.float32)
        values = _cast_back(data.reshape(-1, hidden), scales.reshape(-1, hidden // 128))
        values = values.view(per_rank, slots, hidden)
    y = (values.float() * (torch.arange(per_rank).view(-1, 1, 1) + 1) / 4).to(torch.bfloat16)
    out = torch.empty_like(mine["x"])
    combined, _, _ = buffer.low_latency_combine(y, mine["idx"], mine["weights"], handle, out=out)
    assert combined is out
    token = _cast_back(*casts[rank]) if fp8 else mine["x"]
    acc = torch.zeros(token.shape, dtype=torch.float32)
    for k in range(mine["idx"].shape[1]):
        e = mine["idx"][:, k]
        row = ((token.float() * ((e % per_rank) + 1).view(-1, 1) / 4).to(torch.bfloat16)).float()
        acc = torch.where((e >= 0).view(-1, 1), acc + row * mine["weights"][:, k : k + 1], acc)
    _same(combined, acc.to(torch.bfloat16), "low-latency combined_x")
    # upstream's check (combining the dispatched rows): x times the sum of the weights
    combined, _, _ = buffer.low_latency_combine(values, mine["idx"], mine["weights"], handle)
    ref = token.float() * torch.where(mine["idx"] >= 0, mine["weights"], 0).sum(dim=1, keepdim=True)
    assert not ref.numel() or _calc_diff(ref, combined) < (9e-4 if fp8 else 1e-5)


NORMAL = {
    "bf16": dict(
        seed=1, tokens=[37, 29], hidden=576, topk=3, experts=8, alignment=4, fp8=False, num_bias=2
    ),
    "fp8": dict(
        seed=2, tokens=[23, 0], hidden=640, topk=4, experts=8, alignment=1, fp8=True, num_bias=1
    ),
}
LOW_LATENCY = {
    "bf16": dict(
        seed=3,
        tokens=[13, 9],
        max_tokens=16,
        hidden=256,
        topk=3,
        experts=8,
        fp8=False,
        round_scale=False,
        ue8m0=False,
    ),
    "fp8": dict(
        seed=4,
        tokens=[16, 5],
        max_tokens=16,
        hidden=512,
        topk=4,
        experts=8,
        fp8=True,
        round_scale=False,
        ue8m0=False,
    ),
    "fp8_ue8m0": dict(
        seed=5,
        tokens=[7, 11],
        max_tokens=12,
        hidden=512,
        topk=2,
        experts=4,
        fp8=True,
        round_scale=True,
        ue8m0=True,
    ),
}


def _all_cases(rank: int, world: int, group) -> None:
    for name, case in NORMAL.items():
        try:
            _check_normal(rank, world, group, case)
        except AssertionError as exc:
            exc.add_note(f"normal case {name}, rank {rank}")
            raise
    for name, case in LOW_LATENCY.items():
        try:
            _check_low_latency(rank, world, group, case)
        except AssertionError as exc:
            exc.add_note(f"low-latency case {name}, rank {rank}")
            raise
    _bad_inputs(rank, world, group)


def _bad_inputs(rank: int, world: int, group) -> None:
    import tilec.kernels.deep_ep as deep_ep

    buffer = deep_ep.Buffer(group, low_latency_mode=True)
    x = torch.zeros((8, 256), dtype=torch.bfloat16)
    idx = torch.zeros((8, 2), dtype=torch.int64)
    counts, _, per_expert, in_rank, _ = buffer.get_dispatch_layout(idx, 4)
    bad_counts = counts + (1 if rank == 1 else 0)  # only rank 1 lies about its counts
    faults = [
        lambda: buffer.dispatch(
            x,
            num_tokens_per_rank=bad_counts,
            is_token_in_rank=in_rank,
            num_tokens_per_expert=per_expert,
        ),
        lambda: buffer.dispatch(
            x if rank == 0 else x.float(),
            num_tokens_per_rank=counts,
            is_token_in_rank=in_rank,
            num_tokens_per_expert=per_expert,
        ),
        lambda: buffer.low_latency_dispatch(x, idx if rank == 0 else idx + 9, 8, 4, use_fp8=False),
        lambda: buffer.low_latency_dispatch(x, idx, 8 if rank == 0 else 4, 4, use_fp8=False),
    ]
    for fault in faults:
        start = time.monotonic()
        with pytest.raises(ValueError, match=r"deep_ep\.Buffer\."):
            fault()
        assert time.monotonic() - start < 10
    # nothing was sent: the buffer still works
    recv_x, *_ = buffer.dispatch(
        x, num_tokens_per_rank=counts, is_token_in_rank=in_rank, num_tokens_per_expert=per_expert
    )
    assert recv_x.shape == (8 * world if rank == 0 else 0, 256)


def test_v1_buffer_matches_reference():
    _spawn("_all_cases", 2, __name__)


def _four_ranks(rank: int, world: int, group) -> None:
    _check_normal(
        rank,
        world,
        group,
        dict(
            seed=6,
            tokens=[41, 13, 0, 27],
            hidden=448,
            topk=5,
            experts=16,
            alignment=8,
            fp8=False,
            num_bias=0,
        ),
    )
    _check_low_latency(
        rank,
        world,
        group,
        dict(
            seed=7,
            tokens=[9, 0, 16, 3],
            max_tokens=16,
            hidden=512,
            topk=5,
            experts=16,
            fp8=True,
            round_scale=True,
            ue8m0=False,
        ),
    )


@pytest.mark.slow
def test_v1_buffer_four_ranks():
    _spawn("_four_ranks", 4, __name__)
