"""tile-ascend-split-cores: a kernel that needs the cube and the vector cores
becomes a mix kernel (one AIC and its two AIVs per AI core).

Placement (`tile-ascend-place-tiles`) leaves a GEMM accumulator that vector
work reads in L0C. This pass cuts the kernel where the vector work first
touches it (the handoff) and makes two copies of the whole `tile.kernel`:
one in an `ascend.core aic` region keeps the cube work (every op on an
L1/L0 tile before the handoff), one in an `ascend.core aiv` region keeps
the vector work (every op on a UB tile, and the accumulator's uses from the
handoff on); scalar code goes to both. Both copies walk the same grid, so
they agree on the order of the tiles handed over.

The tile goes through a GM workspace, a new last argument of the function
(`ascend.workspace = rows per AI core`; the backend allocates
`block_dim * rows` rows): a ring of `slots` tiles per AI core. The k-th
block an AI core runs (k = (block - block_idx) / block_num, the grid-stride
loop's trip number) uses slot k mod slots. The AIC fixpipes the tile into its
slot and sets the "ready" flag; each AIV waits for it, copies its half of
the rows into UB (sub-block s takes rows [s M/2, (s+1) M/2); so do the UB
tiles of M rows the vector work uses row by row with it, such as a
softmax's row max and sum, and the tile.parallel regions over them run on
M/2 rows, other row indices shifted to the global row) and sets the
"free" flag as soon as the copy is done, so the cube already works on the
next tiles. The AIC waits for "free" before it overwrites a slot, except for
the first `slots` uses, and the AIVs set "free" only for slots that will be
reused, so every set is consumed whatever the trip count (smaller than the
ring, not a multiple of it, and whatever block_idx the loop starts at) and at
most `slots` sets of a flag are outstanding. Flags 0 and 1 only: 11-14
stay free for `ascend.sync_all`.

Not yet (located errors): a second accumulator handed over, cube work after
the handoff (a tile fed back to the cube, as attention's P and its
loop-carried output), a handoff inside a loop of the kernel body, and vector
work that reads the accumulator other than row by row.

Before (the accumulator %c is read by a vector epilogue):

    tile.kernel blocks(%bx) in (%n) threads = 128 {
      %c = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
      tile.gemm %a, %b, %c ...
      tile.parallel (%i, %j) in (32, 32) { ... %c[%i, %j] ... }
      tile.copy %c[%c0, %c0], %C[%r, %c0] ...
    }

After:

    ascend.core aic {
      tile.kernel blocks(%bx) in (%n) threads = 128 {
        ... tile.gemm ...
        scf.if %reused { ascend.cross_core_wait_flag 1, fix }
        tile.copy %c[%c0, %c0], %ws[%slot_row, %c0] ...
        ascend.cross_core_set_flag mode 2, fix, 0
      }
    }
    ascend.core aiv {
      tile.kernel blocks(%bx) in (%n) threads = 128 {
        %h = tile.alloc : memref<16x32xf32, #tile.scope<ub>>
        ascend.cross_core_wait_flag 0, mte2
        tile.copy %ws[%slot_row + %half, %c0], %h[%c0, %c0] ...
        scf.if %again { ascend.cross_core_set_flag mode 2, mte2, 1 }
        tile.parallel (%i, %j) in (16, 32) { ... %h[%i, %j] ... (%i + %half elsewhere) }
        tile.copy %h[%c0, %c0], %C[%r + %half, %c0] ...
      }
    }
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, scf

from tilec.dialects import ascend, tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_to_ascend.options import profile_option
from tilec.passes.conversion.tile_to_ascend.place_tiles import CUBE_SPACES, copy_operands
from tilec.passes.registry import Pass, PassFailure, option, register_pass

READY = 0
"""Cross-core flag AIC -> AIVs: a workspace slot holds a new tile."""
FREE = 1
"""Cross-core flag AIVs -> AIC: both AIVs have read a slot."""
WORKSPACE = "ascend.workspace"
"""Argument attribute of a GM workspace: its rows per AI core (i64)."""
CORE_REGION = "ascend.core_region"
"""On an scf.execute_region: the core kind (#ascend.core<aic|aiv>) its body runs on."""
MIX_MODE = 2  # AIC <-> both AIVs of its AI core
_PURE_PREFIXES = ("arith.", "index.", "affine.apply", "affine.min", "affine.max", "memref.dim",
                  "ascend.block_idx", "ascend.block_num")
_CUBE_ROLES = {("tile.gemm", 2), ("tile.clear", 0), ("tile.fill", 0)}


def _fail(op: ir.Operation, message: str) -> PassFailure:
    op.location.emit_error(message)
    return PassFailure(message)


def _scope(value: ir.Value) -> str:
    return str(tile.scope_of(ir.MemRefType(value.type)))


def _owner(use: ir.OpOperand) -> ir.Operation:
    owner = use.owner
    return owner.operation if hasattr(owner, "operation") else owner


def _touches(op: ir.Operation, values: set[ir.Value]) -> bool:
    if any(operand in values for operand in op.operands):
        return True
    return any(
        _touches(inner.operation, values)
        for region in op.regions
        for block in region.blocks
        for inner in block.operations
    )


def _top(op: ir.Operation, body: ir.Block) -> ir.Operation:
    """The op of `body` that holds `op`."""
    while op.block != body:
        op = op.parent.operation if hasattr(op.parent, "operation") else op.parent
    return op


def _is_vector_use(op: ir.Operation, number: int) -> bool:
    """Whether a use of an accumulator needs the vector cores: anything but
    the gemm, a clear or fill, or a copy of it straight to global memory."""
    if (op.name, number) in _CUBE_ROLES:
        return False
    if op.name == "tile.copy" and number == 0:
        return _scope(copy_operands(op)[2][0]) in CUBE_SPACES | {"ub"}
    return True


def _is_pure(op: ir.Operation) -> bool:
    """Scalar code both cores run (and the kernel body's terminator)."""
    return op.name == "tile.yield" or (not op.regions and op.name.startswith(_PURE_PREFIXES))


@dataclass
class _Handoff:
    """One accumulator handed from the AIC to the AIVs at top-level op `at`."""

    value: ir.Value
    at: int
    rows: int
    cols: int
    element: ir.Type


def _handoff(body: ir.Block, ops: list[ir.Operation], cube: set[ir.Value]) -> _Handoff | None:
    """The accumulator that vector work reads, and the first op that does."""
    position = {op: i for i, op in enumerate(ops)}
    found: list[tuple[int, ir.Value, ir.Operation]] = []
    for value in cube:
        if _scope(value) != "l0c":
            continue
        uses = [(_owner(u), u.operand_number) for u in value.uses]
        vector = [op for op, n in uses if _is_vector_use(op, n)]
        if vector:
            first = min(position[_top(op, body)] for op in vector)
            found.append((first, value, ops[first]))
    if not found:
        return None
    found.sort(key=lambda item: item[0])
    if len(found) > 1:
        raise _fail(found[1][2], "tile-ascend-split-cores: a second tile.gemm accumulator handed "
                                 "to the vector cores is not supported yet")
    at, value, _ = found[0]
    type_ = ir.MemRefType(value.type)
    if len(type_.shape) != 2 or type_.shape[0] % 2:
        raise _fail(ops[at], "tile-ascend-split-cores: the accumulator handed to the vector "
                             "cores must be 2-D with an even number of rows (one half per AIV)")
    return _Handoff(value, at, type_.shape[0], type_.shape[1], type_.element_type)


def _sides(ops: list[ir.Operation], cube: set[ir.Value], ub: set[ir.Value],
           hand: _Handoff) -> list[str]:
    """"aic", "aiv" or "both" for every top-level op of the kernel body."""
    others = cube - {hand.value}
    sides = []
    for i, op in enumerate(ops):
        results = set(op.results)
        on_cube = bool(results & cube) or _touches(op, others)
        on_vector = bool(results & ub) or _touches(op, ub)
        if _touches(op, {hand.value}):
            on_cube, on_vector = (on_cube or i < hand.at), (on_vector or i >= hand.at)
        if on_cube and i > hand.at:
            raise _fail(op, f"tile-ascend-split-cores: '{op.name}' does cube work after the "
                            f"accumulator is handed to the vector cores (not supported yet)")
        if on_cube and on_vector:
            raise _fail(op, f"tile-ascend-split-cores: '{op.name}' works on cube and vector "
                            f"tiles at once (not supported yet)")
        sides.append("aic" if on_cube else "aiv" if on_vector or not _is_pure(op) else "both")
    return sides


def _add_workspace(func: ir.Operation, hand: _Handoff, slots: int) -> ir.Value:
    """A GM workspace argument at the end of `func`: `slots` tiles per AI core."""
    type_ = ir.MemRefType.get([ir.ShapedType.get_dynamic_size(), hand.cols], hand.element)
    entry = func.regions[0].blocks[0]
    workspace = entry.add_argument(type_, func.location)
    signature = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    func.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get([*signature.inputs, type_], signature.results))
    rows = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), slots * hand.rows)
    mark = ir.DictAttr.get({WORKSPACE: rows})
    if "arg_attrs" in func.attributes:
        old = list(ir.ArrayAttr(func.attributes["arg_attrs"]))
    else:
        old = [ir.DictAttr.get({})] * len(signature.inputs)
    func.attributes["arg_attrs"] = ir.ArrayAttr.get([*old, mark])
    return workspace


