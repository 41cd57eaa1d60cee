"""`tile_kernels.quant.types`: a quantized tensor is the pair (data, scaling factors),
torch tensors or numpy arrays alike."""

from __future__ import annotations

QuantTensor = tuple[object, object]
