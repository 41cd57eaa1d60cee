"""convert-tile-to-cuda: every tile op to gpu, nvgpu, scf and memref code for one arch.

The pass first checks what LLVM's NVPTX backend cannot take for the arch
(it would abort the process, DESIGN.md §3), reporting at the op: atomic adds
of 8-bit floats. (Other 8-bit float code moves their bytes, or converts them
with tile-cuda-expand-fp8-conversions; tile-cuda-widen-fp8-operands has made
the operands of gemms not on wgmma f16.) It then resolves every tile op
to its one cuda lowering before rewriting anything (see
`tilec.passes.conversion.lowering`), places the tiles (registers or shared
memory, tile-cuda-infer-layouts, unless that already ran) and lowers the
ops in the phases their lowerings declare: tiles first (so every other
lowering sees real buffers), the kernel last. The ops of as many phases
as is safe are collected in one walk (the IR grows tenfold as the gemms
and copies are lowered, and walking it once per phase was most of the
pass's time): a pipeline clones and erases the ops of its loop and a
tile.parallel those of its body (their lowerings declare `restructures`),
so the ops of a later phase nested in either are collected afresh once
that phase has run (a Python handle to an erased op aborts the process). Each tile op that
touches shared memory gets a `gpu.barrier` before and after it, since its
threads read what other threads wrote (canonicalize merges the adjacent
ones); so does each tile op that touches a global buffer the kernel writes
(a block's threads may read back what others wrote). Scalar stores in the
kernel body outside a `tile.parallel` and per-thread code
(tile-cuda-distribute-thread-loops) are made by thread 0 alone between
barriers, as the block makes them once on the cpu.

Before:

    tile.kernel blocks(%bx) in (%n) threads = 128 {
      %t = tile.alloc : memref<64xf32, #tile.scope<fragment>>
      tile.fill %t, %v : memref<64xf32, #tile.scope<fragment>>, f32
      ...
    }

After:

    gpu.launch blocks(%bx, %by, %bz) in (...) threads(%tx, %ty, %tz) in (%sx = %c128, ...) {
      %t = memref.alloca() {tile.cuda_layout = "cyclic", ...} : memref<1xf32>
      ...
      gpu.terminator
    }
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, gpu, memref, scf

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import lower_ops, lowerings
from tilec.passes.conversion.target_options import target_option
from tilec.passes.conversion.tile_conversion import Phases, TileConversion
from tilec.passes.conversion.tile_to_cuda.analysis.layouts import (
    PLACEMENT,
    check_policies,
    is_workgroup,
    on_chip_scope,
    thread_id,
)
from tilec.passes.conversion.tile_to_cuda.distribute_thread_loops import per_thread
from tilec.passes.conversion.tile_to_cuda.infer_layouts import infer_layouts
from tilec.passes.conversion.tile_to_cuda.ops.atomic_add import scalar_adds_as_red
from tilec.passes.registry import PassFailure, import_package, register_pass
from tilec.targets import target_of
from tilec.targets.cuda import CudaTarget

import_package("tilec.passes.conversion.tile_to_cuda.ops")  # every lowering registers itself
_UNSYNCHRONIZED = {"tile.pipelined", "tile.barrier", "tile.kernel", "tile.alloc"}


def _unsupported_types(func: ir.Operation) -> None:
    """Reports every atomic add of 8-bit floats: PTX has no atomic add of
    them, and NVPTX aborts on the read-modify-write of a float it lacks."""
    failed = False
    for op in irb.collect(func, {"tile.atomic_add", "memref.atomic_rmw"}):
        types = [v.type for v in op.operands]
        elements = [ir.MemRefType(t).element_type if isinstance(t, ir.MemRefType) else t
                    for t in types]
        bad = sorted({str(e) for e in elements if str(e).startswith("f8")})
        if bad:
            op.location.emit_error(f"'{op.name}' adds {', '.join(bad)}: atomic adds of 8-bit "
                                   "floats are not lowered for cuda")
            failed = True
    if failed:
        raise PassFailure("8-bit float atomics")


def _outside_kernels(func: ir.Operation) -> None:
    """Reports every tile op outside a tile.kernel: on cuda its work is
    spread over the kernel's threads, which only the kernel says."""
    # (A stray tile.alloc is the alloc lowering's to report.)
    stray = [op for op in irb.every_op(func)
             if op.name.startswith("tile.")
             and op.name not in ("tile.kernel", "tile.yield", "tile.alloc")
             and irb.enclosing(op, {"tile.kernel"}) is None]
    for op in stray:
        op.location.emit_error(f"'{op.name}' outside a tile.kernel cannot be lowered for cuda: "
                               "its work is spread over the kernel's threads")
    if stray:
        raise PassFailure("tile ops outside kernels")


# (op, operand number) of the ops that write a global buffer.
_GLOBAL_WRITES = {("tile.atomic_add", 1), ("memref.store", 1), ("memref.atomic_rmw", 1)}


