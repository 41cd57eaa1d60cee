"""`tile_kernels.quant`'s SwiGLU fused with per-token e4m3 casts: the MoE expert's
activation forward (quantized for the down projection) and backward (the input
gradient quantized for the up projection's weight gradient), with upstream's names,
arguments, defaults and return conventions.

Where upstream leaves rows unwritten (expanded positions of no expert, `pos_to_expert`
< 0), these kernels write what the reference gives them: zeros and the smallest scale.
"""

from __future__ import annotations

from tilec.kernels import targets
from tilec.kernels.tensors import dtype_name, empty_like_framework, is_row_major, kernel_view

from . import swiglu_kernels
from .common import alloc_scales, ceil_div, checked_input, fail, flat, unsupported
from .kernels import AMAX_FLOOR
from .types import QuantTensor


def _index_vector(api: str, name: str, value: object, length: int) -> None:
    if dtype_name(value) != "int32" or tuple(value.shape) != (length,):  # type: ignore[attr-defined]
        fail(api, f"{name} must be int32 of shape ({length},) but is {dtype_name(value)} "
                  f"{tuple(value.shape)}")  # type: ignore[attr-defined]


def _weights(api: str, name: str, value: object) -> None:
    if dtype_name(value) != "float32" or len(value.shape) != 2 or not is_row_major(value):  # type: ignore[attr-defined]
        fail(api, f"{name} must be a contiguous 2-D float32 tensor")


