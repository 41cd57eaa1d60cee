"""TileKernels' `expand_to_fused_with_sf`: a quantized tensor and its scaling factors
expanded into the fused expert-major layout, with upstream's checks and outputs (the
scales row-major, or TMA-aligned column-major: a (hidden_sf, align(P, 4)) buffer
returned as its first P columns, transposed)."""

from __future__ import annotations

from tilec.kernels import targets
from tilec.kernels.tensors import dtype_name, empty_like_framework, is_row_major, kernel_view

from . import fused_kernels, fused_sf_kernels
from .checks import fail, matrix
from .fused import _ceil_div


def expand_to_fused_with_sf(x: tuple[object, object], num_per_channels: int,
                            token_topk_to_pos: object, pos_to_expert: object,
                            use_tma_aligned_col_major_sf: bool = False) -> tuple[object, object]:
    """x = (data (num_tokens, hidden), sf float32 (num_tokens, ceil(hidden /
    num_per_channels)) or packed UE8M0 int32 (num_tokens, ceil(that / 4)), column-major
    only) -> (out, out_sf): row token_topk_to_pos[t, k] of each is token t's, padding
    positions (pos_to_expert < 0) are zero."""
    api = "expand_to_fused_with_sf"
    with targets.library_call():
        data, sf = x
        num_tokens, hidden = matrix(api, "x", data, (dtype_name(data),))
        sf_tokens, hidden_sf = matrix(api, "sf", sf, ("float32", "int32"))
        num_tokens2, num_topk = matrix(api, "token_topk_to_pos", token_topk_to_pos, ("int32",))
        if len(pos_to_expert.shape) != 1 or dtype_name(pos_to_expert) != "int32" \
                or not is_row_major(pos_to_expert):  # type: ignore[attr-defined]
            fail(api, "pos_to_expert must be a contiguous 1-D int32 tensor")
        if num_per_channels not in (32, 128):
            fail(api, f"num_per_channels must be 32 or 128 but is {num_per_channels}")
        if not num_tokens == num_tokens2 == sf_tokens:
            fail(api, f"x ({num_tokens}), sf ({sf_tokens}) and token_topk_to_pos "
                      f"({num_tokens2}) must have as many rows")
        sf_dtype = dtype_name(sf)
        expected_sf = _ceil_div(hidden, num_per_channels)
        if sf_dtype == "int32":
            expected_sf = _ceil_div(expected_sf, 4)
            if not use_tma_aligned_col_major_sf:
                fail(api, "packed UE8M0 (int32) sf needs use_tma_aligned_col_major_sf")
        if hidden_sf != expected_sf:
            fail(api, f"sf must have {expected_sf} columns but has {hidden_sf}")
        num_expanded = pos_to_expert.shape[0]  # type: ignore[attr-defined]
        dtype = dtype_name(data)
        out = empty_like_framework(data, (num_expanded, hidden), dtype)
        if use_tma_aligned_col_major_sf:
            sf_storage = empty_like_framework(sf, (hidden_sf, _ceil_div(num_expanded, 4) * 4),
                                              sf_dtype)
            out_sf = sf_storage[:, :num_expanded].T  # type: ignore[index]
        else:
            out_sf = empty_like_framework(sf, (num_expanded, hidden_sf), sf_dtype)
        target = targets.target_for(data, token_topk_to_pos, pos_to_expert)
        rows = [(out, dtype, "out", data, "x")]
        if not use_tma_aligned_col_major_sf:
            rows.append((out_sf, sf_dtype, "out_sf", sf, "sf"))
        for buffer, kind, name, source, source_name in rows:
            if num_expanded > 0 and buffer.shape[1] > 0:  # type: ignore[attr-defined]
                targets.launch(f"tile_kernels.moe.{api}.padding", (kind,),
                               lambda kind=kind: fused_kernels.expand_zero_padding(kind), target,
                               kernel_view(pos_to_expert, "pos_to_expert"),
                               kernel_view(buffer, name))
            if num_tokens > 0 and buffer.shape[1] > 0:  # type: ignore[attr-defined]
                targets.launch(f"tile_kernels.moe.{api}.scatter", (kind, num_topk),
                               lambda kind=kind: fused_kernels.expand_scatter(kind, num_topk),
                               target, kernel_view(source, source_name),
                               kernel_view(token_topk_to_pos, "token_topk_to_pos"),
                               kernel_view(buffer, name))
        if use_tma_aligned_col_major_sf and max(num_tokens, num_expanded) > 0 and hidden_sf > 0:
            targets.launch(f"tile_kernels.moe.{api}.sf", (sf_dtype, num_topk),
                           lambda: fused_sf_kernels.expand_sf_col_major(sf_dtype, num_topk),
                           target, kernel_view(sf, "sf"),
                           kernel_view(token_topk_to_pos, "token_topk_to_pos"),
                           kernel_view(pos_to_expert, "pos_to_expert"),
                           kernel_view(sf_storage, "out_sf"))
        return out, out_sf
