"""TileKernels' MoE routing ops: `normalize_weight`, `topk_gate`, `group_count` and
`mask_indices_by_tp`, with upstream's signatures, checks and output dtypes."""

from __future__ import annotations

from tilec.kernels import targets
from tilec.kernels.tensors import dtype_name, empty_like_framework, kernel_view

from . import routing_kernels
from .checks import fail, matrix

INDEX_DTYPES = ("int64", "int32")


def normalize_weight(topk_weights: object) -> tuple[object, object]:
    """topk_weights float32 (num_tokens, num_topk) -> (denominator (num_tokens,),
    normalized_weights (num_tokens, num_topk)): each row over 1e-20 plus its sum."""
    api = "normalize_weight"
    with targets.library_call():
        num_tokens, num_topk = matrix(api, "topk_weights", topk_weights, ("float32",))
        denominator = empty_like_framework(topk_weights, (num_tokens,), "float32")
        normalized = empty_like_framework(topk_weights, (num_tokens, num_topk), "float32")
        if num_tokens > 0:
            targets.launch(
                f"tile_kernels.moe.{api}", (num_topk,),
                lambda: routing_kernels.normalize_weight(num_topk),
                targets.target_for(topk_weights),
                kernel_view(topk_weights, "topk_weights"), kernel_view(denominator, "denominator"),
                kernel_view(normalized, "normalized_weights"),
            )
        return denominator, normalized


def topk_gate(scores: object, num_topk: int) -> object:
    """scores float32 (num_tokens, num_experts) -> int64 (num_tokens, num_topk): the
    highest scores' experts in descending order, the smaller index first on ties."""
    api = "topk_gate"
    with targets.library_call():
        num_tokens, num_experts = matrix(api, "scores", scores, ("float32",))
        if not 1 <= num_topk <= num_experts:
            fail(api, f"num_topk ({num_topk}) must be in [1, num_experts ({num_experts})]")
        topk_idx = empty_like_framework(scores, (num_tokens, num_topk), "int64")
        if num_tokens > 0:
            targets.launch(
                f"tile_kernels.moe.{api}", (num_topk,), lambda: routing_kernels.topk_gate(num_topk),
                targets.target_for(scores), kernel_view(scores, "scores"),
                kernel_view(topk_idx, "topk_idx"),
            )
        return topk_idx


def group_count(group_idx: object, num_groups: int) -> object:
    """group_idx (num_tokens, num_topk) -> int32 (num_groups,): tokens per group;
    negative entries are padding."""
    api = "group_count"
    with targets.library_call():
        matrix(api, "group_idx", group_idx, INDEX_DTYPES)
        out = empty_like_framework(group_idx, (num_groups,), "int32")
        if num_groups > 0:
            dtype = dtype_name(group_idx)
            targets.launch(
                f"tile_kernels.moe.{api}", (dtype,), lambda: routing_kernels.group_count(dtype),
                targets.target_for(group_idx), kernel_view(group_idx, "group_idx"),
                kernel_view(out, "out"),
            )
        return out


def mask_indices_by_tp(indices: object, n: int, num_ep_ranks: int, tp_rank: int,
                       num_tp_ranks: int) -> object:
    """Expert indices (num_tokens, num_topk) -> the same shape and dtype: indices of
    experts on TP rank `tp_rank` renumbered to that rank's experts, others -1."""
    api = "mask_indices_by_tp"
    with targets.library_call():
        num_tokens, num_topk = matrix(api, "indices", indices, INDEX_DTYPES)
        per_gpu = n // num_ep_ranks
        if per_gpu <= 0 or num_tp_ranks <= 0:
            fail(api, f"n // num_ep_ranks ({n} // {num_ep_ranks}) and num_tp_ranks "
                      f"({num_tp_ranks}) must be positive")
        dtype = dtype_name(indices)
        masked = empty_like_framework(indices, (num_tokens, num_topk), dtype)
        if num_tokens * num_topk > 0:
            targets.launch(
                f"tile_kernels.moe.{api}", (dtype,),
                lambda: routing_kernels.mask_indices_by_tp(dtype), targets.target_for(indices),
                kernel_view(indices.reshape(-1), "indices"),  # type: ignore[attr-defined]
                kernel_view(masked.reshape(-1), "masked_indices"),  # type: ignore[attr-defined]
                per_gpu, num_tp_ranks * per_gpu, num_tp_ranks, tp_rank,
            )
        return masked
