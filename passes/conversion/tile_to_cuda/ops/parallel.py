"""The cuda lowering of tile.parallel: the index space dealt out over the threads.

When the loop touches register tiles (tile-cuda-infer-layouts put them
there only if every access is at the loop indices and they share one
layout), each thread runs the body once per slot of that layout, at the
coordinates the layout gives, and those accesses become accesses of the
slot: the body is copied per slot so that every slot index is a constant.
Otherwise point p of the index space runs on thread p % threads, in an
`scf.for` from the thread id by the thread count.

Before:

    tile.parallel (%i, %j) in (64, 64) {
      %x = memref.load %acc[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      %y = arith.mulf %x, %s : f32
      memref.store %y, %acc[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
    }

After (cyclic layout over 128 threads, slot 0 of 32):

    %e = arith.addi %tid, %c0 : index
    %x = memref.load %regs[%c0] : memref<32xf32>
    %y = arith.mulf %x, %s : f32
    memref.store %y, %regs[%c0] : memref<32xf32>
    ...
"""

from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import memref

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.conversion.tile_to_cuda.analysis.layouts import (
    Layout,
    delinearize,
    guarded,
    kernel_threads,
    thread_id,
    tile_of,
)
from tilec.targets import CudaTarget


def _register_accesses(op: ir.Operation) -> list[ir.Operation]:
    """The loads and stores of register tiles in the body of `op`."""
    found = []
    for access in irb.collect(op, {"memref.load", "memref.store"}):
        buffer = access.operands[0 if access.name == "memref.load" else 1]
        if tile_of(buffer).in_registers:
            found.append(access)
    return found


def _owner(op: ir.Operation) -> Layout | None:
    layouts = set()
    for access in _register_accesses(op):
        buffer = access.operands[0 if access.name == "memref.load" else 1]
        layouts.add(tile_of(buffer).layout)
    if len(layouts) > 1:
        raise ValueError("register tiles of different layouts in one tile.parallel")
    return next(iter(layouts), None)


def _inline(op: ir.Operation, coords: list[ir.Value], slot: int | None) -> None:
    """Moves the body of `op` to its place with the indices `coords`; the
    register accesses of the body use slot `slot`."""
    body = op.regions[0].blocks[0]
    for access in _register_accesses(op):
        with ir.InsertionPoint(access), access.location:
            slot_index = [irb.index(slot)]
            if access.name == "memref.load":
                access.results[0].replace_all_uses_with(
                    memref.load(access.operands[0], slot_index)
                )
            else:
                memref.store(access.operands[0], access.operands[1], slot_index)
        access.erase()
    for old, new in zip(body.arguments, coords, strict=True):
        old.replace_all_uses_with(new)
    with ir.InsertionPoint(op):
        anchor = irb.index(0)
    for inner in list(body.operations)[:-1]:
        inner.operation.move_before(anchor.owner)
    anchor.owner.erase()


@register_lowering
class ParallelOverThreads(TileOpLowering[None, CudaTarget]):
    """tile.parallel with its points spread over the block's threads."""

    target = "cuda"
    op_names = ("tile.parallel",)
    name = "cuda-parallel-over-threads"
    phase = Phase.REGIONS
    restructures = True

    def lower(self, op: ir.Operation, plan: None, target: CudaTarget) -> None:
        extents = tuple(ir.DenseI64ArrayAttr(op.attributes["extents"]))
        threads = kernel_threads(op)
        owner = _owner(op)
        with ir.InsertionPoint(op), op.location:
            tid = thread_id()
            if owner is None:
                with irb.loop(tid, irb.index(math.prod(extents)), irb.index(threads)) as point:
                    coords = delinearize(point, extents)
                    copy = op.clone()
                    _inline(copy, coords, None)
                    copy.erase()
            else:
                coords_of = owner.thread_coords(tid)
                for slot in range(owner.slots):
                    with guarded(owner.valid(tid, slot)):
                        coords = coords_of(slot)
                        copy = op.clone()
                        _inline(copy, coords, slot)
                        copy.erase()
        op.erase()
