"""`tile_kernels.transpose`: the (batched) transpose, a contiguous copy of x's last two
dims swapped.

Upstream's kernel needs both dims to be multiples of 64 and the row stride a multiple
of 4; tilec's reads any strides and edges, so it takes every shape it does and more.
"""

from __future__ import annotations

from tilec.kernels import targets
from tilec.kernels.tensors import (
    as_strided_view,
    dtype_name,
    empty_like_framework,
    kernel_view,
    strides_of,
)

from . import kernels


def transpose(x: object) -> object:
    """x (M, N) -> its transpose (N, M), contiguous."""
    if len(x.shape) != 2:  # type: ignore[attr-defined]
        raise ValueError(f"tile_kernels.transpose.transpose: x must be 2-D but has shape "
                         f"{tuple(x.shape)}")  # type: ignore[attr-defined]
    with targets.library_call():
        out = _batched_transpose("transpose", x, (1, *x.shape), (0, *strides_of(x)))  # type: ignore[attr-defined]
        return out[0]  # type: ignore[index]


def batched_transpose(x: object) -> object:
    """x (B, M, N) -> (B, N, M), contiguous."""
    if len(x.shape) != 3:  # type: ignore[attr-defined]
        raise ValueError(f"tile_kernels.transpose.batched_transpose: x must be 3-D but has "
                         f"shape {tuple(x.shape)}")  # type: ignore[attr-defined]
    with targets.library_call():
        return _batched_transpose("batched_transpose", x, tuple(x.shape), strides_of(x))  # type: ignore[attr-defined]


def _batched_transpose(api: str, x: object, shape: tuple[int, ...],
                       strides: tuple[int, ...]) -> object:
    b, m, n = shape
    dtype = dtype_name(x)
    out = empty_like_framework(x, (b, n, m), dtype)
    if b and m and n:
        extent = 1 + sum((size - 1) * stride for size, stride in zip(shape, strides, strict=True))
        targets.launch(
            f"tile_kernels.transpose.{api}", (dtype,), lambda: kernels.batched_transpose(dtype),
            targets.target_for(x), kernel_view(as_strided_view(x, (extent,), (1,)), "x"),
            kernel_view(out, "out"), *strides,
        )
    return out
