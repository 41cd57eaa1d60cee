"""The cuda lowering of tile.fill and tile.clear: each thread writes its elements.

A register tile's thread writes the slots it holds (constant slots, so
LLVM keeps them in registers); a tile in shared or global memory is dealt
out element by element, element e to thread e % threads. In per-thread code
(tile-cuda-distribute-thread-loops) the thread fills its own tile alone.

Before:

    tile.fill %t, %v : memref<64x64xf32, #tile.scope<fragment>>, f32

After (a cyclic register tile, 32 slots):

    memref.store %v, %regs[%c0] : memref<32xf32>
    ...
    memref.store %v, %regs[%c31] : memref<32xf32>
"""

from __future__ import annotations

from mlir import ir

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.conversion.tile_to_cuda.analysis.layouts import (
    Tile,
    for_each_element,
    kernel_threads,
    tile_of,
)
from tilec.passes.conversion.tile_to_cuda.distribute_thread_loops import per_thread
from tilec.targets import CudaTarget


def fill(dst: Tile, value: ir.Value, threads: int) -> None:
    """Every element of `dst` set to `value`, spread over the threads."""
    for_each_element(
        dst.shape, threads, dst.layout, lambda coords, slot: dst.store(value, coords, slot)
    )


@register_lowering
class FillByThreads(TileOpLowering[None, CudaTarget]):
    """tile.fill / tile.clear: each thread stores its share of the elements."""

    target = "cuda"
    op_names = ("tile.fill", "tile.clear")
    name = "cuda-fill-by-threads"
    phase = Phase.FILLS

    def applies(self, op: ir.Operation, target: CudaTarget) -> str | None:
        if not ir.MemRefType(op.operands[0].type).has_static_shape:
            return "the filled buffer must have a static shape"
        return None

    def lower(self, op: ir.Operation, plan: None, target: CudaTarget) -> None:
        dst = tile_of(op.operands[0])
        value = op.operands[1] if len(op.operands) > 1 else irb.zero(dst.element)
        if per_thread(op):  # a thread's own tile, which it fills alone
            with irb.loop_nest(dst.shape) as coords:
                dst.store(value, coords, None)
        else:
            fill(dst, value, kernel_threads(op))
        op.erase()
