"""Host-side pieces the quant APIs share: argument checks, scale allocation in
upstream's layouts, and flat views of strided tensors for the kernels."""

from __future__ import annotations

from tilec.kernels.tensors import (
    as_strided_view,
    dtype_name,
    empty_like_framework,
    kernel_view,
    strides_of,
)

FORMATS = ("e5m6", "e4m3", "e2m1")


def ceil_div(x: int, y: int) -> int:
    return (x + y - 1) // y


def align(x: int, y: int) -> int:
    return ceil_div(x, y) * y


def fail(api: str, message: str) -> None:
    raise ValueError(f"tile_kernels.quant.{api}: {message}")


def unsupported(api: str, what: str) -> None:
    raise NotImplementedError(f"tile_kernels.quant.{api}: {what} is not implemented by tilec "
                              "yet (e4m3 data with float32 scales is)")


def checked_input(api: str, x: object, fmt: str, use_packed_ue8m0: bool = False,
                  x_block_size: object = None) -> str:
    """x's dtype, after the checks every cast shares: a plain 2-D bfloat16 or float32
    tensor cast to e4m3 with float32 scales."""
    if fmt not in FORMATS:
        fail(api, f"fmt must be one of {FORMATS} but is {fmt!r}")
    if fmt != "e4m3":
        unsupported(api, f"fmt={fmt!r}")
    if use_packed_ue8m0:
        unsupported(api, "use_packed_ue8m0=True (UE8M0 scales packed into int32)")
    if isinstance(x, tuple) or x_block_size is not None:
        unsupported(api, "an already quantized input (x as (data, sf), x_block_size)")
    if len(x.shape) != 2:  # type: ignore[attr-defined]
        fail(api, f"x must be 2-D but has shape {tuple(x.shape)}")  # type: ignore[attr-defined]
    dtype = dtype_name(x)
    if dtype not in ("bfloat16", "float32"):
        fail(api, f"x must be bfloat16 or float32 but is {dtype}")
    return dtype


def alloc_scales(like: object, rows: int, columns: int, column_major: bool) -> object:
    """float32 scales (rows, columns): row-major, or column-major with the row count
    aligned to 4 (16 bytes, as TMA loads need), the layout upstream's casts return."""
    if not column_major:
        return empty_like_framework(like, (rows, columns), "float32")
    storage = empty_like_framework(like, (columns, align(rows, 4)), "float32")
    return storage[:, :rows].T  # type: ignore[index]


def flat(value: object, what: str) -> tuple[object, tuple[int, ...]]:
    """A kernel argument over the storage `value` spans, from its first element, and
    its element strides."""
    shape, strides = tuple(value.shape), strides_of(value)  # type: ignore[attr-defined]
    extent = 1 + sum((size - 1) * stride for size, stride in zip(shape, strides, strict=True))
    return kernel_view(as_strided_view(value, (extent,), (1,)), what), strides
