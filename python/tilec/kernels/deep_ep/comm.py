"""The collectives of the EP buffers on torch.distributed, each bounded by a timeout.

gloo waits 30 minutes by default and refuses float8 tensors, so every collective
here is started asynchronously and waited for with the buffer's timeout, and float8
payloads travel as their bytes (uint8 views). Before any data moves, the ranks agree
on whether every rank's input was accepted (`agree`), so a rejected input raises on
all ranks instead of leaving the others waiting in a collective.
"""

from __future__ import annotations

import datetime

import torch
import torch.distributed as dist


def _wait(work: object, timeout_secs: float, api: str, what: str) -> None:
    try:
        work.wait(timeout=datetime.timedelta(seconds=timeout_secs))  # type: ignore[attr-defined]
    except RuntimeError as exc:
        raise TimeoutError(
            f"deep_ep.{api}: {what} did not complete within {timeout_secs} s "
            f"(rank {dist.get_rank()}): {exc}"
        ) from None


def _wire(tensor: torch.Tensor) -> torch.Tensor:
    """What gloo can carry: float8 as bytes, anything else as it is."""
    return tensor.view(torch.uint8) if tensor.element_size() == 1 else tensor


def agree(
    group: dist.ProcessGroup, rejected: bool, values: list[int], timeout_secs: float, api: str
) -> tuple[list[int], list[list[int]]]:
    """All-gathers (rejected, *values) from every rank: the ranks that rejected their
    input and every rank's `values` (one small collective)."""
    mine = torch.tensor([int(rejected), *values], dtype=torch.int64)
    gathered = [torch.empty_like(mine) for _ in range(group.size())]
    _wait(
        dist.all_gather(gathered, mine, group=group, async_op=True),
        timeout_secs,
        api,
        "the agreement all-gather",
    )
    rows = [row.tolist() for row in gathered]
    return [rank for rank, row in enumerate(rows) if row[0]], [row[1:] for row in rows]


def all_to_all(
    group: dist.ProcessGroup,
    out: torch.Tensor,
    inp: torch.Tensor,
    out_splits: list[int],
    in_splits: list[int],
    timeout_secs: float,
    api: str,
) -> None:
    """`out` gets `out_splits[s]` rows from each rank s, in rank order; rank d gets
    `in_splits[d]` rows of `inp`, in order."""
    work = dist.all_to_all_single(
        _wire(out), _wire(inp), out_splits, in_splits, group=group, async_op=True
    )
    _wait(work, timeout_secs, api, "all_to_all_single")


def barrier(group: dist.ProcessGroup, timeout_secs: float, api: str) -> None:
    _wait(dist.barrier(group=group, async_op=True), timeout_secs, api, "the barrier")
