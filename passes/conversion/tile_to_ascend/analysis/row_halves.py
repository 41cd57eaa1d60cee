"""Part of tile-ascend-split-cores: the two AIVs of an AI core split the vector
work of a mix kernel by rows (and of a `threads=2` vector-only kernel, in
tile-ascend-split-aivs, which gives `halve` the half each block copy runs).

Sub-block s keeps rows [s M/2, (s+1) M/2) of every tile handed over (M rows
each) and of every UB tile of M rows that the vector work uses row by row
with them (a softmax's row max and sum, attention's running output). Their
tile.parallel regions run on M/2 rows, the other uses of the row index
shifted to the global row; copies between a split tile and global memory
(the workspace included) shift their global row offset by the half's, and
so do atomic adds of a split tile into global memory (split-K's epilogue).
A copy of one row of a split tile at a row offset the code computes (a
gather: `T.copy(KV[index, :], rows[j, :])` in a loop over j) runs on the AIV
whose half holds that row, at the row's place in the half.

Handed tiles may have different row counts M (sparse MLA hands up gathered
keys of 32 rows and gets scores of 16 heads back): each split tile belongs
to the group of one M and is split only where it is used with tiles of its
group: a tile.parallel region runs on the M rows of one group, and a tile
copied to or from a tile of another group stays whole (each AIV would hold
different rows of the two).

A copy out of a UB ring (the 950's handoff) already moves this AIV's half:
it only gets the half tile as its destination.

A UB tile of r < M rows that only takes rows [0, r) of a split tile (and
goes to or from global memory: TileLang's `T.copy(acc_o[:8, :], O_shared)`)
is split too, or both AIVs would store the same rows: sub-block s holds its
rows of [0, r), min(r, M/2) on AIV 0 and max(r - M/2, 0) on AIV 1. Tile shapes
are static, so these counts are too: each copy of such a tile moves this
AIV's count of rows, and is skipped on an AIV that holds none.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref, scf

from tilec.dialects import ascend, tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_semantics import copy_dims, copy_sizes
from tilec.passes.conversion.tile_to_ascend.analysis.core_sides import VIEWS
from tilec.passes.conversion.tile_to_ascend.analysis.handoff_rings import UB_RING
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


def _row_use(use: ir.OpOperand, candidates: dict[ir.Value, int], rows: int) -> str | None:
    """Why one use of a tile of the group of `rows` keeps the AIVs from
    splitting it by rows (None: it does not)."""
    op, number = irb.use_owner(use), use.operand_number
    access = tile_operand(op, number)
    if access is not None:
        region = irb.enclosing(op, {"tile.parallel"})
        extents = [] if region is None else list(ir.DenseI64ArrayAttr(region.attributes["extents"]))
        if region is None or access[1] != region.regions[0].blocks[0].arguments[0] \
                or extents[0] != rows:
            return "must be indexed by the rows of its tile.parallel"
        if _writes_a_whole_tile(region, candidates):
            return "shares a tile.parallel with the writes of a tile the AIVs do not split"
        return None
    if op.name == "tile.reduce":
        dim = ir.IntegerAttr(op.attributes["dim"]).value
        if dim == 0 or not all(candidates.get(v) == rows for v in list(op.operands)[:2]):
            return "is reduced across its rows"
        return None
    if op.name == "tile.copy":
        src, _, dst, _, _ = copy_operands(op)
        value, other = (src[0], dst[0]) if number == 0 else (dst[0], src[0])
        if _is_ub_ring(other):
            return None  # the slot holds this AIV's rows already
        on_chip = scope_name(other) in CUBE_SPACES | {"ub"}
        if on_chip and candidates.get(other) != rows:
            return "is copied to or from a tile the AIVs do not split"
        if _tile_rows(value) < rows or (on_chip and _tile_rows(other) < rows):
            return _part_copy_use(op, value if _tile_rows(value) < rows else other)
        return None
    if op.name in ("tile.fill", "tile.clear"):
        return None
    if _added_to_global(op, number) is not None:
        if _tile_rows(op.operands[number]) != rows:
            return "is added into global memory with fewer rows than the tiles it is split with"
        return None  # a store: each AIV adds its rows
    return f"is used by '{op.name}'"


_RESHAPES = ("memref.collapse_shape", "memref.expand_shape")


def _added_to_global(op: ir.Operation, number: int) -> ir.Operation | None:
    """The tile.atomic_add that adds operand `number` of `op` (a tile) into
    global memory: `op` itself, or one at the end of reshapes (of one use
    each) that only add unit dims (TileLang's `T.atomic_add(O[b, t0:t1, h, :],
    o_shared)` gives the 2-D tile the 4-D rank of O). None: no such add."""
    tile_shape = [d for d in ir.MemRefType(op.operands[number].type).shape if d != 1]
    while op.name in _RESHAPES:
        uses = list(op.results[0].uses)
        if len(uses) != 1:
            return None
        op, number = irb.use_owner(uses[0]), uses[0].operand_number
    if op.name != "tile.atomic_add" or number != 0 or scope_name(op.operands[1]) != "global":
        return None
    shape = ir.MemRefType(op.operands[0].type).shape
    return op if [d for d in shape if d != 1] == tile_shape else None


def _writes_a_whole_tile(region: ir.Operation, candidates: dict[ir.Value, int]) -> bool:
    """Whether `region` stores into a UB tile the AIVs do not split: halving the
    region for a split tile would leave each AIV with half of that whole tile
    computed (a gather's index tile written beside its half-tile of keys)."""
    for store in irb.collect(region, "memref.store"):
        target = store.operands[1]
        while isinstance(target, ir.OpResult) and target.owner.name in VIEWS:
            target = target.owner.operands[0]
        if scope_name(target) == "ub" and target not in candidates:
            return True
    return False


def _is_ub_ring(value: ir.Value) -> bool:
    """A UB ring of half tiles (`handoff_rings.ub_ring`): each AIV's holds its own half."""
    owner = value.owner
    return isinstance(owner, ir.Operation | ir.OpView) and UB_RING in owner.operation.attributes


def _tile_rows(value: ir.Value) -> int:
    shape = ir.MemRefType(value.type).shape
    return shape[0] if shape else 0


def _part_copy_use(copy: ir.Operation, part: ir.Value) -> str | None:
    """Why a copy keeps the AIVs from splitting `part`, a tile of fewer rows
    than the handed ones (None: it does not): it must move all r rows of the
    part tile, from a split tile's rows [0, r) or to or from global memory.
    (Copied into a larger tile, the part's rows would not be all that AIV 1
    writes: the copy pads the rest of its destination.)"""
    src, src_offsets, dst, dst_offsets, _ = copy_operands(copy)
    if src[0] == part and scope_name(dst[0]) in CUBE_SPACES | {"ub"} \
            and _tile_rows(dst[0]) != _tile_rows(part):
        return "is copied into a tile of more rows"
    sizes = copy_sizes(copy, ir.MemRefType(src[0].type), ir.MemRefType(dst[0].type))
    for buffer, offsets in ((src[0], src_offsets), (dst[0], dst_offsets)):
        if scope_name(buffer) not in CUBE_SPACES | {"ub"}:
            continue
        if sizes[copy_dims(sizes, len(offsets))[0]] != _tile_rows(part):
            return "is copied in part of its rows"
        if irb.constant_int(offsets[0]) != 0:
            return "is copied at a row offset"
    return None


def row_tiles(body: ir.Block, forced: list[ir.Value], rows: set[int]) -> dict[ir.Value, int]:
    """The tiles the AIVs split, each with the rows M of its group: `forced`
    (the handed-over tiles, an error when they cannot be split; M = their
    rows), every UB tile of M rows used row by row with them, and every UB
    tile of fewer rows that takes the first rows of one of those (the group
    of the fewest rows M in `rows` that it fits in)."""
    order = {op: i for i, op in enumerate(irb.every_op(body.owner))}
    uses: dict[ir.Value, list[ir.OpOperand]] = {}
    candidates: dict[ir.Value, int] = {}
    for value in forced:
        # In program order, so an error points at the first offending use.
        uses[value] = sorted(value.uses, key=lambda u: order[irb.use_owner(u)])
        candidates[value] = _tile_rows(value)
    for op in body.operations:
        op = op.operation
        if op.name == "tile.alloc" and op.results[0] not in uses:
            value = op.results[0]
            count = _tile_rows(value)
            group = min((m for m in rows if count <= m), default=None)
            if scope_name(value) == "ub" and count > 0 and group is not None:
                uses[value] = list(value.uses)
                candidates[value] = group
    changed = True
    while changed:
        changed = False
        for value, group in list(candidates.items()):
            for use in uses[value]:
                why = _row_use(use, candidates, group)
                if why is None:
                    continue
                if value in forced:
                    raise emit_error(irb.use_owner(use), f"tile-ascend-split-cores: a tile handed "
                                     f"between the cores {why} (not supported yet)")
                del candidates[value]
                changed = True
                break
    return candidates


def halve(body: ir.Block, split: dict[ir.Value, int],
          sub_block: ir.OpResult | None = None) -> None:
    """Gives this AIV its half of every tile of `split` (see the module
    docstring; `row_tiles` gives each tile the rows M of its group).
    `sub_block` says which half this copy of the body runs, 0 or 1 (by
    default the AIV's sub-block index)."""
    halves: dict[ir.Value, ir.Value] = {}
    with ir.InsertionPoint.at_block_begin(body), body.owner.location:
        for value in sorted(split, key=lambda v: _position(body, v)):
            type_ = ir.MemRefType(value.type)
            held = min(_tile_rows(value), split[value] // 2)
            halves[value] = tile.alloc(
                tile.memref_type([held, *type_.shape[1:]], type_.element_type, tile.Scope.ub))
        if sub_block is None:
            sub_block = ascend.sub_block_idx(ir.IndexType.get())
    # the first row of this AIV's half, for each group
    firsts: dict[int, ir.Value] = {}
    with ir.InsertionPoint.after(sub_block.owner), body.owner.location:
        for rows in sorted(set(split.values()), reverse=True):
            firsts[rows] = arith.muli(sub_block, irb.index(rows // 2))
    parallels: list[ir.Operation] = []
    copies: list[tuple[ir.Operation, int]] = []
    # copies of a part tile: the rows of that tile each AIV holds
    part_copies: list[tuple[ir.Operation, tuple[list[int], list[int]], int]] = []
    for value, new in halves.items():
        part_rows, rows = _tile_rows(value), split[value]
        half_rows = rows // 2
        for use in list(value.uses):
            op = irb.use_owner(use)
            if tile_operand(op, use.operand_number) is not None:
                region = irb.enclosing(op, {"tile.parallel"})
                if not any(p == region for p in parallels):
                    parallels.append(region)
            elif op.name == "tile.copy" and part_rows < rows:
                if not any(c == op for c, _, _ in part_copies):
                    held = [min(part_rows, half_rows), max(part_rows - half_rows, 0)]
                    part_copies.append((op, _part_sizes(op, held), rows))
            elif op.name == "tile.copy" and not any(c == op for c, _ in copies):
                copies.append((op, rows))
            elif _added_to_global(op, use.operand_number) is not None:
                _add_half(_added_to_global(op, use.operand_number), new, firsts[rows])
                continue
            op.operands[use.operand_number] = new
    halved = set(halves.values())
    for copy, rows in copies:
        if not any(c == copy for c, _, _ in part_copies):
            _shift_copy(copy, halved, firsts[rows], rows // 2)
    for copy, sizes, rows in part_copies:
        _split_part_copy(copy, sizes, halved, sub_block, firsts[rows])
    for region in parallels:
        rows = ir.DenseI64ArrayAttr(region.attributes["extents"])[0]
        _halve_rows(region, halved, firsts[rows], rows)
    for value in halves:
        value.owner.operation.erase()


def _shift_copy(copy: ir.Operation, halved: set[ir.Value], half: ir.Value,
                half_rows: int) -> None:
    """A copy between a split tile and global memory moves this AIV's rows:
    the global offset of the tile's row dimension shifts by `half`, and an
    explicit extent covers half the rows. A copy of one row (a gather's,
    at a row offset the code computes) runs on the AIV that holds that row."""
    src, src_offsets, dst, dst_offsets, _ = copy_operands(copy)
    # (the split tile, the global side, its offsets, the operand number of the
    # first, the operand number of the tile's row offset)
    sides = ((src[0], dst[0], dst_offsets, len(src) + len(src_offsets) + 1, 1),
             (dst[0], src[0], src_offsets, 1, len(src) + len(src_offsets) + 1))
    for tile_, other, offsets, start, row_at in sides:
        if tile_ not in halved or scope_name(other) in CUBE_SPACES | {"ub"}:
            continue
        sizes, dim = _row_extent(copy, tile_)
        if "sizes" in copy.attributes and sizes[dim] == 1:
            _copy_held_row(copy, row_at, half, half_rows)
            return
        if "sizes" in copy.attributes:
            if sizes[dim] != 2 * half_rows:
                raise emit_error(copy, "tile-ascend-split-cores: a copy of part of the rows of a "
                                       "tile the AIVs split (not supported yet)")
            sizes[dim] = half_rows
            copy.attributes["sizes"] = ir.DenseI64ArrayAttr.get(sizes)
        with ir.InsertionPoint(copy), copy.location:
            copy.operands[start + dim] = arith.addi(offsets[dim], half)


def _copy_held_row(copy: ir.Operation, row_at: int, half: ir.Value, half_rows: int) -> None:
    """A copy of row r (operand `row_at`) of a split tile runs only on the AIV
    whose rows [half, half + half_rows) hold it, at row r - half of its half."""
    with ir.InsertionPoint(copy), copy.location:
        local = arith.subi(copy.operands[row_at], half)
        # r - half < half_rows unsigned: r is in the half (a row below wraps around)
        held = arith.cmpi(arith.CmpIPredicate.ult, local, irb.index(half_rows))
        branch = scf.IfOp(held)
    with ir.InsertionPoint(branch.then_block):
        yielded = scf.YieldOp([])
    copy.move_before(yielded)
    copy.operands[row_at] = local


def _add_half(add: ir.Operation, new: ir.Value, half: ir.Value) -> None:
    """An atomic add of a split tile into global memory adds this AIV's rows
    (`new`): the global offset of the dim that holds the tile's rows (the
    first that is not a unit dim) shifts by `half`. Where reshapes gave the
    tile the destination's rank, `new` gets the same shape, its rows halved."""
    old = add.operands[0]
    shape = list(ir.MemRefType(old.type).shape)
    dim = next(d for d, size in enumerate(shape) if size != 1)
    with ir.InsertionPoint(add), add.location:
        if old.owner.name in _RESHAPES:
            type_ = ir.MemRefType(new.type)
            shape[dim] = type_.shape[0]
            flat = memref.collapse_shape(
                ir.MemRefType.get([type_.shape[0] * type_.shape[1]], type_.element_type,
                                  memory_space=type_.memory_space), new, [[0, 1]])
            result = ir.MemRefType.get(shape, type_.element_type, memory_space=type_.memory_space)
            new = memref.expand_shape(result, flat, [list(range(len(shape)))], [], shape)
        add.operands[0] = new
        add.operands[2 + dim] = arith.addi(add.operands[2 + dim], half)
    while old.owner.name in _RESHAPES and not list(old.uses):
        source = old.owner.operands[0]
        old.owner.erase()
        old = source


def _row_extent(copy: ir.Operation, tile_: ir.Value) -> tuple[list[int], int]:
    """The extent of `copy` and which of its dims runs along the rows of `tile_`."""
    src, _, dst, _, _ = copy_operands(copy)
    rank = len(ir.MemRefType(tile_.type).shape)
    sizes = copy_sizes(copy, ir.MemRefType(src[0].type), ir.MemRefType(dst[0].type))
    return sizes, copy_dims(sizes, rank)[0] if len(sizes) > rank else 0


def copies_whole_rows(split: dict[ir.Value, int]) -> bool:
    """Whether every copy of a tile of `split` with the rows M of its group to
    or from global memory moves all of them (`halve` gives each AIV half of
    such a copy, and cannot split one of part of the rows)."""
    for value, rows in split.items():
        if _tile_rows(value) != rows:
            continue  # a part tile: each AIV copies the rows it holds
        for use in value.uses:
            copy = irb.use_owner(use)
            if copy.name != "tile.copy":
                continue
            src, _, dst, _, _ = copy_operands(copy)
            other = dst[0] if src[0] == value else src[0]
            if scope_name(other) in CUBE_SPACES | {"ub"}:
                continue
            sizes, dim = _row_extent(copy, value)
            if sizes[dim] != rows:
                return False
    return True


def _part_sizes(copy: ir.Operation, held: list[int]) -> tuple[list[int], list[int]]:
    """The extent of a copy of a part tile on AIV 0 and on AIV 1: the
    part's rows (its first copy dimension on chip) become `held[s]`; taken
    before the part tile is replaced, while the extent still reads its
    whole shape."""
    src, _, dst, _, _ = copy_operands(copy)
    sizes = copy_sizes(copy, ir.MemRefType(src[0].type), ir.MemRefType(dst[0].type))
    tile_ = src[0] if scope_name(src[0]) in CUBE_SPACES | {"ub"} else dst[0]
    dim = copy_dims(sizes, len(ir.MemRefType(tile_.type).shape))[0]
    first, second = ([*sizes[:dim], count, *sizes[dim + 1:]] for count in held)
    return first, second


def _split_part_copy(copy: ir.Operation, sizes: tuple[list[int], list[int]], halved: set[ir.Value],
                     sub_block: ir.Value, half: ir.Value) -> None:
    """A copy of a part tile moves this AIV's rows: the global row offset
    shifts by `half` (AIV 1's rows start there), and the extent is AIV 0's
    count of rows or AIV 1's, chosen by `scf.if` (AIV 1's copy is left out
    when it holds none)."""
    first, second = sizes
    src, src_offsets, dst, dst_offsets, _ = copy_operands(copy)
    if dst[0] in halved and scope_name(src[0]) not in CUBE_SPACES | {"ub"}:
        part, offsets, start = dst[0], src_offsets, 1
    elif src[0] in halved and scope_name(dst[0]) not in CUBE_SPACES | {"ub"}:
        part, offsets, start = src[0], dst_offsets, len(src) + len(src_offsets) + 1
    else:
        part, offsets, start = src[0], [], 0
    if offsets:
        dim = copy_dims(first, len(ir.MemRefType(part.type).shape))[0]
        with ir.InsertionPoint(copy), copy.location:
            copy.operands[start + dim] = arith.addi(offsets[dim], half)
    with ir.InsertionPoint(copy), copy.location:
        on_first = arith.cmpi(arith.CmpIPredicate.eq, sub_block, irb.index(0))
        branch = scf.IfOp(on_first, has_else=0 not in second)
    with ir.InsertionPoint(branch.then_block):
        yielded = scf.YieldOp([])
    copy.move_before(yielded)
    copy.attributes["sizes"] = ir.DenseI64ArrayAttr.get(first)
    if 0 not in second:
        with ir.InsertionPoint(branch.else_block):
            other = copy.clone()
            scf.YieldOp([])
        other.attributes["sizes"] = ir.DenseI64ArrayAttr.get(second)


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
