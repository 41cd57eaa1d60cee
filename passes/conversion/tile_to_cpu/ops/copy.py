"""The cpu lowering of tile.copy: vector loads and stores, masked at the edges.

The copy's innermost dimension, when it is the last dimension of both
operands, is cut into vectors of one register; the other dimensions become
`scf.for` loops. When the whole region is inside both buffers (the interior
tiles of a grid) plain vector loads and stores do the copy (masked ones cost
several times more on x86). Otherwise every bound that is not known to hold
statically turns into a vector mask: a lane whose source element lies past
the end of `src` reads the pad value (the pass-through of
`vector.maskedload`), and a lane whose destination lies past the end of
`dst` is not written (`vector.maskedstore`). Positions before index 0 (a
negative offset) are out of bounds the same way. A row that is out of
bounds as a whole gets an all-false mask, so edge tiles need no further
branches. When
the innermost copy dimension is a dropped unit dimension of one operand,
each element is a one-lane vector with the same masking. Element types are
converted with arith casts between the load and the store; a side that
holds bools as bytes (`tile.bool_src`/`tile.bool_dst`, see
tile-widen-bools) converts through i1. Copies of the same rows of one
source into disjoint parts of one tile, one right after the other (a gemm's
B written into its panels), share one loop nest (`_row_group`).

Before:

    tile.copy %A[%i, %j], %t[%c0, %c0] : memref<?x?xf32>, memref<4x8xf32, #tile.scope<shared>>

After (schematically):

    scf.if %region_inside { <the same loops with vector.load> } else {
    scf.for %r = %c0 to %c4 step %c1 {
      %row = arith.addi %i, %r : index
      %n = ... min(max(dim(A, 1) - %j, 0), 8), or 0 when %row >= dim(A, 0)
      %m = vector.create_mask %n : vector<8xi1>
      %v = vector.maskedload %A[%row, %j], %m, %pad : ... into vector<8xf32>
      vector.store %v, %t[%r, %c0] : memref<4x8xf32, #tile.scope<shared>>, vector<8xf32>
    }
    }
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, memref, scf, vector

from tilec.dialects import tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.conversion.tile_semantics import copy_dims, copy_sizes, may_pad_rest
from tilec.passes.conversion.tile_to_cpu.ops.fill import fill
from tilec.passes.widen_bools import BOOL_DST, BOOL_SRC
from tilec.targets import CpuTarget


@dataclass(frozen=True)
class _Side:
    """One operand of a copy: the buffer, its offsets and, for each of its
    dimensions, which dimension of the copy extent it follows."""

    buffer: ir.Value
    offsets: list[ir.Value]
    copy_dims: list[int]

    @property
    def type(self) -> ir.MemRefType:
        return ir.MemRefType(self.buffer.type)


class _Access:
    """Indices and mask of one vector access of a side, built at the current
    insertion point for the copy point `ivs` and the chunk at `start`; with
    `checked` false the caller knows the whole region is inside."""

    def __init__(
        self,
        side: _Side,
        sizes: list[int],
        ivs: dict[int, ir.Value],
        vector_dim: int | None,
        start: int | ir.Value,
        width: int,
        checked: bool,
    ):
        self.indices: list[ir.Value] = []
        self.count: ir.Value | None = None
        self.skip: ir.Value | None = None
        row_ok: ir.Value | None = None
        for dim, copy_dim in enumerate(side.copy_dims):
            position = (
                irb.add(side.offsets[dim], ivs[copy_dim]) if copy_dim in ivs else side.offsets[dim]
            )
            if copy_dim == vector_dim:
                position = irb.add(position, start)
            self.indices.append(position)
            if not checked or irb.statically_inside(
                side.buffer, dim, side.offsets[dim], sizes[copy_dim]
            ):
                continue
            extent = memref.dim(side.buffer, irb.index(dim))
            if copy_dim == vector_dim:
                self.count = irb.clamped_count(extent, position, width)
                # Lanes before index 0 when the region starts at a negative offset.
                self.skip = irb.clamped_count(irb.index(0), position, width)
            else:
                inside = arith.cmpi(arith.CmpIPredicate.ult, position, extent)
                row_ok = inside if row_ok is None else arith.andi(row_ok, inside)
        if row_ok is not None:
            self.count = arith.select(row_ok, self.count or irb.index(width), irb.index(0))

    def load(self, buffer: ir.Value, type_: ir.VectorType, pad: ir.Value) -> ir.Value:
        if self.count is None:
            return vector.load(type_, buffer, self.indices)
        lanes = type_.shape[0]
        return vector.maskedload(
            type_, buffer, self.indices, self._mask(lanes), irb.splat(pad, lanes)
        )

    def store(self, value: ir.Value, buffer: ir.Value) -> None:
        if self.count is None:
            vector.store(value, buffer, self.indices)
            return
        lanes = ir.VectorType(value.type).shape[0]
        vector.maskedstore(buffer, self.indices, self._mask(lanes), value)

    def _mask(self, lanes: int) -> ir.Value:
        assert self.count is not None
        return irb.mask(self.count, lanes, self.skip)


@dataclass(frozen=True)
class _Copy:
    """One copy's operands and extent, and which copy dim is vectorized."""

    src: _Side
    dst: _Side
    sizes: list[int]
    vector_dim: int | None
    lanes: int
    pad: ir.Value
    bool_src: bool
    bool_dst: bool

    def region_inside(self) -> ir.Value | None:
        """Whether the whole region lies inside both buffers (a negative
        offset wraps around in `start <= end`); None when that holds statically."""
        inside = None
        for side in (self.src, self.dst):
            for dim, copy_dim in enumerate(side.copy_dims):
                size = self.sizes[copy_dim]
                if irb.statically_inside(side.buffer, dim, side.offsets[dim], size):
                    continue
                start = side.offsets[dim]
                end = irb.add(start, size)
                extent = memref.dim(side.buffer, irb.index(dim))
                check = arith.andi(
                    arith.cmpi(arith.CmpIPredicate.ule, start, end),
                    arith.cmpi(arith.CmpIPredicate.ule, end, extent),
                )
                inside = check if inside is None else arith.andi(inside, check)
        return inside

    def loop_dims(self) -> list[int]:
        return [d for d in range(len(self.sizes)) if d != self.vector_dim and self.sizes[d] > 1]

    def emit_at(self, ivs: dict[int, ir.Value], checked: bool) -> None:
        """The copy's vectors at one point `ivs` of its loops."""
        if self.vector_dim is None:
            self._chunk(ivs, 0, 1, checked)
            return
        irb.for_each_chunk(
            self.sizes[self.vector_dim],
            self.lanes,
            lambda start, width: self._chunk(ivs, start, width, checked),
        )

    def _chunk(
        self, ivs: dict[int, ir.Value], start: int | ir.Value, width: int, checked: bool
    ) -> None:
        src_type, dst_type = self.src.type, self.dst.type
        read = _Access(self.src, self.sizes, ivs, self.vector_dim, start, width, checked)
        value = read.load(
            self.src.buffer, ir.VectorType.get([width], src_type.element_type), self.pad
        )
        if self.bool_src:
            value = irb.bool_from_byte(value)
        value = irb.convert(value, irb.i1() if self.bool_dst else dst_type.element_type)
        if self.bool_dst:
            value = irb.byte_from_bool(value)
        write = _Access(self.dst, self.sizes, ivs, self.vector_dim, start, width, checked)
        write.store(value, self.dst.buffer)


