"""tilec.kernels.deep_ep (DeepEP V2's ElasticBuffer) across processes: gloo ranks made by
torch.multiprocessing.spawn, dispatch and combine checked bitwise (torch.equal, and
bit patterns for floats) against a restatement of DeepEP's torch reference
(deep_ep/utils/refs.py). Every rank builds every rank's inputs from the same seeds,
so the reference needs no communication."""

from __future__ import annotations

import math
import os
import socket
import time

import pytest
import torch
import torch.multiprocessing as mp

TIMEOUT_SECS = 120  # a whole spawned test; collectives inside time out after 20 s


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _entry(local_rank: int, num_ranks: int, module: str, body_name: str) -> None:
    torch.set_num_threads(1)
    import importlib

    from tilec.kernels.deep_ep.utils.envs import init_dist

    rank, world, group = init_dist(local_rank, num_ranks)
    assert (rank, world) == (local_rank, num_ranks)
    getattr(importlib.import_module(module), body_name)(rank, world, group)
    torch.distributed.destroy_process_group()


def _spawn(body_name: str, num_ranks: int, module: str = __name__) -> float:
    """Runs `module.body_name(rank, world, group)` on `num_ranks` ranks; fails on any
    rank's error or after TIMEOUT_SECS. Returns the seconds it took."""
    os.environ.update(
        MASTER_ADDR="127.0.0.1", MASTER_PORT=str(_free_port()), EP_DIST_TIMEOUT_SECS="20"
    )
    start = time.monotonic()
    context = mp.spawn(_entry, args=(num_ranks, module, body_name), nprocs=num_ranks, join=False)
    while not context.join(timeout=1):
        if time.monotonic() - start > TIMEOUT_SECS:
            for process in context.processes:
                process.kill()
            pytest.fail(f"{body_name} on {num_ranks} ranks did not finish in {TIMEOUT_SECS} s")
    return time.monotonic() - start


# ---- the reference (deep_ep/utils/refs.py), restated without communication ------------


def _bits(t: torch.Tensor) -> torch.Tensor:
    return t.view(
        {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]
    )


def _same(a: torch.Tensor, b: torch.Tensor, what: str) -> None:
    assert a.shape == b.shape and a.dtype == b.dtype, (
        f"{what}: {a.shape} {a.dtype} vs {b.shape} {b.dtype}"
    )
    assert torch.equal(_bits(a.contiguous()), _bits(b.contiguous())), f"{what} differs"


def _inputs(rank: int, case: dict) -> dict:
    """Rank `rank`'s tokens: bf16 or (fp8, fp32 scales) data, distinct experts per
    token (some -1), fp32 weights, optional bias."""
    gen = torch.Generator().manual_seed(1000 * case["seed"] + rank)
    num_tokens, hidden, topk = case["tokens"][rank], case["hidden"], case["topk"]
    experts = case.get("experts_of", lambda r, e: e)(rank, case["experts"])
    scores = torch.rand((num_tokens, experts), generator=gen, dtype=torch.float32)
    idx = scores.topk(topk, dim=1).indices.to(torch.int64)
    idx[torch.rand((num_tokens, topk), generator=gen) < 0.2] = -1
    weights = torch.rand((num_tokens, topk), generator=gen, dtype=torch.float32)
    x = torch.randn((num_tokens, hidden), generator=gen, dtype=torch.float32).to(torch.bfloat16)
    if case["fp8"]:
        sf = torch.rand((num_tokens, math.ceil(hidden / 128)), generator=gen, dtype=torch.float32)
        x = (
            torch.randn((num_tokens, hidden), generator=gen, dtype=torch.float32).to(
                torch.float8_e4m3fn
            ),
            sf,
        )
    biases = tuple(
        torch.randn((num_tokens, hidden), generator=gen, dtype=torch.float32).to(torch.bfloat16)
        for _ in range(case["num_bias"])
    )
    bias = biases[0] if len(biases) == 1 else biases if biases else None
    return dict(x=x, idx=idx, weights=weights, bias=bias)


