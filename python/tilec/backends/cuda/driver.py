"""The cuda backend's driver half: finding a GPU without ever aborting.

The checks go in the order that cannot take the process down on a machine
without a GPU (DESIGN.md §3): load `libcuda.so.1` (OSError when there is
no driver), `cuInit`, then count the devices. Loading and launching PTX
comes with the cuda lowering.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Sequence
from pathlib import Path

from tilec.backends.base import Binary, Driver, Launcher, Options
from tilec.diagnostics import error
from tilec.runtime.signature import Param

_CUDA_SUCCESS = 0


@functools.cache
def device_count() -> int:
    """How many CUDA devices a working driver reports (0 without a driver)."""
    try:
        libcuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return 0
    if libcuda.cuInit(0) != _CUDA_SUCCESS:
        return 0
    count = ctypes.c_int(0)
    if libcuda.cuDeviceGetCount(ctypes.byref(count)) != _CUDA_SUCCESS:
        return 0
    return count.value


class CudaDriver(Driver):
    def present(self) -> bool:
        return device_count() > 0

    def launcher(self, binary: Binary, params: Sequence[Param]) -> Launcher:
        raise error("launching cuda kernels is not implemented yet (it comes with tile-to-cuda)")

    def save(self, binary: Binary, directory: Path) -> None:
        raise error("cuda binaries are not cached yet (they come with tile-to-cuda)")

    def load(self, directory: Path, entry: str, options: Options) -> Binary:
        raise ValueError("cuda cache entries do not exist yet")
