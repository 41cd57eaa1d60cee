"""The cuda target's description: NVIDIA GPUs by compute capability.

The figures are NVIDIA's per-arch limits: a block has at most 1024 threads
in whole warps, grid dim x up to 2^31 - 1 and y, z up to 65535 blocks; a
block's shared memory is capped per arch (opt-in maximum of dynamic shared
memory). fp8 tensor-core types exist from sm_89 on; wgmma and TMA on
sm_90a only. `ptx_version` is the lowest PTX ISA that knows the arch: the
PTX must declare at least it, or the NVPTX backend aborts (DESIGN.md §3).
"""

from __future__ import annotations

from dataclasses import dataclass

from tilec.dialects.tile import Scope
from tilec.targets.description import FLOAT_TYPES, FP8_TYPES, INT_TYPES, TargetDescription

# arch -> (shared memory bytes per block, minimum PTX ISA, fp8, wgmma/TMA)
_ARCHES = {
    "sm_80": (163 * 1024, "7.0", False, False),
    "sm_86": (99 * 1024, "7.1", False, False),
    "sm_89": (99 * 1024, "7.8", True, False),
    "sm_90a": (227 * 1024, "8.0", True, True),
}
# Registers per thread (255 at most) times the 32-bit register width.
_FRAGMENT_BYTES_PER_THREAD = 255 * 4


@dataclass(frozen=True)
class CudaTarget(TargetDescription):
    name = "cuda"
    variants = tuple(_ARCHES)

    shared_memory_bytes: int = 0
    ptx_version: str = ""
    has_fp8: bool = False
    has_wgmma: bool = False

    @classmethod
    def create(cls, arch: str) -> CudaTarget:
        smem, ptx, fp8, wgmma = _ARCHES[arch]
        return cls(
            arch,
            # 8-bit floats on every arch: as bytes, converted in software, and f16
            # operands of mma.sync (tile-cuda-widen-fp8-operands) where no wgmma takes them.
            element_types=INT_TYPES | FLOAT_TYPES | {"i1"} | FP8_TYPES,
            max_threads=1024,
            thread_multiple=32,
            max_grid=((1 << 31) - 1, 65535, 65535),
            tile_bytes={
                Scope.shared: smem,
                Scope.fragment: _FRAGMENT_BYTES_PER_THREAD * 1024,
                Scope.local: _FRAGMENT_BYTES_PER_THREAD,
            },
            shared_memory_bytes=smem,
            ptx_version=ptx,
            has_fp8=fp8,
            has_wgmma=wgmma,
        )

    @property
    def arch(self) -> str:
        return self.variant
