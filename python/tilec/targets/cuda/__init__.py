"""The cuda target: NVIDIA GPUs by compute capability (`description`).

`TARGET` is its manifest: lowered by `tile-to-cuda`, taken to PTX in process and run
through the CUDA driver; preferred to the host wherever a GPU with a working driver is.
"""

from __future__ import annotations

from tilec.targets.cuda.description import CudaTarget
from tilec.targets.manifest import Emitter, Target

__all__ = ["TARGET", "CudaTarget"]

TARGET = Target(
    description=CudaTarget,
    backend="tilec.backends.cuda.compiler:CudaBackend",
    passes="tilec.passes.conversion.tile_to_cuda",
    pipeline="tile-to-cuda",
    emitters=(
        Emitter("ptx", "tilec.backends.cuda.compiler:emit_ptx",
                "the PTX of the gpu.module the pipeline produced (after --tile-to-cuda)"),
    ),
    preference=2,
)
