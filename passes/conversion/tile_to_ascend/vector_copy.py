"""The ascend vector lowering of tile.copy: ascend.copy, with ascend.vcast for conversions.

A copy between GM and UB is one DMA (`ascend.copy`, MTE2 in, MTE3 out),
whose edge semantics are the tile op's: the part of the region outside the
GM tensor reads as zero and is not written. A copy between UB tiles is a
V-pipe `ascend.copy`. DMA does not convert, so a copy that changes the
element type goes through a UB temporary of the region's shape and an
`ascend.vcast` with `arith`'s rounding (floats to nearest even, floats to
integers toward zero). A lower-rank operand is viewed at the copy's rank
(`memref.expand_shape` with the dropped unit dimensions). A region smaller
than its destination tile pads the rest of the tile first, as on every
target; a pad value other than zero cannot come from the DMA, so such a
copy is a scalar loop of guarded loads (S pipe). Copies that touch a cube
buffer belong to the cube lowering.

Before:

    tile.copy %X[%i, %j], %t[%c0, %c0]
        : memref<?x?xf16>, memref<16x128xf32, #tile.scope<ub>>

After:

    ascend.copy %X[%i, %j], %tmp[%c0, %c0] sizes [16, 128]
        : memref<?x?xf16>, memref<16x128xf16, #tile.scope<ub>>
    ascend.vcast %t, %tmp : memref<16x128xf32, #tile.scope<ub>>, memref<16x128xf16, ...>
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, memref, scf

from tilec.dialects import ascend
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import TileOpLowering, register_lowering
from tilec.passes.conversion.tile_semantics import copy_dims, copy_sizes, may_pad_rest
from tilec.passes.conversion.tile_to_ascend import buffers
from tilec.targets import TargetDescription


@dataclass(frozen=True)
class _Side:
    """One operand at the copy's rank: the (expanded) buffer and one offset per copy dim."""

    buffer: ir.Value
    offsets: list[ir.Value]

    @property
    def element(self) -> ir.Type:
        return ir.MemRefType(self.buffer.type).element_type

    def region(self, sizes: list[int]) -> ir.Value:
        return buffers.view(self.buffer, self.offsets, sizes)


def at_copy_rank(buffer: ir.Value, offsets: list[ir.Value], sizes: list[int]) -> _Side:
    """`buffer` viewed at the rank of `sizes`, the unit dims it drops put back."""
    type_ = ir.MemRefType(buffer.type)
    rank = len(sizes)
    if type_.rank == rank:
        return _Side(buffer, list(offsets))
    kept = copy_dims(sizes, type_.rank)
    groups, shape, dynamic, full_offsets = [], [], [], []
    start = 0
    for dim, copy_dim in enumerate(kept):
        end = rank if dim == len(kept) - 1 else copy_dim + 1
        groups.append(list(range(start, end)))
        start = end
    for dim in range(rank):
        if dim in kept:
            source_dim = kept.index(dim)
            extent = type_.shape[source_dim]
            shape.append(extent)
            if ir.ShapedType.is_dynamic_size(extent):
                dynamic.append(memref.dim(buffer, irb.index(source_dim)))
            full_offsets.append(offsets[source_dim])
        else:
            shape.append(1)
            full_offsets.append(irb.index(0))
    result = ir.MemRefType.get(shape, type_.element_type, None, type_.memory_space)
    i64 = ir.IntegerType.get_signless(64)
    reassociation = ir.ArrayAttr.get(
        [ir.ArrayAttr.get([ir.IntegerAttr.get(i64, d) for d in g]) for g in groups]
    )
    expanded = memref.expand_shape(result, buffer, reassociation, dynamic, shape)
    return _Side(expanded, full_offsets)


def _is_zero(value: ir.Value | None) -> bool:
    if value is None:
        return True
    owner = value.owner
    if not isinstance(owner, ir.Operation | ir.OpView) or owner.name != "arith.constant":
        return False
    attr = owner.attributes["value"]
    if isinstance(attr, ir.FloatAttr):
        return ir.FloatAttr(attr).value == 0.0
    return isinstance(attr, ir.IntegerAttr) and ir.IntegerAttr(attr).value == 0


