"""TileKernels' API (deepseek-ai/TileKernels 2.x) on tilec kernels, with upstream's names,
arguments and results bit for bit: `quant` (FP8 casts), `moe` (routing and the fused
expert-major layout), `transpose`, and `config`."""

from . import config, moe, quant, transpose

__all__ = ["config", "moe", "quant", "transpose"]
