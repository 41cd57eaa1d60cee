"""TileKernels' fused-layout MoE ops: `get_fused_mapping`, `expand_to_fused` and
`reduce_fused`, with upstream's signatures, checks, outputs and return tuples."""

from __future__ import annotations

from tilec.kernels import targets
from tilec.kernels.tensors import dtype_name, empty_like_framework, kernel_view

from . import fused_kernels
from .checks import fail, matrix
from .fused_kernels import CHUNK


def _ceil_div(x: int, y: int) -> int:
    return -(-x // y)


def get_fused_mapping(topk_idx: object, num_experts: int, num_expanded_tokens: int,
                      alignment: int, force_no_sync: bool = False) -> tuple:
    """topk_idx int64 (num_tokens, num_topk) -> (pos_to_expert, pos_to_token,
    pos_to_token_topk, token_topk_to_pos, expert_start, expert_end,
    num_tokens_per_expert, num_tokens_per_expert_list), all int32 tensors but the
    list. With num_expanded_tokens 0 (and not force_no_sync) the buffer is sized for
    the worst case, then the counts are read back and the maps cut to their total."""
    api = "get_fused_mapping"
    with targets.library_call():
        num_tokens, num_topk = matrix(api, "topk_idx", topk_idx, ("int64",))
        if alignment <= 0:
            fail(api, f"alignment must be positive but is {alignment}")
        should_sync = num_expanded_tokens == 0 and not force_no_sync
        if should_sync:
            worst = num_tokens * num_topk + (alignment - 1) * num_experts
            num_expanded_tokens = worst // alignment * alignment
        numel, num_blocks = num_tokens * num_topk, _ceil_div(num_tokens * num_topk, CHUNK)

        def new(shape: tuple[int, ...]) -> object:
            return empty_like_framework(topk_idx, shape, "int32")

        pos_to_expert, pos_to_token, pos_to_token_topk = (new((num_expanded_tokens,))
                                                          for _ in range(3))
        token_topk_to_pos = new((num_tokens, num_topk))
        expert_start, expert_end, per_expert = (new((num_experts,)) for _ in range(3))
        offsets = new((num_blocks, num_experts))  # per block and expert, scratch
        target = targets.target_for(topk_idx)
        idx_1d = kernel_view(topk_idx.reshape(-1), "topk_idx")  # type: ignore[attr-defined]
        maps = [kernel_view(t, "pos map") for t in (pos_to_expert, pos_to_token, pos_to_token_topk)]
        if numel > 0 and num_experts > 0:
            targets.launch(f"tile_kernels.moe.{api}.count", (), fused_kernels.mapping_count,
                           target, idx_1d, kernel_view(offsets, "offsets"))
        if num_experts > 0:
            targets.launch(f"tile_kernels.moe.{api}.ranges", (alignment,),
                           lambda: fused_kernels.mapping_ranges(alignment), target,
                           kernel_view(offsets, "offsets"),
                           kernel_view(expert_start, "expert_start"),
                           kernel_view(expert_end, "expert_end"),
                           kernel_view(per_expert, "num_tokens_per_expert"))
        if num_expanded_tokens > 0:
            targets.launch(f"tile_kernels.moe.{api}.clear", (), fused_kernels.fill_minus_one,
                           target, *maps)
        if numel > 0:
            targets.launch(f"tile_kernels.moe.{api}.place", (num_topk,),
                           lambda: fused_kernels.mapping_place(num_topk), target, idx_1d,
                           kernel_view(offsets, "offsets"),
                           kernel_view(token_topk_to_pos.reshape(-1), "token_topk_to_pos"),  # type: ignore[attr-defined]
                           *maps)
        per_expert_list: list[int] = []
        if should_sync:
            per_expert_list = per_expert.tolist()  # type: ignore[attr-defined]
            total = sum(per_expert_list)
            pos_to_expert, pos_to_token, pos_to_token_topk = (
                pos_to_expert[:total], pos_to_token[:total], pos_to_token_topk[:total])  # type: ignore[index]
        return (pos_to_expert, pos_to_token, pos_to_token_topk, token_topk_to_pos, expert_start,
                expert_end, per_expert, per_expert_list)


def expand_to_fused(x: object, token_topk_to_pos: object, pos_to_expert: object) -> object:
    """x (num_tokens, hidden) -> (num_expanded_tokens, hidden) of x's dtype: row
    token_topk_to_pos[t, k] is x[t] for each placed slot; padding rows are zero."""
    api = "expand_to_fused"
    with targets.library_call():
        num_tokens, hidden = matrix(api, "x", x, (dtype_name(x),))
        num_tokens2, num_topk = matrix(api, "token_topk_to_pos", token_topk_to_pos, ("int32",))
        if num_tokens2 != num_tokens:
            fail(api, f"token_topk_to_pos has {num_tokens2} rows but x has {num_tokens}")
        if len(pos_to_expert.shape) != 1 or dtype_name(pos_to_expert) != "int32":  # type: ignore[attr-defined]
            fail(api, "pos_to_expert must be a 1-D int32 tensor")
        num_expanded_tokens = pos_to_expert.shape[0]  # type: ignore[attr-defined]
        dtype = dtype_name(x)
        out = empty_like_framework(x, (num_expanded_tokens, hidden), dtype)
        if num_tokens > 0 and hidden > 0:
            target = targets.target_for(x, token_topk_to_pos, pos_to_expert)
            if num_expanded_tokens > 0:
                targets.launch(f"tile_kernels.moe.{api}.padding", (dtype,),
                               lambda: fused_kernels.expand_zero_padding(dtype), target,
                               kernel_view(pos_to_expert, "pos_to_expert"), kernel_view(out, "out"))
            targets.launch(f"tile_kernels.moe.{api}.scatter", (dtype, num_topk),
                           lambda: fused_kernels.expand_scatter(dtype, num_topk), target,
                           kernel_view(x, "x"), kernel_view(token_topk_to_pos, "token_topk_to_pos"),
                           kernel_view(out, "out"))
        return out


def reduce_fused(x: object, topk_weights: object | None, token_topk_to_pos: object,
                 fp8_format: str = "", sf: object | None = None,
                 out: object | None = None) -> object:
    """x (num_expanded_tokens, hidden), or (x, x_sf) with x_sf float32
    (num_expanded_tokens,) -> (num_tokens, hidden) of x's dtype: for each token, the
    sum over its placed slots of x[pos] * topk_weights[t, k] (* x_sf[pos]), one fused
    multiply-add per slot in topk order. FP8 output (fp8_format='e4m3') is not
    implemented yet."""
    api = "reduce_fused"
    with targets.library_call():
        x, x_sf = x if isinstance(x, tuple) else (x, None)
        num_expanded_tokens, hidden = matrix(api, "x", x, ("bfloat16", "float32"))
        num_tokens, num_topk = matrix(api, "token_topk_to_pos", token_topk_to_pos, ("int32",))
        if hidden % 256 != 0:
            fail(api, f"hidden ({hidden}) must be a multiple of 256")
        if fp8_format == "e4m3":
            raise NotImplementedError(f"tile_kernels.moe.{api}: fp8_format='e4m3' is not "
                                      "implemented by tilec yet; pass fp8_format=''")
        if fp8_format != "":
            fail(api, f"fp8_format must be '' or 'e4m3' but is {fp8_format!r}")
        if sf is not None:
            fail(api, "only FP8 output supports sf")
        if topk_weights is not None and matrix(api, "topk_weights", topk_weights,
                                               ("float32",)) != (num_tokens, num_topk):
            fail(api, f"topk_weights must have shape ({num_tokens}, {num_topk})")
        if x_sf is not None and (tuple(x_sf.shape) != (num_expanded_tokens,)  # type: ignore[attr-defined]
                                 or dtype_name(x_sf) != "float32"):
            fail(api, f"x_sf must be float32 of shape ({num_expanded_tokens},)")
        dtype = dtype_name(x)
        if out is None:
            out = empty_like_framework(x, (num_tokens, hidden), dtype)
        elif matrix(api, "out", out, (dtype,)) != (num_tokens, hidden):
            fail(api, f"out must have shape ({num_tokens}, {hidden})")
        if num_tokens > 0:
            # Placeholders the kernel variant without them never reads.
            weights = topk_weights if topk_weights is not None else empty_like_framework(
                x, (num_tokens, num_topk), "float32")
            scales = x_sf if x_sf is not None else empty_like_framework(
                x, (num_expanded_tokens,), "float32")
            target = targets.target_for(x, token_topk_to_pos)
            variant = (dtype, num_topk, topk_weights is not None, x_sf is not None,
                       targets.has_float64(target))
            targets.launch(f"tile_kernels.moe.{api}", variant,
                           lambda: fused_kernels.reduce_weighted(*variant), target,
                           kernel_view(x, "x"), kernel_view(weights, "topk_weights"),
                           kernel_view(token_topk_to_pos, "token_topk_to_pos"),
                           kernel_view(scales, "x_sf"), kernel_view(out, "out"))
        return out
