"""The cpu lowering of tile.parallel: an scf.for loop nest.

One thread runs a block on cpu, so the element-wise region becomes a loop
nest over its static extents with the body moved into the innermost loop.
The loops have constant bounds and unit steps and the body indexes tiles
with the induction variables, which is the shape LLVM's loop vectorizer
turns into vector code when the JIT compiles at -O3.

Before:

    tile.parallel (%i, %j) in (64, 128) {
      %x = memref.load %t[%i, %j] : memref<64x128xf32, #tile.scope<fragment>>
      ...
    }

After:

    scf.for %i = %c0 to %c64 step %c1 {
      scf.for %j = %c0 to %c128 step %c1 {
        %x = memref.load %t[%i, %j] : memref<64x128xf32, #tile.scope<fragment>>
        ...
      }
    }
"""

from __future__ import annotations

from mlir import ir

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.targets import CpuTarget


@register_lowering
class ParallelToLoopNest(TileOpLowering[None, CpuTarget]):
    """tile.parallel as serial loops the LLVM vectorizer can widen."""

    target = "cpu"
    op_names = ("tile.parallel",)
    name = "cpu-parallel-loop-nest"
    phase = Phase.REGIONS

    def lower(self, op: ir.Operation, plan: None, target: CpuTarget) -> None:
        irb.parallel_as_loops(op)
