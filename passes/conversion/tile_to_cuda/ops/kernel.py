"""The cuda lowerings of tile.kernel, alloc, pipelined and barrier.

A kernel becomes a `gpu.launch` with its grid (unused dimensions 1) and
`threads` threads along x; `gpu-kernel-outlining` then makes it a
`gpu.func` with a known block size and a `gpu.launch_func`. Shared tiles
are views at fixed, 128-byte aligned offsets of the block's dynamic shared
memory (one buffer, so a kernel may use more than the 48 KB of static
shared memory), keeping the swizzle mark of their alloc (1024-byte aligned
for a wgmma operand, whose swizzle repeats every 1024 bytes); the
kernel's total is its launch's dynamic shared memory size, checked
against the arch. A register tile (see tile-cuda-infer-layouts) becomes
a private `memref<slots x T>` carrying its layout; a tile of one thread of
per-thread code (`private`, tile-cuda-distribute-thread-loops) a private
memref of its shape. `tile.barrier` is
`gpu.barrier`; a `tile.pipelined` loop that cannot be a cp.async
pipeline (`pipeline.py`) is an `scf.for` whose copies wait for their own
cp.async groups. A warp-specialized kernel (`warp_specialize.py`) launches
one more warpgroup, the producer, and its consumers' block barriers become
a named barrier of the consumer threads.

Before:

    tile.kernel blocks(%bx) in (%n) threads = 128 {
      %s = tile.alloc {tile.cuda_placement = "shared"} : memref<64x32xf16, #tile.scope<shared>>
      %f = tile.alloc {tile.cuda_placement = "cyclic"} : memref<64x64xf32, #tile.scope<fragment>>
    }

After:

    gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1)
               dynamic_shared_memory_size %c4096_i32 {
      %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %s = memref.view %smem[%c0][] : ... to memref<64x32xf16, #gpu.address_space<workgroup>>
      %f = memref.alloca() {tile.cuda_layout = "cyclic", ...} : memref<32xf32>
      gpu.terminator
    }
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, gpu, memref, nvvm

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.kernel_lowering import KernelLowering, tile_bytes
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.conversion.tile_to_cuda.analysis.layouts import (
    LAYOUT,
    LOGICAL_SHAPE,
    PLACEMENT,
    PRIVATE,
    THREADS,
    WGMMA_SWIZZLE,
    Layout,
    copy_swizzle,
    kernel_threads,
    retype_views,
    workgroup_space,
)
from tilec.passes.conversion.tile_to_cuda.analysis.wgmma_plan import WARPGROUP
from tilec.passes.registry import PassFailure
from tilec.targets import CudaTarget

SHARED_BYTES = "tile.cuda_shared_bytes"
# Set by warp specialization (warp_specialize.py, which imports this module):
# the tile.kernel's consumer threads, and the scf.if of their code.
CONSUMERS = "tile.cuda_consumer_threads"
CONSUMER_BRANCH = "tile.cuda_consumer_branch"
CONSUMER_BARRIER = 1
SHARED_ALIGNMENT = 128
WGMMA_ALIGNMENT = 1024


def tile_alignment(marked: ir.Operation) -> int:
    """The byte alignment of a shared tile whose alloc (or view) is `marked`."""
    return WGMMA_ALIGNMENT if WGMMA_SWIZZLE in marked.attributes else SHARED_ALIGNMENT


@register_lowering
class AllocToSharedOrRegisters(TileOpLowering[str, CudaTarget]):
    """tile.alloc as a view of dynamic shared memory or a private register array."""

    target = "cuda"
    op_names = ("tile.alloc",)
    name = "cuda-alloc-shared-or-registers"
    phase = Phase.EARLY_TILES

    def applies(self, op: ir.Operation, target: CudaTarget) -> str | None:
        if irb.enclosing(op, {"tile.kernel"}) is None:
            return "a cuda tile must be allocated inside a tile.kernel"
        return None

    def infer(self, op: ir.Operation, target: CudaTarget) -> str:
        if PLACEMENT not in op.attributes:
            return "shared"
        return ir.StringAttr(op.attributes[PLACEMENT]).value

    def lower(self, op: ir.Operation, plan: str, target: CudaTarget) -> None:
        type_ = ir.MemRefType(op.results[0].type)
        kernel = irb.enclosing(op, {"tile.kernel"})
        with irb.scratch_insertion_point(op), op.location:
            if plan == "shared":
                used = _shared_bytes(kernel)
                alignment = tile_alignment(op)
                offset = -(-used // alignment) * alignment
                kernel.attributes[SHARED_BYTES] = ir.IntegerAttr.get(
                    ir.IntegerType.get_signless(64), offset + tile_bytes(type_)
                )
                base_type = ir.MemRefType.get(
                    [ir.ShapedType.get_dynamic_size()], ir.IntegerType.get_signless(8),
                    memory_space=workgroup_space(),
                )
                base = gpu.dynamic_shared_memory(base_type)
                view_type = ir.MemRefType.get(
                    type_.shape, type_.element_type, memory_space=workgroup_space()
                )
                new = memref.view(view_type, base, irb.index(offset), [])
                copy_swizzle(op, new.owner)
            elif plan == PRIVATE:  # one thread's own tile (distribute_thread_loops.py)
                new = memref.alloca(ir.MemRefType.get(type_.shape, type_.element_type), [], [])
            else:
                threads = kernel_threads(op)
                layout = Layout.parse(plan, tuple(type_.shape), threads)
                new = memref.alloca(ir.MemRefType.get([layout.slots], type_.element_type), [], [])
                new.owner.attributes[LAYOUT] = ir.StringAttr.get(plan)
                new.owner.attributes[LOGICAL_SHAPE] = ir.DenseI64ArrayAttr.get(list(type_.shape))
                new.owner.attributes[THREADS] = ir.IntegerAttr.get(
                    ir.IntegerType.get_signless(64), threads
                )
        op.results[0].replace_all_uses_with(new)
        if plan in ("shared", PRIVATE):
            retype_views(new, workgroup_space() if plan == "shared" else None)
        op.erase()


def _shared_bytes(kernel: ir.Operation) -> int:
    if SHARED_BYTES not in kernel.attributes:
        return 0
    return ir.IntegerAttr(kernel.attributes[SHARED_BYTES]).value


@register_lowering
class KernelToGpuLaunch(KernelLowering[None, CudaTarget]):
    """tile.kernel as a gpu.launch of `threads` threads per block."""

    target = "cuda"
    name = "cuda-kernel-gpu-launch"

    def grid(
        self, op: ir.Operation, plan: None, target: CudaTarget
    ) -> tuple[list[ir.Value], ir.Operation]:
        shared = _shared_bytes(op)
        if shared > target.shared_memory_bytes:
            op.location.emit_error(
                f"the shared tiles of this kernel need {shared} bytes of shared memory; "
                f"{target.spec} has at most {target.shared_memory_bytes} per block"
            )
            raise PassFailure("shared memory overflow")
        grid = list(op.operands)
        threads = ir.IntegerAttr(op.attributes["threads"]).value
        if CONSUMERS in op.attributes:  # warp-specialized: one more warpgroup, the producer
            threads += WARPGROUP
            _consumer_barriers(op)
        one = irb.index(1)
        launch = gpu.LaunchOp(
            tuple([*grid, one, one][:3]),
            (irb.index(threads), one, one),
            dynamic_shared_memory_size=arith.constant(ir.IntegerType.get_signless(32), shared),
        )
        block = launch.regions[0].blocks[0]
        with ir.InsertionPoint(block):
            end = gpu.TerminatorOp()
        # The block ids (x, y, z) lead the launch's arguments.
        return list(block.arguments)[: len(grid)], end.operation


def _consumer_barriers(kernel: ir.Operation) -> None:
    """The block barriers of a warp-specialized kernel's consumer code as a
    named barrier of the consumer threads (the producer never reaches them)."""
    consumers = ir.IntegerAttr(kernel.attributes[CONSUMERS]).value
    i32 = ir.IntegerType.get_signless(32)
    for branch in irb.collect(kernel, "scf.if"):
        if CONSUMER_BRANCH not in branch.attributes:
            continue
        consumer_ops = [o.operation for o in branch.regions[0].blocks[0].operations]
        barriers = [b for o in consumer_ops for b in irb.collect(o, "gpu.barrier")]
        for barrier in barriers:
            with ir.InsertionPoint(barrier), barrier.location:
                nvvm.barrier(None, barrier_id=arith.constant(i32, CONSUMER_BARRIER),
                             number_of_threads=arith.constant(i32, consumers))
            barrier.erase()


@register_lowering
class PipelinedToLoop(TileOpLowering[None, CudaTarget]):
    """tile.pipelined as an scf.for whose copies wait for their own cp.async groups:
    where no pipelining lowering applies (no stage copies, one stage), which supersede it."""

    target = "cuda"
    op_names = ("tile.pipelined",)
    name = "cuda-pipelined-loop"
    phase = Phase.LOOP_SCHEDULES

    def lower(self, op: ir.Operation, plan: None, target: CudaTarget) -> None:
        irb.pipelined_as_loop(op)


@register_lowering
class BarrierToGpuBarrier(TileOpLowering[None, CudaTarget]):
    """tile.barrier as gpu.barrier (__syncthreads)."""

    target = "cuda"
    op_names = ("tile.barrier",)
    name = "cuda-barrier"
    phase = Phase.BARRIERS

    def lower(self, op: ir.Operation, plan: None, target: CudaTarget) -> None:
        with ir.InsertionPoint(op), op.location:
            gpu.barrier()
        op.erase()