@dataclass(frozen=True)
class _Plan:
    """Which copy dimension is vectorized (None: element by element) and
    how many lanes a vector has."""

    sizes: list[int]
    vector_dim: int | None
    lanes: int


@register_lowering
class CopyToMaskedVectors(TileOpLowering[_Plan, CpuTarget]):
    """tile.copy as vector loads and stores, masked only where a bound may fail."""

    target = "cpu"
    op_names = ("tile.copy",)
    name = "cpu-copy-masked-vectors"
    phase = Phase.COPIES

    def infer(self, op: ir.Operation, target: CpuTarget) -> _Plan:
        src_type, dst_type = _operand_types(op)
        sizes = copy_sizes(op, src_type, dst_type)
        last = len(sizes) - 1
        src_dims = copy_dims(sizes, src_type.rank)
        dst_dims = copy_dims(sizes, dst_type.rank)
        vector_dim = last if src_dims[-1:] == [last] == dst_dims[-1:] else None
        lanes = irb.lanes(target.vector_bytes, src_type.element_type, dst_type.element_type)
        return _Plan(sizes, vector_dim, lanes)

    def lower(self, op: ir.Operation, plan: _Plan, target: CpuTarget) -> None:
        if JOINED in op.attributes:
            op.erase()  # the first copy of its row group copied it
            return
        group = _row_group(op, plan, lambda member: self.infer(member, target))
        # After the operands of every member: between them there is only index arithmetic.
        with ir.InsertionPoint(group[-1]), op.location:
            _emit([_prepared(member, plan, target) for member in group])
        for member in group[1:]:
            member.attributes[JOINED] = ir.UnitAttr.get()
        op.erase()


