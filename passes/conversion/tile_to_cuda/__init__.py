"""The cuda conversion: tile ops to gpu/nvgpu/nvvm code, then PTX.

One module per tile op lowering (`gemm.py`, `copy.py`, ...), per-thread
code handed to the threads (`tile-cuda-distribute-thread-loops`), copies
through unit-dim views moved onto their tiles (`tile-cuda-drop-unit-dim-views`), where the
tiles live (`tile-cuda-infer-layouts`; the layouts and the `Tile` view every lowering reads
tiles through: `layouts.py`), the pass that
applies the lowerings (`convert_tile_to_cuda.py`), one gpu.module for all kernels
(`tile-cuda-merge-kernel-modules`), the fix-up of dynamic shared memory
after convert-gpu-to-nvvm (`tile-cuda-extern-shared-memory`), approximate
transcendentals where allowed (`tile-cuda-fast-math`), 8-bit floats
(`tile-cuda-widen-fp8-operands`, `tile-cuda-expand-fp8-conversions`) and the
`tile-to-cuda` pipeline (`pipelines.py`).
"""

from tilec.passes.conversion.tile_to_cuda import (  # noqa: F401 (they register themselves)
    convert_tile_to_cuda,
    distribute_thread_loops,
    drop_unit_dim_views,
    expand_fp8_conversions,
    extern_shared_memory,
    fast_math,
    infer_layouts,
    merge_kernel_modules,
    pipelines,
    widen_fp8_operands,
)
