"""TileKernels' grouped gate ops: `top2_sum_gate`, `topk_sum_and_topk_group_idx`,
`aux_fi` and `inplace_unique_group_indices`, with upstream's signatures, checks,
outputs and return conventions."""

from __future__ import annotations

import numpy as np

from tilec.kernels import targets
from tilec.kernels.tensors import dtype_name, empty_like_framework, is_row_major, kernel_view

from . import gate_kernels, routing_kernels
from .checks import fail, matrix
from .routing import INDEX_DTYPES
from .scoring import ScoringFunc


def _bytes(value: object, what: str) -> object:
    """A bool tensor as the uint8 kernel argument over the same memory (a view)."""
    view = kernel_view(value, what)
    if isinstance(view, np.ndarray):
        return view.view(np.uint8)
    import torch

    return view.view(torch.uint8)  # type: ignore[attr-defined]


def _vector(api: str, name: str, tensor: object, length: int, dtype: str) -> None:
    if tuple(tensor.shape) != (length,) or dtype_name(tensor) != dtype:  # type: ignore[attr-defined]
        fail(api, f"{name} must be {dtype} of shape ({length},)")
    if not is_row_major(tensor):
        fail(api, f"{name} must be contiguous")


def topk_sum_and_topk_group_idx(scores: object, num_topk_sum: int,
                                num_topk_groups: int) -> object:
    """scores float32 (num_tokens, num_groups, num_experts_per_group) -> int64
    (num_tokens, num_topk_groups): the groups whose num_topk_sum (1 or 2) largest
    scores sum highest, best first, the lower group first on ties."""
    api = "topk_sum_and_topk_group_idx"
    with targets.library_call():
        shape = tuple(scores.shape)  # type: ignore[attr-defined]
        if len(shape) != 3 or not is_row_major(scores) or dtype_name(scores) != "float32":
            fail(api, f"scores must be a contiguous 3-D float32 tensor but is "
                      f"{dtype_name(scores)} of shape {shape}")
        num_tokens, num_groups, per_group = shape
        if num_topk_sum not in (1, 2) or num_topk_sum > per_group:
            fail(api, f"num_topk_sum ({num_topk_sum}) must be 1 or 2 and at most "
                      f"num_experts_per_group ({per_group})")
        if not 0 <= num_topk_groups <= num_groups:
            fail(api, f"num_topk_groups ({num_topk_groups}) must be in [0, {num_groups}]")
        group_idx = empty_like_framework(scores, (num_tokens, num_topk_groups), "int64")
        if num_tokens > 0 and num_topk_groups > 0:
            variant = (num_groups, per_group, num_topk_sum, num_topk_groups)
            targets.launch(
                f"tile_kernels.moe.{api}", variant,
                lambda: gate_kernels.topk_sum_and_topk_group_idx(*variant),
                targets.target_for(scores),
                kernel_view(scores.reshape(num_tokens, num_groups * per_group), "scores"),  # type: ignore[attr-defined]
                kernel_view(empty_like_framework(scores, (num_tokens, num_groups), "float32"),
                            "group scores"),
                kernel_view(group_idx, "topk_group_idx"),
            )
        return group_idx