JOINED = "tile.cpu_joined_copy"
"""Marks a copy that the first copy of its row group (`_row_group`) copied."""


def _prepared(op: ir.Operation, plan: _Plan, target: CpuTarget) -> _Copy:
    """The copy's operands, after the fill of the rest of its tile where it fills a part."""
    operands = list(op.operands)
    src_type, dst_type = _operand_types(op)
    src_rank = src_type.rank
    sizes = plan.sizes
    src = _Side(operands[0], operands[1 : 1 + src_rank], copy_dims(sizes, src_rank))
    dst_offsets = operands[2 + src_rank : 2 + src_rank + dst_type.rank]
    dst = _Side(operands[1 + src_rank], dst_offsets, copy_dims(sizes, dst_type.rank))
    pad_operands = operands[2 + src_rank + dst_type.rank :]
    pad = pad_operands[0] if pad_operands else irb.zero(src_type.element_type)
    if _pads_rest(op, sizes):
        # The rest of the tile reads as the pad, like elements past a
        # tensor's edge, not as whatever the stack held: a later gemm
        # over the whole tile must not meet NaN garbage.
        lanes = irb.lanes(target.vector_bytes, dst_type.element_type)
        fill(dst.buffer, irb.convert(pad, dst_type.element_type), lanes)
    bools = (BOOL_SRC in op.attributes, BOOL_DST in op.attributes)
    return _Copy(src, dst, sizes, plan.vector_dim, plan.lanes, pad, *bools)


def _emit(copies: list[_Copy]) -> None:
    """The copies in one loop nest (they have the same loops): unchecked
    when all their regions are inside their buffers, else masked."""
    inside = None
    for copy in copies:
        check = copy.region_inside()
        if check is not None:
            inside = check if inside is None else arith.andi(inside, check)

    def loops(checked: bool) -> None:
        dims = copies[0].loop_dims()
        with irb.loop_nest([copies[0].sizes[d] for d in dims]) as loop_ivs:
            ivs = dict(zip(dims, loop_ivs, strict=True))
            for copy in copies:
                copy.emit_at(ivs, checked)

    if inside is None:
        loops(checked=False)
        return
    branch = scf.IfOp(inside, has_else=True)
    with ir.InsertionPoint(branch.then_block):
        loops(checked=False)
        scf.YieldOp([])
    with ir.InsertionPoint(branch.else_block):
        loops(checked=True)
        scf.YieldOp([])


