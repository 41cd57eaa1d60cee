"""tile-lower-parallel: tile.parallel to scf.for loop nests (cpu).

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

from dataclasses import dataclass

from mlir import ir

from tilec.passes import _cpu_ir as cpu
from tilec.passes.registry import Pass, register_pass


def lower_parallel(op: ir.Operation) -> None:
    body = op.regions[0].blocks[0]
    extents = list(ir.DenseI64ArrayAttr(op.attributes["extents"]))
    with ir.InsertionPoint(op), op.location, cpu.loop_nest(extents) as ivs:
        anchor = cpu.index(0)
    for old, new in zip(body.arguments, ivs, strict=True):
        old.replace_all_uses_with(new)
    for inner in list(body.operations)[:-1]:
        inner.operation.move_before(anchor.owner)
    anchor.owner.erase()
    op.erase()


@register_pass
@dataclass(frozen=True)
class LowerParallelPass(Pass):
    """Lowers tile.parallel regions to scf.for loop nests."""

    argument = "tile-lower-parallel"
    anchor = "func.func"
    summary = "Lower tile.parallel to scf.for loop nests (cpu)"

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            for region_op in reversed(cpu.collect(op, "tile.parallel")):
                lower_parallel(region_op)
