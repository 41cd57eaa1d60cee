"""The cuda lowerings of tile.reduce and tile.cumsum: warp shuffles, or one line per thread.

Both operands of a reduction are in shared memory (tile-cuda-infer-layouts
puts them there: each output element needs elements that other threads
wrote), with barriers around the op. With 32-bit elements and at least two
threads per output element, `cuda-reduce-warp-shuffle` gives each output a
group of G lanes of one warp (G a power of two up to 32): lane j combines
elements j, j + G, ... of the line, then log2(G) `gpu.shuffle xor` steps
combine the lanes, and the group's first lane writes the result. Every
lane of a warp runs the same number of shuffles (a group past the last
output reduces line 0 again and writes nothing), as shuffles need. Otherwise
(`cuda-reduce-by-threads`) output element e is computed by thread e %
threads, walking the line. `clear = false` starts from the old value. The
combining rules (NaN-propagating max/min, absolute values first for
abssum/absmax, the neutral elements) are the cpu lowering's. A cumsum gives
each thread whole lines along `dim`, carried in a loop (from the end with
`reverse`).

Before:

    tile.reduce max %s, %m dim = 1 : memref<64x64xf32, ...>, memref<64xf32, ...>

After (schematically):

    scf.for %e = %tid to %c64 step %c128 {
      %r = scf.for %k = %c0 to %c64 step %c1 iter_args(%a = %ninf) -> (f32) {
        %x = memref.load %s[%e, %k] : memref<64x64xf32, #gpu.address_space<workgroup>>
        %y = arith.maximumf %a, %x : f32
        scf.yield %y : f32
      }
      memref.store %r, %m[%e] : memref<64xf32, #gpu.address_space<workgroup>>
    }
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, gpu, scf

from tilec.dialects import tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.conversion.tile_semantics import ReduceKind
from tilec.passes.conversion.tile_to_cuda.analysis.layouts import (
    WARP,
    delinearize,
    for_each_element,
    guarded,
    kernel_threads,
    thread_id,
    tile_of,
)
from tilec.targets import CudaTarget


def _in_memory(op: ir.Operation) -> str | None:
    if any(tile_of(v).in_registers for v in list(op.operands)[:2]):
        return "its operands must be in shared memory (see tile-cuda-infer-layouts)"
    return None


def _group_size(op: ir.Operation) -> int:
    """Lanes per output element of a shuffle reduction (1: none)."""
    src, dst = tile_of(op.operands[0]), tile_of(op.operands[1])
    if irb.bit_width(src.element) != 32:
        return 1
    extent = src.shape[ir.IntegerAttr(op.attributes["dim"]).value]
    outputs = 1
    for size in dst.shape:
        outputs *= size
    limit = min(WARP, extent, max(1, kernel_threads(op) // outputs))
    group = 1
    while group * 2 <= limit:
        group *= 2
    return group


def _reduction(op: ir.Operation) -> tuple:
    src, dst = tile_of(op.operands[0]), tile_of(op.operands[1])
    dim = ir.IntegerAttr(op.attributes["dim"]).value
    clear = "clear" not in op.attributes or ir.BoolAttr(op.attributes["clear"]).value
    kind = ReduceKind(str(tile.reduce_kind_of(op.attributes["kind"])), src.element)
    return src, dst, dim, clear, kind


def _source_coords(coords: list[ir.Value], k: ir.Value, dim: int, rank: int) -> list[ir.Value]:
    return [k] if rank == 1 else [*coords[:dim], k, *coords[dim:]]


@register_lowering
class ReduceByWarpShuffle(TileOpLowering[None, CudaTarget]):
    """tile.reduce with a group of lanes per output element, combined by shuffles."""

    target = "cuda"
    op_names = ("tile.reduce",)
    name = "cuda-reduce-warp-shuffle"
    phase = Phase.REDUCTIONS

    def applies(self, op: ir.Operation, target: CudaTarget) -> str | None:
        reason = _in_memory(op)
        if reason is None and _group_size(op) < 2:
            return "needs 32-bit elements and two or more threads per output"
        return reason

    def lower(self, op: ir.Operation, plan: None, target: CudaTarget) -> None:
        src, dst, dim, clear, kind = _reduction(op)
        group = _group_size(op)
        threads = kernel_threads(op)
        groups = threads // group
        outputs = 1
        for size in dst.shape:
            outputs *= size
        extent = src.shape[dim]
        i32 = ir.IntegerType.get_signless(32)
        with ir.InsertionPoint(op), op.location:
            tid = thread_id()
            lane = arith.remui(tid, irb.index(group))
            first = arith.divui(tid, irb.index(group))
            for r in range(-(-outputs // groups)):
                output = arith.addi(irb.index(r * groups), first)
                valid = None
                if (r + 1) * groups > outputs:
                    valid = arith.cmpi(arith.CmpIPredicate.ult, output, irb.index(outputs))
                safe = output if valid is None else arith.select(valid, output, irb.index(0))
                coords = delinearize(safe, dst.shape)
                loop = scf.ForOp(lane, irb.index(extent), irb.index(group),
                                 [kind.identity(src.element)])
                with ir.InsertionPoint(loop.body):
                    where = _source_coords(coords, loop.induction_variable, dim, len(src.shape))
                    value = kind.prepare(src.load(where, None))
                    scf.YieldOp([kind.combine(loop.inner_iter_args[0], value)])
                partial = loop.results[0]
                offset = group // 2
                while offset:
                    other = gpu.shuffle(partial, arith.constant(i32, offset),
                                        arith.constant(i32, WARP), gpu.ShuffleMode.XOR)[0]
                    partial = kind.combine(partial, other)
                    offset //= 2
                writer = arith.cmpi(arith.CmpIPredicate.eq, lane, irb.index(0))
                if valid is not None:
                    writer = arith.andi(writer, valid)
                with guarded(writer):
                    result = partial if clear else kind.combine(dst.load(coords, None), partial)
                    dst.store(result, coords, None)
        op.erase()


@register_lowering
class ReduceByThreads(TileOpLowering[None, CudaTarget]):
    """tile.reduce with one output element per thread at a time."""

    target = "cuda"
    op_names = ("tile.reduce",)
    name = "cuda-reduce-by-threads"
    phase = Phase.REDUCTIONS

    def applies(self, op: ir.Operation, target: CudaTarget) -> str | None:
        reason = _in_memory(op)
        if reason is None and _group_size(op) >= 2:
            return "warp shuffles apply"
        return reason

    def lower(self, op: ir.Operation, plan: None, target: CudaTarget) -> None:
        src, dst, dim, clear, kind = _reduction(op)

        def body(coords: list[ir.Value], slot: int | None) -> None:
            start = kind.identity(src.element) if clear else dst.load(coords, slot)
            loop = scf.ForOp(irb.index(0), irb.index(src.shape[dim]), irb.index(1), [start])
            with ir.InsertionPoint(loop.body):
                where = _source_coords(coords, loop.induction_variable, dim, len(src.shape))
                value = kind.prepare(src.load(where, None))
                scf.YieldOp([kind.combine(loop.inner_iter_args[0], value)])
            dst.store(loop.results[0], coords, slot)

        with ir.InsertionPoint(op), op.location:
            for_each_element(dst.shape, kernel_threads(op), None, body)
        op.erase()


@register_lowering
class CumsumByThreads(TileOpLowering[None, CudaTarget]):
    """tile.cumsum with whole lines along `dim` per thread."""

    target = "cuda"
    op_names = ("tile.cumsum",)
    name = "cuda-cumsum-by-threads"
    phase = Phase.REDUCTIONS

    def applies(self, op: ir.Operation, target: CudaTarget) -> str | None:
        return _in_memory(op)

    def lower(self, op: ir.Operation, plan: None, target: CudaTarget) -> None:
        src, dst = tile_of(op.operands[0]), tile_of(op.operands[1])
        dim = ir.IntegerAttr(op.attributes["dim"]).value
        reverse = "reverse" in op.attributes and ir.BoolAttr(op.attributes["reverse"]).value
        extent = src.shape[dim]
        lines = [s for d, s in enumerate(src.shape) if d != dim] or [1]
        add = arith.addf if irb.is_float(src.element) else arith.addi

        def body(coords: list[ir.Value], slot: int | None) -> None:
            outer = coords if len(src.shape) > 1 else []
            loop = scf.ForOp(irb.index(0), irb.index(extent), irb.index(1),
                             [irb.zero(src.element)])
            with ir.InsertionPoint(loop.body):
                k = loop.induction_variable
                if reverse:
                    k = arith.subi(irb.index(extent - 1), k)
                where = [*outer[:dim], k, *outer[dim:]]
                total = add(loop.inner_iter_args[0], src.load(where, None))
                dst.store(total, where, None)
                scf.YieldOp([total])

        with ir.InsertionPoint(op), op.location:
            for_each_element(lines, kernel_threads(op), None, body)
        op.erase()
