"""tile-cpu-hoist-allocas: move static stack allocations out of loops.

An LLVM `alloca` inside a loop grows the stack on every iteration. After
`async-parallel-for`, the tiles of a kernel block sit inside the loop over
the blocks of a task; a tile's contents are undefined until written, so one
allocation per task serves every block it runs. This pass moves each
`memref.alloca` of static shape to the start of its allocation scope: the
entry of its function, or the body of an enclosing `scf.parallel`, whose
iterations may run at once and must not share it. Run it only on IR whose
allocas inside loops need not be fresh in each iteration, as the tile-to-cpu
lowering guarantees.

Before:

    func.func @parallel_compute_fn(...) {
      scf.for %b = %lo to %hi step %c1 {
        %t = memref.alloca() : memref<64xf32>
        ...
      }
    }

After:

    func.func @parallel_compute_fn(...) {
      %t = memref.alloca() : memref<64xf32>
      scf.for %b = %lo to %hi step %c1 {
        ...
      }
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.registry import Pass, register_pass

_SCOPES = {"func.func", "scf.parallel"}


@register_pass
@dataclass(frozen=True)
class CpuHoistAllocasPass(Pass):
    """Moves static-shape memref.alloca ops to the start of their allocation scope."""

    argument = "tile-cpu-hoist-allocas"
    anchor = "func.func"
    summary = "Hoist static memref.alloca out of loops to the function entry (cpu)"

    def run(self, op: ir.Operation) -> None:
        for alloca in irb.collect(op, "memref.alloca"):
            if alloca.operands:
                continue
            scope = irb.enclosing(alloca, _SCOPES)
            entry = scope.regions[0].blocks[0]
            if alloca.parent == scope:
                continue
            alloca.move_before(next(iter(entry.operations)).operation)