def _guarded_copy(src: _Side, dst: _Side, sizes: list[int], pad: ir.Value) -> None:
    """Element by element: a read outside `src` gives `pad`."""
    with irb.loop_nest(sizes) as ivs:
        at = [irb.add(o, i) for o, i in zip(src.offsets, ivs, strict=True)]
        inside = None
        for dim, position in enumerate(at):
            extent = memref.dim(src.buffer, irb.index(dim))
            check = arith.cmpi(arith.CmpIPredicate.ult, position, extent)
            inside = check if inside is None else arith.andi(inside, check)
        branch = scf.IfOp(inside, [src.element], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            scf.YieldOp([memref.load(src.buffer, at)])
        with ir.InsertionPoint(branch.else_block):
            scf.YieldOp([irb.convert(pad, src.element)])
        value = irb.convert(branch.results[0], dst.element)
        memref.store(
            value, dst.buffer, [irb.add(o, i) for o, i in zip(dst.offsets, ivs, strict=True)]
        )


@register_lowering
class CopyToDma(TileOpLowering):
    """tile.copy between GM and UB, or UB and UB, as ascend.copy (and vcast)."""

    target = "ascend"
    op_names = ("tile.copy",)
    name = "ascend-vector-copy"

    def applies(self, op: ir.Operation, target: TargetDescription) -> str | None:
        src_type = ir.MemRefType(op.operands[0].type)
        src, dst = op.operands[0], op.operands[1 + src_type.rank]
        for value, what in ((src, "the source"), (dst, "the destination")):
            if buffers.is_cube(value):
                space = buffers.memory_space(ir.MemRefType(value.type))
                return f"{what} is in the cube buffer {space}"
        if buffers.is_global(src) and buffers.is_global(dst):
            return "both operands are global buffers (no UB tile)"
        return None

    def lower(self, op: ir.Operation, plan: object, target: TargetDescription) -> None:
        operands = list(op.operands)
        src_type = ir.MemRefType(operands[0].type)
        dst_type = ir.MemRefType(operands[1 + src_type.rank].type)
        src_rank, dst_rank = src_type.rank, dst_type.rank
        sizes = copy_sizes(op, src_type, dst_type, lambda v: not buffers.is_global(v))
        pad_operands = operands[2 + src_rank + dst_rank :]
        pad = pad_operands[0] if pad_operands else None
        with ir.InsertionPoint(op), op.location:
            src = at_copy_rank(operands[0], operands[1 : 1 + src_rank], sizes)
            dst_offsets = operands[2 + src_rank : 2 + src_rank + dst_rank]
            dst = at_copy_rank(operands[1 + src_rank], dst_offsets, sizes)
            from_gm = buffers.is_global(operands[0])
            if not buffers.is_global(operands[1 + src_rank]) and math.prod(sizes) < math.prod(
                dst_type.shape
            ) and may_pad_rest(op, operands[1 + src_rank], _ascend_reads_only):
                # The rest of the tile reads as the pad, as past a tensor's edge.
                fill = irb.zero(dst.element) if pad is None else irb.convert(pad, dst.element)
                ascend.vdup(operands[1 + src_rank], fill)
            if from_gm and not _is_zero(pad):
                _guarded_copy(src, dst, sizes, pad)
            else:
                _copy(op, src, dst, sizes)
        op.erase()


def _ascend_reads_only(user: ir.Operation, operand: int) -> bool:
    """The ascend ops that only read a buffer operand: a vector op's operands after its
    destination (the first), a copy's source."""
    if user.name == "ascend.copy":
        return operand == 0
    return user.name.startswith("ascend.v") and operand > 0


def _copy(op: ir.Operation, src: _Side, dst: _Side, sizes: list[int]) -> None:
    zeros = [irb.index(0)] * len(sizes)
    if src.element == dst.element:
        ascend.copy(src.buffer, src.offsets, dst.buffer, dst.offsets, sizes)
        return
    scratch = buffers.Scratch(op)
    if not buffers.is_global(src.buffer) and not buffers.is_global(dst.buffer):
        buffers.cast(dst.region(sizes), src.region(sizes), scratch)
        return
    if buffers.is_global(src.buffer):
        staged = scratch.take(sizes, src.element)
        ascend.copy(src.buffer, src.offsets, staged, zeros, sizes)
        buffers.cast(dst.region(sizes), staged, scratch)
    else:
        staged = scratch.take(sizes, dst.element)
        buffers.cast(staged, src.region(sizes), scratch)
        ascend.copy(staged, zeros, dst.buffer, dst.offsets, sizes)
