"""The cuda conversion: tile ops to gpu/nvgpu/nvvm code, then PTX.

Passes at the top, one per file; the tile op lowerings in `ops/` (`gemm.py`,
`copy.py`, ...) and the layouts they read tiles through in `analysis/`. Per-thread
code handed to the threads (`tile-cuda-distribute-thread-loops`), copies
through unit-dim views moved onto their tiles (`tile-cuda-drop-unit-dim-views`), where the
tiles live (`tile-cuda-infer-layouts`), the pass that
applies the lowerings (`convert_tile_to_cuda.py`), one gpu.module for all kernels
(`tile-cuda-merge-kernel-modules`), the fix-up of dynamic shared memory
after convert-gpu-to-nvvm (`tile-cuda-extern-shared-memory`), approximate
transcendentals where allowed (`tile-cuda-fast-math`), 8-bit floats
(`tile-cuda-widen-fp8-operands`, `tile-cuda-expand-fp8-conversions`) and the
`tile-to-cuda` pipeline (`pipelines.py`).
"""

from tilec.passes.registry import import_package

import_package(__name__)
