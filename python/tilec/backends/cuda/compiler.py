"""The cuda backend's compiler half: registered, its lowering still to come.

`tilec.compile(kernel, target="cuda:sm_90a")` resolves here, checks its
options and the kernel against the arch's description, then says plainly
that `tile-to-cuda` (tile IR through gpu/nvgpu/nvvm to PTX) does not exist
yet.
"""

from __future__ import annotations

from tilec.backends.base import CodegenOptions, PlannedBackend
from tilec.backends.cuda.driver import CudaDriver


class CudaBackend(PlannedBackend):
    name = "cuda"
    options_type = CodegenOptions
    driver = CudaDriver()
