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

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from enum import Enum

from math import prod

from mlir import ir
from mlir.dialects import arith, func, math, memref, scf

from tilec.dialects import tile

from .dtypes import DType, float32, int64
from .errors import DSLError, SourceLoc
from .source import site


class RegionKind(Enum):
    """What opened a region; the value is how messages name it."""

    FUNCTION = "the kernel function body"
    KERNEL = "T.Kernel"
    PARALLEL = "T.Parallel"
    PIPELINED = "T.Pipelined"
    SERIAL = "T.serial"
    THEN = "`if` branch"
    ELSE = "`else` branch"
    WHILE_TEST = "`while` condition"
    WHILE_BODY = "`while` loop"
    SCOPE = "T.Scope"


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
    # Global workspaces (T.alloc_global), freed where the function returns.
    workspaces: list[ir.Value] = field(default_factory=list)
    # The atom of each element of a global tensor the trace read (semantic.affine_of).
    loaded_atoms: dict[tuple, int] = field(default_factory=dict)

    @property
    def current(self) -> OpenRegion:
        return self.regions[-1]

    def open(self, kind: RegionKind, block: ir.Block, loc: SourceLoc) -> OpenRegion:
        region = OpenRegion(kind, block, loc, self.regions[-1] if self.regions else None, self)
        self.regions.append(region)
        return region

    def close(self, region: OpenRegion, results: Sequence[ir.Value] = ()) -> None:
        """Ends `region` with its terminator, which yields `results` (the value of an
        `scf.if` branch); it must be the innermost open region."""
        assert self.regions[-1] is region, "regions close in the order they open"
        with self.emitting():
            if region.kind is RegionKind.FUNCTION:
                for workspace in self.workspaces:
                    memref.dealloc(workspace)
                func.ReturnOp([])
            elif region.kind in (RegionKind.SERIAL, RegionKind.THEN, RegionKind.ELSE,
                                 RegionKind.WHILE_BODY, RegionKind.SCOPE):
                scf.YieldOp(list(results))
            elif region.kind is RegionKind.WHILE_TEST:
                scf.ConditionOp(results[0], [])
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
    "&": arith.andi, "|": arith.ori, "^": arith.xori, "<<": arith.shli, ">>": arith.shrsi,
}
# Unsigned integers differ where the sign bit matters.
_UINT_BINARY = {
    **_INT_BINARY, "//": arith.divui, "ceildiv": arith.ceildivui, "max": arith.maxui,
    "min": arith.minui, ">>": arith.shrui,
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
_CMPUI = {
    **_CMPI, "<": arith.CmpIPredicate.ult, "<=": arith.CmpIPredicate.ule,
    ">": arith.CmpIPredicate.ugt, ">=": arith.CmpIPredicate.uge,
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


def bitcast(value: ir.Value, dtype: DType) -> ir.Value:
    """The bits of `value` read as `dtype` (of the same width)."""
    with _trace().emitting():
        return arith.bitcast(dtype.mlir_type(), value)


def binary(op: str, lhs: ir.Value, rhs: ir.Value, *, dtype: DType) -> ir.Value:
    """`lhs op rhs` on two values of `dtype` (bool and index count as signed)."""
    table = _FLOAT_BINARY if dtype.is_float else _UINT_BINARY if dtype.is_unsigned else _INT_BINARY
    with _trace().emitting():
        return table[op](lhs, rhs)


def _float_divmod(lhs: ir.Value, rhs: ir.Value, dtype: DType) -> tuple[ir.Value, ir.Value]:
    """Python's `lhs // rhs` and `lhs % rhs` on floats, as numpy's divmod computes them:
    from the exact truncated remainder (`remf`), so that the quotient is not
    `floor(lhs / rhs)` rounded wrong (`-1.0 // inf` is -1, `inf // 2` NaN), and a
    zero remainder takes the sign of `rhs`. By zero the quotient is `lhs / rhs`."""
    f = arith.CmpFPredicate
    with _trace().emitting():
        zero = arith.constant(dtype.mlir_type(), 0.0)
        one = arith.constant(dtype.mlir_type(), 1.0)
        half = arith.constant(dtype.mlir_type(), 0.5)
        raw = arith.remf(lhs, rhs)
        exact = arith.divf(arith.subf(lhs, raw), rhs)
        signs = arith.xori(arith.cmpf(f.OLT, raw, zero), arith.cmpf(f.OLT, rhs, zero))
        fix = arith.andi(arith.cmpf(f.UNE, raw, zero), signs)
        remainder = arith.select(fix, arith.addf(raw, rhs), raw)
        remainder = arith.select(
            arith.cmpf(f.OEQ, remainder, zero), math.copysign(zero, rhs), remainder
        )
        exact = arith.select(fix, arith.subf(exact, one), exact)
        floored = math.floor(exact)
        up = arith.cmpf(f.OGT, arith.subf(exact, floored), half)
        floored = arith.select(up, arith.addf(floored, one), floored)
        ratio = arith.divf(lhs, rhs)
        quotient = arith.select(
            arith.cmpf(f.UNE, exact, zero), floored, math.copysign(zero, ratio)
        )
        quotient = arith.select(arith.cmpf(f.OEQ, rhs, zero), ratio, quotient)
    return quotient, remainder


def float_floor_div(lhs: ir.Value, rhs: ir.Value, *, dtype: DType) -> ir.Value:
    """Python's `lhs // rhs` on floats (integers: `binary("//", ...)`)."""
    return _float_divmod(lhs, rhs, dtype)[0]


def floor_mod(lhs: ir.Value, rhs: ir.Value, *, dtype: DType) -> ir.Value:
    """Python's `lhs % rhs`: the remainder of floor division, with the sign of `rhs`.

    Built on arith's truncating remainder (`remsi`), corrected by `rhs` where
    the signs differ, rather than as `lhs - (lhs // rhs) * rhs`, so that a
    remainder by zero is what the target defines for `remsi` (0 on cpu, as
    numpy), not `lhs`. Floats: see `_float_divmod` (by zero, NaN).
    """
    if dtype.is_float:
        return _float_divmod(lhs, rhs, dtype)[1]
    with _trace().emitting():
        if dtype.is_unsigned:
            return arith.remui(lhs, rhs)
        raw = arith.remsi(lhs, rhs)
        zero = arith.constant(dtype.mlir_type(), 0)
        nonzero = arith.cmpi(arith.CmpIPredicate.ne, raw, zero)
        signs = arith.xori(
            arith.cmpi(arith.CmpIPredicate.slt, raw, zero),
            arith.cmpi(arith.CmpIPredicate.slt, rhs, zero),
        )
        return arith.select(arith.andi(nonzero, signs), arith.addi(raw, rhs), raw)


def compare(op: str, lhs: ir.Value, rhs: ir.Value, *, dtype: DType) -> ir.Value:
    with _trace().emitting():
        if dtype.is_float:
            return arith.cmpf(_CMPF[op], lhs, rhs)
        return arith.cmpi((_CMPUI if dtype.is_unsigned else _CMPI)[op], lhs, rhs)


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
    """`value` of type `src` as `dst` with arith's cast ops, signed or unsigned by dtype.

    Booleans widen as 0/1; a conversion to bool is `!= 0`; floats of one
    width (float16, bfloat16) convert through float32.
    """
    if src == dst:
        return value
    if dst.kind == "bool":
        zero = constant(src, 0)
        return compare("!=", value, zero, dtype=src)
    with _trace().emitting():
        target = dst.mlir_type()
        if src.kind == "bool":
            wide = arith.extui(int64.mlir_type(), value)
            return convert(wide, int64, dst)
        if src.is_float and dst.is_float:
            if dst.bits == src.bits:
                return convert(convert(value, src, float32), float32, dst)
            return (arith.extf if dst.bits > src.bits else arith.truncf)(target, value)
        if src.kind == "index" or dst.kind == "index":
            # index <-> float goes through i64, which arith converts directly.
            if src.is_float:
                return arith.index_cast(target, arith.fptosi(int64.mlir_type(), value))
            if dst.is_float:
                return arith.sitofp(target, arith.index_cast(int64.mlir_type(), value))
            return (arith.index_castui if src.is_unsigned else arith.index_cast)(target, value)
        if src.is_float:
            return (arith.fptoui if dst.is_unsigned else arith.fptosi)(target, value)
        if dst.is_float:
            return (arith.uitofp if src.is_unsigned else arith.sitofp)(target, value)
        if dst.bits == src.bits:
            return value
        if dst.bits < src.bits:
            return arith.trunci(target, value)
        return (arith.extui if src.is_unsigned else arith.extsi)(target, value)


def load(buffer: ir.Value, indices: Sequence[ir.Value]) -> ir.Value:
    with _trace().emitting():
        return memref.load(buffer, list(indices))


def store(value: ir.Value, buffer: ir.Value, indices: Sequence[ir.Value]) -> None:
    with _trace().emitting():
        memref.store(value, buffer, list(indices))


def dim(buffer: ir.Value, axis: int) -> ir.Value:
    with _trace().emitting():
        return memref.dim(buffer, arith.constant(ir.IndexType.get(), axis))


# -- hints --------------------------------------------------------------------
# What a kernel asks of a target beyond its meaning (TileLang's warp policy,
# swizzles, layouts, pipeline schedules) is recorded as discardable `tile.*`
# attributes, which need no ODS: a target's lowering reads the ones it can
# use and the others (cpu: all) are ignored.

Hint = str | int | bool | ir.Attribute | Sequence["Hint"] | Mapping[str, "Hint"]


def hint_attr(value: Hint) -> ir.Attribute:
    """`value` as an attribute: strings, i64 integers, bools, arrays and dictionaries."""
    if isinstance(value, ir.Attribute):
        return value
    if isinstance(value, bool):
        return ir.BoolAttr.get(value)
    if isinstance(value, int):
        return ir.IntegerAttr.get(int64.mlir_type(), value)
    if isinstance(value, str):
        return ir.StringAttr.get(value)
    if isinstance(value, Mapping):
        return ir.DictAttr.get({key: hint_attr(item) for key, item in value.items()})
    return ir.ArrayAttr.get([hint_attr(item) for item in value])


def _annotate(op: ir.Operation | ir.OpView, hints: Mapping[str, Hint]) -> None:
    with _trace().context:
        for key, value in hints.items():
            op.attributes[f"tile.{key}"] = hint_attr(value)


def annotate_region(region: OpenRegion, hints: Mapping[str, Hint]) -> None:
    """Records `hints` on the op whose body `region` is (e.g. the tile.kernel)."""
    _annotate(region.block.owner, hints)


def annotate_buffer(buffer: ir.Value, hints: Mapping[str, Hint]) -> None:
    """Records `hints` on the tile.alloc of a tile, or in the arg_attrs of a parameter."""
    owner = buffer.owner
    if not isinstance(owner, ir.Block):
        _annotate(owner, hints)
        return
    function = _trace().function
    position = ir.BlockArgument(buffer).arg_number
    with _trace().context:
        entries = list(ir.ArrayAttr(function.attributes["arg_attrs"]))
        attrs = {named.name: named.attr for named in ir.DictAttr(entries[position])}
        attrs.update({f"tile.{key}": hint_attr(value) for key, value in hints.items()})
        entries[position] = ir.DictAttr.get(attrs)
        function.attributes["arg_attrs"] = ir.ArrayAttr.get(entries)


# -- parameters -----------------------------------------------------------------


def add_parameter(
    shape: Sequence[int | None], dtype: DType, attrs: Mapping[str, Hint]
) -> ir.Value:
    """A new tensor parameter after the others (`None` dims are dynamic), with `tile.*`
    argument attributes, located at the current site."""
    trace = _trace()
    function = trace.function
    dynamic = ir.ShapedType.get_dynamic_size()
    with trace.context:
        memref = tile.memref_type([dynamic if d is None else d for d in shape], dtype.mlir_type())
        argument = function.entry_block.add_argument(memref, site().mlir(trace.context))
        signature = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
        function.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get([*signature.inputs, memref], signature.results)
        )
        entries = list(ir.ArrayAttr(function.attributes["arg_attrs"]))
        entries.append(hint_attr({f"tile.{key}": value for key, value in attrs.items()}))
        function.attributes["arg_attrs"] = ir.ArrayAttr.get(entries)
    return argument


def alloc_global(shape: Sequence[int | ir.Value], dtype: DType) -> ir.Value:
    """A tensor in global memory for the rest of the function (`memref.alloc`); a dim
    given as a value is dynamic."""
    trace = _trace()
    dynamic = ir.ShapedType.get_dynamic_size()
    with trace.emitting():
        sizes = [d if isinstance(d, int) else dynamic for d in shape]
        memref_type = tile.memref_type(sizes, dtype.mlir_type())
        workspace = memref.alloc(memref_type, [d for d in shape if not isinstance(d, int)], [])
    trace.workspaces.append(workspace)
    return workspace


def reshape(buffer: ir.Value, shape: Sequence[int | ir.Value]) -> ir.Value:
    """`buffer` (contiguous) viewed with `shape`; a dim given as a value is dynamic.

    With at most one dynamic dim the view collapses `buffer` to one dim and
    expands it, keeping the identity layout; with more, which
    `memref.expand_shape` cannot lower (one dynamic size per group), it is
    a `memref.reinterpret_cast` with the row-major strides.
    """
    trace = _trace()
    source = ir.MemRefType(buffer.type)
    dynamic = ir.ShapedType.get_dynamic_size()
    static = [d if isinstance(d, int) else dynamic for d in shape]
    sizes = [d for d in shape if not isinstance(d, int)]

    def memref_type(dims: Sequence[int], layout: ir.Attribute | None = None) -> ir.MemRefType:
        return ir.MemRefType.get(
            list(dims), source.element_type, layout, memory_space=source.memory_space
        )

    with trace.emitting():
        if len(sizes) > 1:
            # Row-major strides, from the innermost dim out.
            strides: list[int | ir.Value] = [1]
            for d in reversed(shape[1:]):
                inner = strides[0]
                if isinstance(d, int) and isinstance(inner, int):
                    strides.insert(0, d * inner)
                else:
                    factors = [
                        arith.constant(ir.IndexType.get(), x) if isinstance(x, int) else x
                        for x in (d, inner)
                    ]
                    strides.insert(0, arith.muli(*factors))
            static_strides = [s if isinstance(s, int) else dynamic for s in strides]
            layout = ir.StridedLayoutAttr.get(0, static_strides)
            dynamic_strides = [s for s in strides if not isinstance(s, int)]
            return memref.ReinterpretCastOp(
                memref_type(static, layout), buffer, [], sizes, dynamic_strides,
                [0], static, static_strides,
            ).result
        flat = buffer
        if source.rank != 1:
            count = dynamic if dynamic in source.shape else prod(source.shape)
            flat_type = memref_type([count])
            flat = memref.CollapseShapeOp(flat_type, buffer, [list(range(source.rank))]).result
        if static == list(ir.MemRefType(flat.type).shape):
            return flat
        return memref.ExpandShapeOp(
            memref_type(static), flat, [list(range(len(shape)))], sizes, static
        ).result


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
    hints: Mapping[str, Hint] | None = None,
    pad: ir.Value | None = None,
) -> None:
    with _trace().emitting():
        op = tile.copy(src, list(src_offsets), dst, list(dst_offsets), sizes=sizes, pad=pad)
    _annotate(op, hints or {})


