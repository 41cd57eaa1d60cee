"""tile-ascend-split-cores: a kernel that needs the cube and the vector cores
becomes a mix kernel (one AIC and its two AIVs per AI core).

Placement (`tile-ascend-place-tiles`) leaves every tile where its uses put
it: cube tiles in L1/L0, vector tiles in UB, an accumulator that vector
work reads in L0C (a gemm onto a tile that vector work writes first got a
fresh accumulator there). This pass finds the tiles that cross between the
kinds of core (`handoff_rings`: L0C tiles that vector work reads, copies
of UB tiles into L1), gives every op a side (`core_sides`) and makes two
copies of the whole `tile.kernel`: one in an `ascend.core aic` region keeps
the cube work, one in an `ascend.core aiv` region the vector work; scalar
code and the loops that hold work of both kinds go to both. Both copies
walk the same grid and the same loops, so they agree on the order of the
tiles handed over.

Each handed-over tile goes through its own GM workspace, a new trailing
argument of the function (`ascend.workspace = rows per AI core`; the
backend allocates `block_dim * rows` rows): a ring of `slots` tiles per AI
core with a "ready" and a "free" cross-core flag, the producer copying
into a slot while the consumer still works on the previous one
(`handoff_rings` says how the slots and flags stay balanced for any trip
count). The AIVs split the vector work by rows (`row_halves`): each holds
half of the rows of every handed tile and of the UB tiles used row by row
with them.

On the 950 the fixpipe reaches UB, and a tile handed down skips GM: its
ring of slots is in the AIVs' UBs (no workspace argument), the AIC's copy
into a slot is a fixpipe that writes half of the rows into each AIV's UB,
and each AIV copies its half out of the slot, or works on it in place
where it only does vector work on it (`handoff_rings`). Tiles handed up
still go through a GM workspace.

Not yet (located errors): a handoff under a condition or inside a loop
nested in a condition, vector work that reads a handed tile other than row
by row, cube work on an L0C tile after the vector cores read it, and more
handed tiles than the profile has cross-core flag ids (`handoff_rings`: a
pair of ids each while they fit, else one).

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

In attention the K/V loop holds three handoffs (S down, P up, the P V
partial product down), each with its ring; the running max, sum and output
live on the AIVs only. A loop that hands tiles both ways is then pipelined
on each core (`cross_core_pipelining`): the AIC computes S(k+1) before it
waits for P(k), the AIVs turn S(k+1) into P(k+1) before they wait for
P(k) V(k), so the two kinds of core work at the same time.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, scf

from tilec.dialects import ascend, tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.target_options import target_option
from tilec.passes.conversion.tile_to_ascend.analysis import (
    core_sides,
    cross_core_pipelining,
    handoff_rings,
    row_halves,
)
from tilec.passes.conversion.tile_to_ascend.analysis.cross_core_pipelining import (
    STAGE_END,
    STAGE_START,
)
from tilec.passes.conversion.tile_to_ascend.analysis.global_scratch import append_argument
from tilec.passes.conversion.tile_to_ascend.analysis.handoff_rings import HANDOFF, Handoff
from tilec.passes.conversion.tile_to_ascend.ops.cube_gemm import Cleared, Wrap, cleared_since
from tilec.passes.conversion.tile_to_ascend.ops.kernel import SPREAD
from tilec.passes.conversion.tile_to_ascend.place_tiles import (
    CUBE_SPACES,
    copy_operands,
    scope_name,
)
from tilec.passes.registry import Pass, emit_error, option, register_pass
from tilec.targets import target_of
from tilec.targets.ascend import AscendTarget
from tilec.targets.ascend import attributes as ascend_attr

_CUBE_WORK = frozenset({"tile.gemm", "tile.clear", "tile.fill"})
"""Ops that use an L0C tile only as the cube's accumulator."""
_HANDED = "ascend.handed_tile"
"""On the alloc of a tile handed down, in the copies: its ring."""