def top2_sum_gate(logits: object, bias: object, num_topk: int, num_topk_groups: int,
                  num_groups: int, use_shared_as_routed: bool, num_shared_experts: int,
                  routed_scaling_factor: float, ep_rank: int, num_ep_ranks: int, tp_rank: int,
                  num_tp_ranks: int, scoring_func: str, mask: object | None = None,
                  fix_routing_mask: object | None = None, to_physical_map: object | None = None,
                  logical_count: object | None = None,
                  unmapped_topk_idx: object | None = None) -> tuple[object, object]:
    """logits float32 (num_tokens, num_routed_experts), bias (num_routed_experts,) ->
    (topk_idx int64, topk_weights float32), both (num_tokens, num_topk + shared): the
    stable top-k of the biased scores within the num_topk_groups groups of largest
    top-2 sum, weights normalised by their sum times routed_scaling_factor, shared
    experts appended, mapped to physical experts and masked to this EP/TP rank.
    unmapped_topk_idx (num_tokens, num_topk) int64 receives the logical choices, or
    gives them for tokens of fix_routing_mask; tokens off `mask` get -1 and 0."""
    api = "top2_sum_gate"
    with targets.library_call():
        num_tokens, num_routed = matrix(api, "logits", logits, ("float32",))
        _vector(api, "bias", bias, num_routed, "float32")
        scoring = ScoringFunc.from_str(scoring_func)
        if scoring == ScoringFunc.IDENTITY:
            fail(api, "the identity scoring function is not supported")
        if (num_groups == 0) != (num_topk_groups == 0) or num_topk_groups > num_groups:
            fail(api, f"num_topk_groups ({num_topk_groups}) and num_groups ({num_groups}) "
                      "must both be zero or 0 < num_topk_groups <= num_groups")
        if num_groups and num_routed % num_groups:
            fail(api, f"num_routed_experts ({num_routed}) must be divisible by num_groups "
                      f"({num_groups})")
        if not 1 <= num_topk <= num_routed:
            fail(api, f"num_topk ({num_topk}) must be in [1, {num_routed}]")
        if not use_shared_as_routed:
            num_shared_experts = 0
        elif num_shared_experts not in (1, 2) or num_topk % num_shared_experts or \
                num_routed % (num_topk // num_shared_experts):
            fail(api, f"num_shared_experts ({num_shared_experts}) must be 1 or 2 and divide "
                      f"num_topk ({num_topk}) so that num_topk // it divides num_routed_experts")
        if (to_physical_map is None) != (logical_count is None):
            fail(api, "to_physical_map and logical_count must be given together")
        num_logical = num_routed + num_shared_experts
        num_extra = 0
        if to_physical_map is not None:
            rows, columns = matrix(api, "to_physical_map", to_physical_map, ("int32",))
            if rows != num_logical:
                fail(api, f"to_physical_map must have {num_logical} rows but has {rows}")
            _vector(api, "logical_count", logical_count, num_logical, "int32")
            num_extra = columns - 1
        if num_shared_experts > num_extra:
            fail(api, f"num_shared_experts ({num_shared_experts}) must not exceed the extra "
                      f"experts of to_physical_map ({num_extra})")
        if mask is not None:
            _vector(api, "mask", mask, num_tokens, "bool")
        if unmapped_topk_idx is not None and matrix(
                api, "unmapped_topk_idx", unmapped_topk_idx, ("int64",)) != (num_tokens, num_topk):
            fail(api, f"unmapped_topk_idx must have shape ({num_tokens}, {num_topk})")
        if fix_routing_mask is not None:
            if unmapped_topk_idx is None:
                fail(api, "fix_routing_mask needs unmapped_topk_idx")
            _vector(api, "fix_routing_mask", fix_routing_mask, num_tokens, "bool")
        num_physical = num_topk + num_shared_experts
        topk_idx = empty_like_framework(logits, (num_tokens, num_physical), "int64")
        topk_weights = empty_like_framework(logits, (num_tokens, num_physical), "float32")
        if num_tokens == 0:
            return topk_idx, topk_weights

        def new(shape: tuple[int, ...], dtype: str) -> object:
            return kernel_view(empty_like_framework(logits, shape, dtype), "scratch")

        # Placeholders stand for the inputs the kernel variant without them never reads.
        flags = (mask is not None, fix_routing_mask is not None,
                 unmapped_topk_idx is not None, to_physical_map is not None)
        variant = (int(scoring), num_routed, num_topk, num_groups, num_topk_groups,
                   num_shared_experts, *flags)
        targets.launch(
            f"tile_kernels.moe.{api}", variant, lambda: gate_kernels.top2_sum_gate(*variant),
            targets.target_for(logits),
            kernel_view(logits, "logits"), kernel_view(bias, "bias"),
            _bytes(mask, "mask") if flags[0] else new((num_tokens,), "uint8"),
            _bytes(fix_routing_mask, "fix_routing_mask") if flags[1]
            else new((num_tokens,), "uint8"),
            kernel_view(to_physical_map, "to_physical_map") if flags[3] else new((1, 1), "int32"),
            kernel_view(logical_count, "logical_count") if flags[3] else new((1,), "int32"),
            kernel_view(topk_idx, "topk_idx"),
            kernel_view(unmapped_topk_idx, "unmapped_topk_idx") if flags[2]
            else new((num_tokens, num_topk), "int64"),
            kernel_view(topk_weights, "topk_weights"),
            new((num_tokens, num_routed), "float32"), new((num_tokens, num_routed), "float32"),
            new((num_tokens, max(num_groups, 1)), "float32"),
            num_extra, float(routed_scaling_factor), ep_rank, num_ep_ranks, tp_rank, num_tp_ranks,
        )
        return topk_idx, topk_weights


def aux_fi(topk_idx: object, num_experts: int, num_aux_topk: int) -> object:
    """topk_idx (num_tokens, num_topk) -> float32 (num_experts,): each expert's count
    (negative entries are padding) * num_experts / (num_tokens * num_aux_topk)."""
    api = "aux_fi"
    with targets.library_call():
        num_tokens, _ = matrix(api, "topk_idx", topk_idx, INDEX_DTYPES)
        out = empty_like_framework(topk_idx, (num_experts,), "float32")
        if num_experts > 0:
            dtype, target = dtype_name(topk_idx), targets.target_for(topk_idx)
            counts = empty_like_framework(topk_idx, (num_experts,), "int32")
            targets.launch(f"tile_kernels.moe.{api}.count", (dtype,),
                           lambda: routing_kernels.group_count(dtype), target,
                           kernel_view(topk_idx, "topk_idx"), kernel_view(counts, "counts"))
            targets.launch(f"tile_kernels.moe.{api}", (), gate_kernels.aux_fi, target,
                           kernel_view(counts, "counts"), kernel_view(out, "out"),
                           num_tokens, num_tokens * num_aux_topk)
        return out


def inplace_unique_group_indices(group_indices: object, num_groups: int) -> None:
    """group_indices (num_tokens, num_topk), in place: each group's repeats in a row,
    after its first occurrence, become -1."""
    api = "inplace_unique_group_indices"
    with targets.library_call():
        num_tokens, num_topk = matrix(api, "group_indices", group_indices, INDEX_DTYPES)
        if num_groups > 128:
            fail(api, f"num_groups ({num_groups}) must be at most 128")
        if num_tokens > 0 and num_topk > 1:
            dtype = dtype_name(group_indices)
            targets.launch(f"tile_kernels.moe.{api}", (dtype,),
                           lambda: gate_kernels.unique_group_indices(dtype),
                           targets.target_for(group_indices),
                           kernel_view(group_indices, "group_indices"))
