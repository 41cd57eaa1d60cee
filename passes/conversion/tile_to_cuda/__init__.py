"""The cuda conversion: tile ops to gpu/nvgpu/nvvm code, then PTX.

One module per tile op lowering (`gemm.py`, `copy.py`, ...), where the tiles
live (`infer_layouts.py`, `tile-cuda-infer-layouts`), the pass that applies
the lowerings (`convert_tile_to_cuda.py`), one gpu.module for all kernels
(`tile-cuda-merge-kernel-modules`), the fix-up of dynamic shared memory
after convert-gpu-to-nvvm (`tile-cuda-extern-shared-memory`), approximate
transcendentals where allowed (`tile-cuda-fast-math`) and the
`tile-to-cuda` pipeline (`pipelines.py`).
"""

from tilec.passes.conversion.tile_to_cuda import (  # noqa: F401 (they register themselves)
    convert_tile_to_cuda,
    extern_shared_memory,
    fast_math,
    infer_layouts,
    merge_kernel_modules,
    pipelines,
)
