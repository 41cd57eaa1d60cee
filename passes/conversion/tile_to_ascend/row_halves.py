"""Part of tile-ascend-split-cores: the two AIVs of an AI core split the vector
work of a mix kernel by rows.

Sub-block s keeps rows [s M/2, (s+1) M/2) of every tile handed over (M rows
each) and of every UB tile of M rows that the vector work uses row by row
with them (a softmax's row max and sum, attention's running output). Their
tile.parallel regions run on M/2 rows, the other uses of the row index
shifted to the global row; copies between a split tile and global memory
(the workspace included) shift their global row offset by the half's.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from tilec.dialects import ascend, tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_semantics import copy_dims, copy_sizes
from tilec.passes.conversion.tile_to_ascend.place_tiles import (
    CUBE_SPACES,
    copy_operands,
    scope_name,
)
from tilec.passes.registry import emit_error


def tile_operand(op: ir.Operation, number: int) -> tuple[ir.Value, ir.Value | None] | None:
    """The memref and dimension-0 index of a memref.load/store whose operand `number` it is."""
    at = 1 if op.name == "memref.store" else 0
    if number != at or op.name not in ("memref.load", "memref.store"):
        return None
    indices = list(op.operands)[at + 1:]
    return op.operands[at], indices[0] if indices else None


def _row_use(use: ir.OpOperand, candidates: set[ir.Value], rows: int) -> str | None:
    """Why one use of a tile keeps the AIVs from splitting it by rows (None: it does not)."""
    op, number = irb.use_owner(use), use.operand_number
    access = tile_operand(op, number)
    if access is not None:
        region = irb.enclosing(op, {"tile.parallel"})
        extents = [] if region is None else list(ir.DenseI64ArrayAttr(region.attributes["extents"]))
        if region is None or access[1] != region.regions[0].blocks[0].arguments[0] \
                or extents[0] != rows:
            return "must be indexed by the rows of its tile.parallel"
        return None
    if op.name == "tile.reduce":
        dim = ir.IntegerAttr(op.attributes["dim"]).value
        if dim == 0 or not all(v in candidates for v in list(op.operands)[:2]):
            return "is reduced across its rows"
        return None
    if op.name == "tile.copy":
        src, _, dst, _, _ = copy_operands(op)
        other = dst[0] if number == 0 else src[0]
        if scope_name(other) in CUBE_SPACES | {"ub"} and other not in candidates:
            return "is copied to or from a tile the AIVs do not split"
        return None
    if op.name in ("tile.fill", "tile.clear"):
        return None
    return f"is used by '{op.name}'"


def row_tiles(body: ir.Block, forced: list[ir.Value], rows: int) -> set[ir.Value]:
    """The tiles the AIVs split: `forced` (the handed-over tiles, an error
    when they cannot be split) and every UB tile of `rows` rows used row by
    row with them."""
    order = {op: i for i, op in enumerate(irb.every_op(body.owner))}
    uses: dict[ir.Value, list[ir.OpOperand]] = {}
    for value in forced:
        # In program order, so an error points at the first offending use.
        uses[value] = sorted(value.uses, key=lambda u: order[irb.use_owner(u)])
    for op in body.operations:
        op = op.operation
        if op.name == "tile.alloc" and op.results[0] not in uses:
            value = op.results[0]
            type_ = ir.MemRefType(value.type)
            if scope_name(value) == "ub" and type_.shape and type_.shape[0] == rows:
                uses[value] = list(value.uses)
    candidates = set(uses)
    changed = True
    while changed:
        changed = False
        for value in list(candidates):
            for use in uses[value]:
                why = _row_use(use, candidates, rows)
                if why is None:
                    continue
                if value in forced:
                    raise emit_error(irb.use_owner(use), f"tile-ascend-split-cores: a tile handed "
                                     f"between the cores {why} (not supported yet)")
                candidates.discard(value)
                changed = True
                break
    return candidates


def halve(body: ir.Block, split: set[ir.Value], rows: int) -> None:
    """Gives this AIV its half of every tile of `split` (see the module docstring)."""
    half_rows = rows // 2
    halves: dict[ir.Value, ir.Value] = {}
    with ir.InsertionPoint.at_block_begin(body), body.owner.location:
        for value in sorted(split, key=lambda v: _position(body, v)):
            type_ = ir.MemRefType(value.type)
            halves[value] = tile.alloc(
                tile.memref_type([half_rows, *type_.shape[1:]], type_.element_type, tile.Scope.ub))
        half = arith.muli(ascend.sub_block_idx(ir.IndexType.get()), irb.index(half_rows))
    parallels: list[ir.Operation] = []
    copies: list[ir.Operation] = []
    for value, new in halves.items():
        for use in list(value.uses):
            op = irb.use_owner(use)
            if tile_operand(op, use.operand_number) is not None:
                region = irb.enclosing(op, {"tile.parallel"})
                if not any(p == region for p in parallels):
                    parallels.append(region)
            elif op.name == "tile.copy" and not any(c == op for c in copies):
                copies.append(op)
            op.operands[use.operand_number] = new
    halved = set(halves.values())
    for copy in copies:
        _shift_copy(copy, halved, half, half_rows)
    for region in parallels:
        _halve_rows(region, halved, half, rows)
    for value in halves:
        value.owner.operation.erase()


def _shift_copy(copy: ir.Operation, halved: set[ir.Value], half: ir.Value,
                half_rows: int) -> None:
    """A copy between a split tile and global memory moves this AIV's rows:
    the global offset of the tile's row dimension shifts by `half`, and an
    explicit extent covers half the rows."""
    src, src_offsets, dst, dst_offsets, _ = copy_operands(copy)
    # (the split tile, the global side, its offsets, the operand number of the first)
    sides = ((src[0], dst[0], dst_offsets, len(src) + len(src_offsets) + 1),
             (dst[0], src[0], src_offsets, 1))
    for tile_, other, offsets, start in sides:
        if tile_ not in halved or scope_name(other) in CUBE_SPACES | {"ub"}:
            continue
        rank = len(ir.MemRefType(tile_.type).shape)
        sizes = copy_sizes(copy, ir.MemRefType(src[0].type), ir.MemRefType(dst[0].type))
        dim = copy_dims(sizes, rank)[0] if len(sizes) > rank else 0
        if "sizes" in copy.attributes:
            if sizes[dim] != 2 * half_rows:
                raise emit_error(copy, "tile-ascend-split-cores: a copy of part of the rows of a "
                                       "tile the AIVs split (not supported yet)")
            sizes[dim] = half_rows
            copy.attributes["sizes"] = ir.DenseI64ArrayAttr.get(sizes)
        with ir.InsertionPoint(copy), copy.location:
            copy.operands[start + dim] = arith.addi(offsets[dim], half)


def _position(body: ir.Block, value: ir.Value) -> int:
    ops = [o.operation for o in body.operations]
    return next(i for i, o in enumerate(ops) if o == value.owner.operation)


def _halve_rows(region: ir.Operation, halved: set[ir.Value], half: ir.Value, rows: int) -> None:
    extents = list(ir.DenseI64ArrayAttr(region.attributes["extents"]))
    region.attributes["extents"] = ir.DenseI64ArrayAttr.get([rows // 2, *extents[1:]])
    block = region.regions[0].blocks[0]
    row = block.arguments[0]
    with ir.InsertionPoint.at_block_begin(block), region.location:
        global_row = arith.addi(row, half)
    for use in list(row.uses):
        op = irb.use_owner(use)
        if op == global_row.owner.operation:
            continue
        access = tile_operand(op, use.operand_number - 1)
        if access is not None and access[0] in halved:
            continue
        op.operands[use.operand_number] = global_row