def _ref_dispatch(rank: int, world: int, case: dict, max_tokens: int):
    """refs.dispatch: the tokens of rank 0, 1, ... with an expert here, in token order;
    top-k indices made local (-1 elsewhere); the source global index."""
    per_rank = case["experts"] // world
    lo, hi = rank * per_rank, (rank + 1) * per_rank
    xs, sfs, idxs, ws, srcs = [], [], [], [], []
    for src in range(world):
        inp = _inputs(src, case)
        idx = inp["idx"]
        inside = (idx >= lo) & (idx < hi)
        sel = inside.any(dim=1).nonzero(as_tuple=True)[0]
        data, sf = inp["x"] if case["fp8"] else (inp["x"], None)
        xs.append(data[sel])
        sfs.append(sf[sel] if sf is not None else None)
        idxs.append(torch.where(inside, idx - lo, torch.full_like(idx, -1))[sel])
        ws.append(inp["weights"][sel])
        srcs.append((sel + src * max_tokens).to(torch.int32))
    x = torch.cat(xs)
    x = (x, torch.cat(sfs)) if case["fp8"] else x
    return x, torch.cat(idxs), torch.cat(ws), torch.cat(srcs)


def _pre_combine(src_global: torch.Tensor, topk: int, hidden: int, world: int, max_tokens: int):
    """refs.generate_pre_combine_data: a deterministic bf16 value per (token, lane, column)."""
    seeds = src_global.to(torch.int64).unsqueeze(1) * topk + torch.arange(topk).unsqueeze(0)
    max_seed = world * max_tokens * topk
    phase = ((seeds * 131071 % max_seed).float() + 1) / max_seed
    cols = torch.arange(1, hidden + 1, dtype=torch.float32)
    y = torch.sin(phase.unsqueeze(-1) * cols + math.sin(0.0))
    if topk > 3:  # two huge lanes that cancel: the float32 sums then depend on their order
        y[:, 1] *= 2.0**24
        y[:, 3] = -y[:, 1]
    return y.to(torch.bfloat16)


def _ordered_sum(y: torch.Tensor, initial: torch.Tensor | None = None) -> torch.Tensor:
    """refs.ordered_accumulate: float32 sum over the top-k dim in order, from `initial`."""
    acc = (
        torch.zeros((y.shape[0], y.shape[2]), dtype=torch.float32)
        if initial is None
        else initial.clone()
    )
    for k in range(y.shape[1]):
        acc += y[:, k].float()
    return acc.to(y.dtype)


def _ref_combine(y: torch.Tensor, idx: torch.Tensor, per_rank: int, bias, reduce_local: bool):
    """refs.combine (one scale-up domain): with `reduce_local`, each rank's lanes are summed
    (float32, in lane order) onto the rank's last lane, the others zeroed; then all lanes
    are summed in order from the bias (two biases summed first)."""
    if reduce_local:
        group = torch.div(idx, per_rank, rounding_mode="floor")
        reduced = torch.zeros_like(y)
        for k in range(y.shape[1]):
            same = group == group[:, k : k + 1]
            last = ~same[:, k + 1 :].any(dim=1)
            acc = torch.zeros((y.shape[0], y.shape[2]), dtype=torch.float32)
            for j in range(k + 1):
                acc += torch.where(same[:, j : j + 1], y[:, j].float(), 0.0)
            reduced[:, k] = torch.where(last.unsqueeze(1), acc.to(y.dtype), 0.0)
        y = reduced
    biases = bias if isinstance(bias, tuple) else (bias,) if bias is not None else ()
    initial = None
    if biases:
        initial = biases[0].float() + biases[1].float() if len(biases) == 2 else biases[0].float()
    return _ordered_sum(y, initial)


# ---- the checks, run on every rank ---------------------------------------------------


