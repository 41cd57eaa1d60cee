"""The cpu target's description: the host, through MLIR's LLVM lowering and JIT.

A block runs on one core with one thread; tiles of every portable scope are
stack or heap memory of that core, so the thread count of a kernel is only
recorded. `vector_bytes` is the register width the vector lowerings cut
loops into (AVX2: 32 bytes; AVX-512: 64), `cores` how many tasks the grid is
split into. A kernel compiled for `cpu` gets the widest variant the host runs
(`CpuTarget.host_variant`); LLVM's JIT compiles for the host's own features
either way, so the variant decides only the width tilec's lowerings use.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

from tilec.dialects.tile import Scope
from tilec.targets.description import (
    ASCEND_BUFFER_SCOPES,
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
# The x86-64 psABI's micro-architecture level x86-64-v4 (AVX512F, AVX512BW, AVX512CD,
# AVX512DQ, AVX512VL; "System V ABI AMD64 supplement", 3.1.1, table "Micro-architecture
# levels"): with it, 64-byte vectors of every element width have instructions.
_AVX512_FLAGS = frozenset({"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"})


@functools.cache
def host_flags() -> frozenset[str]:
    """This machine's CPU feature flags as Linux lists them (none where it does not):
    only features the kernel enabled (AVX-512 state saved on context switches) appear."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return frozenset()
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name.strip() == "flags":
            return frozenset(value.split())
    return frozenset()


@dataclass(frozen=True)
class CpuTarget(TargetDescription):
    name = "cpu"
    variants = tuple(_VECTOR_BYTES)

    vector_bytes: int = 32
    cores: int = 1
    # AVX512-BF16's dot products (vdpbf16ps) for bf16 gemms: part of the target, and so of
    # the cache key, since a kernel built with them faults on a host without them.
    bf16_dot: bool = False
    # tilelang-ascend's kernels name the NPU's buffers (T.alloc_L1, T.alloc_ub, ...):
    # here they are on-chip tiles like any other, so such a kernel runs on cpu too.
    scopes: frozenset[Scope] = PORTABLE_SCOPES | ASCEND_BUFFER_SCOPES
    # Bools are stored as bytes (tile-widen-bools); 8-bit floats are
    # bytes computed on in f32 (tile-cpu-emulate-fp8).
    element_types: frozenset[str] = INT_TYPES | FLOAT_TYPES | FP8_TYPES | {"i1"}

    @classmethod
    def host_variant(cls) -> str:
        return "avx512" if host_flags() >= _AVX512_FLAGS else "avx2"

    @classmethod
    def create(cls, variant: str) -> CpuTarget:
        return cls(
            variant,
            vector_bytes=_VECTOR_BYTES[variant],
            cores=os.cpu_count() or 1,
            bf16_dot=variant == "avx512" and "avx512_bf16" in host_flags(),
            tile_bytes={scope: _MAX_TILE_BYTES
                        for scope in (PORTABLE_SCOPES | ASCEND_BUFFER_SCOPES) - {Scope.global_}},
        )

    def parameters(self) -> dict[str, object]:
        return {**super().parameters(), "vector_bytes": self.vector_bytes, "cores": self.cores,
                "bf16_dot": self.bf16_dot}

    def tile_violation(self, scope: Scope, shape: list[int], element_bits: int) -> str | None:
        # A bool tile takes a byte per element.
        return super().tile_violation(scope, shape, max(element_bits, 8))
