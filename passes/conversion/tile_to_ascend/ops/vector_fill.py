"""The ascend vector lowering of tile.fill and tile.clear: one ascend.vdup.

A UB tile is filled by the vector unit's Duplicate, whatever its shape (the
op's element count is the tile's). Tiles in a cube scope belong to the cube
lowering (an L0C cleared to zero is the `init` of the next mmad), and a
global buffer is no vector operand.

Before:

    tile.fill %t, %v : memref<16x128xf32, #tile.scope<ub>>, f32

After:

    ascend.vdup %t, %v : memref<16x128xf32, #tile.scope<ub>>, f32
"""

from __future__ import annotations

import math

from mlir import ir

from tilec.dialects import ascend
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.conversion.tile_to_ascend.ops import buffers
from tilec.targets.ascend import AscendTarget
from tilec.targets.ascend.call_dtypes import duplicate_problem


def vector_operand_problem(value: ir.Value, what: str) -> str | None:
    """Why `value` cannot be a UB operand of a vector lowering, or None."""
    if buffers.is_cube(value):
        space = buffers.memory_space(ir.MemRefType(value.type))
        return f"{what} is in the cube buffer {space}"
    if buffers.is_global(value):
        return f"{what} is a global buffer, not a UB tile"
    return None


@register_lowering
class FillToDuplicate(TileOpLowering[None, AscendTarget]):
    """tile.fill and tile.clear of a UB tile as ascend.vdup."""

    target = "ascend"
    op_names = ("tile.fill", "tile.clear")
    name = "ascend-vector-fill"
    phase = Phase.FILLS

    def applies(self, op: ir.Operation, target: AscendTarget) -> str | None:
        problem = vector_operand_problem(op.operands[0], "the filled tile")
        if problem is not None:
            return problem
        memref = ir.MemRefType(op.operands[0].type)
        return duplicate_problem(target.variant, str(memref.element_type),
                                 math.prod(memref.shape))

    def lower(self, op: ir.Operation, plan: None, target: AscendTarget) -> None:
        dst = op.operands[0]
        with ir.InsertionPoint(op), op.location:
            if op.name == "tile.fill":
                value = op.operands[1]
            else:
                value = irb.zero(ir.MemRefType(dst.type).element_type)
            ascend.vdup(dst, value)
        op.erase()