@dataclass
class _Ring:
    """Where this grid iteration's tile lives in the workspace, and which flags it owes."""

    row: ir.Value
    """First workspace row of the slot."""
    reused: ir.Value
    """The slot held an earlier tile (the AIC must wait for it to be free)."""
    again: ir.Value
    """The slot will hold a later tile (the AIVs must free it)."""


def _ring(kernel: ir.Operation, hand: _Handoff, slots: int) -> _Ring:
    """The ring position of this block from its coordinates: both cores
    compute it alike, so they agree without exchanging anything."""
    body = kernel.regions[0].blocks[0]
    sizes = list(kernel.operands)
    linear, stride = None, None
    for coordinate, size in zip(body.arguments, sizes, strict=True):
        term = coordinate if stride is None else arith.muli(coordinate, stride)
        linear = term if linear is None else arith.addi(linear, term)
        stride = size if stride is None else arith.muli(stride, size)
    index = ir.IndexType.get()
    first, step = ascend.block_idx(index), ascend.block_num(index)
    trip = arith.divui(arith.subi(linear, first), step)
    slot = arith.remui(trip, irb.index(slots))
    row = arith.muli(arith.addi(arith.muli(first, irb.index(slots)), slot), irb.index(hand.rows))
    reused = arith.cmpi(arith.CmpIPredicate.uge, trip, irb.index(slots))
    later = arith.addi(linear, arith.muli(step, irb.index(slots)))
    again = arith.cmpi(arith.CmpIPredicate.ult, later, stride)
    return _Ring(row, reused, again)