def _check_case(rank: int, world: int, group, case: dict) -> None:
    import tilec.kernels.deep_ep as deep_ep

    hidden, topk, experts, align = case["hidden"], case["topk"], case["experts"], case["alignment"]
    max_tokens = max(case["tokens"])
    per_rank = experts // world
    buffer = deep_ep.ElasticBuffer(
        group,
        num_max_tokens_per_rank=max_tokens,
        hidden=hidden,
        num_topk=topk,
        use_fp8_dispatch=case["fp8"],
        allow_multiple_reduction=case["multiple_reduction"],
        num_cpu_timeout_secs=20,
        explicitly_destroy=True,
    )
    assert (buffer.rank_idx, buffer.num_ranks) == (rank, world)
    assert buffer.get_logical_domain_size() == (1, world)
    inp = _inputs(rank, case)
    ref_x, ref_idx, ref_w, ref_src = _ref_dispatch(rank, world, case, max_tokens)
    num_recv = ref_idx.shape[0]
    stats = torch.zeros((per_rank,), dtype=torch.int32)
    args = dict(
        x=inp["x"],
        topk_idx=inp["idx"],
        topk_weights=inp["weights"],
        num_experts=experts,
        expert_alignment=align,
        cumulative_local_expert_recv_stats=stats,
    )

    # plain dispatch: the reference's order, bitwise
    recv_x, recv_idx, recv_w, handle, event = buffer.dispatch(**args)
    event.current_stream_wait()
    if case["fp8"]:
        _same(recv_x[0], ref_x[0], "recv fp8 data")
        _same(recv_x[1], ref_x[1], "recv scales")
    else:
        _same(recv_x, ref_x, "recv_x")
    _same(recv_idx, ref_idx, "recv_topk_idx")
    _same(recv_w, ref_w, "recv_topk_weights")
    _same(handle.recv_src_metadata[:, 0], ref_src, "recv_src_metadata[:, 0]")
    counts = [int((ref_idx == e).sum()) for e in range(per_rank)]
    aligned = [-(-c // align) * align for c in counts]
    assert stats.tolist() == counts
    assert handle.num_recv_tokens == num_recv
    assert handle.num_recv_tokens_per_expert_list == aligned
    assert (
        handle.psum_num_recv_tokens_per_expert.tolist() == torch.tensor(aligned).cumsum(0).tolist()
    )
    ref_per_rank = [int(((ref_src // max_tokens) == s).sum()) for s in range(world)]
    assert (
        handle.psum_num_recv_tokens_per_scaleup_rank.tolist()
        == torch.tensor(ref_per_rank).cumsum(0).tolist()
    )
    assert torch.equal(handle.topk_idx, inp["idx"])
    assert not inp["idx"].numel() or handle.topk_idx.data_ptr() != inp["idx"].data_ptr()

    # cached dispatch: the same results without topk_idx
    c_x, c_idx, c_w, c_handle, _ = buffer.dispatch(
        x=inp["x"], handle=handle, topk_weights=inp["weights"]
    )
    assert c_handle is handle
    for a, b, what in (
        ((c_x[0], recv_x[0], "cached fp8"), (c_x[1], recv_x[1], "cached sf"))
        if case["fp8"]
        else ((c_x, recv_x, "cached recv_x"),)
    ):
        _same(a, b, what)
    _same(c_idx, recv_idx, "cached recv_topk_idx")
    _same(c_w, recv_w, "cached recv_topk_weights")

    # expanded dispatch: expert e's rows from its aligned start, in received order, zero padding
    e_x, e_idx, e_w, e_handle, _ = buffer.dispatch(
        **args | dict(cumulative_local_expert_recv_stats=None),
        do_expand=True,
        use_tma_aligned_col_major_sf=case["fp8"],
    )
    assert e_idx is None and e_handle.num_expanded_tokens == sum(aligned)
    starts = [sum(aligned[:e]) for e in range(per_rank)]
    assert e_handle.psum_num_recv_tokens_per_expert.tolist() == [
        s + c for s, c in zip(starts, counts, strict=True)
    ]
    lanes = e_handle.recv_src_metadata[:, 2:]
    data, sf = e_x if case["fp8"] else (e_x, None)
    ref_data, ref_sf = ref_x if case["fp8"] else (ref_x, None)
    if sf is not None:
        assert sf.stride() == (1, -(-sum(aligned) // 4) * 4)
    for e in range(per_rank):
        rows, lane = (ref_idx == e).nonzero(as_tuple=True)
        order = rows.argsort(stable=True)
        rows, lane = rows[order], lane[order]
        span = slice(starts[e], starts[e] + counts[e])
        _same(data[span], ref_data[rows], f"expanded x of expert {e}")
        _same(e_w[span], ref_w[rows, lane], f"expanded weights of expert {e}")
        if sf is not None:
            _same(sf[span], ref_sf[rows], f"expanded scales of expert {e}")
        assert lanes[rows, lane].tolist() == list(range(span.start, span.stop))
        pad = slice(span.stop, starts[e] + aligned[e])
        assert not _bits(data[pad]).any() and not e_w[pad].any()
    assert (lanes[ref_idx < 0] == -1).all()

    # cached expanded dispatch
    ce_x, _, ce_w, _, _ = buffer.dispatch(
        x=inp["x"],
        handle=e_handle,
        topk_weights=inp["weights"],
        do_expand=True,
        do_zero_padding=True,
        use_tma_aligned_col_major_sf=case["fp8"],
    )
    _same(ce_x[0] if case["fp8"] else ce_x, data, "cached expanded x")
    _same(ce_w, e_w, "cached expanded weights")

    # combine: each rank sums its lanes of a received token (as the reference's test does)
    local_y = _pre_combine(ref_src, topk, hidden, world, max_tokens)
    local_y[ref_idx < 0] = 0
    ref_y = _pre_combine(
        rank * max_tokens + torch.arange(inp["idx"].shape[0]), topk, hidden, world, max_tokens
    )
    ref_y[inp["idx"] < 0] = 0
    ref_weights = torch.where(inp["idx"] < 0, 0.0, inp["weights"])
    combined, combined_w, _ = buffer.combine(
        _ordered_sum(local_y), handle, topk_weights=recv_w, bias=inp["bias"]
    )
    _same(combined, _ref_combine(ref_y, inp["idx"], per_rank, inp["bias"], True), "combined_x")
    _same(combined_w, ref_weights, "combined_topk_weights")

    # expanded combine: one row per (token, local expert); the library reduces
    expanded_in = torch.zeros((e_handle.num_expanded_tokens, hidden), dtype=torch.bfloat16)
    valid = lanes >= 0
    expanded_in[lanes[valid]] = local_y[valid]
    reduced, reduced_w, _ = buffer.combine(
        expanded_in, e_handle, topk_weights=e_w, bias=inp["bias"]
    )
    _same(
        reduced,
        _ref_combine(ref_y, inp["idx"], per_rank, inp["bias"], case["multiple_reduction"]),
        "expanded combined_x",
    )
    _same(reduced_w, ref_weights, "expanded combined_topk_weights")
    buffer.barrier()
    buffer.destroy()


CASES = {
    "bf16": dict(
        seed=1,
        tokens=[37, 29],
        hidden=576,
        topk=3,
        experts=8,
        fp8=False,
        alignment=1,
        num_bias=0,
        multiple_reduction=True,
    ),
    "fp8_aligned": dict(
        seed=2,
        tokens=[23, 31],
        hidden=576,
        topk=4,
        experts=8,
        fp8=True,
        alignment=8,
        num_bias=2,
        multiple_reduction=True,
    ),
    # rank 1's experts get nothing: rank 1 receives no token
    "one_rank_receives_nothing": dict(
        seed=3,
        tokens=[17, 0],
        hidden=320,
        topk=2,
        experts=8,
        fp8=False,
        alignment=4,
        num_bias=1,
        multiple_reduction=False,
        experts_of=lambda rank, experts: experts // 2,
    ),
}


def _all_cases(rank: int, world: int, group) -> None:
    for name, case in CASES.items():
        try:
            _check_case(rank, world, group, case)
        except AssertionError as exc:
            exc.add_note(f"case {name}, rank {rank}")
            raise


def test_dispatch_combine_match_reference_bitwise():
    _spawn("_all_cases", 2)


def _four_ranks(rank: int, world: int, group) -> None:
    _check_case(
        rank,
        world,
        group,
        dict(
            seed=4,
            tokens=[41, 13, 0, 27],
            hidden=448,
            topk=5,
            experts=16,
            fp8=False,
            alignment=4,
            num_bias=2,
            multiple_reduction=True,
        ),
    )
    _check_case(
        rank,
        world,
        group,
        dict(
            seed=5,
            tokens=[9, 30, 21, 17],
            hidden=256,
            topk=4,
            experts=8,
            fp8=True,
            alignment=1,
            num_bias=0,
            multiple_reduction=False,
        ),
    )


@pytest.mark.slow
def test_four_ranks_match_reference_bitwise():
    _spawn("_four_ranks", 4)


def _bad_inputs(rank: int, world: int, group) -> None:
    import tilec.kernels.deep_ep as deep_ep

    buffer = deep_ep.ElasticBuffer(
        group, num_max_tokens_per_rank=16, hidden=256, num_cpu_timeout_secs=20
    )
    x = torch.zeros((16, 256), dtype=torch.bfloat16)
    idx = torch.zeros((16, 2), dtype=torch.int64)
    bad_idx = idx.clone()
    bad_idx[3, 1] = 8 if rank == 1 else 0  # only rank 1 routes to an expert that does not exist
    faults = [
        dict(x=x, topk_idx=bad_idx, num_experts=8),
        dict(x=x if rank == 0 else x[:, :128].contiguous(), topk_idx=idx, num_experts=8),
        dict(x=x if rank == 0 else x.float(), topk_idx=idx, num_experts=8),
    ]
    for fault in faults:
        start = time.monotonic()
        with pytest.raises(ValueError, match=r"deep_ep\.ElasticBuffer\.dispatch"):
            buffer.dispatch(**fault)
        assert time.monotonic() - start < 10
    # the buffer still works afterwards: nothing was sent
    recv_x, _, _, handle, _ = buffer.dispatch(x=x, topk_idx=idx, num_experts=8)
    assert recv_x.shape == (16 * world if rank == 0 else 0, 256)
    with pytest.raises(ValueError, match="combine"):
        buffer.combine(recv_x if rank == 0 else torch.zeros((1, 256), dtype=torch.bfloat16), handle)


def test_bad_input_raises_on_every_rank():
    assert _spawn("_bad_inputs", 2) < TIMEOUT_SECS


def _a_rank_stalls_or_dies(rank: int, world: int, group) -> None:
    """Rank 1 stalls past the buffer's timeout, then exits without the collective: rank
    0's dispatch raises within the timeout, naming the collective, instead of hanging."""
    import tilec.kernels.deep_ep as deep_ep

    buffer = deep_ep.ElasticBuffer(
        group, num_max_tokens_per_rank=8, hidden=256, num_cpu_timeout_secs=2
    )
    x = torch.zeros((8, 256), dtype=torch.bfloat16)
    idx = torch.zeros((8, 2), dtype=torch.int64)
    if rank == 1:
        time.sleep(3)
        os._exit(0)  # dies without a word to its peer
    start = time.monotonic()
    with pytest.raises(TimeoutError, match=r"deep_ep\.dispatch: the agreement all-gather .*2"):
        buffer.dispatch(x=x, topk_idx=idx, num_experts=8)
    assert time.monotonic() - start < 4
    os._exit(0)  # the group is broken: no orderly shutdown


def test_a_stalled_or_dead_rank_raises_instead_of_hanging():
    assert _spawn("_a_rank_stalls_or_dies", 2) < 30
