"""DeepEP's expert-parallel API (V2 `ElasticBuffer`, V1 `Buffer`) on torch.distributed and tilec
kernels: the same names, arguments and results, bitwise equal to DeepEP's torch
reference (`deep_ep.utils.refs`). Processes join with `utils.envs.init_dist` (gloo on
CPU); the per-token work runs as tilec kernels on the tensors' target and the
tokens move with `all_to_all_single` (see `elastic`)."""

import torch

from . import utils
from .elastic import ElasticBuffer, EPHandle
from .legacy import Buffer, Config
from .utils.envs import get_logical_domain_size, get_physical_domain_size
from .utils.event import EventHandle, EventOverlap

topk_idx_t = torch.int64

__all__ = [
    "Buffer",
    "Config",
    "EPHandle",
    "ElasticBuffer",
    "EventHandle",
    "EventOverlap",
    "get_logical_domain_size",
    "get_physical_domain_size",
    "topk_idx_t",
    "utils",
]
