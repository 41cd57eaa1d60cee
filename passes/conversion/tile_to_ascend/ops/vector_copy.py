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
target. A pad value other than zero cannot come from the DMA, which reads
zeros past the tensor's edge: the copy is the DMA and then a `tile.parallel`
that selects the pad where the element lies past the edge, which the vector
lowering makes a compare and a Select (V pipe) where the scalar loop of
guarded loads it replaces ran element by element on S (which is left for a
rank-changing view of the tile). Copies that touch a cube buffer belong to
the cube lowering.

A copy from GM to GM goes through UB on the vector core, the MTEs having no
GM -> GM path: a loop over the region's leading dims and over chunks of its
rows, each chunk a DMA into a UB temporary (cast there when the types differ)
and a DMA out. A chunk's rows divide the region's, so no chunk reaches past
the region into elements the copy must not write.

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

from tilec.dialects import ascend, tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.conversion.tile_semantics import copy_dims, copy_sizes, may_pad_rest
from tilec.passes.conversion.tile_to_ascend.ops import buffers
from tilec.passes.registry import emit_error
from tilec.targets.ascend import AscendTarget


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
    result = ir.MemRefType.get(shape, type_.element_type, _expanded_layout(type_, groups, shape),
                               type_.memory_space)
    i64 = ir.IntegerType.get_signless(64)
    reassociation = ir.ArrayAttr.get(
        [ir.ArrayAttr.get([ir.IntegerAttr.get(i64, d) for d in g]) for g in groups]
    )
    expanded = memref.expand_shape(result, buffer, reassociation, dynamic, shape)
    return _Side(expanded, full_offsets)


def _expanded_layout(type_: ir.MemRefType, groups: list[list[int]],
                     shape: list[int]) -> ir.Attribute | None:
    """The layout `memref.expand_shape` gives a view of `type_` (None for the identity): in
    each group, a dim's stride is the next one's times its extent, the last the source
    dim's stride (dynamic strides stay dynamic)."""
    if not isinstance(type_.layout, ir.StridedLayoutAttr):
        return None
    strides, offset = type_.get_strides_and_offset()
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    expanded = [0] * len(shape)
    for group, stride in zip(groups, strides, strict=True):
        for d in reversed(group):
            expanded[d] = stride
            stride = dynamic if stride == dynamic else stride * shape[d]
    return ir.StridedLayoutAttr.get(offset, expanded)


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


def _pad_outside(src: _Side, dst: _Side, sizes: list[int], pad: ir.Value) -> None:
    """After the DMA, which leaves zeros where the region lies past `src`'s edge: the
    pad there instead, as a tile.parallel of a select on the element's position (the
    vector lowering makes it a compare of the column or row index and a Select; a
    rank-changing view of the tile is the scalar loop's, `_guarded_copy`). DataCopyPad's
    own `paddingValue` cannot do it: it fills at most 32 bytes beside each row it moves
    (asc-devkit docs/zh/api/SIMD-API, DataCopyPad GMToUB: leftPadding, rightPadding;
    include/basic_api/kernel_struct_data_copy.h, DataCopyPadExtParams), not the columns
    of a wider tile nor the rows past the tensor's last."""
    shape = ir.MemRefType(src.buffer.type).shape
    edges = [dim for dim, offset in enumerate(src.offsets)
             if ir.ShapedType.is_dynamic_size(shape[dim]) or irb.constant_int(offset) is None
             or irb.constant_int(offset) + sizes[dim] > shape[dim]]
    if not edges:
        return  # the region lies inside the tensor
    region = tile.ParallelOp(sizes)
    block = region.regions[0].blocks.append(*([ir.IndexType.get()] * len(sizes)))
    with ir.InsertionPoint(block):
        at = [irb.add(o, i) for o, i in zip(dst.offsets, block.arguments, strict=True)]
        inside = None
        for dim in edges:
            position = irb.add(src.offsets[dim], block.arguments[dim])
            extent = memref.dim(src.buffer, irb.index(dim))
            check = arith.cmpi(arith.CmpIPredicate.slt, position, extent)
            inside = check if inside is None else arith.andi(inside, check)
        value = memref.load(dst.buffer, at)
        memref.store(arith.select(inside, value, irb.convert(pad, dst.element)), dst.buffer, at)
        tile.YieldOp()


