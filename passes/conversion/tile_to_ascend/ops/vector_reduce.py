"""The ascend vector lowerings of tile.reduce and tile.cumsum: whole-row vector ops.

A reduction along the last dimension is one `ascend.vreduce` (WholeReduce
per row). Along another dimension the rows of that dimension are combined
with `ascend.vbin` into the result, one slice after the other, so every op
reads contiguous rows. `abssum`/`absmax` take `ascend.vunary abs` of the
source first (into a UB temporary); `clear = false` combines the old `dst`
in (a second vbin after a vreduce, or the running result starting from it).
Where the profile's WholeReduce does not take the elements (the 910b's
ReduceMax of i32) a max or min along the last dimension runs element by
element on the S pipe: exact, where i32 through f32 is not above 2^24.

A cumsum adds slice `i - 1` of the result to slice `i` of the source, one
`ascend.vbin add` per position along `dim` (from the end when `reverse`);
along the last dimension of rows a slice would be a strided column, which no
count-mode vector call reads, so that cumsum runs element by element (S pipe).

Before:

    tile.reduce max %s, %m dim = 1 clear = false
        : memref<16x128xf32, #tile.scope<ub>>, memref<16xf32, #tile.scope<ub>>

After:

    ascend.vreduce max %tmp, %s : memref<16xf32, ...>, memref<16x128xf32, ...>
    ascend.vbin max %m, %m, %tmp : memref<16xf32, #tile.scope<ub>>
"""

from __future__ import annotations

import math
from collections.abc import Callable

from mlir import ir
from mlir.dialects import arith, memref

from tilec.dialects import ascend, tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.conversion.tile_to_ascend.ops import buffers
from tilec.passes.conversion.tile_to_ascend.ops.vector_fill import vector_operand_problem
from tilec.targets import TargetDescription
from tilec.targets.ascend import AscendTarget
from tilec.targets.ascend.call_dtypes import REDUCE, VBIN, vector_call_problem

_BASE = {"sum": "sum", "max": "max", "min": "min", "abssum": "sum", "absmax": "max"}
_COMBINE = {"sum": ascend.VBinKind.add, "max": ascend.VBinKind.max, "min": ascend.VBinKind.min}


def _slice(buffer: ir.Value, dim: int, position: ir.Value | int, keep: bool) -> ir.Value:
    """Position `position` of dimension `dim` of `buffer`: the dim kept as a
    unit dim (`keep`) or dropped."""
    shape = list(ir.MemRefType(buffer.type).shape)
    offsets: list[ir.Value | int] = [0] * len(shape)
    offsets[dim] = position
    sizes = list(shape)
    sizes[dim] = 1
    return buffers.view(buffer, offsets, sizes, () if keep else (dim,))


def _over_dim(extent: int, first: int, body: Callable[[ir.Value | int], None]) -> None:
    """`body(i)` for i in [first, extent): inline for one, else an scf.for."""
    if extent - first == 1:
        body(first)
    elif extent > first:
        with irb.loop(first, extent) as i:
            body(i)


def _calls_problem(target: TargetDescription, calls: list[str],
                   source: ir.MemRefType) -> str | None:
    """Why a vector call of `calls` does not take the source's elements on the profile."""
    element = str(source.element_type)
    return next(filter(None, (vector_call_problem(target.variant, call, element)
                              for call in calls)), None)


def _both_operands_ub(op: ir.Operation) -> str | None:
    return vector_operand_problem(op.operands[0], "the source") or vector_operand_problem(
        op.operands[1], "the destination"
    )


@register_lowering
class ReduceToVectorOps(TileOpLowering[None, AscendTarget]):
    """tile.reduce as ascend.vreduce along the last dim, vbin over slices along others."""

    target = "ascend"
    op_names = ("tile.reduce",)
    name = "ascend-vector-reduce"
    phase = Phase.REDUCTIONS

    def applies(self, op: ir.Operation, target: AscendTarget) -> str | None:
        src_type = ir.MemRefType(op.operands[0].type)
        kind = str(tile.reduce_kind_of(op.attributes["kind"]))
        base = _BASE[kind]
        calls = [VBIN[str(_COMBINE[base])]]
        if ir.IntegerAttr(op.attributes["dim"]).value == src_type.rank - 1 \
                and not _element_by_element(op, target):
            calls.append(REDUCE[base])
        if kind.startswith("abs"):
            calls.append("Abs")
        return _both_operands_ub(op) or _calls_problem(target, calls, src_type)

    def lower(self, op: ir.Operation, plan: None, target: AscendTarget) -> None:
        src, dst = op.operands
        src_type = ir.MemRefType(src.type)
        kind = str(tile.reduce_kind_of(op.attributes["kind"]))
        dim = ir.IntegerAttr(op.attributes["dim"]).value
        clear = "clear" not in op.attributes or ir.BoolAttr(op.attributes["clear"]).value
        base = _BASE[kind]
        combine = _COMBINE[base]
        scratch = buffers.Scratch(op)
        with ir.InsertionPoint(op), op.location:
            if _element_by_element(op, target):
                _scalar_rows(src, dst, base, clear)
                op.erase()
                return
            if kind.startswith("abs"):
                magnitude = scratch.take(list(src_type.shape), src_type.element_type)
                ascend.vunary(ascend.VUnaryKind.abs, magnitude, src)
                src = magnitude
            if dim == src_type.rank - 1:
                target_buffer = dst
                if not clear:
                    target_buffer = scratch.take(
                        list(ir.MemRefType(dst.type).shape), src_type.element_type
                    )
                ascend.vreduce(getattr(ascend.ReduceKind, base), target_buffer, src)
                if not clear:
                    ascend.vbin(combine, dst, dst, target_buffer)
            else:
                extent = src_type.shape[dim]
                if clear and extent == 1:
                    shape = list(ir.MemRefType(dst.type).shape)
                    zeros = [irb.index(0)] * len(shape)
                    ascend.copy(_slice(src, dim, 0, False), zeros, dst, zeros, shape)
                elif clear:
                    ascend.vbin(
                        combine, dst, _slice(src, dim, 0, False), _slice(src, dim, 1, False)
                    )
                _over_dim(
                    extent,
                    2 if clear else 0,
                    lambda i: ascend.vbin(combine, dst, dst, _slice(src, dim, i, False)),
                )
        op.erase()


