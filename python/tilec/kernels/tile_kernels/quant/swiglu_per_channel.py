"""`tile_kernels.quant.swiglu_forward_and_per_channel_cast_and_transpose`: the MoE
expert's SwiGLU forward fused with the per-channel e4m3 cast of its bfloat16 output,
written transposed (hidden, num_tokens) for the weight-gradient GEMM, or not.

tilec's kernel takes token counts and hidden sizes upstream's alignment rules (both
multiples of 128) reject: the last scaling block is ragged, as in `per_channel_cast`.
"""

from __future__ import annotations

from tilec.kernels import targets
from tilec.kernels.tensors import dtype_name, empty_like_framework, is_row_major, kernel_view

from . import per_channel_kernels
from .common import ceil_div, fail
from .types import QuantTensor


def swiglu_forward_and_per_channel_cast_and_transpose(
    x: object,
    fmt: str,
    num_per_tokens: int,
    round_sf: bool = False,
    without_transpose: bool = False,
    swiglu_clamp_value: float | None = None,
) -> QuantTensor:
    """x bfloat16 (num_tokens, 2 * hidden) = [gate | up] -> per_channel_cast of
    bfloat16(silu(gate) * up) in num_per_tokens-token blocks: (e4m3 (hidden, num_tokens),
    or (num_tokens, hidden) with without_transpose, float32 scales
    (ceil(num_tokens / num_per_tokens), hidden)). With swiglu_clamp_value, gate is
    clamped to <= it and up to +-it first."""
    api = "swiglu_forward_and_per_channel_cast_and_transpose"
    if fmt != "e4m3":
        fail(api, f"fmt must be 'e4m3' but is {fmt!r}")
    if len(x.shape) != 2 or not is_row_major(x):  # type: ignore[attr-defined]
        fail(api, "x must be a contiguous 2-D tensor")
    if dtype_name(x) != "bfloat16":
        fail(api, f"x must be bfloat16 but is {dtype_name(x)}")
    if num_per_tokens not in (32, 128):
        fail(api, f"num_per_tokens must be 32 or 128 but is {num_per_tokens}")
    num_tokens, width = tuple(x.shape)  # type: ignore[attr-defined]
    if width % 2:
        fail(api, f"x's width must be even (2 * hidden) but is {width}")
    hidden = width // 2
    with targets.library_call():
        out = empty_like_framework(
            x, (num_tokens, hidden) if without_transpose else (hidden, num_tokens),
            "float8_e4m3fn")
        sf = empty_like_framework(x, (ceil_div(num_tokens, num_per_tokens), hidden), "float32")
        if num_tokens and hidden:
            clamp = swiglu_clamp_value is not None
            target = targets.target_for(x)
            variant = (num_per_tokens, clamp, not without_transpose, round_sf,
                       targets.has_float64(target))
            targets.launch(
                f"tile_kernels.quant.{api}", variant,
                lambda: per_channel_kernels.swiglu_forward_and_per_channel_cast(*variant),
                target, kernel_view(x, "x"), kernel_view(out, "out"),
                kernel_view(sf, "sf"), float(swiglu_clamp_value) if clamp else 0.0,
            )
        return out, sf
