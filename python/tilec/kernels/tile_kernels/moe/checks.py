"""Argument checks shared by the MoE ops, failing as `tile_kernels.moe.<api>: ...`."""

from __future__ import annotations

from tilec.kernels.tensors import dtype_name, is_row_major


def fail(api: str, message: str) -> None:
    raise ValueError(f"tile_kernels.moe.{api}: {message}")


def matrix(api: str, name: str, tensor: object, dtypes: tuple[str, ...]) -> tuple[int, int]:
    """The shape of a 2-D row-major tensor of one of `dtypes`."""
    shape = tuple(tensor.shape)  # type: ignore[attr-defined]
    if len(shape) != 2:
        fail(api, f"{name} must be 2-D but has shape {shape}")
    if not is_row_major(tensor):
        fail(api, f"{name} must be contiguous")
    if dtype_name(tensor) not in dtypes:
        fail(api, f"{name} must be {' or '.join(dtypes)} but is {dtype_name(tensor)}")
    return shape[0], shape[1]
