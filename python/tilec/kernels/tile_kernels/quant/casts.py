"""`tile_kernels.quant`'s FP8 casts: per token (1 x num_per_channels scaling blocks), per
block and per channel (num_per_tokens x 1), with upstream's names, defaults, output
shapes and scale layouts, and upstream's `_with_sf_only` (the scales alone) and
`_with_precomputed_sf` (quantize with given scales) forms.

tilec's kernels take shapes upstream's reject (any hidden size, any token count for
the per-channel cast); upstream's block-size rules are kept, as part of the format.
"""

from __future__ import annotations

from tilec.kernels import targets
from tilec.kernels.tensors import (
    dtype_name,
    empty_like_framework,
    is_row_major,
    kernel_view,
    strides_of,
)

from . import kernels
from .common import (
    alloc_scales,
    ceil_div,
    checked_input,
    data_shape,
    fail,
    flat,
    scale_args,
    unsupported,
)
from .types import QuantTensor


def _given_scales(api: str, sf: object, shape: tuple[int, int], column_major: bool) -> None:
    """Upstream's rules for precomputed scales: float32, row-major, one per block."""
    if column_major:
        fail(api, "precomputed scales cannot be column-major (use_tma_aligned_col_major_sf)")
    if dtype_name(sf) != "float32":
        unsupported(api, f"precomputed scales of dtype {dtype_name(sf)}")
    if tuple(sf.shape) != shape:  # type: ignore[attr-defined]
        fail(api, f"sf must have shape {shape} but has {tuple(sf.shape)}")  # type: ignore[attr-defined]