def _add_workspace(func: ir.Operation, hand: Handoff, slots: int) -> ir.Value:
    """A GM workspace argument at the end of `func`: `slots` tiles per AI core."""
    type_ = ir.MemRefType.get([ir.ShapedType.get_dynamic_size(), hand.cols], hand.element)
    rows = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), slots * hand.rows)
    return append_argument(func, type_, {ascend_attr.WORKSPACE: rows})


def _viewed(value: ir.Value) -> ir.Value:
    """The buffer a view (of a view...) of `value` shows: a use of a view is
    a use of its tile."""
    owner = value.owner
    while isinstance(owner, ir.Operation | ir.OpView) and owner.name in core_sides.VIEWS:
        value = owner.operands[0]
        owner = value.owner
    return value


@dataclass
class _Kinds:
    """Which kind of core a use of a tile needs, from the handoffs."""

    cube: set[ir.Value]
    ub: set[ir.Value]
    down: dict[ir.Value, int]
    """Each tile handed down, and the position of its handoff in program order."""
    order: dict[ir.Operation, int]

    again: dict[ir.Value, int | None]
    """Each tile handed down: where the cube works on it again (`Handoff.cube_again`)."""

    def of_use(self, op: ir.Operation, value: ir.Value) -> str | None:
        value = _viewed(value)
        if value in self.down:
            position, again = self.order[op], self.again[value]
            if position < self.down[value] or op.name in _CUBE_WORK \
                    or (again is not None and position > again):
                return "cube"
            return "vector"
        if value in self.cube:
            return "cube"
        return "vector" if value in self.ub else None

    def of_result(self, op: ir.Operation) -> str | None:
        results = set(op.results)
        if results & set(self.down):
            return "both"  # each core has its own copy of the tile
        if results & self.cube:
            return "cube"
        return "vector" if results & self.ub else None


def _extent(copy: ir.Operation, rank: int, shape: list[int]) -> list[int]:
    """The last `rank` extents a copy moves (those of a tile of `shape`)."""
    if "sizes" in copy.attributes:
        return list(ir.DenseI64ArrayAttr(copy.attributes["sizes"]))[-rank:]
    return shape


def _constants(values: list[ir.Value]) -> list[int] | None:
    found = [irb.constant_int(v) for v in values]
    return None if any(v is None for v in found) else found  # type: ignore[return-value]


def _loaded_part(read: ir.Operation, body: ir.Block) -> ir.Operation | None:
    """The copy from a tensor the kernel only reads that alone put in a UB
    tile what `read` (a copy of a part of it) takes, in the kernel body
    before `read`; None where anything else writes the tile or the part
    is not inside what one such copy wrote (static offsets only)."""
    src, src_offsets, _, _, _ = copy_operands(read)
    ub = src[0]
    type_ = ir.MemRefType(ub.type)
    rank = type_.rank
    start = _constants(src_offsets)
    writers = []
    for use in ub.uses:
        user = irb.use_owner(use)
        if user.name == "tile.copy" and copy_operands(user)[2][0] == ub:
            writers.append(user)
        elif user.name not in ("tile.copy", "memref.load"):
            return None  # vector work may change what the copies put there
    if start is None:
        return None
    end = [a + e for a, e in zip(start, _extent(read, rank, ir.MemRefType(
        copy_operands(read)[2][0].type).shape), strict=True)]
    covering = []
    for writer in writers:
        gm, _, _, offsets, _ = copy_operands(writer)
        low = _constants(offsets)
        if low is None or writer.block != body or not core_sides.is_before(writer, read, body):
            return None
        high = [a + e for a, e in zip(low, _extent(writer, rank, type_.shape), strict=True)]
        if all(lo < e and s < hi for lo, hi, s, e in zip(low, high, start, end, strict=True)):
            if not all(lo <= s and e <= hi for lo, hi, s, e in zip(low, high, start, end,
                                                                     strict=True)):
                return None  # the part mixes what two copies wrote
            covering.append(writer)
        if not core_sides.only_read(gm[0]) \
                or ir.MemRefType(gm[0].type).element_type != type_.element_type:
            return None
    return covering[0] if len(covering) == 1 else None