def _element_by_element(op: ir.Operation, target: TargetDescription) -> bool:
    """Whether a max or min along the last dim runs element by element on the S pipe: where
    the profile's WholeReduce does not take the elements (the 910b's ReduceMax and
    ReduceMin take f16 and f32 only: `call_dtypes`). Exact for any values, where a
    conversion to f32 is not (i32 above 2^24); the vector calls cannot combine a row's
    elements otherwise, since their operands are contiguous (or rows of 32-byte blocks)."""
    source = ir.MemRefType(op.operands[0].type)
    if ir.IntegerAttr(op.attributes["dim"]).value != source.rank - 1:
        return False
    kind = str(tile.reduce_kind_of(op.attributes["kind"]))
    return kind in ("max", "min") and isinstance(source.element_type, ir.IntegerType) \
        and _calls_problem(target, [REDUCE[kind]], source) is not None


def _scalar_rows(src: ir.Value, dst: ir.Value, kind: str, clear: bool) -> None:
    """`dst[r] = kind(dst[r] unless clear, src[r, :])`, one element at a time."""
    shape = list(ir.MemRefType(src.type).shape)
    combine = arith.maxsi if kind == "max" else arith.minsi
    with irb.loop_nest(shape[:-1]) as row:
        if clear:
            memref.store(memref.load(src, [*row, irb.index(0)]), dst, row)
        with irb.loop(1 if clear else 0, shape[-1]) as column:
            value = memref.load(src, [*row, column])
            memref.store(combine(memref.load(dst, row), value), dst, row)


def _scalar_cumsum(src: ir.Value, dst: ir.Value, shape: list[int], reverse: bool) -> None:
    """A cumsum along the last dim of rows, one element at a time on the S pipe: a slice
    there is a column, a strided view that no count-mode vector call reads."""
    with irb.loop_nest(shape[:-1]) as row:
        last = irb.index(shape[-1] - 1)
        first = last if reverse else irb.index(0)
        memref.store(memref.load(src, [*row, first]), dst, [*row, first])
        with irb.loop(1, shape[-1]) as i:
            position = arith.subi(last, i) if reverse else i
            previous = irb.add(position, 1) if reverse else arith.subi(position, irb.index(1))
            total = _sum(memref.load(dst, [*row, previous]),
                                   memref.load(src, [*row, position]))
            memref.store(total, dst, [*row, position])


def _sum(a: ir.Value, b: ir.Value) -> ir.Value:
    return arith.addf(a, b) if irb.is_float(a.type) else arith.addi(a, b)


def _unit_at(shape: list[int], dim: int) -> list[int]:
    sizes = list(shape)
    sizes[dim] = 1
    return sizes


@register_lowering
class CumsumToVectorAdds(TileOpLowering[None, AscendTarget]):
    """tile.cumsum as one ascend.vbin add per position along its dimension."""

    target = "ascend"
    op_names = ("tile.cumsum",)
    name = "ascend-vector-cumsum"
    phase = Phase.REDUCTIONS

    def applies(self, op: ir.Operation, target: AscendTarget) -> str | None:
        return _both_operands_ub(op) or _calls_problem(
            target, ["Add"], ir.MemRefType(op.operands[0].type))

    def lower(self, op: ir.Operation, plan: None, target: AscendTarget) -> None:
        src, dst = op.operands
        shape = list(ir.MemRefType(src.type).shape)
        dim = ir.IntegerAttr(op.attributes["dim"]).value
        reverse = "reverse" in op.attributes and ir.BoolAttr(op.attributes["reverse"]).value
        extent = shape[dim]
        zeros = [irb.index(0)] * len(shape)
        with ir.InsertionPoint(op), op.location:
            if dim == len(shape) - 1 and math.prod(shape[:-1]) > 1:
                _scalar_cumsum(src, dst, shape, reverse)
                op.erase()
                return
            first = extent - 1 if reverse else 0
            if src != dst:
                ascend.copy(
                    _slice(src, dim, first, True),
                    zeros,
                    _slice(dst, dim, first, True),
                    zeros,
                    _unit_at(shape, dim),
                )

            def step(i: ir.Value | int) -> None:
                if reverse:
                    # Walks i = 1 .. extent-1 as positions extent-1-i from the end.
                    position = (
                        irb.index(extent - 1 - i)
                        if isinstance(i, int)
                        else (arith.subi(irb.index(extent - 1), i))
                    )
                    previous = irb.add(position, 1)
                else:
                    position = irb.as_index(i)
                    previous = arith.subi(position, irb.index(1))
                ascend.vbin(
                    ascend.VBinKind.add,
                    _slice(dst, dim, position, True),
                    _slice(dst, dim, previous, True),
                    _slice(src, dim, position, True),
                )

            _over_dim(extent, 1, step)
        op.erase()
