"""Expert-parallel dispatch and combine (tilec.kernels.deep_ep.ElasticBuffer) against a bare
all_to_all_single of the same bytes, on the same ranks, in the same run.

    python benchmarks/ep.py [--ranks 4] [--tokens 4096] [--hidden 7168] [--topk 8]
                            [--experts 32] [--repeats 10]

`--ranks` processes (torch.multiprocessing.spawn, joined by deep_ep's `init_dist`:
gloo over loopback TCP here) each route `--tokens` bf16 tokens of `--hidden` to the
top-`--topk` of `--experts` experts (random scores), dispatch them with their top-k
indices and weights, and combine the received rows back with their weights.

Bytes are counted as DeepEP's tests/elastic/test_ep.py counts its scale-up traffic:
dispatch, every row this rank receives with its top-k indices and weights
(`count_bytes(recv_x, recv_topk_idx, recv_topk_weights)`); combine, the same rows
with their weights (`count_bytes(recv_x, recv_topk_weights)`) (tests/legacy counts the
rows only: 0.7 % / 0.2 % fewer bytes at hidden 7168, top-8). GB/s is those bytes over
rank 0's median time of a call (ranks meet at a barrier before each timed
call, as DeepEP's `bench_kineto(barrier_comm_profiling=True)` does; one warm-up
call first).

The baseline moves the same bytes between the same ranks with one
`dist.all_to_all_single` of uint8 blocks (the per-rank token counts of the dispatch,
times each token's bytes; reversed for the combine). `ep/a2a` is the call's time over
the baseline's: 1.0 would be no cost beyond moving the bytes; the rest is the layout,
packing and placing kernels, the host agreement round and the several exchanges a
call makes instead of one (rows, indices, weights, source indices).

DeepEP's published intranode figures (EP8 on H800 over NVLink, 4096 tokens x 7168,
top-8, FP8 dispatch / BF16 combine: 153 / 158 GB/s) are printed for context only:
different hardware and transport, and not comparable with loopback TCP on a CPU.
The default is the issue's shape, which takes about a minute and a half on two
cores; `--tokens` and `--hidden` shrink it, and the first line printed says what
ran. Nothing here is asserted.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import time
from collections.abc import Callable

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from tilec.kernels import deep_ep
from tilec.kernels.deep_ep.utils.envs import init_dist


def _count_bytes(*tensors: torch.Tensor | None) -> int:
    """DeepEP's deep_ep.utils.math.count_bytes."""
    return sum(t.numel() * t.element_size() for t in tensors if t is not None)


def _median(repeats: int, group: dist.ProcessGroup, call: Callable[[], object]) -> float:
    """Median seconds of `call` over `repeats` timed calls after one warm-up, the ranks
    meeting at a barrier before each."""
    call()
    samples = []
    for _ in range(repeats):
        dist.barrier(group=group)
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _bare(group: dist.ProcessGroup, send_rows: list[int], recv_rows: list[int],
          row_bytes: int) -> Callable[[], None]:
    """One all_to_all_single moving `send_rows[d]` rows of `row_bytes` to each rank d."""
    send = torch.zeros((sum(send_rows), row_bytes), dtype=torch.uint8)
    recv = torch.empty((sum(recv_rows), row_bytes), dtype=torch.uint8)
    return lambda: dist.all_to_all_single(recv, send, recv_rows, send_rows, group=group)


def run(local_rank: int, num_ranks: int, args: argparse.Namespace) -> None:
    torch.set_num_threads(1)
    rank, world, group = init_dist(local_rank, num_ranks)
    gen = torch.Generator().manual_seed(rank)
    tokens, hidden, topk, experts = args.tokens, args.hidden, args.topk, args.experts
    x = torch.randn((tokens, hidden), generator=gen, dtype=torch.float32).bfloat16()
    scores = torch.rand((tokens, experts), generator=gen, dtype=torch.float32)
    weights, topk_idx = scores.topk(topk, dim=1, sorted=False)
    topk_idx = topk_idx.to(deep_ep.topk_idx_t)

    buffer = deep_ep.ElasticBuffer(group, num_max_tokens_per_rank=tokens, hidden=hidden,
                                   num_topk=topk)

    def dispatch() -> tuple:
        return buffer.dispatch(x, topk_idx, weights, num_experts=experts)

    recv_x, recv_idx, recv_w, handle, _ = dispatch()

    def combine() -> tuple:
        return buffer.combine(recv_x, handle, recv_w)

    # the baseline's splits: tokens with an expert on each rank, and what each rank sends here
    on_rank = topk_idx // (experts // world)
    send_rows = torch.stack([(on_rank == r).any(dim=1) for r in range(world)]).sum(1)
    recv_rows = torch.empty_like(send_rows)
    dist.all_to_all_single(recv_rows, send_rows, group=group)
    send_rows, recv_rows = send_rows.tolist(), recv_rows.tolist()
    num_recv = recv_x.shape[0]
    assert sum(recv_rows) == num_recv > 0, "no token reached rank"
    dispatch_bytes = _count_bytes(recv_x, recv_idx, recv_w)
    combine_bytes = _count_bytes(recv_x, recv_w)

    times = {}
    for name, call, nbytes, bare in (
        ("dispatch", dispatch, dispatch_bytes,
         _bare(group, send_rows, recv_rows, dispatch_bytes // num_recv)),
        ("combine", combine, combine_bytes,
         _bare(group, recv_rows, send_rows, combine_bytes // num_recv)),
    ):
        times[name] = (_median(args.repeats, group, call), _median(args.repeats, group, bare),
                       nbytes)
    if rank == 0:
        print(f"EP{world} (gloo, {os.cpu_count()} cpus): {tokens} tokens x {hidden} bf16 per rank, "
              f"top-{topk} of {experts} experts; rank 0 receives {num_recv} tokens; "
              f"medians of {args.repeats}")
        for name, (ep_s, a2a_s, nbytes) in times.items():
            print(f"  {name:<8} {nbytes / 1e6:8.1f} MB  ElasticBuffer {ep_s * 1e3:8.1f} ms "
                  f"{nbytes / ep_s / 1e9:6.2f} GB/s   all_to_all_single {a2a_s * 1e3:8.1f} ms "
                  f"{nbytes / a2a_s / 1e9:6.2f} GB/s   ep/a2a {ep_s / a2a_s:.2f}")
        print("  DeepEP published, context only (EP8 intranode on H800 over NVLink, 4096 x 7168, "
              "top-8, FP8 dispatch / BF16 combine; other hardware): 153 GB/s dispatch, "
              "158 GB/s combine")
    dist.destroy_process_group()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=4096, help="tokens per rank")
    parser.add_argument("--hidden", type=int, default=7168)
    parser.add_argument("--topk", type=int, default=8)
    parser.add_argument("--experts", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=10, help="timed calls per side")
    args = parser.parse_args()
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(_free_port()))
    mp.spawn(run, args=(args.ranks, args), nprocs=args.ranks)


if __name__ == "__main__":
    main()
