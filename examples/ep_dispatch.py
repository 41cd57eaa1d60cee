"""Expert parallelism across processes with tilec.kernels.deep_ep (DeepEP V2's API).

Each rank routes its tokens to the top-k of `num_experts` experts spread over the
ranks, dispatches them (tilec kernels lay out and pack the tokens; torch.distributed's
all_to_all_single moves them), lets each expert return its rows unchanged, and combines
them back: every token comes home as the sum of its copies, one per rank it reached.

    python examples/ep_dispatch.py                            # 2 ranks on this machine
    torchrun --standalone --nproc-per-node=4 examples/ep_dispatch.py
    torchrun --nnodes=2 --node-rank=0 --nproc-per-node=8 \\
        --master-addr=HOST --master-port=8361 examples/ep_dispatch.py   # and node-rank=1

gloo carries CPU tensors (here and in CI); NCCL is chosen when CUDA is present. The
collectives time out after $EP_DIST_TIMEOUT_SECS seconds (300 by default).
"""

from __future__ import annotations

import os

import torch
import torch.multiprocessing as mp

from tilec.kernels import deep_ep
from tilec.kernels.deep_ep.utils.envs import init_dist

NUM_TOKENS, HIDDEN, NUM_TOPK, NUM_EXPERTS = 96, 512, 4, 16


def run(local_rank: int, num_local_ranks: int) -> None:
    torch.set_num_threads(1)
    rank, world, group = init_dist(local_rank, num_local_ranks)
    g = torch.Generator().manual_seed(rank)
    x = torch.randn((NUM_TOKENS, HIDDEN), generator=g, dtype=torch.float32).bfloat16()
    scores = torch.rand((NUM_TOKENS, NUM_EXPERTS), generator=g)
    topk_idx = scores.topk(NUM_TOPK, dim=1).indices.to(deep_ep.topk_idx_t)
    topk_idx[::7, -1] = -1  # some tokens use fewer experts

    buffer = deep_ep.ElasticBuffer(group, num_max_tokens_per_rank=NUM_TOKENS, hidden=HIDDEN,
                                   num_topk=NUM_TOPK)
    recv_x, _, _, handle, _ = buffer.dispatch(x, topk_idx, num_experts=NUM_EXPERTS)
    combined, _, _ = buffer.combine(recv_x, handle)  # identity experts

    per_rank = NUM_EXPERTS // world
    reached = torch.stack([((topk_idx >= r * per_rank) & (topk_idx < (r + 1) * per_rank)).any(1)
                           for r in range(world)]).sum(0)
    expected = (x.float() * reached.unsqueeze(1)).bfloat16()
    assert torch.equal(combined, expected), "combined tokens differ from their copies' sum"
    print(f"rank {rank}/{world}: sent {NUM_TOKENS} tokens, received {recv_x.shape[0]} rows, "
          f"combined exactly")
    torch.distributed.destroy_process_group()


if __name__ == "__main__":
    if "LOCAL_RANK" in os.environ:  # under torchrun
        # init_dist's node rank and count come from RANK/WORLD_SIZE, as DeepEP's do
        local_world = int(os.environ["LOCAL_WORLD_SIZE"])
        os.environ["RANK"] = str(int(os.environ["RANK"]) // local_world)
        os.environ["WORLD_SIZE"] = str(int(os.environ["WORLD_SIZE"]) // local_world)
        run(int(os.environ["LOCAL_RANK"]), local_world)
    else:
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "8361")
        mp.spawn(run, args=(2,), nprocs=2)
