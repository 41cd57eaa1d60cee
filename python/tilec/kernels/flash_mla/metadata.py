"""FlashMLA 1.0's scheduling metadata: `get_mla_metadata()` returns an empty
`FlashMLASchedMeta`, which the first `flash_mla_with_kvcache` call fills (its config, and
the per-batch split plan a tilec kernel computes from the sequence lengths) and later
calls with the same shapes and lengths reuse.
"""

from __future__ import annotations

import dataclasses
import os

from tilec.kernels import targets
from tilec.kernels.tensors import empty_like_framework, kernel_view

from . import decode_kernels

# Workers a target runs blocks on, the `num_sms` of upstream's scheduler: how many
# splits a batch may be cut into. Only speed depends on it.
_CUDA_SMS = 132  # H800 / H100 SXM
_ASCEND_CORES = 24  # 910B's AI cores


@dataclasses.dataclass
class FlashMLASchedMeta:
    """The tile scheduler metadata of FlashMLA (filled lazily by the first call)."""

    @dataclasses.dataclass
    class Config:
        b: int
        s_q: int
        h_q: int
        page_block_size: int
        h_k: int

        causal: bool
        is_fp8_kvcache: bool
        topk: int | None

        extra_page_block_size: int | None
        extra_topk: int | None

    have_initialized: bool = False

    config: Config | None = None

    # (b, 2) int32: each batch's number of splits and keys per split
    tile_scheduler_metadata: object | None = None
    # (b,) int32: each batch's number of splits (column 0 of the above)
    num_splits: object | None = None
    # tilec's: the plan of the extra_k_cache's keys, whose splits follow the main ones
    extra_tile_scheduler_metadata: object | None = None


def get_mla_metadata(*args: object, **kwargs: object) -> tuple[FlashMLASchedMeta, None]:
    """An empty FlashMLASchedMeta; the first flash_mla_with_kvcache call fills it. The
    arguments of the old interface (cache_seqlens, num_heads_per_head_k, num_heads_k)
    are accepted and ignored, as upstream does; the second element is always None."""
    return FlashMLASchedMeta(), None


def worker_count(target: str) -> int:
    if target.startswith("cuda"):
        return _CUDA_SMS
    if target.startswith("ascend"):
        return _ASCEND_CORES
    return os.cpu_count() or 1


def split_slots(target: str, tiles_per_batch: int) -> int:
    """How many splits a batch may have: upstream's num_sm_parts, the workers shared by
    the tiles (KV heads x query-row tiles) every batch already has."""
    return max(worker_count(target) // tiles_per_batch, 1)


def plan(sched_meta: FlashMLASchedMeta, like: object, lengths: object | None, limit: int,
         parts: int, target: str, extra: bool = False) -> object:
    """The (b, 2) split plan, computed by a kernel on the first call and kept in
    `sched_meta`; `lengths` (cache_seqlens or topk_length) or, when None, `limit` keys
    for every batch. `extra`: the plan of the extra_k_cache's keys."""
    if extra:
        if sched_meta.extra_tile_scheduler_metadata is None:
            sched_meta.extra_tile_scheduler_metadata = _planned(sched_meta, like, lengths,
                                                                limit, parts, target)
        return sched_meta.extra_tile_scheduler_metadata
    if sched_meta.tile_scheduler_metadata is None:
        meta = _planned(sched_meta, like, lengths, limit, parts, target)
        sched_meta.tile_scheduler_metadata = meta
        sched_meta.num_splits = meta[:, 0]  # type: ignore[index]
    return sched_meta.tile_scheduler_metadata


def _planned(sched_meta: FlashMLASchedMeta, like: object, lengths: object | None, limit: int,
             parts: int, target: str) -> object:
    """A new (b, 2) plan, computed by the schedule kernel."""
    b = sched_meta.config.b  # type: ignore[union-attr]
    meta = empty_like_framework(like, (b, 2), "int32")
    has_lengths = lengths is not None
    targets.launch(
        "flash_mla.get_mla_metadata", (has_lengths,),
        lambda: decode_kernels.schedule(has_lengths), target,
        kernel_view(lengths if has_lengths else empty_like_framework(like, (b,), "int32"),
                    "lengths"),
        kernel_view(meta, "tile_scheduler_metadata"), limit, parts,
    )
    return meta