def _when(condition: ir.Value, build: Callable[[], object]) -> None:
    """`build()` inside `scf.if condition`."""
    branch = scf.IfOp(condition)
    with ir.InsertionPoint(branch.then_block):
        build()
        scf.YieldOp([])


def _cube_side(kernel: ir.Operation, at: ir.Operation, hand: ir.Value, meta: _Handoff,
               workspace: ir.Value, slots: int) -> None:
    with ir.InsertionPoint(at), at.location:
        ring = _ring(kernel, meta, slots)
        _when(ring.reused, lambda: ascend.cross_core_wait_flag(FREE, pipe=ascend.pipe_attr("fix")))
        zero = irb.index(0)
        tile.copy(hand, [zero, zero], workspace, [ring.row, zero])
        ascend.cross_core_set_flag(MIX_MODE, ascend.pipe_attr("fix"), READY)


def _vector_side(kernel: ir.Operation, at: ir.Operation, hand: ir.Value, meta: _Handoff,
                 workspace: ir.Value, slots: int) -> None:
    body = kernel.regions[0].blocks[0]
    later = [o.operation for o in body.operations]
    later = later[later.index(at):]
    halved = _row_tiles(hand, later, body, meta.rows)
    rows = meta.rows // 2
    halves: dict[ir.Value, ir.Value] = {}
    with ir.InsertionPoint.at_block_begin(body), at.location:
        for value in halved:
            type_ = ir.MemRefType(value.type)
            halves[value] = tile.alloc(
                tile.memref_type([rows, *type_.shape[1:]], type_.element_type, tile.Scope.ub))
    with ir.InsertionPoint(at), at.location:
        half = arith.muli(ascend.sub_block_idx(ir.IndexType.get()), irb.index(rows))
        ring = _ring(kernel, meta, slots)
        ascend.cross_core_wait_flag(READY, pipe=ascend.pipe_attr("mte2"))
        zero = irb.index(0)
        tile.copy(workspace, [arith.addi(ring.row, half), zero], halves[hand], [zero, zero])
        _when(ring.again,
              lambda: ascend.cross_core_set_flag(MIX_MODE, ascend.pipe_attr("mte2"), FREE))
    _halve(halves, hand, later, body, half, meta.rows)


def _is_later(op: ir.Operation, later: list[ir.Operation], body: ir.Block) -> bool:
    top = _top(op, body)
    return any(top == o for o in later)