def _load_parts_on_the_cube(kernel: ir.Operation) -> None:
    """A part of a UB tile copied into a cube tile (a column slice of Q as
    a gemm operand) is a handoff the rings cannot make (they hand whole
    tiles). Where the vector cores only copied that part from a tensor the
    kernel only reads, the cube copies it from the tensor itself, with the
    same pad past its end; the UB tile goes where nothing else reads it."""
    body = kernel.regions[0].blocks[0]
    parts = [copy for copy in irb.collect(kernel, "tile.copy")
             if scope_name(copy_operands(copy)[0][0]) == "ub"
             and scope_name(copy_operands(copy)[2][0]) in CUBE_SPACES
             and not handoff_rings.copied_whole(copy)]
    for read in parts:  # the copies erased on the way are not among them
        _, src_offsets, dst, dst_offsets, _ = copy_operands(read)
        writer = _loaded_part(read, body)
        if writer is None:
            continue
        gm, gm_offsets, ub, ub_offsets, pad = copy_operands(writer)
        rank = ir.MemRefType(ub[0].type).rank
        extent = _extent(read, rank, ir.MemRefType(dst[0].type).shape)
        lead = len(gm_offsets) - rank
        with ir.InsertionPoint(read), read.location:
            at = list(gm_offsets[:lead]) + [
                arith.addi(g, arith.subi(s, u)) for g, s, u in
                zip(gm_offsets[lead:], src_offsets, ub_offsets, strict=True)]
            tile.copy(gm[0], at, dst[0], dst_offsets, sizes=[1] * lead + extent,
                      pad=pad[0] if pad else None)
        read.erase()
        if all(irb.use_owner(use).name == "tile.copy"
               and copy_operands(irb.use_owner(use))[2][0] == ub[0] for use in ub[0].uses):
            for use in list(ub[0].uses):
                irb.use_owner(use).erase()
            ub[0].owner.erase()


def _sink_common_handoffs(kernel: ir.Operation) -> None:
    """A copy of a UB tile into a cube tile that ends both branches of an
    `if` (a guarded load's two ways of filling the tile: in bounds, padded)
    is one copy after the `if`: one handoff, where it would be two, one in
    each branch, that could not share their flags."""
    for branch in irb.collect(kernel, "scf.if"):
        if len(branch.regions[1].blocks) == 0:
            continue
        ends = []
        for region in branch.regions:
            ops = [o.operation for o in region.blocks[0].operations]
            ends.append(ops[-2] if len(ops) > 1 else None)
        then, other = ends
        if then is None or other is None or then.name != "tile.copy" or not _same(then, other):
            continue
        src, _, dst, _, _ = copy_operands(then)
        if scope_name(src[0]) != "ub" or scope_name(dst[0]) not in CUBE_SPACES \
                or any(_inside(value, branch) for value in then.operands):
            continue
        then.move_after(branch)
        other.erase()


def _same(a: ir.Operation, b: ir.Operation) -> bool:
    """Whether two ops do the same: name, operands and attributes."""
    attributes = [{name: str(op.attributes[name]) for name in op.attributes} for op in (a, b)]
    return a.name == b.name and len(a.operands) == len(b.operands) \
        and all(x == y for x, y in zip(a.operands, b.operands, strict=True)) \
        and attributes[0] == attributes[1]


def _inside(value: ir.Value, op: ir.Operation) -> bool:
    """Whether `value` is defined in a region of `op`."""
    owner = value.owner
    parent = owner.parent if isinstance(owner, ir.Operation | ir.OpView) else owner.owner
    while parent is not None:
        parent = parent.operation if hasattr(parent, "operation") else parent
        if parent == op:
            return True
        if parent.name == "func.func":
            return False
        parent = parent.parent
    return False


