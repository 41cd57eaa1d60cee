"""FlashMLA's API (flash_mla 1.0) on tilec: MLA decoding over a paged KV cache (dense
BF16, sparse FP8 with scales), sparse MLA prefill and dense varlen attention prefill,
every op a tilec kernel."""

from .decode import flash_mla_with_kvcache
from .metadata import FlashMLASchedMeta, get_mla_metadata
from .prefill import (
    flash_attn_varlen_func,
    flash_attn_varlen_kvpacked_func,
    flash_attn_varlen_qkvpacked_func,
    flash_mla_sparse_fwd,
)

__all__ = [
    "FlashMLASchedMeta",
    "flash_attn_varlen_func",
    "flash_attn_varlen_kvpacked_func",
    "flash_attn_varlen_qkvpacked_func",
    "flash_mla_sparse_fwd",
    "flash_mla_with_kvcache",
    "get_mla_metadata",
]
