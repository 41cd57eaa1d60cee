"""The ascend vector lowering of tile.atomic_add: an `atomic_add` UB -> GM copy.

The NPU adds into global memory in the store path: between AscendC's
`SetAtomicAdd<T>()` and `SetAtomicNone()` an MTE3 `DataCopy` adds its data
to what GM holds instead of overwriting it, element by element and
atomically with respect to the other cores. That is `ascend.copy ...
atomic_add`, whose edge semantics are the tile op's (elements past the end
of the GM tensor are dropped). A tile addend is copied as it is (the op
gives it the destination's rank and element type); a scalar addend is first
written to a one-element UB temporary (`ascend.vdup`), then added the same
way, so a scalar add in a `tile.parallel` body (a histogram) becomes one
small DMA per point of the scalar loop. Only the element types the hardware
adds atomically (f32, f16, bf16, i32, i16, i8) have a lowering; an addend
in a cube buffer (an L0C accumulator) would need the fixpipe's atomic mode,
which is not lowered yet.

Before:

    tile.atomic_add %t, %out[%i, %j] : memref<16x64xf32, #tile.scope<ub>>, memref<?x?xf32>
    tile.atomic_add %v, %sum[%i] : f32, memref<?xf32>

After:

    ascend.copy %t[%c0, %c0], %out[%i, %j] sizes [16, 64] atomic_add
        : memref<16x64xf32, #tile.scope<ub>>, memref<?x?xf32>
    ascend.vdup %one, %v : memref<1xf32, #tile.scope<ub>>, f32
    ascend.copy %one[%c0], %sum[%i] sizes [1] atomic_add
        : memref<1xf32, #tile.scope<ub>>, memref<?xf32>
"""

from __future__ import annotations

from mlir import ir

from tilec.dialects import ascend
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.conversion.tile_to_ascend.ops import buffers
from tilec.passes.registry import emit_error
from tilec.targets.ascend import AscendTarget


def atomic_add_supported(element: ir.Type) -> bool:
    """Whether the store path of the NPU adds `element` atomically (the
    element types `ascend.copy ... atomic_add` accepts)."""
    if isinstance(element, ir.F32Type | ir.F16Type | ir.BF16Type):
        return True
    return (
        isinstance(element, ir.IntegerType)
        and ir.IntegerType(element).is_signless
        and ir.IntegerType(element).width in (8, 16, 32)
    )


@register_lowering
class AtomicAddToAtomicCopy(TileOpLowering[None, AscendTarget]):
    """tile.atomic_add into GM of a UB tile or a scalar, as an atomic ub -> gm ascend.copy."""

    target = "ascend"
    op_names = ("tile.atomic_add",)
    name = "ascend-vector-atomic-add"
    phase = Phase.LATE_ATOMIC_ADDS

    def applies(self, op: ir.Operation, target: AscendTarget) -> str | None:
        src, dst = op.operands[0], op.operands[1]
        if not buffers.is_global(dst):
            space = buffers.memory_space(ir.MemRefType(dst.type))
            return f"the destination is in the on-chip buffer {space}, not in global memory"
        if isinstance(src.type, ir.MemRefType):
            if buffers.is_cube(src):
                space = buffers.memory_space(ir.MemRefType(src.type))
                return f"the addend is in the cube buffer {space}"
            if buffers.is_global(src):
                return "the addend is a global buffer, not a UB tile"
        return None

    def lower(self, op: ir.Operation, plan: None, target: AscendTarget) -> None:
        src, dst, *offsets = op.operands
        element = ir.MemRefType(dst.type).element_type
        if not atomic_add_supported(element):
            raise emit_error(
                op,
                f"the NPU adds f32, f16, bf16, i32, i16 and i8 atomically, not {element}: "
                f"no ascend lowering of an atomic add into {dst.type}",
            )
        rank = len(offsets)
        with ir.InsertionPoint(op), op.location:
            zeros = [irb.index(0)] * rank
            if isinstance(src.type, ir.MemRefType):
                sizes = list(ir.MemRefType(src.type).shape)
                ascend.copy(src, zeros, dst, list(offsets), sizes, atomic_add=True)
            else:
                scratch = buffers.Scratch(op)
                staged = scratch.take([1] * rank, element)
                ascend.vdup(staged, src)
                ascend.copy(staged, zeros, dst, list(offsets), [1] * rank, atomic_add=True)
        op.erase()
