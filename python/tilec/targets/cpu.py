"""The cpu target: the host, through MLIR's LLVM lowering and JIT.

A block runs on one core with one thread; tiles of every portable scope are
stack or heap memory of that core, so the thread count of a kernel is only
recorded. `vector_bytes` is the register width the vector lowerings cut
loops into (AVX2: 32 bytes; AVX-512: 64), `cores` how many tasks the grid is
split into.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from tilec.dialects.tile import Scope
from tilec.targets.description import (
    FLOAT_TYPES,
    FP8_TYPES,
    INT_TYPES,
    PORTABLE_SCOPES,
    TargetDescription,
)

_VECTOR_BYTES = {"avx2": 32, "avx512": 64}
# A tile lives on a worker thread's stack or, above a threshold, on the heap;
# the bound (256 MiB) keeps the tiles of the blocks running on every core
# within what a process can allocate: a failed allocation would crash.
_MAX_TILE_BYTES = 1 << 28


@dataclass(frozen=True)
class CpuTarget(TargetDescription):
    name = "cpu"
    variants = tuple(_VECTOR_BYTES)

    vector_bytes: int = 32
    cores: int = 1
    # Bools are stored as bytes (tile-widen-bools); 8-bit floats are
    # bytes computed on in f32 (tile-cpu-emulate-fp8).
    element_types: frozenset[str] = INT_TYPES | FLOAT_TYPES | FP8_TYPES | {"i1"}

    @staticmethod
    def create(variant: str) -> CpuTarget:
        return CpuTarget(
            variant,
            vector_bytes=_VECTOR_BYTES[variant],
            cores=os.cpu_count() or 1,
            tile_bytes={scope: _MAX_TILE_BYTES for scope in PORTABLE_SCOPES - {Scope.global_}},
        )

    def parameters(self) -> dict[str, object]:
        return {**super().parameters(), "vector_bytes": self.vector_bytes, "cores": self.cores}

    def tile_violation(self, scope: Scope, shape: list[int], element_bits: int) -> str | None:
        # A bool tile takes a byte per element.
        return super().tile_violation(scope, shape, max(element_bits, 8))
