"""tile-cuda-distribute-thread-loops: per-thread code run by the threads themselves.

The DSL gives per-thread (SIMT) code its meaning in tile IR every target
can run (`tilec.language.threads`): loops over the block's threads
(`scf.for` marked `tile.threads`), split where the threads synchronize, and
`local` tiles that live across such a split made `(threads, ...)` tiles of
which each thread's loop iteration sees its row. On cuda the block's
threads are real, so this pass, first in tile-to-cuda, hands each
iteration back to its thread:

- a thread loop whose body holds no tile op of the block (only local
  tiles, their fills and scalar atomic adds, each thread's own) runs from the thread's
  index in steps of the block's thread count, so thread `t` runs iteration
  `t` (none past the loop's end: the first `count` threads of a named
  barrier's `if`), with a `tile.barrier` before and after it where the
  loops over the threads were split;
- a local tile allocated in such a loop, and a `(threads, ...)` local tile
  whose every access is a converted loop's own row, is the thread's own:
  a tile of the row's shape placed `private` (`tile.cuda_placement`), which
  tile-cuda-infer-layouts keeps and the alloc lowering makes a `memref.alloca`
  in the thread's registers or local memory. So its size is counted per thread
  (255 registers of 4 bytes, `tile-verify-kernels`), not per block.
- a loop that holds a tile op of the block (a `T.copy` into a local tile,
  say) keeps the old reading: every thread runs every iteration, the tile
  ops spread over the threads as usual and each scalar store made once,
  by thread 0 (convert-tile-to-cuda). Its `(threads, ...)` tiles live in
  shared memory, where that reading puts them, so they are counted there.

Before (64 threads):

    %rows = tile.alloc : memref<64x8xf32, #tile.scope<local>>
    scf.for %t = %c0 to %c64 step %c1 {
      %r = memref.subview %rows[%t, 0] [1, 8] [1, 1] : ... to memref<8xf32, strided<[1], ...>
      ...
    } {tile.threads}

After:

    %row = tile.alloc {tile.cuda_placement = "private"} : memref<8xf32, #tile.scope<local>>
    tile.barrier
    %tid = gpu.thread_id x
    scf.for %t = %tid to %c64 step %c64 {
      %r = memref.cast %row : memref<8xf32, ...> to memref<8xf32, strided<[1], ...>
      ...
    } {tile.cuda_per_thread}
    tile.barrier
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import gpu, memref

from tilec.dialects import tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_to_cuda.analysis.layouts import PLACEMENT, PRIVATE, retype_views
from tilec.passes.registry import Pass, register_pass

# Set by the DSL on a loop over the threads of a block (tilec.language.threads).
THREAD_LOOP = "tile.threads"
# Set here on a thread loop each thread runs its own iteration of.
PER_THREAD = "tile.cuda_per_thread"


def per_thread(op: ir.Operation) -> bool:
    """Whether `op` runs in per-thread code: each thread alone, on its own values."""
    return any(PER_THREAD in loop.attributes for loop in _loops(op))


def _loops(op: ir.Operation) -> list[ir.Operation]:
    found = []
    parent = op.parent
    while parent is not None and parent.name != "tile.kernel":
        if parent.name == "scf.for":
            found.append(parent.operation if hasattr(parent, "operation") else parent)
        parent = parent.parent
    return found


def _in_thread_loop(op: ir.Operation) -> bool:
    return any(THREAD_LOOP in loop.attributes or PER_THREAD in loop.attributes
               for loop in _loops(op))


def _is_local_alloc(op: ir.Operation) -> bool:
    return op.name == "tile.alloc" and tile.scope_of(
        ir.MemRefType(op.results[0].type)) is tile.Scope.local


def _threads_run_alone(loop: ir.Operation) -> bool:
    """Whether each thread can run its iteration of thread loop `loop` alone:
    it holds no tile op the block's threads run together."""
    for op in irb.every_op(loop)[:-1]:
        if _is_local_alloc(op):
            continue
        if op.name == "tile.atomic_add" and not isinstance(op.operands[0].type, ir.MemRefType):
            continue  # a scalar atomic add is each thread's own
        if op.name in ("tile.fill", "tile.clear") and tile.scope_of(
                ir.MemRefType(op.operands[0].type)) is tile.Scope.local:
            continue  # the thread's own tile
        if op.name.startswith("tile."):
            return False
    return True