def _row_group(op: ir.Operation, plan: _Plan, infer: Callable[[ir.Operation], _Plan],
               ) -> list[ir.Operation]:
    """`op` and the copies right after it (only index arithmetic between them)
    that copy the same rows of the same source, at other columns, to disjoint
    places of the same tile: a gemm's B written into its panels, one copy per
    panel (gemm_packed_copy.py). One loop nest then copies them all, every
    row of the source read once, not once per copy in a loop of its own
    (measured: the four 32-column copies of a 128-column B took a third
    longer than one copy of the whole rows)."""
    group = [op]
    if not _joinable(op, plan):
        return group
    after = False
    for candidate in op.block.operations:
        candidate = candidate.operation
        if not after:
            after = candidate == op
            continue
        if candidate.name.startswith("arith."):
            continue
        if candidate.name != "tile.copy" or not _same_rows(op, plan, candidate, infer(candidate)):
            break
        group.append(candidate)
    if not _disjoint(group, plan.sizes):
        return [op]
    return group


def _joinable(op: ir.Operation, plan: _Plan) -> bool:
    src_type, _ = _operand_types(op)
    src, dst = op.operands[0], op.operands[1 + src_type.rank]
    return (JOINED not in op.attributes and BOOL_SRC not in op.attributes
            and BOOL_DST not in op.attributes and src != dst and not _pads_rest(op, plan.sizes))


def _same_rows(op: ir.Operation, plan: _Plan, other: ir.Operation, other_plan: _Plan) -> bool:
    """Whether `other` copies the rows `op` copies (same source, offsets but
    in the vectorized dimension, extent and pad) into the same tile."""
    if other_plan != plan or not _joinable(other, other_plan):
        return False
    src_type, dst_type = _operand_types(op)
    if _operand_types(other) != (src_type, dst_type):
        return False
    mine, theirs = list(op.operands), list(other.operands)
    rank = src_type.rank
    dims = copy_dims(plan.sizes, rank)
    same_offsets = all(mine[1 + d] == theirs[1 + d] for d in range(rank)
                       if dims[d] != plan.vector_dim)
    shared = [0, 1 + rank, *range(2 + rank + dst_type.rank, len(mine))]  # src, dst, pad
    return (len(mine) == len(theirs) and same_offsets
            and all(mine[i] == theirs[i] for i in shared))


def _disjoint(group: list[ir.Operation], sizes: list[int]) -> bool:
    """Whether the members write disjoint regions of their tile (constant offsets)."""
    boxes = []
    for op in group:
        src_type, dst_type = _operand_types(op)
        at = 2 + src_type.rank
        starts = [irb.constant_int(v) for v in op.operands[at : at + dst_type.rank]]
        if any(start is None for start in starts):
            return False
        extent = [sizes[d] for d in copy_dims(sizes, dst_type.rank)]
        boxes.append([(start, start + size) for start, size in zip(starts, extent, strict=True)])
    return all(
        any(a_end <= b_start or b_end <= a_start
            for (a_start, a_end), (b_start, b_end) in zip(a, b, strict=True))
        for i, a in enumerate(boxes) for b in boxes[i + 1:]
    )


def _pads_rest(op: ir.Operation, sizes: list[int]) -> bool:
    _, dst_type = _operand_types(op)
    dst = op.operands[1 + ir.MemRefType(op.operands[0].type).rank]
    return _fills_part_of_a_tile(dst_type, sizes) and may_pad_rest(op, dst)


def _fills_part_of_a_tile(dst: ir.MemRefType, sizes: list[int]) -> bool:
    """Whether a copy writes only part of an on-chip destination tile."""
    if dst.memory_space is None or tile.scope_of(dst) is tile.Scope.global_:
        return False
    return math.prod(sizes) < math.prod(dst.shape)


def _operand_types(op: ir.Operation) -> tuple[ir.MemRefType, ir.MemRefType]:
    src_type = ir.MemRefType(op.operands[0].type)
    return src_type, ir.MemRefType(op.operands[1 + src_type.rank].type)