def _rotate_cleared_handoffs(kernel: ir.Operation) -> None:
    """A copy of an L0C accumulator into a UB tile at the top of a loop whose
    gemms add onto it after the copy (linear attention hands its state h
    down before each chunk adds to it) copies the zeros of the clear before
    the loop on the first trip: a fixpipe cannot, since a clear is no
    instruction (the first mmad overwrites, `cube_gemm.cleared_since`).
    What the copy at the top of trip t + 1 reads is what the accumulator
    holds at the end of trip t, so the copy moves there, for every trip but
    the last, and the vector cores fill the UB tile with zeros before the
    loop (where the tile is used in the loop only, after the copy: an
    earlier use would see the next trip's state)."""
    for copy in irb.collect(kernel, "tile.copy"):
        src, _, dst, dst_offsets, _ = copy_operands(copy)
        loop = copy.parent.operation if hasattr(copy.parent, "operation") else copy.parent
        if scope_name(src[0]) != "l0c" or scope_name(dst[0]) != "ub" \
                or loop.name not in handoff_rings.LOOPS \
                or not handoff_rings.copied_whole(copy) \
                or any(irb.constant_int(o) != 0 for o in dst_offsets) \
                or cleared_since(copy, src[0]) != Cleared((Wrap(loop, None),), True) \
                or not _used_after(dst[0], copy, loop):
            continue
        with ir.InsertionPoint(loop), copy.location:
            tile.fill(dst[0], irb.zero(ir.MemRefType(dst[0].type).element_type))
        body = loop.regions[0].blocks[0]
        upper, step = list(loop.operands)[1:3]
        with ir.InsertionPoint(list(body.operations)[-1]), copy.location:
            again = arith.cmpi(arith.CmpIPredicate.slt,
                               arith.addi(body.arguments[0], step), upper)
            branch = scf.IfOp(again)
            with ir.InsertionPoint(branch.then_block):
                scf.YieldOp([])
        copy.move_before(list(branch.then_block.operations)[-1])


def _used_after(value: ir.Value, first: ir.Operation, loop: ir.Operation) -> bool:
    """Whether every use of `value` is `first` or after it in the body of `loop`."""
    inner = irb.pre_order(loop)
    start = next(i for i, op in enumerate(inner) if op == first)
    return all(any(o == irb.use_owner(use) for o in inner[start:]) for use in value.uses)


def _hoist_allocs(kernel: ir.Operation) -> None:
    """Tile allocs in loops or branches go to the top of the kernel body,
    where each core's copy keeps the tiles it uses (a tile's contents are
    undefined until written, so one buffer for every iteration is the same
    tile)."""
    body = kernel.regions[0].blocks[0]
    first = next(iter(body.operations)).operation
    for alloc in irb.collect(kernel, "tile.alloc"):
        if alloc.block != body and not list(alloc.operands):
            alloc.move_before(first)


