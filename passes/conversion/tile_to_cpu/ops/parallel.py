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
        body = op.regions[0].blocks[0]
        extents = list(ir.DenseI64ArrayAttr(op.attributes["extents"]))
        with ir.InsertionPoint(op), op.location, irb.loop_nest(extents) as ivs:
            anchor = irb.index(0)
        for old, new in zip(body.arguments, ivs, strict=True):
            old.replace_all_uses_with(new)
        for inner in list(body.operations)[:-1]:
            inner.operation.move_before(anchor.owner)
        anchor.owner.erase()
        op.erase()
