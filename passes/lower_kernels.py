"""tile-lower-kernels: tile.kernel, alloc, pipelined and barrier to scf and memref (cpu).

A kernel becomes an `scf.parallel` over its grid, which
`async-parallel-for` later spreads over the cores. Tiles become stack
memory (`memref.alloca`) at the start of the block body: their contents
are undefined until written, so hoisting them out of loops is safe and
keeps loops from growing the stack (`tile-hoist-allocas` moves them
further, to the entry of the function that runs a range of blocks). A
tile larger than `STACK_TILE_BYTES` goes on the heap and is freed at the
end of the block. `tile.pipelined` is a serial loop on cpu (`scf.for`) and
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

import math
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import memref, scf

from tilec.passes import _cpu_ir as cpu
from tilec.passes.registry import Pass, register_pass

# Worker threads have 8 MiB stacks; tiles up to this size stay on the stack.
STACK_TILE_BYTES = 256 * 1024


def _move_body(source: ir.Block, before: ir.Operation) -> None:
    """Moves every op of `source` but its terminator in front of `before`."""
    for op in list(source.operations)[:-1]:
        op.operation.move_before(before)


def _tile_bytes(type_: ir.MemRefType) -> int:
    return math.prod(type_.shape) * cpu.bit_width(type_.element_type) // 8


def lower_alloc(op: ir.Operation, heap_tiles: list[ir.Value]) -> None:
    type_ = ir.MemRefType(op.results[0].type)
    with cpu.scratch_insertion_point(op), op.location:
        if _tile_bytes(type_) > STACK_TILE_BYTES:
            new = memref.alloc(type_, [], [], alignment=64)
            heap_tiles.append(new)
        else:
            new = memref.alloca(type_, [], [], alignment=64)
    op.results[0].replace_all_uses_with(new)
    op.erase()


def lower_kernel(op: ir.Operation, heap_tiles: list[ir.Value]) -> None:
    """`op`'s body into an scf.parallel; `heap_tiles` allocated in it are freed
    at its end."""
    body = op.regions[0].blocks[0]
    rank = len(body.arguments)
    index = ir.IndexType.get()
    with ir.InsertionPoint(op), op.location:
        parallel = scf.ParallelOp(
            [], [cpu.index(0)] * rank, list(op.operands), [cpu.index(1)] * rank, []
        )
        block = parallel.regions[0].blocks.append(*[index] * rank)
        with ir.InsertionPoint(block):
            end = scf.ReduceOp([], 0)
    for old, new in zip(body.arguments, block.arguments, strict=True):
        old.replace_all_uses_with(new)
    _move_body(body, end.operation)
    with ir.InsertionPoint(end), op.location:
        for tile in heap_tiles:
            memref.dealloc(tile)
    op.erase()


def lower_pipelined(op: ir.Operation) -> None:
    body = op.regions[0].blocks[0]
    with ir.InsertionPoint(op), op.location:
        loop = scf.ForOp(*op.operands)
        with ir.InsertionPoint(loop.body):
            end = scf.YieldOp([])
    body.arguments[0].replace_all_uses_with(loop.induction_variable)
    _move_body(body, end.operation)
    op.erase()


@register_pass
@dataclass(frozen=True)
class LowerKernelsPass(Pass):
    """Lowers kernels to scf.parallel, tiles to stack/heap memory, pipelined
    loops to scf.for; marks entry functions for the C interface."""

    argument = "tile-lower-kernels"
    anchor = "func.func"
    summary = "Lower tile.kernel/alloc/pipelined/barrier to scf.parallel, memref and scf.for"

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            if "tile.entry" in op.attributes:
                op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get(op.context)
            for loop in reversed(cpu.collect(op, "tile.pipelined")):
                lower_pipelined(loop)
            for barrier in cpu.collect(op, "tile.barrier"):
                barrier.erase()
            for kernel in cpu.collect(op, "tile.kernel"):
                heap_tiles: list[ir.Value] = []
                for alloc in cpu.collect(kernel, "tile.alloc"):
                    lower_alloc(alloc, heap_tiles)
                lower_kernel(kernel, heap_tiles)
            for alloc in cpu.collect(op, "tile.alloc"):
                heap_tiles = []
                lower_alloc(alloc, heap_tiles)
                if heap_tiles:
                    _free_before_returns(op, heap_tiles)


def _free_before_returns(func: ir.Operation, tiles: list[ir.Value]) -> None:
    for ret in cpu.collect(func, "func.return"):
        with ir.InsertionPoint(ret), ret.location:
            for tile in tiles:
                memref.dealloc(tile)