def _split(func: ir.Operation, kernel: ir.Operation, slots: int, skew: int, flag_ids: int,
           direct: bool) -> bool:
    body = kernel.regions[0].blocks[0]
    _load_parts_on_the_cube(kernel)
    _sink_common_handoffs(kernel)
    _rotate_cleared_handoffs(kernel)
    _hoist_allocs(kernel)
    order = {op: i for i, op in enumerate(irb.pre_order(func))}
    handoffs = handoff_rings.find_handoffs(kernel, order, flag_ids, direct)
    if not handoffs:
        return False
    if core_sides.read_through_tiles([branch.operands[0] for hand in handoffs
                                      for branch, _ in handoff_rings.conditions(hand.site)],
                                     body):
        order = {op: i for i, op in enumerate(irb.pre_order(func))}
        handoffs = handoff_rings.find_handoffs(kernel, order, flag_ids, direct)
    allocs = irb.collect(kernel, "tile.alloc")
    for alloc in allocs:
        if alloc.block != body:
            raise emit_error(alloc, "tile-ascend-split-cores: a tile.alloc of a mixed kernel must "
                                    "be at the top of the kernel body")
    kinds = _Kinds(
        cube={a.results[0] for a in allocs if scope_name(a.results[0]) in CUBE_SPACES},
        ub={a.results[0] for a in allocs if scope_name(a.results[0]) == "ub"},
        down={h.tile: h.position for h in handoffs if h.down}, order=order,
        again={h.tile: h.cube_again for h in handoffs if h.down})
    core_sides.assign_sides(body, kinds.of_use, kinds.of_result,
                            [h.site for h in handoffs if not h.down])
    for hand in handoffs:
        handoff_rings.check_conditions(hand, core_sides.side_of)
    handoff_rings.mark_sites(handoffs)
    for hand in handoffs:
        if hand.down:
            hand.tile.owner.operation.attributes[_HANDED] = ir.IntegerAttr.get(
                ir.IntegerType.get_signless(64), hand.ring)
    rings = {hand.ring: handoff_rings.ub_ring(kernel, hand, slots) if hand.in_ub
             else _add_workspace(func, hand, slots) for hand in handoffs}
    copies = {core: core_sides.core_copy(kernel, core) for core in ("aic", "aiv")}
    kernel.erase()
    for core, clone in copies.items():
        _build_core(core, clone, handoffs, rings, slots, skew)
    return True


def _build_core(core: str, clone: ir.Operation, handoffs: list[Handoff],
                rings: dict[int, ir.Value], slots: int,
                skew: int) -> None:
    """One core's copy of the kernel: its side of every handoff (`rings`:
    the GM workspace or the UB ring of each), its ops only."""
    body = clone.regions[0].blocks[0]
    handed: dict[int, ir.Value] = {}
    for op in irb.pre_order(clone):
        if _HANDED in op.attributes:
            handed[ir.IntegerAttr(op.attributes[_HANDED]).value] = op.results[0]
            del op.attributes[_HANDED]
    forced: list[ir.Value] = []
    for site in [op for op in irb.pre_order(clone) if HANDOFF in op.attributes]:
        for ring in [ir.IntegerAttr(r).value for r in ir.ArrayAttr(site.attributes[HANDOFF])]:
            hand = handoffs[ring]
            value = handed[ring] if hand.down else site.operands[0]
            producer = (core == "aic") == hand.down
            handoff_rings.build(clone, site, hand, value, rings, producer, slots)
            if core == "aiv" and not any(value == v for v in forced):
                forced.append(value)
        del site.attributes[HANDOFF]
    handoff_rings.forget_counters(clone)
    core_sides.prune(body, core)
    if core == "aiv":
        row_halves.halve(body, row_halves.row_tiles(body, forced,
                                                    rows={hand.rows for hand in handoffs}))
        handoff_rings.work_in_slots(clone)
    loops: list[ir.Operation] = []
    for op in irb.pre_order(clone):
        if STAGE_START in op.attributes or STAGE_END in op.attributes:
            loop = op.parent.operation if hasattr(op.parent, "operation") else op.parent
            if not any(loop == seen for seen in loops):
                loops.append(loop)
    for loop in loops:
        cross_core_pipelining.pipeline(loop, body, skew)
    for alloc in [o.operation for o in body.operations]:
        if alloc.name == "tile.alloc" and not list(alloc.results[0].uses):
            alloc.erase()  # the other core's tile


def _core_region(op: ir.Operation, core: str) -> ir.Operation:
    """A marked scf.execute_region in front of `op` (its body empty but the yield)."""
    with ir.InsertionPoint(op), op.location:
        region = scf.ExecuteRegionOp([])
        region.attributes[ascend_attr.CORE_REGION] = ascend.core_attr(core)
        block = region.regions[0].blocks.append()
        with ir.InsertionPoint(block):
            scf.YieldOp([])
    return region.operation


