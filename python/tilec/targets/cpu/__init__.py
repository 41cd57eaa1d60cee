"""The cpu target: the host, through MLIR's LLVM lowering and JIT (`description`).

`TARGET` is its manifest: lowered by `tile-to-cpu`, compiled and run by LLVM's JIT; the
target every machine has, so the default where no better one is present.
"""

from __future__ import annotations

from tilec.targets.cpu.description import CpuTarget, host_flags
from tilec.targets.manifest import Target

__all__ = ["TARGET", "CpuTarget", "host_flags"]

TARGET = Target(
    description=CpuTarget,
    backend="tilec.backends.cpu.compiler:CpuBackend",
    passes="tilec.passes.conversion.tile_to_cpu",
    pipeline="tile-to-cpu",
    preference=1,
)