def _tile_operand(op: ir.Operation, number: int) -> tuple[ir.Value, ir.Value | None] | None:
    """The index of dimension 0 with which a memref.load/store addresses its memref."""
    at = 1 if op.name == "memref.store" else 0
    if number != at or op.name not in ("memref.load", "memref.store"):
        return None
    indices = list(op.operands)[at + 1:]
    return op.operands[at], indices[0] if indices else None


def _row_use(use: ir.OpOperand, candidates: set[ir.Value], rows: int) -> str | None:
    """Why one use of a tile keeps the AIVs from splitting it by rows (None: it does not)."""
    op, number = _owner(use), use.operand_number
    access = _tile_operand(op, number)
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
        if _scope(other) in CUBE_SPACES | {"ub"} and other not in candidates:
            return "is copied to or from a tile the AIVs do not split"
        return None
    if op.name in ("tile.fill", "tile.clear"):
        return None
    return f"is used by '{op.name}'"


def _row_tiles(hand: ir.Value, later: list[ir.Operation], body: ir.Block,
               rows: int) -> set[ir.Value]:
    """The accumulator and every UB tile of as many rows that the vector work
    uses row by row with it: each AIV keeps only its half of their rows."""
    order = {op: i for i, op in enumerate(irb.every_op(body.owner))}
    # In program order, so an error points at the first offending use.
    uses = {hand: sorted((u for u in hand.uses if _is_later(_owner(u), later, body)),
                         key=lambda u: order[_owner(u)])}
    for op in body.operations:
        op = op.operation
        if op.name == "tile.alloc" and op.results[0] != hand:
            value = op.results[0]
            type_ = ir.MemRefType(value.type)
            if _scope(value) == "ub" and type_.shape and type_.shape[0] == rows:
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
                if value == hand:
                    op = _owner(use)
                    raise _fail(op, f"tile-ascend-split-cores: the accumulator handed to the "
                                    f"vector cores {why} (not supported yet)")
                candidates.discard(value)
                changed = True
                break
    return candidates


def _halve(halves: dict[ir.Value, ir.Value], hand: ir.Value, later: list[ir.Operation],
           body: ir.Block, half: ir.Value, rows: int) -> None:
    """Points the uses of the split tiles at this AIV's halves, shifts the
    global rows of their copies by the half's offset, and runs the
    tile.parallel regions over them on half the rows."""
    parallels: list[ir.Operation] = []
    copies: list[ir.Operation] = []
    order = {op: i for i, op in enumerate(irb.every_op(body.owner))}
    for value, new in halves.items():
        for use in list(value.uses):
            op = _owner(use)
            if value == hand and not _is_later(op, later, body):
                continue
            if _tile_operand(op, use.operand_number) is not None:
                region = irb.enclosing(op, {"tile.parallel"})
                if not any(p == region for p in parallels):
                    parallels.append(region)
            elif op.name == "tile.copy" and not any(c == op for c in copies):
                copies.append(op)
            op.operands[use.operand_number] = new
    for copy in sorted(copies, key=lambda c: order.get(c, 0)):
        src, src_offsets, dst, dst_offsets, _ = copy_operands(copy)
        halved = set(halves.values())
        # (the split tile, the global side, where the global side's row offset is)
        sides = ((src[0], dst[0], dst_offsets, len(src) + len(src_offsets) + 1),
                 (dst[0], src[0], src_offsets, 1))
        for split, other, offsets, start in sides:
            if split in halved and _scope(other) not in CUBE_SPACES | {"ub"}:
                with ir.InsertionPoint(copy), copy.location:
                    copy.operands[start] = arith.addi(offsets[0], half)
    for region in parallels:
        _halve_rows(region, set(halves.values()), half, rows)