def _per_token(api: str, x: object, fmt: str, num_per_channels: int, x_block_size: object,
               column_major: bool, round_sf: bool, use_packed_ue8m0: bool,
               mode: kernels.Mode, sf: object = None) -> tuple[object, object]:
    dtype = checked_input(api, x, fmt, use_packed_ue8m0, x_block_size, column_major, round_sf)
    num_tokens, hidden = tuple(x.shape)  # type: ignore[attr-defined]
    if num_per_channels not in (16, 32, 64, 128) and not (
            num_per_channels == hidden and hidden % 64 == 0):
        fail(api, f"num_per_channels must be 16, 32, 64, 128 or hidden (a multiple of 64) "
                  f"but is {num_per_channels} (hidden {hidden})")
    if strides_of(x)[1] != 1 and hidden > 1:
        fail(api, "x's channels must be contiguous (stride(1) == 1)")
    sf_shape = (num_tokens, ceil_div(hidden, num_per_channels))
    if sf is not None:
        _given_scales(api, sf, sf_shape, column_major)
    with targets.library_call():
        out = empty_like_framework(x, *data_shape(fmt, num_tokens, hidden))
        storage = sf
        if sf is None:
            sf, storage = alloc_scales(x, *sf_shape, column_major, use_packed_ue8m0)
        if num_tokens and hidden:
            x_view, (row_stride, _) = flat(x, "x")
            sf_view, sf_row, sf_column = scale_args(sf, storage, use_packed_ue8m0)
            variant = (dtype, num_per_channels, round_sf, mode, max(1, 4096 // num_per_channels),
                       fmt, use_packed_ue8m0)
            targets.launch(
                f"tile_kernels.quant.{api}", variant,
                lambda: kernels.per_token_cast(*variant),
                targets.target_for(x), x_view, kernel_view(out, "out"),
                sf_view, row_stride, sf_row, sf_column,
            )
        return out, sf


def per_token_cast(x: object, fmt: str, num_per_channels: int,
                   x_block_size: tuple[int, int] | None = None,
                   use_tma_aligned_col_major_sf: bool = False, round_sf: bool = False,
                   use_packed_ue8m0: bool = False) -> QuantTensor:
    """x (num_tokens, hidden), rows of any stride -> (e4m3 (num_tokens, hidden), float32
    scales (num_tokens, ceil(hidden / num_per_channels)), column-major if asked)."""
    return _per_token("per_token_cast", x, fmt, num_per_channels, x_block_size,
                      use_tma_aligned_col_major_sf, round_sf, use_packed_ue8m0, "cast")


def per_token_cast_with_sf_only(x: object, fmt: str, num_per_channels: int,
                                x_block_size: tuple[int, int] | None = None,
                                use_tma_aligned_col_major_sf: bool = False,
                                round_sf: bool = False, use_packed_ue8m0: bool = False) -> object:
    """per_token_cast's scales alone."""
    return _per_token("per_token_cast_with_sf_only", x, fmt, num_per_channels, x_block_size,
                      use_tma_aligned_col_major_sf, round_sf, use_packed_ue8m0, "sf_only")[1]


def per_token_cast_with_precomputed_sf(x: object, fmt: str, num_per_channels: int, sf: object,
                                       x_block_size: tuple[int, int] | None = None,
                                       use_tma_aligned_col_major_sf: bool = False,
                                       round_sf: bool = False,
                                       use_packed_ue8m0: bool = False) -> object:
    """x quantized with the given float32 scales: e4m3(clamp(x * (1 / sf), +-448))."""
    return _per_token("per_token_cast_with_precomputed_sf", x, fmt, num_per_channels,
                      x_block_size, use_tma_aligned_col_major_sf, round_sf, use_packed_ue8m0,
                      "precomputed", sf)[0]


def _per_block(api: str, x: object, fmt: str, block_size: tuple[int, int], column_major: bool,
               round_sf: bool, use_packed_ue8m0: bool, mode: kernels.Mode,
               sf: object = None) -> tuple[object, object]:
    dtype = checked_input(api, x, fmt, use_packed_ue8m0, None, column_major, round_sf)
    if not is_row_major(x):
        fail(api, "x must be contiguous")
    rows, columns = block_size
    if rows not in (32, 128) or columns not in (32, 128):
        fail(api, f"block_size must be (32 or 128, 32 or 128) but is {tuple(block_size)}")
    num_tokens, hidden = tuple(x.shape)  # type: ignore[attr-defined]
    sf_shape = (ceil_div(num_tokens, rows), ceil_div(hidden, columns))
    if sf is not None:
        _given_scales(api, sf, sf_shape, column_major)
    with targets.library_call():
        out = empty_like_framework(x, *data_shape(fmt, num_tokens, hidden))
        storage = sf
        if sf is None:
            sf, storage = alloc_scales(x, *sf_shape, column_major, use_packed_ue8m0)
        if num_tokens and hidden:
            variant = (dtype, rows, columns, round_sf, mode, fmt, use_packed_ue8m0)
            targets.launch(
                f"tile_kernels.quant.{api}", variant,
                lambda: kernels.per_block_cast(*variant),
                targets.target_for(x), kernel_view(x, "x"), kernel_view(out, "out"),
                *scale_args(sf, storage, use_packed_ue8m0),
            )
        return out, sf


def per_block_cast(x: object, fmt: str, block_size: tuple[int, int],
                   use_tma_aligned_col_major_sf: bool = False, round_sf: bool = False,
                   use_packed_ue8m0: bool = False) -> QuantTensor:
    """x (num_tokens, hidden) contiguous -> (e4m3 (num_tokens, hidden), float32 scales
    (ceil(num_tokens / block_size[0]), ceil(hidden / block_size[1])))."""
    return _per_block("per_block_cast", x, fmt, block_size, use_tma_aligned_col_major_sf,
                      round_sf, use_packed_ue8m0, "cast")


def per_block_cast_with_sf_only(x: object, fmt: str, block_size: tuple[int, int],
                                use_tma_aligned_col_major_sf: bool = False,
                                round_sf: bool = False, use_packed_ue8m0: bool = False) -> object:
    """per_block_cast's scales alone."""
    return _per_block("per_block_cast_with_sf_only", x, fmt, block_size,
                      use_tma_aligned_col_major_sf, round_sf, use_packed_ue8m0, "sf_only")[1]


def per_block_cast_with_precomputed_sf(x: object, fmt: str, block_size: tuple[int, int],
                                       sf: object, use_tma_aligned_col_major_sf: bool = False,
                                       round_sf: bool = False,
                                       use_packed_ue8m0: bool = False) -> object:
    """x quantized with the given float32 per-block scales."""
    return _per_block("per_block_cast_with_precomputed_sf", x, fmt, block_size,
                      use_tma_aligned_col_major_sf, round_sf, use_packed_ue8m0, "precomputed",
                      sf)[0]


def per_channel_cast(x: object, fmt: str, num_per_tokens: int,
                     round_sf: bool = False) -> QuantTensor:
    """x (num_tokens, hidden) contiguous -> (e4m3 (num_tokens, hidden), float32 scales
    (ceil(num_tokens / num_per_tokens), hidden)); upstream's only block is 128 tokens."""
    api = "per_channel_cast"
    dtype = checked_input(api, x, fmt, formats=("e4m3",))
    if not is_row_major(x):
        fail(api, "x must be contiguous")
    if num_per_tokens != 128:
        fail(api, f"num_per_tokens must be 128 but is {num_per_tokens}")
    num_tokens, hidden = tuple(x.shape)  # type: ignore[attr-defined]
    with targets.library_call():
        out = empty_like_framework(x, (num_tokens, hidden), "float8_e4m3fn")
        sf = empty_like_framework(x, (ceil_div(num_tokens, num_per_tokens), hidden), "float32")
        if num_tokens and hidden:
            targets.launch(
                f"tile_kernels.quant.{api}", (dtype, num_per_tokens, round_sf),
                lambda: kernels.per_channel_cast(dtype, num_per_tokens, round_sf),
                targets.target_for(x), kernel_view(x, "x"), kernel_view(out, "out"),
                kernel_view(sf, "sf"),
            )
        return out, sf
