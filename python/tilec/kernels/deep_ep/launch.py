"""Running the EP kernels on a call's tensors, and the host-side helpers (allocation,
integer views, small metadata) the buffers share."""

from __future__ import annotations

from collections.abc import Callable

import torch

from tilec.kernels import targets
from tilec.kernels.tensors import host_int32, kernel_view

from . import kernels

# payload dtype -> integer dtype of its width: rows are moved as bits, never as values
_BITS = {
    torch.bfloat16: torch.int16,
    torch.float8_e4m3fn: torch.uint8,
    torch.float32: torch.int32,
    torch.int64: torch.int64,
    torch.int32: torch.int32,
}


def bits(tensor: torch.Tensor) -> torch.Tensor:
    """`tensor` viewed as integers of its width (a copy then moves its exact bits)."""
    return tensor.view(_BITS[tensor.dtype])


def run(api: str, variant: tuple[object, ...], build: Callable[[], object], *args: object) -> None:
    """Launches `build()`'s kernel on `args` (torch tensors or scalars), on the target of
    the tensors."""
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    views = [kernel_view(a, api) if isinstance(a, torch.Tensor) else a for a in args]
    targets.launch(f"deep_ep.{api}", variant, build, targets.target_for(*tensors), *views)


def int32(like: torch.Tensor, values: list[int]) -> torch.Tensor:
    return host_int32(like, values)  # type: ignore[return-value]


def exclusive_sum(values: list[int]) -> list[int]:
    out, total = [], 0
    for value in values:
        out.append(total)
        total += value
    return out


def gather_rows(
    src: torch.Tensor, row_of: torch.Tensor, num_rows_padded: int | None = None
) -> torch.Tensor:
    """Rows `row_of[p]` of the 2-D `src` (zero where -1); with `num_rows_padded`, in the
    column-major layout (strides (1, num_rows_padded)) DeepGEMM's TMA reads."""
    num_rows, width = row_of.shape[0], src.shape[1]
    if num_rows_padded is None:
        out = torch.empty((num_rows, width), dtype=src.dtype, device=src.device)
        storage = out
    else:
        storage = torch.empty((width, num_rows_padded), dtype=src.dtype, device=src.device)
        out = storage.as_strided((num_rows, width), (1, num_rows_padded))
    if num_rows > 0 and width > 0:
        dtype = str(_BITS[src.dtype]).removeprefix("torch.")
        transposed = num_rows_padded is not None
        run(
            "gather_rows",
            (dtype, transposed),
            lambda: kernels.gather_rows(dtype, transposed),
            bits(src),
            row_of,
            bits(storage),
        )
    return out


def pack_rows(
    src: torch.Tensor, slot: torch.Tensor | None, offsets: torch.Tensor, num_send: int
) -> torch.Tensor:
    """The per-destination blocks of the 2-D `src`: row t at `offsets[d] + slot[t, d]`
    for every rank d with `slot[t, d] >= 0` (`num_send` rows in all)."""
    send = torch.empty((num_send, src.shape[1]), dtype=src.dtype, device=src.device)
    if src.shape[0] > 0 and num_send > 0 and src.shape[1] > 0:
        dtype = str(bits(src).dtype).removeprefix("torch.")
        run(
            "pack_rows",
            (dtype,),
            lambda: kernels.pack_rows(dtype),
            bits(src),
            slot,
            offsets,
            bits(send),
        )
    return send


def identity(like: torch.Tensor, n: int) -> torch.Tensor:
    """The map 0, 1, ..., n-1 (host metadata)."""
    return int32(like, list(range(n)))


def dispatch_layout(topk_idx: torch.Tensor, num_ranks: int,
                    num_experts: int) -> tuple[torch.Tensor, list[int], int]:
    """(slot [T, R], tokens per rank, entries outside [-1, E)) of `topk_idx`: slot[t, d]
    numbers, in token order, the tokens with an expert on rank d (-1 elsewhere)."""
    num_tokens, num_topk = topk_idx.shape
    slot = torch.empty((num_tokens, num_ranks), dtype=torch.int32, device=topk_idx.device)
    if num_tokens == 0:
        return slot, [0] * num_ranks, 0
    count = torch.empty((num_ranks,), dtype=torch.int32, device=topk_idx.device)
    invalid = torch.empty((1,), dtype=torch.int32, device=topk_idx.device)
    run("dispatch_layout", (num_topk,), lambda: kernels.dispatch_layout(num_topk), topk_idx,
        slot, count, invalid, num_experts // num_ranks, num_experts)
    return slot, count.tolist(), int(invalid.item())


def pack_meta(topk_idx: torch.Tensor, slot: torch.Tensor, offsets: torch.Tensor, num_send: int,
              experts_per_rank: int, rank: int = 0,
              max_tokens: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(send_idx [S, K] int64, send_src [S] int32, dst_slot [T, K] int32): each packed
    token's top-k indices local to its destination, its global index `rank * max_tokens
    + t`, and DeepEP's `dst_buffer_slot_idx`."""
    (num_tokens, num_topk), device = topk_idx.shape, topk_idx.device
    send_idx = torch.empty((num_send, num_topk), dtype=torch.int64, device=device)
    send_src = torch.empty((num_send,), dtype=torch.int32, device=device)
    dst_slot = torch.empty((num_tokens, num_topk), dtype=torch.int32, device=device)
    if num_tokens > 0:
        run("pack_meta", (num_topk,), lambda: kernels.pack_meta(num_topk), topk_idx, slot,
            offsets, send_idx, send_src, dst_slot, experts_per_rank, rank, max_tokens)
    return send_idx, send_src, dst_slot