def fill(buffer: ir.Value, value: ir.Value) -> None:
    with _trace().emitting():
        tile.fill(buffer, value)


def clear(buffer: ir.Value) -> None:
    with _trace().emitting():
        tile.clear(buffer)


def barrier(hints: Mapping[str, Hint] | None = None) -> None:
    with _trace().emitting():
        op = tile.barrier()
    _annotate(op, hints or {})


def gemm(
    a: ir.Value,
    b: ir.Value,
    c: ir.Value,
    *,
    transpose_a: bool,
    transpose_b: bool,
    clear: bool,
    hints: Mapping[str, Hint],
) -> None:
    with _trace().emitting():
        op = tile.gemm(
            a, b, c,
            transpose_a=transpose_a or None,
            transpose_b=transpose_b or None,
            clear_accum=clear or None,
        )
    _annotate(op, hints)


def reduce(kind: str, src: ir.Value, dst: ir.Value, dim: int, clear: bool) -> None:
    with _trace().emitting():
        tile.reduce(kind, src, dst, dim, clear=None if clear else False)


def cumsum(src: ir.Value, dst: ir.Value, dim: int, reverse: bool) -> None:
    with _trace().emitting():
        tile.cumsum(src, dst, dim, reverse=True if reverse else None)


def atomic_add(src: ir.Value, dst: ir.Value, offsets: Sequence[ir.Value]) -> None:
    with _trace().emitting():
        tile.atomic_add(src, dst, list(offsets))


