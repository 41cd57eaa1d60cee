"""The builder layer: the kernel being traced, its open regions, and op emission.

A `Trace` is one run of a kernel function with proxy values: it holds the
`func.func` being built and the stack of regions the user's code is inside
(the function body, a `T.Kernel`, loops). Every op is created through the
functions of this module, which insert it at the end of the innermost open
region and stamp it with the current user site (`source.site()`), so the
rest of the DSL never deals with insertion points or locations.

This layer checks nothing about the user's program; `semantic` does that
before it calls in here.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from enum import Enum

from mlir import ir
from mlir.dialects import arith, func, math, memref, scf

from tilec.dialects import tile

from .dtypes import DType, int64
from .errors import DSLError, SourceLoc
from .source import site


class RegionKind(Enum):
    """What opened a region; the value is how messages name it."""

    FUNCTION = "the kernel function body"
    KERNEL = "T.Kernel"
    PARALLEL = "T.Parallel"
    PIPELINED = "T.Pipelined"
    SERIAL = "T.serial"


@dataclass(eq=False)
class OpenRegion:
    """A region the user's code is (or was) inside while tracing."""

    kind: RegionKind
    block: ir.Block
    loc: SourceLoc
    parent: OpenRegion | None
    trace: Trace
    is_open: bool = True

    def enclosing(self, kind: RegionKind) -> OpenRegion | None:
        """The innermost region of `kind` around (or equal to) this one."""
        region: OpenRegion | None = self
        while region is not None and region.kind is not kind:
            region = region.parent
        return region


@dataclass(eq=False)
class Trace:
    """One tracing of a kernel function into a `func.func`."""

    context: ir.Context
    function: func.FuncOp
    regions: list[OpenRegion] = field(default_factory=list)
    # An error found where raising is impossible (a loop generator closed by
    # `break`); reported at the next DSL call or at the end of the trace.
    pending: DSLError | None = None

    @property
    def current(self) -> OpenRegion:
        return self.regions[-1]

    def open(self, kind: RegionKind, block: ir.Block, loc: SourceLoc) -> OpenRegion:
        region = OpenRegion(kind, block, loc, self.regions[-1] if self.regions else None, self)
        self.regions.append(region)
        return region

    def close(self, region: OpenRegion) -> None:
        """Ends `region` with its terminator; it must be the innermost open region."""
        assert self.regions[-1] is region, "regions close in the order they open"
        with self.emitting():
            if region.kind is RegionKind.FUNCTION:
                func.ReturnOp([])
            elif region.kind is RegionKind.SERIAL:
                scf.YieldOp([])
            else:
                tile.YieldOp()
        region.is_open = False
        self.regions.pop()

    @contextmanager
    def emitting(self) -> Iterator[None]:
        """New ops go to the end of the innermost region, located at the current site."""
        with site().mlir(self.context), ir.InsertionPoint(self.current.block):
            yield


_active: ContextVar[Trace | None] = ContextVar("tilec_language_trace", default=None)


def active() -> Trace | None:
    return _active.get()


@contextmanager
def tracing(trace: Trace) -> Iterator[Trace]:
    token = _active.set(trace)
    try:
        yield trace
    finally:
        _active.reset(token)


def _trace() -> Trace:
    trace = _active.get()
    assert trace is not None, "the semantic layer checks for a trace before building"
    return trace


# -- scalars ------------------------------------------------------------------

