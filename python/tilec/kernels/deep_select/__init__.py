"""DeepSelect's API (v1.0) on tilec kernels: `topk(input, topk, ...)` and
`get_stride_requirement()`, with upstream's names, defaults, checks and output
layout; the selection is a radix select written as one tilec kernel (see
`select_kernels`), run on the target `tilec.kernels` chooses for the call.
"""

from .interface import get_stride_requirement, topk

__all__ = ["get_stride_requirement", "topk"]
