"""`tile_kernels.quant.cast_back`: dequantize e4m3 or e2m1 (int8, two a byte) data with
float32 or packed UE8M0 (int32) scales of any block size, in any scale layout
(row-major, or column-major as the casts return it), to bfloat16 or float32:
float32(x) * sf of its block, rounded to the output dtype."""

from __future__ import annotations

from tilec.kernels import targets
from tilec.kernels.tensors import dtype_name, empty_like_framework, is_row_major, kernel_view

from . import kernels
from .common import ceil_div, fail, flat, unsupported
from .types import QuantTensor

_OUT_DTYPES = {"bf16": "bfloat16", "fp32": "float32"}


def cast_back(x: QuantTensor, fmt: str, x_block_size: tuple[int, int],
              x_special_fmt: str | None = None) -> object:
    """(data (num_tokens, hidden), sf) -> (num_tokens, hidden) in `fmt` ('bf16' or
    'fp32'), sf[i, j] scaling the x_block_size block (i, j)."""
    api = "cast_back"
    if fmt not in _OUT_DTYPES:
        fail(api, f"fmt must be 'bf16' or 'fp32' but is {fmt!r}")
    if x_special_fmt is not None:
        if x_special_fmt != "e5m6":
            fail(api, f"unsupported special format {x_special_fmt!r}")
        unsupported(api, "x_special_fmt='e5m6'")
    data, sf = x
    if dtype_name(data) not in ("float8_e4m3fn", "int8"):
        fail(api, f"data must be e4m3 or int8 (two e2m1 a byte) but is {dtype_name(data)}")
    if dtype_name(sf) not in ("float32", "int32"):
        fail(api, f"sf must be float32 or int32 (packed UE8M0) but is {dtype_name(sf)}")
    if len(data.shape) != 2 or len(sf.shape) != 2:  # type: ignore[attr-defined]
        fail(api, "data and sf must be 2-D")
    if not is_row_major(data):
        fail(api, "data must be contiguous")
    fp4, packed = dtype_name(data) == "int8", dtype_name(sf) == "int32"
    num_tokens, hidden = tuple(data.shape)  # type: ignore[attr-defined]
    hidden *= 2 if fp4 else 1
    rows, columns = x_block_size
    needed = (ceil_div(num_tokens, rows), ceil_div(hidden, columns * (4 if packed else 1)))
    if any(have < need for have, need in zip(tuple(sf.shape), needed, strict=True)):  # type: ignore[attr-defined]
        fail(api, f"sf {tuple(sf.shape)} has fewer than the {needed} blocks of data "  # type: ignore[attr-defined]
                  f"{(num_tokens, hidden)} in {tuple(x_block_size)} blocks")
    out_dtype = _OUT_DTYPES[fmt]
    with targets.library_call():
        out = empty_like_framework(data, (num_tokens, hidden), out_dtype)
        if num_tokens and hidden:
            sf_view, sf_strides = flat(sf, "sf")
            variant = (out_dtype, rows, columns, fp4, packed)
            targets.launch(
                f"tile_kernels.quant.{api}", variant,
                lambda: kernels.cast_back(*variant),
                targets.target_for(data, sf), kernel_view(data, "x"), sf_view,
                kernel_view(out, "out"), *sf_strides,
            )
        return out


def per_token_cast_back(x: QuantTensor, fmt: str, num_per_channels: int,
                        x_special_fmt: str | None = None) -> object:
    """cast_back of per-token scales: blocks of (1, num_per_channels)."""
    return cast_back(x, fmt, (1, num_per_channels), x_special_fmt=x_special_fmt)
