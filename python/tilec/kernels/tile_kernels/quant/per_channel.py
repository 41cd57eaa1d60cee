"""`tile_kernels.quant`'s fused per-channel e4m3 casts: `per_channel_cast_and_transpose`
(the cast written transposed, as a weight-gradient GEMM wants it) and
`per_channel_cast_fused` (rows gathered by `pos_to_token` and/or an e4m3 input with
per-token scales dequantized on the way), with upstream's names and arguments.

tilec's kernels take token counts and hidden sizes upstream's alignment rules reject
(the last scaling block is ragged, as in `per_channel_cast`).
"""

from __future__ import annotations

from tilec.kernels import targets
from tilec.kernels.tensors import dtype_name, empty_like_framework, is_row_major, kernel_view

from . import per_channel_kernels
from .common import ceil_div, checked_input, fail, unsupported
from .types import QuantTensor


def _launch(api: str, x: object, x_sf: object, pos_to_token: object, num_per_tokens: int,
            num_per_channels: int, round_sf: bool, transpose: bool) -> QuantTensor:
    num_tokens, hidden = tuple(x.shape)  # type: ignore[attr-defined]
    rows = num_tokens if pos_to_token is None else pos_to_token.shape[0]  # type: ignore[attr-defined]
    with targets.library_call():
        out = empty_like_framework(x, (hidden, rows) if transpose else (rows, hidden),
                                   "float8_e4m3fn")
        sf = empty_like_framework(x, (ceil_div(rows, num_per_tokens), hidden), "float32")
        if rows and hidden:
            variant = (dtype_name(x), num_per_tokens, num_per_channels,
                       x_sf is not None, pos_to_token is not None, transpose, round_sf)
            targets.launch(
                f"tile_kernels.quant.{api}", variant,
                lambda: per_channel_kernels.per_channel_cast_fused(*variant),
                targets.target_for(x), kernel_view(x, "x"),
                kernel_view(empty_like_framework(x, (1, 1), "float32") if x_sf is None
                            else x_sf, "x_sf"),
                kernel_view(empty_like_framework(x, (1,), "int32") if pos_to_token is None
                            else pos_to_token, "pos_to_token"),
                kernel_view(out, "out"), kernel_view(sf, "sf"),
            )
        return out, sf


def per_channel_cast_and_transpose(x: object, fmt: str, num_per_tokens: int,
                                   round_sf: bool = False) -> QuantTensor:
    """x (num_tokens, hidden) contiguous -> (e4m3 (hidden, num_tokens) = the transpose of
    per_channel_cast's data, float32 scales (ceil(num_tokens / num_per_tokens), hidden))."""
    api = "per_channel_cast_and_transpose"
    checked_input(api, x, fmt, formats=("e4m3",))
    if not is_row_major(x):
        fail(api, "x must be contiguous")
    if num_per_tokens not in (32, 128):
        fail(api, f"num_per_tokens must be 32 or 128 but is {num_per_tokens}")
    return _launch(api, x, None, None, num_per_tokens, 1, round_sf, True)


def per_channel_cast_fused(x: object, fmt: str, num_per_tokens: int, round_sf: bool = False,
                           num_per_channels: int | None = None,
                           pos_to_token: object = None) -> QuantTensor:
    """per_channel_cast (128-token blocks) of x's rows gathered by pos_to_token (zero rows
    where it is < 0) when given; x may be (e4m3 data, float32 scales of (1,
    num_per_channels) blocks, row-major), dequantized first."""
    api = "per_channel_cast_fused"
    if fmt != "e4m3":
        fail(api, f"fmt must be 'e4m3' but is {fmt!r}")
    if num_per_tokens != 128:
        fail(api, f"num_per_tokens must be 128 but is {num_per_tokens}")
    x_sf = None
    if isinstance(x, tuple):
        x, x_sf = x
        if num_per_channels != 128:
            fail(api, f"a quantized x needs num_per_channels == 128 but it is {num_per_channels}")
        if dtype_name(x) != "float8_e4m3fn":
            unsupported(api, f"quantized data of dtype {dtype_name(x)}")
        if dtype_name(x_sf) != "float32" or not is_row_major(x_sf):
            unsupported(api, "scales that are not row-major float32 (column-major or UE8M0)")
        num_tokens, hidden = tuple(x.shape)  # type: ignore[attr-defined]
        if tuple(x_sf.shape) != (num_tokens, ceil_div(hidden, 128)):  # type: ignore[attr-defined]
            fail(api, f"x's scales must have shape {(num_tokens, ceil_div(hidden, 128))}")
    else:
        if num_per_channels is not None:
            fail(api, "num_per_channels is for a quantized x only")
        checked_input(api, x, fmt, formats=("e4m3",))
    if len(x.shape) != 2 or not is_row_major(x):  # type: ignore[attr-defined]
        fail(api, "x must be a contiguous 2-D tensor")
    if pos_to_token is not None and (dtype_name(pos_to_token) != "int32"
                                     or len(pos_to_token.shape) != 1):  # type: ignore[attr-defined]
        fail(api, "pos_to_token must be a 1-D int32 tensor")
    return _launch(api, x, x_sf, pos_to_token, num_per_tokens, num_per_channels or 1, round_sf,
                   False)