_INT_BINARY = {
    "+": arith.addi, "-": arith.subi, "*": arith.muli, "//": arith.floordivsi,
    "ceildiv": arith.ceildivsi, "max": arith.maxsi, "min": arith.minsi,
    "&": arith.andi, "|": arith.ori, "^": arith.xori,
}
_FLOAT_BINARY = {
    "+": arith.addf, "-": arith.subf, "*": arith.mulf, "/": arith.divf,
    "max": arith.maximumf, "min": arith.minimumf,
}
_CMPI = {
    "<": arith.CmpIPredicate.slt, "<=": arith.CmpIPredicate.sle,
    ">": arith.CmpIPredicate.sgt, ">=": arith.CmpIPredicate.sge,
    "==": arith.CmpIPredicate.eq, "!=": arith.CmpIPredicate.ne,
}
# Ordered comparisons (false on NaN) except `!=`, which is true on NaN as in Python.
_CMPF = {
    "<": arith.CmpFPredicate.OLT, "<=": arith.CmpFPredicate.OLE,
    ">": arith.CmpFPredicate.OGT, ">=": arith.CmpFPredicate.OGE,
    "==": arith.CmpFPredicate.OEQ, "!=": arith.CmpFPredicate.UNE,
}
_FLOAT_UNARY = {
    "exp": math.exp, "exp2": math.exp2, "log": math.log, "log2": math.log2,
    "sqrt": math.sqrt, "rsqrt": math.rsqrt, "tanh": math.tanh,
    "floor": math.floor, "ceil": math.ceil, "abs": math.absf, "neg": arith.negf,
}



def constant(dtype: DType, value: float | int | bool) -> ir.Value:
    with _trace().emitting():
        if dtype.is_float:
            return arith.constant(dtype.mlir_type(), float(value))
        return arith.constant(dtype.mlir_type(), int(value))