def _written_globals(func: ir.Operation) -> list[ir.Value]:
    """The global buffers that some op of `func` writes."""
    written: list[ir.Value] = []
    for op in irb.every_op(func):
        numbers = [n for name, n in _GLOBAL_WRITES if name == op.name]
        if op.name == "tile.copy":
            numbers = [1 + ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"])[1]]
        for number in numbers:
            buffer = op.operands[number]
            on_chip = on_chip_scope(ir.MemRefType(buffer.type)) or is_workgroup(buffer.type)
            if not on_chip and buffer not in written:
                written.append(buffer)
    return written


def _shares_memory(op: ir.Operation, written: list[ir.Value]) -> bool:
    """Whether `op` touches shared memory, or a global buffer the kernel
    writes: other threads may write what it reads, or read what it writes."""
    return any(
        is_workgroup(v.type) or v in written for inner in irb.every_op(op) for v in inner.operands
    )


def _synchronized(ops: list[ir.Operation], target: CudaTarget, written: list[ir.Value]) -> None:
    """Lowers `ops`, each between barriers when it shares memory with other threads."""
    for op in ops:
        # An op of a tile.parallel body runs per element, on diverging
        # threads: the barriers go around the tile.parallel instead (around
        # the loop of per-thread code).
        if (op.name not in _UNSYNCHRONIZED and _shares_memory(op, written)
                and irb.enclosing(op, {"tile.parallel"}) is None and not per_thread(op)):
            with ir.InsertionPoint(op), op.location:
                gpu.barrier()
                after = gpu.barrier()
            op.move_before(after.operation)
        lower_ops([op], target)


def _phase_ops(func: ir.Operation, phases: Phases) -> list[list[ir.Operation]]:
    """The ops of each of `phases` in `func`, in pre-order, from one walk."""
    phase_of = {name: number for number, phase in enumerate(phases) for name in phase}
    found: list[list[ir.Operation]] = [[] for _ in phases]

    def visit(op: ir.Operation) -> ir.WalkResult:
        number = phase_of.get(op.name)
        if number is not None:
            found[number].append(op.operation)
        return ir.WalkResult.ADVANCE

    func.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def _still_valid(found: list[list[ir.Operation]], phases: Phases) -> int:
    """How many of `phases`, lowered in order, keep the ops `found` for them
    alive: a phase ends the count when one of its ops is nested in an op of
    an earlier phase that restructures what it holds."""
    restructures = {op for op, found in lowerings("cuda").items()
                    if any(lowering.restructures for lowering in found)}
    restructuring: set[str] = set()
    for number, (phase, ops) in enumerate(zip(phases, found, strict=True)):
        if restructuring and any(irb.enclosing(op, restructuring) for op in ops):
            return number
        restructuring.update(restructures.intersection(phase))
    return len(phases)


def _single_thread_stores(func: ir.Operation) -> None:
    """Scalar stores of the kernel body (outside tile.parallel) by thread 0. Every thread
    runs that code alike, so an atomic add whose old value is used (`T.atomic_add(...,
    return_prev=True)`) becomes a read by all, then thread 0's store of the sum."""
    for store in irb.collect(func, {"memref.store", "memref.atomic_rmw"}):
        if irb.enclosing(store, {"tile.kernel"}) is None:
            continue
        if irb.enclosing(store, {"tile.parallel"}) is not None or per_thread(store):
            continue
        if store.name == "memref.atomic_rmw" and next(iter(store.results[0].uses), None):
            with ir.InsertionPoint(store), store.location:
                store = _read_then_add(store)
        with ir.InsertionPoint(store), store.location:
            gpu.barrier()
            first = arith.cmpi(arith.CmpIPredicate.eq, thread_id(), irb.index(0))
            branch = scf.IfOp(first)
            with ir.InsertionPoint(branch.then_block):
                end = scf.YieldOp([])
            gpu.barrier()
        store.move_before(end.operation)


def _read_then_add(rmw: ir.Operation) -> ir.Operation:
    """`old = atomic_rmw add v, m[i]` as `old = m[i]` (read by every thread, after a
    barrier) and `m[i] = old + v`, the store returned for thread 0 to make."""
    value, memref_, *indices = rmw.operands
    gpu.barrier()
    old = memref.load(memref_, indices)
    float_add = isinstance(value.type, ir.FloatType)
    total = arith.addf(old, value) if float_add else arith.addi(old, value)
    store = memref.StoreOp(total, memref_, indices)
    rmw.results[0].replace_all_uses_with(old)
    rmw.erase()
    return store.operation


@register_pass
@dataclass(frozen=True)
class ConvertTileToCudaPass(TileConversion[CudaTarget]):
    """Resolves every tile op to its cuda lowering, then lowers them in order."""

    argument = "convert-tile-to-cuda"
    target_name = "cuda"
    summary = "Lower tile ops to gpu/nvgpu/scf/memref code for one cuda arch"

    target: str = target_option(CudaTarget)

    def lowering_target(self) -> CudaTarget:
        return target_of(CudaTarget, self.target)

    def check(self, func: ir.Operation, target: CudaTarget) -> None:
        _unsupported_types(func)
        _outside_kernels(func)
        check_policies(func)

    @contextlib.contextmanager
    def around_lowering(self, func: ir.Operation, target: CudaTarget) -> Iterator[None]:
        if any(PLACEMENT not in a.attributes for a in irb.collect(func, "tile.alloc")):
            infer_layouts(func, target.has_wgmma)
        # Only a DSL atomic add of one element is a memref.atomic_rmw on cuda.
        scalar_adds = bool(irb.collect(func, "memref.atomic_rmw"))
        _single_thread_stores(func)
        yield
        if scalar_adds:
            scalar_adds_as_red(func, target)

    def lower_phases(self, func: ir.Operation, target: CudaTarget, phases: Phases) -> None:
        """Lowers the tile ops of `func` phase by phase, the ops of as many
        phases as is safe found in one walk (see the module docstring)."""
        written = _written_globals(func)
        done = 0
        while done < len(phases):
            rest = phases[done:]
            found = _phase_ops(func, rest)
            count = _still_valid(found, rest)
            for ops in found[:count]:
                _synchronized(ops, target, written)
            done += count
