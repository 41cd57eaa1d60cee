"""tile-lower-fills: tile.fill and tile.clear to vector stores (cpu).

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

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import memref, vector

from tilec.passes import _cpu_ir as cpu
from tilec.passes.registry import Pass, register_pass


def _extent(buffer: ir.Value, dim: int) -> int | ir.Value:
    size = ir.MemRefType(buffer.type).shape[dim]
    return memref.dim(buffer, cpu.index(dim)) if ir.ShapedType.is_dynamic_size(size) else size


def fill(buffer: ir.Value, value: ir.Value) -> None:
    """Stores `value` to every element of `buffer` at the insertion point."""
    type_ = ir.MemRefType(buffer.type)
    if type_.rank == 0:
        memref.store(value, buffer, [])
        return
    lanes = cpu.lanes(type_.element_type)
    outer = [_extent(buffer, d) for d in range(type_.rank - 1)]
    last = _extent(buffer, type_.rank - 1)
    full_vector = cpu.splat(value, lanes)
    with cpu.loop_nest(outer) as ivs:
        if isinstance(last, ir.Value):
            with cpu.loop(0, last, lanes) as j:
                count = cpu.clamped_count(last, j, lanes)
                vector.maskedstore(buffer, [*ivs, j], cpu.mask(count, lanes), full_vector)
        else:
            _fill_static_row(buffer, ivs, last, value, full_vector)


def _fill_static_row(
    buffer: ir.Value, ivs: list[ir.Value], last: int, value: ir.Value, full_vector: ir.Value
) -> None:
    lanes = ir.VectorType(full_vector.type).shape[0]
    full = last // lanes * lanes
    if full > lanes:
        with cpu.loop(0, full, lanes) as j:
            vector.store(full_vector, buffer, [*ivs, j])
    elif full:
        vector.store(full_vector, buffer, [*ivs, cpu.index(0)])
    if last > full:
        vector.store(cpu.splat(value, last - full), buffer, [*ivs, cpu.index(full)])


@register_pass
@dataclass(frozen=True)
class LowerFillsPass(Pass):
    """Lowers tile.fill and tile.clear to splat vector stores."""

    argument = "tile-lower-fills"
    anchor = "func.func"
    summary = "Lower tile.fill and tile.clear to vector stores (cpu)"

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            for target in cpu.collect(op, {"tile.fill", "tile.clear"}):
                buffer = target.operands[0]
                with ir.InsertionPoint(target), target.location:
                    if target.name == "tile.fill":
                        value = target.operands[1]
                    else:
                        value = cpu.zero(ir.MemRefType(buffer.type).element_type)
                    fill(buffer, value)
                target.erase()