def _kind_of(kernel: ir.Operation) -> str:
    """The core a kernel that needs one kind only runs on."""
    for alloc in irb.collect(kernel, "tile.alloc"):
        if scope_name(alloc.results[0]) in CUBE_SPACES:
            return "aic"
    return "aiv"


def _join_kernels(func: ir.Operation) -> None:
    """The other kernels of a mix function go in a region of their core kind,
    and the kernels run one after the other: each after the first starts
    with an `ascend.sync_all` that every core of the launch reaches (the AIC
    and the AIVs alike), as it may read what any core of an earlier one
    wrote."""
    ops = [o.operation for o in func.regions[0].blocks[0].operations]
    steps: list[list[ir.Operation]] = []
    skip = None
    for op, following in zip(ops, [*ops[1:], None], strict=True):
        if skip is not None and op == skip:
            continue
        if op.name == "scf.execute_region" and ascend_attr.CORE_REGION in op.attributes:
            steps.append([op, following])  # a split kernel: its aic then its aiv region
            skip = following
        elif op.name == "tile.kernel":
            kind = _kind_of(op)
            if kind == "aiv":
                op.attributes[SPREAD] = ir.UnitAttr.get()
            region = _core_region(op, kind)
            op.move_before(list(region.regions[0].blocks[0].operations)[-1])
            steps.append([region])
    for step in steps[1:]:
        kinds = {str(r.attributes[ascend_attr.CORE_REGION]) for r in step}
        for core in ("aic", "aiv"):
            if str(ascend.core_attr(core)) not in kinds:
                step.append(_core_region(step[0], core))  # it reaches the barrier too
        for region in step:
            with ir.InsertionPoint.at_block_begin(region.regions[0].blocks[0]), region.location:
                ascend.sync_all()


def _order_kernels(kernels: list[ir.Operation]) -> None:
    """The kernels of a function of one core kind run one after the other
    too: an `ascend.sync_all` before each after the first, as it may read
    what any core of an earlier one wrote (global scratch, an output)."""
    for kernel in kernels[1:]:
        with ir.InsertionPoint(kernel), kernel.location:
            ascend.sync_all()


def seal_cores(func: ir.Operation) -> bool:
    """Turns the marked regions of a lowered mix kernel into `ascend.core`
    regions (convert-tile-to-ascend calls it once the function is a kernel);
    whether there were any."""
    regions = [r for r in irb.collect(func, "scf.execute_region")
               if ascend_attr.CORE_REGION in r.attributes]
    for region in regions:
        with ir.InsertionPoint(region), region.location:
            core = ascend.CoreOp(region.attributes[ascend_attr.CORE_REGION])
            block = core.regions[0].blocks.append()
        body = region.regions[0].blocks[0]
        for inner in [o.operation for o in body.operations][:-1]:  # not its scf.yield
            block.append(inner.detach_from_parent())
        region.erase()
    return bool(regions)


def _check_skew(text: str) -> None:
    if text not in ("1", "2"):
        raise ValueError(f"skew must be 1 or 2, not '{text}'")


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

    target: str = target_option(AscendTarget)
    slots: int = option(2, "workspace slots per handed-over tile (cross-core pipelining depth)",
                        _check_slots)
    skew: int = option(2, "iterations each core runs ahead of the other in a loop that hands "
                          "tiles both ways (cross-core pipelining; 1 or 2)", _check_skew)

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            profile = target_of(AscendTarget, self.target).profile
            direct = "ub" in profile.fixpipe_destinations
            kernels = irb.collect(op, "tile.kernel")
            mixed = [k for k in kernels
                     if _split(op, k, int(self.slots), int(self.skew), profile.cross_core_flag_ids,
                               direct)]
            if mixed and len(kernels) > 1:
                _join_kernels(op)
            elif len(kernels) > 1:
                _order_kernels(kernels)