def constant_int(value: ir.Value) -> int | None:
    """The integer `value` is when an `arith.constant` defines it, else None."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, ir.IntegerAttr):
        return owner.value.value
    return None


def binary(op: str, lhs: ir.Value, rhs: ir.Value, *, is_float: bool) -> ir.Value:
    build = (_FLOAT_BINARY if is_float else _INT_BINARY)[op]
    with _trace().emitting():
        return build(lhs, rhs)


def compare(op: str, lhs: ir.Value, rhs: ir.Value, *, is_float: bool) -> ir.Value:
    with _trace().emitting():
        if is_float:
            return arith.cmpf(_CMPF[op], lhs, rhs)
        return arith.cmpi(_CMPI[op], lhs, rhs)


def float_unary(op: str, value: ir.Value) -> ir.Value:
    with _trace().emitting():
        return _FLOAT_UNARY[op](value)


def int_abs(value: ir.Value) -> ir.Value:
    with _trace().emitting():
        return math.absi(value)


def select(condition: ir.Value, true_value: ir.Value, false_value: ir.Value) -> ir.Value:
    with _trace().emitting():
        return arith.select(condition, true_value, false_value)


def convert(value: ir.Value, src: DType, dst: DType) -> ir.Value:
    """`value` of type `src` as `dst` with arith's cast ops (signed integers).

    Booleans widen as 0/1; a conversion to bool is `!= 0`.
    """
    if src == dst:
        return value
    if dst.kind == "bool":
        zero = constant(src, 0)
        return compare("!=", value, zero, is_float=src.is_float)
    with _trace().emitting():
        target = dst.mlir_type()
        if src.kind == "bool":
            wide = arith.extui(int64.mlir_type(), value)
            return convert(wide, int64, dst)
        if src.is_float and dst.is_float:
            return (arith.extf if dst.bits > src.bits else arith.truncf)(target, value)
        if src.kind == "index" or dst.kind == "index":
            if src.is_float or dst.is_float:
                # index <-> float goes through i64, which arith converts directly.
                if src.is_float:
                    return arith.index_cast(target, arith.fptosi(int64.mlir_type(), value))
                return arith.sitofp(target, arith.index_cast(int64.mlir_type(), value))
            return arith.index_cast(target, value)
        if src.is_float:
            return arith.fptosi(target, value)
        if dst.is_float:
            return arith.sitofp(target, value)
        return (arith.extsi if dst.bits > src.bits else arith.trunci)(target, value)



def load(buffer: ir.Value, indices: Sequence[ir.Value]) -> ir.Value:
    with _trace().emitting():
        return memref.load(buffer, list(indices))


def store(value: ir.Value, buffer: ir.Value, indices: Sequence[ir.Value]) -> None:
    with _trace().emitting():
        memref.store(value, buffer, list(indices))


def dim(buffer: ir.Value, axis: int) -> ir.Value:
    with _trace().emitting():
        return memref.dim(buffer, arith.constant(ir.IndexType.get(), axis))


# -- tiles --------------------------------------------------------------------


def alloc(shape: Sequence[int], dtype: DType, scope: str) -> ir.Value:
    with _trace().emitting():
        return tile.alloc(tile.memref_type(shape, dtype.mlir_type(), scope))


def copy(
    src: ir.Value,
    src_offsets: Sequence[ir.Value],
    dst: ir.Value,
    dst_offsets: Sequence[ir.Value],
    sizes: Sequence[int] | None,
) -> None:
    with _trace().emitting():
        tile.copy(src, list(src_offsets), dst, list(dst_offsets), sizes=sizes)


def fill(buffer: ir.Value, value: ir.Value) -> None:
    with _trace().emitting():
        tile.fill(buffer, value)


def clear(buffer: ir.Value) -> None:
    with _trace().emitting():
        tile.clear(buffer)


def barrier() -> None:
    with _trace().emitting():
        tile.barrier()


def gemm(
    a: ir.Value, b: ir.Value, c: ir.Value, *, transpose_a: bool, transpose_b: bool, clear: bool
) -> None:
    with _trace().emitting():
        tile.gemm(
            a, b, c,
            transpose_a=transpose_a or None,
            transpose_b=transpose_b or None,
            clear_accum=clear or None,
        )


def reduce(kind: str, src: ir.Value, dst: ir.Value, dim: int, clear: bool) -> None:
    with _trace().emitting():
        tile.reduce(kind, src, dst, dim, clear=None if clear else False)


def cumsum(src: ir.Value, dst: ir.Value, dim: int, reverse: bool) -> None:
    with _trace().emitting():
        tile.cumsum(src, dst, dim, reverse=True if reverse else None)


def atomic_add(src: ir.Value, dst: ir.Value, offsets: Sequence[ir.Value]) -> None:
    with _trace().emitting():
        tile.atomic_add(src, dst, list(offsets))


# -- regions ------------------------------------------------------------------


def open_kernel(grid: Sequence[ir.Value], threads: int) -> tuple[OpenRegion, list[ir.Value]]:
    trace = _trace()
    with trace.emitting():
        op = tile.KernelOp(list(grid), threads)
        block = op.region.blocks.append(*[ir.IndexType.get()] * len(grid))
    return trace.open(RegionKind.KERNEL, block, site()), list(block.arguments)


def open_parallel(extents: Sequence[int]) -> tuple[OpenRegion, list[ir.Value]]:
    trace = _trace()
    with trace.emitting():
        op = tile.ParallelOp(list(extents))
        block = op.region.blocks.append(*[ir.IndexType.get()] * len(extents))
    return trace.open(RegionKind.PARALLEL, block, site()), list(block.arguments)


def open_pipelined(
    lower: ir.Value, upper: ir.Value, step: ir.Value, num_stages: int
) -> tuple[OpenRegion, ir.Value]:
    trace = _trace()
    with trace.emitting():
        op = tile.PipelinedOp(lower, upper, step, num_stages)
        block = op.region.blocks.append(ir.IndexType.get())
    return trace.open(RegionKind.PIPELINED, block, site()), block.arguments[0]


def open_serial(lower: ir.Value, upper: ir.Value, step: ir.Value) -> tuple[OpenRegion, ir.Value]:
    trace = _trace()
    with trace.emitting():
        op = scf.ForOp(lower, upper, step)
    return trace.open(RegionKind.SERIAL, op.body, site()), op.induction_variable
