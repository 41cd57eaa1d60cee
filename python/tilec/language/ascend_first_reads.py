"""A tile that a tilelang-ascend kernel reads before anything writes it: a located error.

A developer-mode kernel (and a per-AIV body) is a sequential program: a tile's
first access in program order that reads it, reached through loops only, reads
bytes nothing has written whenever it runs (in the first iteration of those
loops). On the NPU that is whatever the buffer last held, so the numbers are
wrong with every flag in place, and nothing says why.
tilelang-ascend's examples/developer_mode/sparse_flash_attn_developer_vid_reduce.py
is such a kernel: each iteration's first gemm reads `kv_l1` (the keys the
iteration gathers after it) and its P V gemm reads `acc_s_l1` (the P it
computes after it), so iteration i pairs the queries with the keys of
iteration i - 1. The error is at the read, with a note at the first write.

Expert kernels (`T.Scope` programs) are left alone: their cores hand tiles to
each other (the 950's fixpipe into an AIV's UB), so a core's first access to
a tile may read what the other core wrote.
"""

from __future__ import annotations

from collections.abc import Iterator

from mlir import ir

from tilec.diagnostics import Diagnostic

from .errors import DSLError

_LOOPS = frozenset({"scf.for", "tile.pipelined", "tile.parallel"})
"""The ops whose body a first access may sit in and still run first (when it runs)."""
_VIEWS = frozenset({"memref.subview", "memref.collapse_shape", "memref.expand_shape",
                    "memref.cast", "memref.reinterpret_cast", "memref.transpose",
                    "memref.memory_space_cast"})


def _reads(op: ir.Operation, number: int) -> bool:
    """Whether `op` reads its operand `number` (a tile) without writing all of it
    first; an op not known here counts as a write, so it never starts an error."""
    name = op.name
    if name == "tile.copy":
        return number == 0
    if name == "tile.gemm":
        return number < 2 or "clear_accum" not in op.attributes
    if name == "tile.reduce":
        return number == 0 or ("clear" in op.attributes
                               and not ir.BoolAttr(op.attributes["clear"]).value)
    if name in ("tile.cumsum", "tile.atomic_add"):
        return number == 0
    return name == "memref.load"


def _accesses(value: ir.Value) -> Iterator[tuple[ir.Operation, bool]]:
    """Each op that accesses the tile `value` (through its views), and whether it reads it."""
    for use in value.uses:
        owner = use.owner
        op = owner.operation if hasattr(owner, "operation") else owner
        if op.name in _VIEWS:
            for result in op.results:
                yield from _accesses(result)
        else:
            yield op, _reads(op, use.operand_number)


def _parent(op: ir.Operation) -> ir.Operation:
    parent = op.parent
    return parent.operation if hasattr(parent, "operation") else parent


def _pre_order(kernel: ir.Operation) -> dict[ir.Operation, int]:
    order: dict[ir.Operation, int] = {}

    def visit(op: ir.Operation) -> ir.WalkResult:
        order[op.operation] = len(order)
        return ir.WalkResult.ADVANCE

    kernel.walk(visit, ir.WalkOrder.PRE_ORDER)
    return order


def check_first_reads(kernel: ir.Operation) -> None:
    """Raises a DSLError at the first read of a tile of `kernel` that runs before
    any write of it (see the module docstring)."""
    order = _pre_order(kernel)
    allocs = [op for op in order if op.name == "tile.alloc"]
    for alloc in allocs:
        accesses = sorted(_accesses(alloc.results[0]), key=lambda a: order[a[0]])
        if not accesses or not accesses[0][1]:
            continue
        first = accesses[0][0]
        loops = []
        parent = _parent(first)
        while parent != kernel:
            if parent.name not in _LOOPS:
                break
            loops.append(parent)
            parent = _parent(parent)
        else:
            _error(alloc, first, loops, next((op for op, reads in accesses if not reads), None))


def _error(alloc: ir.Operation, read: ir.Operation, loops: list[ir.Operation],
           write: ir.Operation | None) -> None:
    tile = Diagnostic.from_location("note", "", alloc.location)
    when = ""
    outer = next((loop for loop in reversed(loops) if loop.name != "tile.parallel"), None)
    if outer is not None:
        line = Diagnostic.from_location("note", "", outer.location).line
        when = f" (in the first iteration of the loop at line {line})"
    message = (f"the tile allocated at line {tile.line} is read here before anything writes "
               f"it{when}: it holds whatever the buffer held; write it first (move the "
               "code that fills it before this read, or clear it)")
    notes = () if write is None else (
        Diagnostic.from_location("note", "it is first written here", write.location),)
    first = Diagnostic.from_location("error", message, read.location)
    raise DSLError([Diagnostic(first.severity, first.message, first.file, first.line,
                               first.col, notes)])
