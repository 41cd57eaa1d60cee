"""The cpu lowering of tile.fill and tile.clear: splat vector stores.

The last dimension is written in register-wide splat stores, the others
are loops. A static last dimension ends in one narrower store; a dynamic
one (filling a global buffer) ends in a masked store.

Before:

    tile.fill %t, %v : memref<4x20xf32, #tile.scope<fragment>>, f32

After (schematically):

    %s = vector.broadcast %v : f32 to vector<8xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c16 step %c8 {
        vector.store %s, %t[%i, %j] : memref<4x20xf32, ...>, vector<8xf32>
      }
      vector.store %s4, %t[%i, %c16] : memref<4x20xf32, ...>, vector<4xf32>
    }
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import memref, vector

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.targets import CpuTarget


def _extent(buffer: ir.Value, dim: int) -> int | ir.Value:
    size = ir.MemRefType(buffer.type).shape[dim]
    return memref.dim(buffer, irb.index(dim)) if ir.ShapedType.is_dynamic_size(size) else size


def fill(buffer: ir.Value, value: ir.Value, lanes: int) -> None:
    """Stores `value` to every element of `buffer` at the insertion point."""
    type_ = ir.MemRefType(buffer.type)
    if type_.rank == 0:
        memref.store(value, buffer, [])
        return
    outer = [_extent(buffer, d) for d in range(type_.rank - 1)]
    last = _extent(buffer, type_.rank - 1)
    full_vector = irb.splat(value, lanes)
    with irb.loop_nest(outer) as ivs:
        if isinstance(last, ir.Value):
            with irb.loop(0, last, lanes) as j:
                count = irb.clamped_count(last, j, lanes)
                vector.maskedstore(buffer, [*ivs, j], irb.mask(count, lanes), full_vector)
            return

        def store(start: ir.Value | int, width: int) -> None:
            splat = full_vector if width == lanes else irb.splat(value, width)
            vector.store(splat, buffer, [*ivs, irb.as_index(start)])

        irb.for_each_chunk(last, lanes, store)


@register_lowering
class FillToSplatStores(TileOpLowering[int, CpuTarget]):
    """tile.fill and tile.clear as register-wide splat stores."""

    target = "cpu"
    op_names = ("tile.fill", "tile.clear")
    name = "cpu-fill-splat-stores"
    phase = Phase.FILLS

    def infer(self, op: ir.Operation, target: CpuTarget) -> int:
        return irb.lanes(target.vector_bytes, ir.MemRefType(op.operands[0].type).element_type)

    def lower(self, op: ir.Operation, plan: int, target: CpuTarget) -> None:
        buffer = op.operands[0]
        with ir.InsertionPoint(op), op.location:
            if op.name == "tile.fill":
                value = op.operands[1]
            else:
                value = irb.zero(ir.MemRefType(buffer.type).element_type)
            fill(buffer, value, plan)
        op.erase()