def atomic_fetch_add(value: ir.Value, buffer: ir.Value, indices: Sequence[ir.Value]) -> ir.Value:
    """buffer[indices] += value atomically; the element's value before the add."""
    float_type = isinstance(value.type, ir.FloatType)
    kind = arith.AtomicRMWKind.addf if float_type else arith.AtomicRMWKind.addi
    with _trace().emitting():
        return memref.atomic_rmw(kind, value, buffer, list(indices))


# -- regions ------------------------------------------------------------------


def open_kernel(grid: Sequence[ir.Value], threads: int) -> tuple[OpenRegion, list[ir.Value]]:
    trace = _trace()
    with trace.emitting():
        op = tile.KernelOp(list(grid), threads)
        block = op.region.blocks.append(*[ir.IndexType.get()] * len(grid))
    return trace.open(RegionKind.KERNEL, block, site()), list(block.arguments)


def open_parallel(
    extents: Sequence[int], hints: Mapping[str, Hint]
) -> tuple[OpenRegion, list[ir.Value]]:
    trace = _trace()
    with trace.emitting():
        op = tile.ParallelOp(list(extents))
        block = op.region.blocks.append(*[ir.IndexType.get()] * len(extents))
    _annotate(op, hints)
    return trace.open(RegionKind.PARALLEL, block, site()), list(block.arguments)


