"""`tile_kernels.quant.per_block_cast_lossless` (e2m1 data with UE8M0-valued scales ->
e4m3 with coarser power-of-two scales, exactly) and `unpack_from_e2m1fn_x2` (the e2m1
decoder upstream keeps for debugging), with upstream's names and arguments."""

from __future__ import annotations

from tilec.kernels import targets
from tilec.kernels.tensors import dtype_name, empty_like_framework, is_row_major, kernel_view

from . import lossless_kernels
from .common import alloc_scales, ceil_div, fail, flat, scale_args
from .types import QuantTensor


def _power_of_two(value: int) -> bool:
    return value > 0 and value & (value - 1) == 0


def per_block_cast_lossless(
    x: QuantTensor,
    fmt: str,
    x_block_size: tuple[int, int],
    out_block_size: tuple[int, int],
    use_tma_aligned_col_major_sf: bool = False,
    round_sf: bool = False,
    use_packed_ue8m0: bool = False,
) -> QuantTensor:
    """x = (int8 (num_tokens, hidden / 2) e2m1, scales of x_block_size blocks: float32
    powers of two, or packed UE8M0 int32 column-major) -> (e4m3 (num_tokens, hidden),
    scales of out_block_size blocks in the layout the casts return) with
    cast_back(out) == cast_back(x). round_sf changes nothing: the scales are powers of
    two already."""
    api = "per_block_cast_lossless"
    data, x_sf = x
    if fmt != "e4m3" or dtype_name(data) != "int8":
        fail(api, "only e2m1 (int8) -> e4m3 is lossless")
    if len(data.shape) != 2 or not is_row_major(data):  # type: ignore[attr-defined]
        fail(api, "x's data must be a contiguous 2-D tensor")
    in_packed = dtype_name(x_sf) == "int32"
    if dtype_name(x_sf) not in ("float32", "int32") or len(x_sf.shape) != 2:  # type: ignore[attr-defined]
        fail(api, "x's scales must be 2-D float32 or int32 (packed UE8M0)")
    num_tokens, hidden = data.shape[0], 2 * data.shape[1]  # type: ignore[attr-defined]
    if hidden % 32:
        fail(api, f"hidden must be a multiple of 32 but is {hidden}")
    (in_rows, in_columns), (out_rows, out_columns) = x_block_size, out_block_size
    if not (_power_of_two(in_columns) and _power_of_two(out_columns)) or out_rows % in_rows \
            or out_columns % in_columns:
        fail(api, f"out_block_size {tuple(out_block_size)} must be multiples of x_block_size "
                  f"{tuple(x_block_size)}, with powers of two for columns")
    if use_packed_ue8m0 and not use_tma_aligned_col_major_sf:
        fail(api, "use_packed_ue8m0 needs use_tma_aligned_col_major_sf")
    sf_shape = (ceil_div(num_tokens, out_rows), ceil_div(hidden, out_columns))
    with targets.library_call():
        out = empty_like_framework(data, (num_tokens, hidden), "float8_e4m3fn")
        sf, storage = alloc_scales(data, *sf_shape, use_tma_aligned_col_major_sf,
                                   use_packed_ue8m0)
        if num_tokens:
            x_sf_view, x_sf_strides = flat(x_sf, "x_sf")
            sf_view, sf_row, sf_column = scale_args(sf, storage, use_packed_ue8m0)
            variant = ((in_rows, in_columns), (out_rows, out_columns), in_packed,
                       use_packed_ue8m0)
            targets.launch(
                f"tile_kernels.quant.{api}", variant,
                lambda: lossless_kernels.per_block_cast_lossless(*variant),
                targets.target_for(data, x_sf), kernel_view(data, "x"), x_sf_view,
                kernel_view(out, "out"), sf_view, *x_sf_strides, sf_row, sf_column,
            )
        return out, sf


def unpack_from_e2m1fn_x2(x: object, out_dtype: object = "float32") -> object:
    """int8/uint8 (..., L), two e2m1 a byte (low nibble first) -> (..., 2L) values in
    out_dtype (a torch dtype or its name)."""
    api = "unpack_from_e2m1fn_x2"
    if dtype_name(x) not in ("int8", "uint8"):
        fail(api, f"x must be int8 or uint8 but is {dtype_name(x)}")
    shape = tuple(x.shape)  # type: ignore[attr-defined]
    if not shape:
        fail(api, "x must have at least 1 dimension so the last dim can be doubled")
    if not is_row_major(x):
        fail(api, "x must be contiguous")
    out_name = str(out_dtype).removeprefix("torch.")
    with targets.library_call():
        out = empty_like_framework(x, (*shape[:-1], 2 * shape[-1]), out_name)
        rows = 1
        for size in shape[:-1]:
            rows *= size
        if rows and shape[-1]:
            variant = (dtype_name(x), out_name)
            targets.launch(
                f"tile_kernels.quant.{api}", variant,
                lambda: lossless_kernels.unpack_e2m1(*variant),
                targets.target_for(x), kernel_view(x.reshape(rows, shape[-1]), "x"),  # type: ignore[attr-defined]
                kernel_view(out.reshape(rows, 2 * shape[-1]), "out"),  # type: ignore[attr-defined]
            )
        return out
