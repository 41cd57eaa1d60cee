"""`tile_kernels.quant`: TileKernels' FP8/FP4 casts and their inverse as tilec kernels.

Implemented: e4m3 and e2m1 (two a byte, int8) data with float32 scales, row-major or
TMA-aligned column-major, or packed UE8M0 (int32) scales (`per_token_cast`,
`per_block_cast`, their `_with_sf_only` and `_with_precomputed_sf` forms, `cast_back`,
`per_token_cast_back`), `per_channel_cast` (e4m3), the fused casts
`swiglu_forward_and_per_token_cast`, `swiglu_backward_and_per_token_cast`,
`swiglu_forward_and_per_channel_cast_and_transpose`, `per_channel_cast_and_transpose`,
`per_channel_cast_fused`, and `per_block_cast_lossless` / `unpack_from_e2m1fn_x2`. Not
yet: the e5m6 format, already quantized inputs of the plain casts (`x_block_size`),
packed UE8M0 scales of the SwiGLU forward cast.
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
from .lossless import per_block_cast_lossless, unpack_from_e2m1fn_x2
from .per_channel import per_channel_cast_and_transpose, per_channel_cast_fused
from .swiglu import swiglu_backward_and_per_token_cast, swiglu_forward_and_per_token_cast
from .swiglu_per_channel import swiglu_forward_and_per_channel_cast_and_transpose
from .types import QuantTensor

__all__ = [
    "QuantTensor",
    "cast_back",
    "per_block_cast",
    "per_block_cast_lossless",
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
    "swiglu_forward_and_per_channel_cast_and_transpose",
    "swiglu_forward_and_per_token_cast",
    "unpack_from_e2m1fn_x2",
]
