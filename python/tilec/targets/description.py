"""What a target has, as data: the base every target description extends.

A description is the one place that says which tile scopes a target can
hold, which element types its tensors may have, and how big a block and a
grid may be. The DSL's checks, `tile-verify-kernels{target=...}`, the
lowerings and the backends all read it, so adding a target is writing one
description (and its backend and conversion), not editing the passes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

from tilec.dialects.tile import Scope

# The scopes that name a physical buffer of the Ascend NPU (expert mode).
# Every other member of the dialect's enum is portable: each target maps
# global, shared, fragment and local memory onto what it has.
ASCEND_BUFFER_SCOPES = frozenset({Scope.l1, Scope.l0a, Scope.l0b, Scope.l0c, Scope.ub})
PORTABLE_SCOPES = frozenset(Scope) - ASCEND_BUFFER_SCOPES

INT_TYPES = frozenset({"i8", "i16", "i32", "i64"})
FLOAT_TYPES = frozenset({"f16", "bf16", "f32", "f64"})
FP8_TYPES = frozenset({"f8E4M3FN", "f8E5M2"})


@dataclass(frozen=True)
class TargetDescription:
    """One target and variant (a cuda arch, an ascend profile).

    `scopes` are the tile scopes a kernel may use, `element_types` the MLIR
    element types its tensors and tiles may have; a block has at most
    `max_threads` threads, a multiple of `thread_multiple`; grid dim `i` has
    at most `max_grid[i]` blocks.
    """

    name: ClassVar[str]
    variants: ClassVar[tuple[str, ...]]

    variant: str
    scopes: frozenset[Scope] = PORTABLE_SCOPES
    element_types: frozenset[str] = INT_TYPES | FLOAT_TYPES
    max_threads: int = 1 << 20
    thread_multiple: int = 1
    max_grid: tuple[int, ...] = (1 << 31) - 1, (1 << 31) - 1, (1 << 31) - 1
    # The largest tile, in bytes, one block may hold in each on-chip scope.
    tile_bytes: dict[Scope, int] = field(default_factory=dict)

    @classmethod
    def create(cls, variant: str) -> TargetDescription:
        """The description of `variant` (one of `variants`)."""
        return cls(variant)

    @classmethod
    def host_variant(cls) -> str:
        """The variant a bare target name means to `tilec.compile` and `tilec.jit`: the
        best this machine runs (the first variant, where nothing is detected)."""
        return cls.variants[0]

    @property
    def spec(self) -> str:
        """`name:variant`, the spelling `target=` options accept."""
        return f"{self.name}:{self.variant}"

    def parameters(self) -> dict[str, object]:
        """Everything that changes generated code (it enters the cache key)."""
        return {"target": self.spec}

    def scope_violation(self, scope: Scope) -> str | None:
        if scope in self.scopes:
            return None
        where = "the ascend target" if scope in ASCEND_BUFFER_SCOPES else "other targets"
        return f"scope '{scope}' exists only on {where}, not on {self.spec}"

    def element_violation(self, element: str) -> str | None:
        if element in self.element_types:
            return None
        supported = ", ".join(sorted(self.element_types))
        return f"element type {element} is not supported on {self.spec} (supported: {supported})"

    def kernel_violations(self, threads: int, grid: list[int | None]) -> list[str]:
        """What is wrong with a kernel of `threads` threads and `grid` blocks
        (None: known only at run time)."""
        found = []
        if threads < 1 or threads > self.max_threads or threads % self.thread_multiple:
            multiple = (
                f"a multiple of {self.thread_multiple} and "
                if self.thread_multiple > 1
                else "at least 1 and "
            )
            found.append(
                f"expected a thread count that is {multiple}at most {self.max_threads} "
                f"on {self.spec} but got {threads}"
            )
        if len(grid) > len(self.max_grid):
            found.append(f"expected at most {len(self.max_grid)} grid dims on {self.spec}")
        for dim, (blocks, limit) in enumerate(zip(grid, self.max_grid, strict=False)):
            if blocks is not None and blocks > limit:
                found.append(
                    f"expected at most {limit} blocks in grid dim {dim} on {self.spec} "
                    f"but got {blocks}"
                )
        return found

    def tile_violation(self, scope: Scope, shape: list[int], element_bits: int) -> str | None:
        """Whether a tile of `shape` fits what one block can hold in `scope`."""
        limit = self.tile_bytes.get(scope)
        size = math.prod(shape) * element_bits // 8
        if limit is None or size <= limit:
            return None
        return (
            f"a {scope} tile of {size} bytes does not fit on {self.spec}, "
            f"which holds at most {limit} bytes per {scope} tile"
        )