def open_pipelined(
    lower: ir.Value, upper: ir.Value, step: ir.Value, num_stages: int, hints: Mapping[str, Hint]
) -> tuple[OpenRegion, ir.Value]:
    trace = _trace()
    with trace.emitting():
        op = tile.PipelinedOp(lower, upper, step, num_stages)
        block = op.region.blocks.append(ir.IndexType.get())
    _annotate(op, hints)
    return trace.open(RegionKind.PIPELINED, block, site()), block.arguments[0]


def open_serial(
    lower: ir.Value, upper: ir.Value, step: ir.Value, hints: Mapping[str, Hint]
) -> tuple[OpenRegion, ir.Value]:
    trace = _trace()
    with trace.emitting():
        op = scf.ForOp(lower, upper, step)
    _annotate(op, hints)
    return trace.open(RegionKind.SERIAL, op.body, site()), op.induction_variable


def open_while() -> tuple[OpenRegion, scf.WhileOp]:
    """Opens the condition region of a new `scf.while` without loop-carried values
    (what changes from one iteration to the next lives in tiles and T.alloc_var);
    `open_while_body` opens its body after the condition region is closed."""
    trace = _trace()
    with trace.emitting():
        op = scf.WhileOp([], [])
        before = op.before.blocks.append()
        op.after.blocks.append()
    return trace.open(RegionKind.WHILE_TEST, before, site()), op


def open_while_body(op: scf.WhileOp) -> OpenRegion:
    return _trace().open(RegionKind.WHILE_BODY, op.after.blocks[0], site())


def open_then(
    condition: ir.Value, has_else: bool, results: Sequence[DType] = ()
) -> tuple[OpenRegion, scf.IfOp]:
    """Opens the then-region of a new `scf.if` with `results`; `open_else` opens its
    else-region later."""
    trace = _trace()
    with trace.emitting():
        op = scf.IfOp(condition, [d.mlir_type() for d in results], has_else=has_else)
    return trace.open(RegionKind.THEN, op.then_block, site()), op


def open_else(op: scf.IfOp) -> OpenRegion:
    return _trace().open(RegionKind.ELSE, op.else_block, site())
