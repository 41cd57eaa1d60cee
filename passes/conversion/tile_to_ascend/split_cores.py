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
handed tiles than the profile has pairs of cross-core flags.

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
from mlir.dialects import scf

from tilec.dialects import ascend
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_to_ascend import (
    core_sides,
    cross_core_pipelining,
    handoff_rings,
    row_halves,
)
from tilec.passes.conversion.tile_to_ascend.cross_core_pipelining import STAGE_END, STAGE_START
from tilec.passes.conversion.tile_to_ascend.global_scratch import append_argument
from tilec.passes.conversion.tile_to_ascend.handoff_rings import HANDOFF, Handoff
from tilec.passes.conversion.tile_to_ascend.kernel import SPREAD
from tilec.passes.conversion.tile_to_ascend.options import profile_option
from tilec.passes.conversion.tile_to_ascend.place_tiles import CUBE_SPACES, scope_name
from tilec.passes.registry import Pass, emit_error, option, register_pass
from tilec.targets.ascend import attributes as ascend_attr
from tilec.targets.ascend.profiles import get_profile

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

    def of_use(self, op: ir.Operation, value: ir.Value) -> str | None:
        value = _viewed(value)
        if value in self.down:
            return "vector" if self.order[op] >= self.down[value] else "cube"
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


def _split(func: ir.Operation, kernel: ir.Operation, slots: int, skew: int, flag_ids: int,
           direct: bool) -> bool:
    body = kernel.regions[0].blocks[0]
    order = {op: i for i, op in enumerate(irb.pre_order(func))}
    handoffs = handoff_rings.find_handoffs(kernel, order, flag_ids, direct)
    if not handoffs:
        return False
    allocs = irb.collect(kernel, "tile.alloc")
    for alloc in allocs:
        if alloc.block != body:
            raise emit_error(alloc, "tile-ascend-split-cores: a tile.alloc of a mixed kernel must "
                                    "be at the top of the kernel body")
    rows = handoffs[0].rows
    for hand in handoffs[1:]:
        if hand.rows != rows:
            raise emit_error(hand.site, f"tile-ascend-split-cores: the tiles handed between "
                                        f"the cores must have as many rows each ({hand.rows}, "
                                        f"not {rows})")
    kinds = _Kinds(
        cube={a.results[0] for a in allocs if scope_name(a.results[0]) in CUBE_SPACES},
        ub={a.results[0] for a in allocs if scope_name(a.results[0]) == "ub"},
        down={h.tile: h.position for h in handoffs if h.down}, order=order)
    core_sides.assign_sides(body, kinds.of_use, kinds.of_result,
                            [h.site for h in handoffs if not h.down])
    handoff_rings.mark_sites(handoffs)
    for hand in handoffs:
        if hand.down:
            hand.tile.owner.operation.attributes[_HANDED] = ir.IntegerAttr.get(
                ir.IntegerType.get_signless(64), hand.ring)
    rings = {hand.ring: handoff_rings.ub_ring(kernel, hand, slots) if hand.in_ub
             else _add_workspace(func, hand, slots) for hand in handoffs}
    copies = {}
    for core in ("aic", "aiv"):
        # Tile ops may not sit in an ascend.core region (it needs an
        # ascend.kernel function, whose GM is #ascend.mem<gm>): until the
        # conversion, each core's half is a marked scf.execute_region.
        with ir.InsertionPoint(kernel), kernel.location:
            region = scf.ExecuteRegionOp([])
            region.attributes[ascend_attr.CORE_REGION] = ascend.core_attr(core)
            block = region.regions[0].blocks.append()
        with ir.InsertionPoint(block), kernel.location:
            copies[core] = kernel.clone().operation
            scf.YieldOp([])
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
    core_sides.prune(body, core)
    if core == "aiv":
        row_halves.halve(body, row_halves.row_tiles(body, forced, rows=handoffs[0].rows),
                         handoffs[0].rows)
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

    profile: str = profile_option()
    slots: int = option(2, "workspace slots per handed-over tile (cross-core pipelining depth)",
                        _check_slots)
    skew: int = option(2, "iterations each core runs ahead of the other in a loop that hands "
                          "tiles both ways (cross-core pipelining; 1 or 2)", _check_skew)

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            profile = get_profile(self.profile)
            direct = "ub" in profile.fixpipe_destinations
            kernels = irb.collect(op, "tile.kernel")
            mixed = [k for k in kernels
                     if _split(op, k, int(self.slots), int(self.skew), profile.cross_core_flag_ids,
                               direct)]
            if mixed and len(kernels) > 1:
                _join_kernels(op)
            elif len(kernels) > 1:
                _order_kernels(kernels)
