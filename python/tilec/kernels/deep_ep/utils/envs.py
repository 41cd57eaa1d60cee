"""DeepEP's process setup (`deep_ep.utils.envs`) for any torch.distributed backend:
NCCL where CUDA is present, gloo on CPU, always with a finite timeout."""

from __future__ import annotations

import datetime
import os
import random

import torch
import torch.distributed as dist

_local_rank: int | None = None
_local_seed = 0
_global_seed = 0

# seconds a collective may wait ($EP_DIST_TIMEOUT_SECS); gloo's own default is 30 minutes
DEFAULT_TIMEOUT_SECS = 300


def init_seed(global_seed: int) -> None:
    """Seeds torch and random with `global_seed + rank` (the local seed)."""
    global _local_seed, _global_seed
    _local_seed = global_seed + dist.get_rank()
    _global_seed = global_seed
    torch.manual_seed(_local_seed)
    random.seed(_local_seed)


def get_local_seed() -> int:
    return _local_seed


def get_global_seed() -> int:
    return _global_seed


def dist_print(s: str = "", once_in_node: bool = False) -> None:
    """Prints from every rank (or local rank 0 only), then a barrier."""
    assert _local_rank is not None, "deep_ep.utils.envs.dist_print: call init_dist first"
    if not once_in_node or _local_rank == 0:
        print(s, flush=True)
    dist.barrier()


def init_dist(
    local_rank: int, num_local_ranks: int, seed: int = 0
) -> tuple[int, int, dist.ProcessGroup]:
    """Joins the process group at tcp://$MASTER_ADDR:$MASTER_PORT (127.0.0.1:8361) as rank
    $RANK * num_local_ranks + local_rank of $WORLD_SIZE * num_local_ranks; returns
    (rank, world_size, a group of all ranks). Collectives time out after
    $EP_DIST_TIMEOUT_SECS (300) seconds."""
    global _local_rank
    ip = os.getenv("MASTER_ADDR", "127.0.0.1")
    port = int(os.getenv("MASTER_PORT", "8361"))
    num_nodes = int(os.getenv("WORLD_SIZE", 1))
    node_rank = int(os.getenv("RANK", 0))
    timeout = datetime.timedelta(
        seconds=float(os.getenv("EP_DIST_TIMEOUT_SECS", DEFAULT_TIMEOUT_SECS))
    )
    _local_rank = local_rank
    cuda = torch.cuda.is_available()
    dist.init_process_group(
        backend="nccl" if cuda else "gloo",
        init_method=f"tcp://{ip}:{port}",
        world_size=num_nodes * num_local_ranks,
        rank=node_rank * num_local_ranks + local_rank,
        timeout=timeout,
    )
    torch.set_default_dtype(torch.bfloat16)
    if cuda:
        torch.set_default_device("cuda")
        torch.cuda.set_device(local_rank)
    init_seed(seed)
    return (
        dist.get_rank(),
        dist.get_world_size(),
        dist.new_group(list(range(num_local_ranks * num_nodes))),
    )


def get_physical_domain_size(group: dist.ProcessGroup) -> tuple[int, int]:
    """(RDMA ranks, NVLink ranks): one domain of all the group's ranks."""
    return 1, group.size()


def get_logical_domain_size(
    group: dist.ProcessGroup, allow_hybrid_mode: bool = True
) -> tuple[int, int]:
    """(scale-out ranks, scale-up ranks): one scale-up domain of all the group's ranks."""
    return 1, group.size()
