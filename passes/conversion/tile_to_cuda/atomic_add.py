"""The cuda lowering of tile.atomic_add: `memref.atomic_rmw` (red.global.add) per element.

A tile source is added by the threads that hold (registers) or are dealt
(memory) its elements; elements past the end of the destination are
dropped. A scalar source is added once per block, by thread 0, as the cpu
adds it once per block.

Before:

    tile.atomic_add %t, %out[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>, memref<?x?xf32>

After (schematically, per slot):

    scf.if %inside {
      %v = memref.load %regs[%c3] : memref<32xf32>
      %old = memref.atomic_rmw addf %v, %out[%r, %c] : (f32, memref<?x?xf32>) -> f32
    }
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import TileOpLowering, register_lowering
from tilec.passes.conversion.tile_to_cuda.infer_layouts import (
    for_each_element,
    guarded,
    kernel_threads,
    thread_id,
    tile_of,
)
from tilec.targets import CudaTarget


def _add(value: ir.Value, dst: ir.Value, positions: list[ir.Value]) -> None:
    kind = arith.AtomicRMWKind.addf if irb.is_float(value.type) else arith.AtomicRMWKind.addi
    memref.atomic_rmw(kind, value, dst, positions)


def _inside(dst: ir.Value, positions: list[ir.Value]) -> ir.Value:
    check = None
    for dim, position in enumerate(positions):
        ok = arith.cmpi(arith.CmpIPredicate.ult, position, memref.dim(dst, irb.index(dim)))
        check = ok if check is None else arith.andi(check, ok)
    assert check is not None
    return check


@register_lowering
class AtomicAddByThreads(TileOpLowering):
    """tile.atomic_add as one atomic read-modify-write per element."""

    target = "cuda"
    op_names = ("tile.atomic_add",)
    name = "cuda-atomic-add-by-threads"

    def lower(self, op: ir.Operation, plan: object, target: CudaTarget) -> None:
        src, dst = op.operands[0], op.operands[1]
        offsets = list(op.operands)[2:]
        with ir.InsertionPoint(op), op.location:
            if not isinstance(src.type, ir.MemRefType):
                is_first = arith.cmpi(arith.CmpIPredicate.eq, thread_id(), irb.index(0))
                with guarded(arith.andi(is_first, _inside(dst, offsets))):
                    _add(src, dst, offsets)
            else:
                tile = tile_of(src)

                def body(coords: list[ir.Value], slot: int | None) -> None:
                    positions = [irb.add(o, c) for o, c in zip(offsets, coords, strict=True)]
                    with guarded(_inside(dst, positions)):
                        _add(tile.load(coords, slot), dst, positions)

                for_each_element(tile.shape, kernel_threads(op), tile.layout, body)
        op.erase()
