"""Host-side pieces the quant APIs share: argument checks, scale allocation in
upstream's layouts, and flat views of strided tensors for the kernels."""

from __future__ import annotations

import numpy as np

from tilec.kernels.tensors import (
    as_strided_view,
    dtype_name,
    empty_like_framework,
    is_torch,
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
                              "yet")


def checked_input(api: str, x: object, fmt: str, use_packed_ue8m0: bool = False,
                  x_block_size: object = None, column_major: bool = True,
                  round_sf: bool = True, formats: tuple[str, ...] = ("e4m3", "e2m1")) -> str:
    """x's dtype, after the checks every cast shares: a plain 2-D bfloat16 or float32
    tensor cast to one of `formats`; packed UE8M0 scales are exponents of rounded
    scales in upstream's column-major layout (its kernels store them for no other)."""
    if fmt not in FORMATS:
        fail(api, f"fmt must be one of {FORMATS} but is {fmt!r}")
    if fmt not in formats:
        unsupported(api, f"fmt={fmt!r}")
    if use_packed_ue8m0 and not (column_major and round_sf):
        fail(api, "use_packed_ue8m0 needs use_tma_aligned_col_major_sf and round_sf")
    if isinstance(x, tuple) or x_block_size is not None:
        unsupported(api, "an already quantized input (x as (data, sf), x_block_size)")
    if len(x.shape) != 2:  # type: ignore[attr-defined]
        fail(api, f"x must be 2-D but has shape {tuple(x.shape)}")  # type: ignore[attr-defined]
    dtype = dtype_name(x)
    if dtype not in ("bfloat16", "float32"):
        fail(api, f"x must be bfloat16 or float32 but is {dtype}")
    if fmt == "e2m1" and x.shape[1] % 2:  # type: ignore[attr-defined]
        fail(api, f"e2m1 packs two values a byte: hidden must be even but is {x.shape[1]}")  # type: ignore[attr-defined]
    return dtype


def data_shape(fmt: str, num_tokens: int, hidden: int) -> tuple[tuple[int, int], str]:
    """The quantized data's shape and dtype: e2m1 packs two values into an int8."""
    if fmt == "e2m1":
        return (num_tokens, hidden // 2), "int8"
    return (num_tokens, hidden), "float8_e4m3fn"


def alloc_scales(like: object, rows: int, columns: int, column_major: bool,
                 packed: bool = False) -> tuple[object, object]:
    """Scales (rows, columns) in the layout upstream's casts return, and the storage the
    kernels write: float32, row-major or column-major with the row count aligned to 4
    (16 bytes, as TMA loads need); or packed UE8M0, four exponent bytes of a row a word,
    int32 (rows, ceil(columns / 4)) column-major over uint8 storage
    (ceil(columns / 4), 4 * align(rows, 4)) (byte [k // 4, 4 * m + k % 4] is block (m, k))."""
    if packed and not rows:  # no bytes to see as words
        storage = empty_like_framework(like, (ceil_div(columns, 4), 0), "int32")
        return storage.T, storage  # type: ignore[attr-defined]
    if packed:
        storage = empty_like_framework(like, (ceil_div(columns, 4), 4 * align(rows, 4)), "uint8")
        return view_as(storage, "int32")[:, :rows].T, storage  # type: ignore[index]
    if not column_major:
        sf = empty_like_framework(like, (rows, columns), "float32")
        return sf, sf
    storage = empty_like_framework(like, (columns, align(rows, 4)), "float32")
    sf = storage[:, :rows].T  # type: ignore[index]
    return sf, sf


def view_as(value: object, dtype: str) -> object:
    """`value`'s memory seen as another element type (its last dim contiguous)."""
    if is_torch(value):
        import torch

        return value.view(getattr(torch, dtype))  # type: ignore[attr-defined]
    return value.view(np.dtype(dtype))  # type: ignore[attr-defined]


def flat(value: object, what: str) -> tuple[object, tuple[int, ...]]:
    """A kernel argument over the storage `value` spans, from its first element, and
    its element strides."""
    shape, strides = tuple(value.shape), strides_of(value)  # type: ignore[attr-defined]
    extent = 1 + sum((size - 1) * stride for size, stride in zip(shape, strides, strict=True))
    return kernel_view(as_strided_view(value, (extent,), (1,)), what), strides


def scale_args(sf: object, storage: object, packed: bool) -> tuple[object, int, int]:
    """The kernel arguments that write `sf` (from `alloc_scales`): its storage, flat, and
    the offsets of one row and one column of blocks (when packed, in bytes: a row's byte
    and a word's row of storage)."""
    if packed:
        view, (word_row, _) = flat(storage, "sf")
        return view, 4, word_row
    view, (row_stride, column_stride) = flat(sf, "sf")
    return view, row_stride, column_stride
