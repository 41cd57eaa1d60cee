"""The cpu lowerings of tile.kernel, alloc, pipelined and barrier: scf and memref.

A kernel becomes an `scf.parallel` over its grid, which
`async-parallel-for` later spreads over the cores. Tiles become stack
memory (`memref.alloca`) at the start of the block body: their contents
are undefined until written, so hoisting them out of loops is safe and
keeps loops from growing the stack (`tile-hoist-allocas` moves them
further, to the entry of the function that runs a range of blocks). A
tile larger than `STACK_TILE_BYTES` goes on the heap and is freed at the
end of the block (or function). `tile.pipelined` is a serial loop on cpu (`scf.for`) and
`tile.barrier` has nothing to wait for (one thread runs a block). Entry
functions (`tile.entry`) get `llvm.emit_c_interface` so the JIT can call
them with memref descriptors.

Before:

    tile.kernel blocks(%bx) in (%n) threads = 128 {
      %t = tile.alloc : memref<64xf32, #tile.scope<shared>>
      ...
    }

After:

    scf.parallel (%bx) = (%c0) to (%n) step (%c1) {
      %t = memref.alloca() : memref<64xf32, #tile.scope<shared>>
      ...
      scf.reduce
    }
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import memref, scf

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.kernel_lowering import KernelLowering, tile_bytes
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.targets import CpuTarget

# Worker threads have 8 MiB stacks; tiles up to this size stay on the stack.
STACK_TILE_BYTES = 256 * 1024


@register_lowering
class AllocToStackOrHeap(TileOpLowering[str, CpuTarget]):
    """tile.alloc as an aligned alloca, or a heap buffer for a large tile."""

    target = "cpu"
    op_names = ("tile.alloc",)
    name = "cpu-alloc-stack-or-heap"
    phase = Phase.TILES

    def infer(self, op: ir.Operation, target: CpuTarget) -> str:
        type_ = ir.MemRefType(op.results[0].type)
        return "heap" if tile_bytes(type_) > STACK_TILE_BYTES else "stack"

    def lower(self, op: ir.Operation, plan: str, target: CpuTarget) -> None:
        type_ = ir.MemRefType(op.results[0].type)
        with irb.scratch_insertion_point(op), op.location:
            if plan == "heap":
                new = memref.alloc(type_, [], [], alignment=64)
            else:
                new = memref.alloca(type_, [], [], alignment=64)
        op.results[0].replace_all_uses_with(new)
        if plan == "heap":
            _free_at_exits(op, new)
        op.erase()


def _free_at_exits(op: ir.Operation, buffer: ir.Value) -> None:
    """Frees a heap tile where its block ends: before the kernel body's
    terminator (moved with the body into the block loop), or before every
    return of a function when the tile is outside any kernel."""
    owner = irb.enclosing(op, {"tile.kernel", "func.func"})
    if owner.name == "tile.kernel":
        exits = [list(owner.regions[0].blocks[0].operations)[-1].operation]
    else:
        exits = irb.collect(owner, "func.return")
    for exit_op in exits:
        with ir.InsertionPoint(exit_op), exit_op.location:
            memref.dealloc(buffer)


@register_lowering
class KernelToParallelLoop(KernelLowering[None, CpuTarget]):
    """tile.kernel as an scf.parallel over its grid."""

    target = "cpu"
    name = "cpu-kernel-parallel-loop"

    def grid(
        self, op: ir.Operation, plan: None, target: CpuTarget
    ) -> tuple[list[ir.Value], ir.Operation]:
        rank = len(op.operands)
        parallel = scf.ParallelOp(
            [], [irb.index(0)] * rank, list(op.operands), [irb.index(1)] * rank, []
        )
        block = parallel.regions[0].blocks.append(*[ir.IndexType.get()] * rank)
        with ir.InsertionPoint(block):
            end = scf.ReduceOp([], 0)
        return list(block.arguments), end.operation


@register_lowering
class PipelinedToSerialLoop(TileOpLowering[None, CpuTarget]):
    """tile.pipelined as an scf.for: one thread has nothing to overlap."""

    target = "cpu"
    op_names = ("tile.pipelined",)
    name = "cpu-pipelined-serial-loop"
    phase = Phase.LOOPS

    def lower(self, op: ir.Operation, plan: None, target: CpuTarget) -> None:
        irb.pipelined_as_loop(op)


@register_lowering
class BarrierToNothing(TileOpLowering[None, CpuTarget]):
    """tile.barrier is erased: one thread runs a block on cpu."""

    target = "cpu"
    op_names = ("tile.barrier",)
    name = "cpu-barrier-erased"
    phase = Phase.BARRIERS

    def lower(self, op: ir.Operation, plan: None, target: CpuTarget) -> None:
        op.erase()