def swiglu_forward_and_per_token_cast(
    x: object,
    fmt: str,
    num_per_channels: int,
    pos_to_token_topk: object = None,
    topk_weights: object = None,
    pos_to_expert: object = None,
    use_tma_aligned_col_major_sf: bool = False,
    round_sf: bool = False,
    use_packed_ue8m0: bool = False,
    swiglu_clamp_value: float | None = None,
    clamped_count: object = None,
    sf_clamp_min: float | None = None,
) -> QuantTensor:
    """x (num_expanded_tokens, 2 * hidden) = [gate | up] -> per_token_cast of
    silu(gate) * up (times the token's top-k weight when pos_to_token_topk is given),
    gate clamped to <= swiglu_clamp_value and up to +-swiglu_clamp_value when given;
    clamped_count (int64 (3,)) then gains how many were clamped (gate above, up above,
    up below)."""
    api = "swiglu_forward_and_per_token_cast"
    if use_packed_ue8m0:
        unsupported(api, "use_packed_ue8m0=True (UE8M0 scales packed into int32)")
    dtype = checked_input(api, x, fmt, formats=("e4m3",))
    if not is_row_major(x):
        fail(api, "x must be contiguous")
    num_tokens, width = tuple(x.shape)  # type: ignore[attr-defined]
    if width % 2:
        fail(api, f"x's width must be even (2 * hidden) but is {width}")
    hidden = width // 2
    if num_per_channels not in (128, hidden):
        fail(api, f"num_per_channels must be 128 or hidden ({hidden}) but is {num_per_channels}")
    if use_tma_aligned_col_major_sf and num_per_channels != 128:
        fail(api, "column-major scales need num_per_channels == 128")
    if pos_to_token_topk is not None:
        _index_vector(api, "pos_to_token_topk", pos_to_token_topk, num_tokens)
        if topk_weights is None:
            fail(api, "pos_to_token_topk needs topk_weights")
        _weights(api, "topk_weights", topk_weights)
    if pos_to_expert is not None:
        _index_vector(api, "pos_to_expert", pos_to_expert, num_tokens)
    if clamped_count is not None:
        if swiglu_clamp_value is None:
            fail(api, "clamped_count needs swiglu_clamp_value")
        if dtype_name(clamped_count) != "int64" or tuple(clamped_count.shape) != (3,):  # type: ignore[attr-defined]
            fail(api, "clamped_count must be int64 of shape (3,)")
    floor = AMAX_FLOOR if sf_clamp_min is None else float(sf_clamp_min)
    if not floor > 0.0:
        unsupported(api, f"sf_clamp_min={sf_clamp_min!r} (a scale floor that is not positive)")
    with targets.library_call():
        out = empty_like_framework(x, (num_tokens, hidden), "float8_e4m3fn")
        sf = alloc_scales(x, num_tokens, ceil_div(hidden, num_per_channels),
                          use_tma_aligned_col_major_sf)[0]
        if num_tokens and hidden:
            with_weight, clamp = pos_to_token_topk is not None, swiglu_clamp_value is not None
            count = clamped_count is not None
            index_dummy = kernel_view(empty_like_framework(x, (1,), "int32"), "dummy")
            sf_view, sf_strides = flat(sf, "sf")
            target = targets.target_for(x)
            variant = (dtype, num_per_channels, with_weight, pos_to_expert is not None, clamp,
                       count, round_sf, floor, max(1, 4096 // num_per_channels),
                       targets.has_float64(target))
            targets.launch(
                f"tile_kernels.quant.{api}", variant,
                lambda: swiglu_kernels.swiglu_forward_and_per_token_cast(*variant),
                target, kernel_view(x, "x"), kernel_view(out, "out"), sf_view,
                kernel_view(pos_to_token_topk, "pos_to_token_topk") if with_weight
                else index_dummy,
                flat(topk_weights, "topk_weights")[0] if with_weight
                else kernel_view(empty_like_framework(x, (1,), "float32"), "dummy"),
                index_dummy if pos_to_expert is None
                else kernel_view(pos_to_expert, "pos_to_expert"),
                kernel_view(clamped_count if count else empty_like_framework(x, (3,), "int64"),
                            "clamped_count"),
                float(swiglu_clamp_value) if clamp else 0.0, *sf_strides,
            )
        return out, sf


def swiglu_backward_and_per_token_cast(
    x: QuantTensor,
    grad_out: object,
    weight: object,
    pos_to_token_topk: object,
    token_topk_to_pos: object,
    num_per_channels: int,
    round_sf: bool = False,
    swiglu_clamp_value: float | None = None,
) -> tuple[object, QuantTensor, object, object]:
    """x = (e4m3 (num_expand_tokens, 2 * hidden), float32 per-token scales),
    grad_out bfloat16 (num_expand_tokens, hidden), weight float32 (num_tokens, num_topk)
    -> (bfloat16 SwiGLU output times the row's weight, per_token_cast of the float32
    input gradient, that gradient in bfloat16, float32 weight gradient)."""
    api = "swiglu_backward_and_per_token_cast"
    if num_per_channels not in (32, 128):
        fail(api, f"num_per_channels must be 32 or 128 but is {num_per_channels}")
    data, sf = x
    if dtype_name(data) != "float8_e4m3fn":
        unsupported(api, f"x of dtype {dtype_name(data)}")
    if len(data.shape) not in (2, 3) or not is_row_major(data):  # type: ignore[attr-defined]
        fail(api, "x's data must be a contiguous 2-D or 3-D tensor")
    if data.shape[-1] % (2 * num_per_channels):  # type: ignore[attr-defined]
        fail(api, f"x's width must be a multiple of 2 * num_per_channels but is "
                  f"{data.shape[-1]}")  # type: ignore[attr-defined]
    hidden = data.shape[-1] // 2  # type: ignore[attr-defined]
    data = data.reshape(-1, 2 * hidden)  # type: ignore[attr-defined]
    grad_out = grad_out.reshape(-1, hidden)  # type: ignore[attr-defined]
    num_expand_tokens = data.shape[0]
    _weights(api, "weight", weight)
    num_tokens, num_topk = tuple(weight.shape)  # type: ignore[attr-defined]
    if tuple(token_topk_to_pos.shape) != (num_tokens, num_topk) or not is_row_major(  # type: ignore[attr-defined]
            token_topk_to_pos) or dtype_name(token_topk_to_pos) != "int32":
        fail(api, f"token_topk_to_pos must be contiguous int32 of shape {(num_tokens, num_topk)}")
    _index_vector(api, "pos_to_token_topk", pos_to_token_topk, num_expand_tokens)
    sf_shape = (num_expand_tokens, 2 * hidden // num_per_channels)
    if dtype_name(sf) != "float32" or tuple(sf.shape) != sf_shape or not is_row_major(sf):  # type: ignore[attr-defined]
        fail(api, f"x's scales must be contiguous float32 of shape {sf_shape}")
    if dtype_name(grad_out) != "bfloat16" or not is_row_major(grad_out):
        fail(api, "grad_out must be contiguous bfloat16")
    with targets.library_call():
        out = empty_like_framework(grad_out, (num_expand_tokens, hidden), "bfloat16")
        x_grad_fp8 = empty_like_framework(data, (num_expand_tokens, 2 * hidden), "float8_e4m3fn")
        x_grad_sf = empty_like_framework(data, sf_shape, "float32")
        x_grad = empty_like_framework(grad_out, (num_expand_tokens, 2 * hidden), "bfloat16")
        weight_grad = empty_like_framework(weight, (num_tokens, num_topk), "float32")
        target = targets.target_for(data, grad_out, weight)
        weight_grad_view = flat(weight_grad, "weight_grad")[0]
        if num_tokens * num_topk:
            targets.launch(f"tile_kernels.quant.{api}", ("zero_unplaced",),
                           swiglu_kernels.zero_unplaced, target,
                           flat(token_topk_to_pos, "token_topk_to_pos")[0], weight_grad_view)
        if num_expand_tokens and hidden:
            clamp = swiglu_clamp_value is not None
            variant = (num_per_channels, clamp, round_sf, max(1, 1024 // num_per_channels),
                       targets.has_float64(target))
            targets.launch(
                f"tile_kernels.quant.{api}", variant,
                lambda: swiglu_kernels.swiglu_backward_and_per_token_cast(*variant), target,
                kernel_view(data, "x"), kernel_view(sf, "x_sf"), kernel_view(grad_out, "grad_out"),
                flat(weight, "weight")[0], kernel_view(pos_to_token_topk, "pos_to_token_topk"),
                kernel_view(out, "out"), kernel_view(x_grad_fp8, "x_grad_fp8"),
                kernel_view(x_grad_sf, "x_grad_sf"), kernel_view(x_grad, "x_grad"),
                weight_grad_view, float(swiglu_clamp_value) if clamp else 0.0,
            )
        return out, (x_grad_fp8, x_grad_sf), x_grad, weight_grad
