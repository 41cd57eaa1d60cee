"""`tile_kernels.moe`: TileKernels' MoE routing ops on tilec kernels (top-k gating,
weight normalisation, expert counts, TP masking, and the fused expert-major layout:
mapping, expand, reduce), the grouped top-2-sum gate and the auxiliary-loss
frequencies."""

from . import scoring
from .fused import expand_to_fused, get_fused_mapping, reduce_fused
from .fused_sf import expand_to_fused_with_sf
from .gates import aux_fi, inplace_unique_group_indices, top2_sum_gate, topk_sum_and_topk_group_idx
from .routing import group_count, mask_indices_by_tp, normalize_weight, topk_gate

__all__ = [
    "aux_fi",
    "expand_to_fused",
    "expand_to_fused_with_sf",
    "get_fused_mapping",
    "group_count",
    "inplace_unique_group_indices",
    "mask_indices_by_tp",
    "normalize_weight",
    "reduce_fused",
    "scoring",
    "top2_sum_gate",
    "topk_gate",
    "topk_sum_and_topk_group_idx",
]
