"""Input checks the EP buffers share: a rejected input is an exception each rank
holds until all ranks have agreed (`agree_or_raise`), so every rank raises before
any data moves."""

from __future__ import annotations

import torch
import torch.distributed as dist

from . import comm


class Rejected(ValueError):
    """An input this rank refused (raised after the agreement)."""


def check_matrix(
    where: str,
    name: str,
    tensor: object,
    dtype: torch.dtype,
    rows: int | None = None,
    cols: int | None = None,
) -> tuple[int, int]:
    """The shape of `tensor`, a contiguous 2-D `dtype` tensor of `rows` x `cols` (None:
    any); else Rejected("deep_ep.<where>: ...")."""
    if not isinstance(tensor, torch.Tensor) or tensor.dim() != 2:
        raise Rejected(f"deep_ep.{where}: {name} must be a 2-D tensor")
    if tensor.dtype != dtype:
        raise Rejected(f"deep_ep.{where}: {name} must be {dtype} but is {tensor.dtype}")
    if not tensor.is_contiguous():
        raise Rejected(f"deep_ep.{where}: {name} must be contiguous")
    if (rows is not None and tensor.shape[0] != rows) or (
        cols is not None and tensor.shape[1] != cols
    ):
        raise Rejected(
            f"deep_ep.{where}: {name} has shape {tuple(tensor.shape)}, expected ({rows}, {cols})"
        )
    return tensor.shape[0], tensor.shape[1]


def agree_or_raise(
    group: dist.ProcessGroup,
    where: str,
    error: Exception | None,
    values: list[int],
    timeout_secs: float,
) -> list[list[int]]:
    """Shares whether this rank accepted its input (and `values`); raises on every rank
    if one did not, else returns every rank's `values`."""
    api = where.rsplit(".", 1)[-1]
    rejected, rows = comm.agree(group, error is not None, values, timeout_secs, api)
    if error is not None:
        raise error
    if rejected:
        raise ValueError(
            f"deep_ep.{where}: rank(s) {rejected} rejected their input "
            "(see their error); nothing was sent"
        )
    return rows