@register_lowering
class CopyToDma(TileOpLowering[None, AscendTarget]):
    """tile.copy between GM and UB, or UB and UB, as ascend.copy (and vcast)."""

    target = "ascend"
    op_names = ("tile.copy",)
    name = "ascend-vector-copy"
    phase = Phase.COPIES

    def applies(self, op: ir.Operation, target: AscendTarget) -> str | None:
        src_type = ir.MemRefType(op.operands[0].type)
        src, dst = op.operands[0], op.operands[1 + src_type.rank]
        for value, what in ((src, "the source"), (dst, "the destination")):
            if buffers.is_cube(value):
                space = buffers.memory_space(ir.MemRefType(value.type))
                return f"{what} is in the cube buffer {space}"
        return None

    def lower(self, op: ir.Operation, plan: None, target: AscendTarget) -> None:
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
            if from_gm and buffers.is_global(dst.buffer):
                _through_ub(op, src, dst, sizes)
            elif from_gm and not _is_zero(pad) and dst.buffer == operands[1 + src_rank]:
                _copy(op, src, dst, sizes)
                _pad_outside(src, dst, sizes, pad)
            elif from_gm and not _is_zero(pad):
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


GM_TO_GM_CHUNK_BYTES = 32 * 1024
"""The most UB one chunk of a GM -> GM copy stages (per element type it passes through)."""


def _through_ub(op: ir.Operation, src: _Side, dst: _Side, sizes: list[int]) -> None:
    """A GM -> GM copy, chunk by chunk through UB (see the module's docstring): the region's
    rows (a 1-D region's elements) in chunks that fit `GM_TO_GM_CHUNK_BYTES`, then the rows
    left over, in a loop over its leading dims. A pad needs no code: the DMA in reads
    zeros past the source's edge, as the pad is then."""
    split = max(len(sizes) - 2, 0)  # the dim cut into chunks
    elements = (src.element, dst.element)
    pitch = _pitch(sizes[-1], elements) if len(sizes) >= 2 else sizes[-1]
    bytes_ = max(irb.bit_width(e) for e in elements) // 8
    slab = math.prod(sizes[split + 1:-1]) * pitch * bytes_ if len(sizes) >= 2 else bytes_
    if slab > GM_TO_GM_CHUNK_BYTES:
        raise emit_error(op, f"a copy from GM to GM of rows of {slab} bytes: it is staged in "
                             f"UB whole rows at a time, at most {GM_TO_GM_CHUNK_BYTES} bytes")
    chunk = min(sizes[split], GM_TO_GM_CHUNK_BYTES // slab)
    whole, left = divmod(sizes[split], chunk)
    part = [*[1] * split, chunk, *sizes[split + 1:]]
    padded = [*part[:-1], pitch] if len(sizes) >= 2 else part
    scratch = buffers.Scratch(op)
    inward = scratch.take(padded, src.element)
    outward = inward if dst.element == src.element else scratch.take(padded, dst.element)
    staged = (inward, outward, scratch)
    with irb.loop_nest(sizes[:split]) as lead:
        if whole > 1:
            with irb.loop(0, whole) as k:
                _stage(src, dst, sizes, staged, lead, arith.muli(k, irb.index(chunk)), chunk)
        else:
            _stage(src, dst, sizes, staged, lead, irb.index(0), chunk)
        if left:
            _stage(src, dst, sizes, staged, lead, irb.index(whole * chunk), left)


def _pitch(columns: int, elements: tuple[ir.Type, ...]) -> int:
    """Elements of a UB row holding `columns`: a whole number of 32-byte blocks in every
    element type, as DataCopyPad pads each row of UB to a block and counts UB strides in
    blocks (asc-devkit docs/zh/api/SIMD-API, DataCopyPad GMToUB: blockLen, dstStride)."""
    return buffers.padded_columns(columns, min(elements, key=irb.bit_width))


def _stage(src: _Side, dst: _Side, sizes: list[int],
           staged: tuple[ir.Value, ir.Value, buffers.Scratch], lead: list[ir.Value],
           start: ir.Value, count: int) -> None:
    """`count` rows of the region from `start` on (at the leading dims' `lead`), GM -> UB
    -> GM through the first rows of the chunk's UB tiles `staged` (in, out: the same tile
    unless they convert; the padding past each row's end is converted too, which no DMA
    moves)."""
    inward, outward, scratch = staged
    split = len(lead)
    at = [*lead, start, *[irb.index(0)] * (len(sizes) - split - 1)]
    part = [*[1] * split, count, *sizes[split + 1:]]
    zeros = [irb.index(0)] * len(sizes)
    rows = [*part[:-1], ir.MemRefType(inward.type).shape[-1]]
    converts = outward != inward
    inward = buffers.view(inward, zeros, rows)
    outward = buffers.view(outward, zeros, rows) if converts else inward
    ascend.copy(src.buffer, _moved(src, at), buffers.view(inward, zeros, part), zeros, part)
    if converts:
        buffers.cast(outward, inward, scratch)
    ascend.copy(buffers.view(outward, zeros, part), zeros, dst.buffer, _moved(dst, at), part)


def _moved(side: _Side, at: list[ir.Value]) -> list[ir.Value]:
    return [irb.add(o, i) for o, i in zip(side.offsets, at, strict=True)]


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
