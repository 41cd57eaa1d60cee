"""What every target's lowering of tile.kernel shares.

A tile.kernel's body is the code of one block, its arguments the block's
coordinates. Every target runs it the same way: it builds its grid structure
at the kernel (cpu an scf.parallel, cuda a gpu.launch, ascend a grid-stride
loop over the cores), moves the body inside it, where the block's
coordinates replace the body's arguments, and erases the kernel. A target
writes only `grid`, the structure; the move is here once.
"""

from __future__ import annotations

import abc
import math

from mlir import ir

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, PlanT, TargetT, TileOpLowering


class KernelLowering(TileOpLowering[PlanT, TargetT]):
    """tile.kernel as the target's structure over the grid, around its body."""

    op_names = ("tile.kernel",)
    phase = Phase.KERNEL

    @abc.abstractmethod
    def grid(
        self, op: ir.Operation, plan: PlanT, target: TargetT
    ) -> tuple[list[ir.Value], ir.Operation]:
        """Builds the structure over the grid of `op` at its place; returns
        the coordinates of the block it runs the body for, one per grid
        dimension, and the op the body goes before (the terminator)."""

    def lower(self, op: ir.Operation, plan: PlanT, target: TargetT) -> None:
        body = op.regions[0].blocks[0]
        with ir.InsertionPoint(op), op.location:
            coordinates, end = self.grid(op, plan, target)
        for old, new in zip(body.arguments, coordinates, strict=True):
            old.replace_all_uses_with(new)
        irb.move_body(body, end)
        op.erase()


def tile_bytes(type_: ir.MemRefType) -> int:
    """The bytes a tile of `type_` takes."""
    return math.prod(type_.shape) * irb.bit_width(type_.element_type) // 8
