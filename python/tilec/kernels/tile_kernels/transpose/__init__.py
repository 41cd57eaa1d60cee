"""`tile_kernels.transpose`: `transpose` and `batched_transpose` as tilec kernels."""

from .api import batched_transpose, transpose

__all__ = ["batched_transpose", "transpose"]
