"""`tile_kernels.moe`: TileKernels' MoE routing ops on tilec kernels (top-k gating,
weight normalisation, expert counts, TP masking, and the fused expert-major layout:
mapping, expand, reduce)."""

from . import scoring
from .fused import expand_to_fused, get_fused_mapping, reduce_fused
from .routing import group_count, mask_indices_by_tp, normalize_weight, topk_gate

__all__ = [
    "expand_to_fused",
    "get_fused_mapping",
    "group_count",
    "mask_indices_by_tp",
    "normalize_weight",
    "reduce_fused",
    "scoring",
    "topk_gate",
]
