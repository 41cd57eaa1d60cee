"""`tile_kernels.quant`: TileKernels' FP8 casts and their inverse as tilec kernels.

Implemented: e4m3 with float32 scales, row-major or TMA-aligned column-major
(`per_token_cast`, `per_block_cast`, `per_channel_cast`, their `_with_sf_only` and
`_with_precomputed_sf` forms, `cast_back`, `per_token_cast_back`), and the fused casts
`swiglu_forward_and_per_token_cast`, `swiglu_backward_and_per_token_cast`,
`per_channel_cast_and_transpose`, `per_channel_cast_fused`. Not yet: e2m1 (FP4) and
e5m6 formats, UE8M0 scales packed into int32, already quantized inputs of the plain casts
(`x_block_size`), `per_block_cast_lossless` and
`swiglu_forward_and_per_channel_cast_and_transpose`.
"""

from .cast_back import cast_back, per_token_cast_back
from .casts import (
    per_block_cast,
    per_block_cast_with_precomputed_sf,
    per_block_cast_with_sf_only,
    per_channel_cast,
    per_token_cast,
    per_token_cast_with_precomputed_sf,
    per_token_cast_with_sf_only,
)
from .per_channel import per_channel_cast_and_transpose, per_channel_cast_fused
from .swiglu import swiglu_backward_and_per_token_cast, swiglu_forward_and_per_token_cast
from .types import QuantTensor

__all__ = [
    "QuantTensor",
    "cast_back",
    "per_block_cast",
    "per_block_cast_with_precomputed_sf",
    "per_block_cast_with_sf_only",
    "per_channel_cast",
    "per_channel_cast_and_transpose",
    "per_channel_cast_fused",
    "per_token_cast",
    "per_token_cast_back",
    "per_token_cast_with_precomputed_sf",
    "per_token_cast_with_sf_only",
    "swiglu_backward_and_per_token_cast",
    "swiglu_forward_and_per_token_cast",
]