def _halve_rows(region: ir.Operation, halved: set[ir.Value], half: ir.Value, rows: int) -> None:
    extents = list(ir.DenseI64ArrayAttr(region.attributes["extents"]))
    region.attributes["extents"] = ir.DenseI64ArrayAttr.get([rows // 2, *extents[1:]])
    block = region.regions[0].blocks[0]
    row = block.arguments[0]
    with ir.InsertionPoint.at_block_begin(block), region.location:
        global_row = arith.addi(row, half)
    for use in list(row.uses):
        op = _owner(use)
        if op == global_row.owner.operation:
            continue
        access = _tile_operand(op, use.operand_number - 1)
        if access is not None and access[0] in halved:
            continue
        op.operands[use.operand_number] = global_row


def _erase_side(body: ir.Block, sides: list[str], drop: str) -> None:
    ops = [op.operation for op in body.operations]
    for op, side in reversed(list(zip(ops, sides, strict=False))):
        if side != drop:
            continue
        for result in op.results:
            user = next(iter(result.uses), None)
            if user is not None:
                raise _fail(_owner(user), f"tile-ascend-split-cores: '{_owner(user).name}' on "
                                          f"the other kind of core uses a value of '{op.name}'")
        op.erase()


def _split(func: ir.Operation, kernel: ir.Operation, slots: int) -> bool:
    body = kernel.regions[0].blocks[0]
    ops = [op.operation for op in body.operations]
    allocs = [a for a in irb.collect(kernel, "tile.alloc")]
    cube = {a.results[0] for a in allocs if _scope(a.results[0]) in CUBE_SPACES}
    ub = {a.results[0] for a in allocs if _scope(a.results[0]) == "ub"}
    hand = _handoff(body, ops, cube)
    if hand is None:
        return False
    for alloc in allocs:
        if alloc.block != body:
            raise _fail(alloc, "tile-ascend-split-cores: a tile.alloc of a mixed kernel must be "
                               "at the top of the kernel body")
    sides = _sides(ops, cube, ub, hand)
    workspace = _add_workspace(func, hand, slots)
    position = ops.index(hand.value.owner.operation)
    copies = {}
    for core in ("aic", "aiv"):
        # Tile ops may not sit in an ascend.core region (it needs an
        # ascend.kernel function, whose GM is #ascend.mem<gm>): until the
        # conversion, each core's half is a marked scf.execute_region.
        with ir.InsertionPoint(kernel), kernel.location:
            region = scf.ExecuteRegionOp([])
            region.attributes[CORE_REGION] = ascend.core_attr(core)
            block = region.regions[0].blocks.append()
        with ir.InsertionPoint(block), kernel.location:
            copies[core] = kernel.clone()
            scf.YieldOp([])
    kernel.erase()
    for core, builder, drop in (("aic", _cube_side, "aiv"), ("aiv", _vector_side, "aic")):
        clone = copies[core].operation
        clone_body = clone.regions[0].blocks[0]
        clone_ops = [op.operation for op in clone_body.operations]
        builder(clone, clone_ops[hand.at], clone_ops[position].results[0], hand, workspace, slots)
        _erase_side(clone_body, _spread(sides, clone_ops, clone_body), drop)
        for alloc in [o.operation for o in clone_body.operations]:
            if alloc.name == "tile.alloc" and not list(alloc.results[0].uses):
                alloc.erase()  # a whole tile the AIVs now hold halves of
    return True


def _spread(sides: list[str], marks: list[ir.Operation], body: ir.Block) -> list[str]:
    """`sides` of the original ops over the clone's body, whose new handoff ops
    (the vector side's tiles first, the rest between the marked original ones)
    go with the core they were built for."""
    ops = [op.operation for op in body.operations]
    result, original = [], 0
    for op in ops:
        if original < len(marks) and op == marks[original]:
            result.append(sides[original])
            original += 1
        else:
            result.append("keep")
    return result


def seal_cores(func: ir.Operation) -> bool:
    """Turns the marked regions of a lowered mix kernel into `ascend.core`
    regions (convert-tile-to-ascend calls it once the function is a kernel);
    whether there were any."""
    regions = [r for r in irb.collect(func, "scf.execute_region") if CORE_REGION in r.attributes]
    for region in regions:
        with ir.InsertionPoint(region), region.location:
            core = ascend.CoreOp(region.attributes[CORE_REGION])
            block = core.regions[0].blocks.append()
        body = region.regions[0].blocks[0]
        for inner in [o.operation for o in body.operations][:-1]:  # not its scf.yield
            block.append(inner.detach_from_parent())
        region.erase()
    return bool(regions)


def _check_slots(text: str) -> None:
    if not text.isdigit() or not 1 <= int(text) <= 8:
        raise ValueError(f"slots must be an integer in [1, 8], not '{text}'")


@register_pass
@dataclass(frozen=True)
class AscendSplitCoresPass(Pass):
    """Splits kernels that need the cube and the vector cores into mix kernels."""

    argument = "tile-ascend-split-cores"
    anchor = "func.func"
    summary = "Split kernels that need cube and vector cores into AIC and AIV regions (mix)"

    profile: str = profile_option()
    slots: int = option(2, "workspace slots per handed-over tile (cross-core pipelining depth)",
                        _check_slots)

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            for kernel in irb.collect(op, "tile.kernel"):
                _split(op, kernel, int(self.slots))