def _row_index(use: ir.OpOperand, converted: dict[ir.Value, ir.Operation]) -> bool:
    """Whether `use` of a `(threads, ...)` tile reaches the row of the thread
    of a converted loop around it: a subview of that row, or an element of it."""
    op = irb.use_owner(use)
    if use.operand_number != (1 if op.name == "memref.store" else 0):
        return False
    if op.name == "memref.subview":
        offsets = list(ir.DenseI64ArrayAttr(op.attributes["static_offsets"]))
        sizes = list(ir.DenseI64ArrayAttr(op.attributes["static_sizes"]))
        shape = list(ir.MemRefType(op.operands[0].type).shape)
        dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
        if offsets[0] != dynamic or any(offsets[1:]) or sizes != [1, *shape[1:]]:
            return False
        first = op.operands[1]
    elif op.name in ("memref.load", "memref.store"):
        first = op.operands[use.operand_number + 1]
    else:
        return False
    loop = converted.get(first)
    return loop is not None and loop in _loops(op)


def _mark_private(alloc: ir.Operation) -> None:
    alloc.attributes[PLACEMENT] = ir.StringAttr.get(PRIVATE)


def _own_rows(alloc: ir.Operation) -> None:
    """Replaces `(threads, ...)` tile `alloc` by the row each thread owns."""
    rows = ir.MemRefType(alloc.results[0].type)
    shape = list(rows.shape[1:]) or [1]
    with ir.InsertionPoint(alloc), alloc.location:
        row = tile.alloc(ir.MemRefType.get(shape, rows.element_type,
                                           memory_space=rows.memory_space))
    _mark_private(row.owner)
    for use in list(alloc.results[0].uses):
        op = irb.use_owner(use)
        with ir.InsertionPoint(op), op.location:
            if op.name == "memref.subview":
                view = memref.cast(op.results[0].type, row)
                op.results[0].replace_all_uses_with(view)
            else:
                at = use.operand_number
                rest = list(op.operands)[at + 2:] or [irb.index(0)]
                if op.name == "memref.load":
                    op.results[0].replace_all_uses_with(memref.load(row, rest))
                else:
                    memref.store(op.operands[0], row, rest)
        op.erase()
    alloc.erase()


def _in_shared_memory(alloc: ir.Operation) -> None:
    """Moves a `(threads, ...)` tile that thread loops all threads run read
    to the shared scope, where the cuda lowering keeps it."""
    rows = ir.MemRefType(alloc.results[0].type)
    space = tile.scope_attr(tile.Scope.shared, rows.element_type.context)
    alloc.results[0].set_type(ir.MemRefType.get(rows.shape, rows.element_type,
                                                memory_space=space))
    retype_views(alloc.results[0], space)


def distribute(kernel: ir.Operation) -> None:
    """Hands the thread loops of `kernel` to the threads (see the module docstring)."""
    threads = ir.IntegerAttr(kernel.attributes["threads"]).value
    loops = [loop for loop in irb.collect(kernel, "scf.for")
             if THREAD_LOOP in loop.attributes and _threads_run_alone(loop)]
    converted: dict[ir.Value, ir.Operation] = {}
    for loop in loops:
        with ir.InsertionPoint(loop), loop.location:
            tile.barrier()
            loop.operands[0] = gpu.thread_id(gpu.Dimension.x)
            loop.operands[2] = irb.index(threads)
        with ir.InsertionPoint.after(loop), loop.location:
            tile.barrier()
        del loop.attributes[THREAD_LOOP]
        loop.attributes[PER_THREAD] = ir.UnitAttr.get()
        converted[loop.regions[0].blocks[0].arguments[0]] = loop
        for alloc in irb.collect(loop, "tile.alloc"):
            _mark_private(alloc)
    body = kernel.regions[0].blocks[0]
    for op in list(body.operations):
        op = op.operation
        if not _is_local_alloc(op) or PLACEMENT in op.attributes:
            continue
        shape = ir.MemRefType(op.results[0].type).shape
        if not shape or shape[0] != threads or not list(op.results[0].uses):
            continue
        users = list(op.results[0].uses)
        if all(_row_index(use, converted) for use in users):
            _own_rows(op)
        elif any(_in_thread_loop(irb.use_owner(use)) for use in users):
            _in_shared_memory(op)


@register_pass
@dataclass(frozen=True)
class CudaDistributeThreadLoopsPass(Pass):
    """Runs each iteration of a loop over the block's threads on its own thread."""

    argument = "tile-cuda-distribute-thread-loops"
    anchor = "func.func"
    summary = "Run each iteration of per-thread code's thread loops on its own cuda thread"

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            for kernel in irb.collect(op, "tile.kernel"):
                distribute(kernel)
