"""tile-ascend-multi-buffer: N slots for the iteration-private buffers of a pipelined loop.

A `tile.pipelined` loop reaches the ascend dialect as an `scf.for` with
`tile.num_stages = N : i64`. Its iteration-private on-chip buffers (every
element an iteration reads was written earlier in that same iteration, and
whatever the loop leaves in them is rewritten before anything after the loop
reads it) carry no value into, across or out of the loop, so N consecutive
iterations may each have their own copy: while
the vector unit works on slot 0 the MTE2 already loads slot 1. Accumulators
(an L0C tile that `mmad` adds into, a running max in UB) are read before
they are written and keep one buffer.

The loop is unrolled by N: it steps by N * step, copy s of the body runs
iteration `iv + s * step` on slot s of every private buffer (slot 0 is the
original alloc, slots 1..N-1 are new allocs of the same type, views defined
outside the loop are repeated for them) and, unless the trip count is a
static multiple of N, copy s >= 1 runs under `scf.if (iv + s * step < ub)`.
Loop-carried values flow from copy to copy (through the `scf.if` results).
Distinct slots are distinct allocs, so the memory planner gives them distinct
bytes and the sync pass sees hazards per slot: rotating event ids follow.

N is capped by the `max-stages` option, and lowered until the slots fit the
memory (all allocs of that space, aligned, within its usable bytes), per
memory where a memory's buffers take turns on their own: the L0 buffers a
gemm's K steps alternate on (`ascend.l0_turns`) may get fewer slots than
the L1 slabs that feed them, which then still overlap the loads from GM
with the cube. The loop is unrolled by the most slots any memory got; copy
s runs on slot s mod n of a buffer with n slots, and the memories with fewer
slots than the loop has copies are recorded as
`ascend.multi_buffer_space_slots`. The
unrolled loop records its copy count as `ascend.multi_buffer_slots` (the
memory planner keeps its slots apart); a loop that got fewer than it asked
for in every memory also records `ascend.multi_buffer_requested` (the
bindings offer no warning diagnostic to say so).

A cube kernel's grid loop gets two slots of its L0C accumulators the same
way where they fit (`_slot_accumulators`): an accumulator that holds nothing
from one block to the next (its K loop's first mmad is `init`) is private to
the grid loop, so a core's consecutive blocks alternate between two slots
and the fixpipe drains one block's tile while the cube computes the next.
The unrolled grid loop is marked `ascend.twin_copies`: the sync pass gives
the hazards of its two copies on the L1 and L0 buffers they share one flag.

Before:

    scf.for %i = %c0 to %n step %c256 {
      ascend.copy %x[%i], %ub[%c0] sizes [256] : ...
      ascend.vbins muls %ub, %ub, %two : ...
      ascend.copy %ub[%c0], %y[%i] sizes [256] : ...
    } {tile.num_stages = 2 : i64}

After:

    %ub_1 = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
    %ub = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
    scf.for %i = %c0 to %n step %c512 {
      <the body on %ub at %i>
      %i1 = arith.addi %i, %c256 : index
      %more = arith.cmpi slt, %i1, %n : index
      scf.if %more { <the body on %ub_1 at %i1> }
    } {ascend.multi_buffer_slots = 2 : i64}
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, scf

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.target_options import target_option
from tilec.passes.conversion.tile_to_ascend.analysis.sync_model import TWIN_COPIES_ATTR
from tilec.passes.conversion.tile_to_ascend.ops.cube_gemm import TURNS
from tilec.passes.conversion.tile_to_ascend.plan_memory import (
    SLOTS_ATTR,
    Privacy,
    align_up,
    buffer_bytes,
    on_chip_allocs,
    on_chip_space,
    views_and_users,
)
from tilec.passes.registry import Pass, emit_error, option, register_pass
from tilec.sim.interpreter import keyword
from tilec.targets import target_of
from tilec.targets.ascend import AscendTarget
from tilec.targets.ascend import attributes as ascend_attr
from tilec.targets.ascend.profiles import Profile

STAGES_ATTR = "tile.num_stages"
REQUESTED_ATTR = "ascend.multi_buffer_requested"
"""On a loop that got fewer slots than it asked for: how many it asked for."""
SPACE_SLOTS_ATTR = "ascend.multi_buffer_space_slots"
"""On an unrolled loop: the memories whose buffers got fewer slots than the
loop has copies, with their slot counts."""


@register_pass
@dataclass(frozen=True)
class AscendMultiBufferPass(Pass):
    """Unrolls each `scf.for` with `tile.num_stages = N` by N, giving every
    iteration-private on-chip buffer N slots (one per unrolled copy), so
    that consecutive iterations overlap on different pipes."""

    argument = "tile-ascend-multi-buffer"
    anchor = "func.func"
    summary = "Give the iteration-private buffers of pipelined loops one slot per stage"

    target: str = target_option(AscendTarget)
    max_stages: int = option(0, "the most slots of any loop (0: as many as num_stages asks)")

    def run(self, op: ir.Operation) -> None:
        profile = target_of(AscendTarget, self.target).profile
        if self.max_stages < 0:
            raise emit_error(op, f"max-stages must be 0 (no cap) or positive, not "
                                 f"{self.max_stages}")
        loops = [loop for loop in irb.collect(op, "scf.for") if STAGES_ATTR in loop.attributes]
        # Innermost first: an outer loop then copies inner loops already done.
        for loop in reversed(loops):
            self._multi_buffer(op, loop, profile)
        if self.max_stages != 1 and _is_cube_kernel(op):
            for loop in irb.collect(op, "scf.for"):
                if _is_grid_loop(loop) and _blocks_may_repeat(loop):
                    _slot_accumulators(op, loop, profile)

    def _stages(self, loop: ir.Operation) -> int:
        attr = loop.attributes[STAGES_ATTR]
        if not isinstance(attr, ir.IntegerAttr):
            raise emit_error(loop, f"{STAGES_ATTR} must be an integer, not {attr}")
        stages = ir.IntegerAttr(attr).value
        return min(stages, self.max_stages) if self.max_stages else stages

    def _multi_buffer(self, func: ir.Operation, loop: ir.Operation, profile: Profile) -> None:
        requested = self._stages(loop)
        del loop.attributes[STAGES_ATTR]
        if requested < 2:
            return
        private = [a for a in on_chip_allocs(func) if loop not in set(irb.ancestors(a))
                   and Privacy(a).private_to(loop)]
        _slot(func, loop, requested, private, profile)


def _slot(func: ir.Operation, loop: ir.Operation, requested: int,
          private: list[ir.Operation], profile: Profile) -> None:
    """Gives the `private` buffers of `loop` up to `requested` slots each, as many
    as fit their memory, and unrolls the loop by the most any got."""
    if not private:
        return
    slots = _slots_that_fit(requested, on_chip_allocs(func), private, profile)
    stages = max(slots.values())
    i64 = ir.IntegerType.get_signless(64, loop.context)
    if stages < requested:
        loop.attributes[REQUESTED_ATTR] = ir.IntegerAttr.get(i64, requested)
    loop.attributes[SLOTS_ATTR] = ir.IntegerAttr.get(i64, max(stages, 1))
    fewer = {space: n for space, n in sorted(slots.items()) if n < stages}
    if fewer:
        loop.attributes[SPACE_SLOTS_ATTR] = ir.DictAttr.get(
            {space: ir.IntegerAttr.get(i64, n) for space, n in fewer.items()},
            context=loop.context)
    if stages >= 2:
        _unroll(loop, stages, {a: slots[on_chip_space(a.results[0].type)]
                               for a in private})


def _is_cube_kernel(func: ir.Operation) -> bool:
    """A kernel of the cube core alone: no vector core reads what its fixpipe writes
    (a mix kernel's cross-core protocol keeps its grid loop as it is)."""
    return (ascend_attr.KERNEL in func.attributes
            and keyword(func.attributes[ascend_attr.KERNEL]) == "aic"
            and not irb.collect(func, "ascend.core"))


def _is_grid_loop(loop: ir.Operation) -> bool:
    """Whether `loop` is an AI core's walk over the blocks of the grid (from
    `ascend.block_idx` by `ascend.block_num`, see the tile.kernel lowering)."""
    step = loop.operands[2].owner
    return not isinstance(step, ir.Block) and step.operation.name == "ascend.block_num"


def _blocks_may_repeat(loop: ir.Operation) -> bool:
    """Whether a core may run more than one block of the grid loop (a grid of one
    block runs once on any launch)."""
    blocks = irb.constant_int(loop.operands[1])
    return blocks is None or blocks > 1


def _slot_accumulators(func: ir.Operation, loop: ir.Operation, profile: Profile) -> None:
    """Two slots for the L0C accumulators that hold nothing from one block of
    the grid to the next, where they fit: the fixpipe drains one block's tile
    while the cube multiplies into the other slot for the next block.

    The grid loop is unrolled by two (copy 1 under `scf.if` unless the trip
    count is even) and marked `TWIN_COPIES_ATTR`, so that the sync pass gives
    the two copies' hazards on the same bytes (the L1 slabs and L0 buffers
    they share) one flag (`sync_model.Model.twins`), and only the accumulator
    slots their own. Two 128 x 256 f32 tiles fill the 950's L0C (256 KiB:
    ASC_L0C_SIZE for __NPU_ARCH__ 3510, 128 KiB for 2201, in asc-devkit
    include/utils/base/sys_constants.h); the 910b's holds one."""
    private = [a for a in on_chip_allocs(func) if on_chip_space(a.results[0].type) == "l0c"
               and loop not in set(irb.ancestors(a))
               and Privacy(a, first_iterations=True).private_to(loop)]
    if not private or _slots_that_fit(2, on_chip_allocs(func), private, profile)["l0c"] < 2:
        return
    i64 = ir.IntegerType.get_signless(64, loop.context)
    loop.attributes[SLOTS_ATTR] = ir.IntegerAttr.get(i64, 2)
    loop.attributes[TWIN_COPIES_ATTR] = ir.UnitAttr.get(loop.context)
    _unroll(loop, 2, dict.fromkeys(private, 2))


def _slots_that_fit(requested: int, allocs: list[ir.Operation], private: list[ir.Operation],
                    profile: Profile) -> dict[str, int]:
    """Per memory, the most slots, up to `requested`, whose extra allocs fit it.

    A memory whose private buffers all take turns already (the L0 buffers of
    a gemm's K steps, `TURNS`) may get fewer slots than the others: its loads
    overlap the cube without them, and the loop's L1 slabs still overlap the
    loads from GM. Every other memory gets as many as the scarcest of them."""
    fit = {}
    for space in {on_chip_space(a.results[0].type) for a in private}:
        alignment = profile.alignment[space]
        used = _aligned_bytes(allocs, space, alignment)
        extra = _aligned_bytes(private, space, alignment)
        fit[space] = min(requested, 1 + max(0, profile.usable_bytes(space) - used) // extra) \
            if extra else requested
    turning = {space for space in fit
               if all(TURNS in a.attributes for a in private
                      if on_chip_space(a.results[0].type) == space)}
    common = min((n for space, n in fit.items() if space not in turning), default=requested)
    return {space: min(n, common) if space in turning else common for space, n in fit.items()}


def _aligned_bytes(allocs: list[ir.Operation], space: str, alignment: int) -> int:
    return sum(align_up(buffer_bytes(ir.MemRefType(a.results[0].type)), alignment)
               for a in allocs if on_chip_space(a.results[0].type) == space)


def _slot_values(alloc: ir.Operation, loop: ir.Operation) -> dict[ir.Value, ir.Value]:
    """One new slot of a private buffer: a fresh alloc and its views defined
    outside the loop, mapped from the original values."""
    slot = alloc.clone(ip=ir.InsertionPoint(alloc))
    if ascend_attr.OFFSET in slot.attributes:
        del slot.attributes[ascend_attr.OFFSET]
    mapping = {alloc.results[0]: slot.results[0]}
    values, _ = views_and_users(alloc)
    for value in values[1:]:
        view = value.owner.operation
        if loop in set(irb.ancestors(view)) or view.operands[0] not in mapping:
            continue
        copy = view.clone(ip=ir.InsertionPoint(view))
        copy.operands[0] = mapping[view.operands[0]]
        mapping[value] = copy.results[0]
    return mapping


def _remap(root: ir.Operation, mapping: dict[ir.Value, ir.Value]) -> None:
    def visit(op: ir.Operation) -> ir.WalkResult:
        operands = op.operands
        for index, value in enumerate(operands):
            if value in mapping:
                operands[index] = mapping[value]
        return ir.WalkResult.ADVANCE

    root.walk(visit)


def _static_trip_count(loop: ir.Operation) -> int | None:
    lower, upper, step = (irb.constant_int(v) for v in list(loop.operands)[:3])
    if lower is None or upper is None or not step:
        return None
    return max(0, -(-(upper - lower) // step))


def _unroll(loop: ir.Operation, stages: int, private: dict[ir.Operation, int]) -> None:
    """Unrolls `loop` by `stages`; copy s runs on slot s mod n of a private
    buffer that has n slots (`private`)."""
    _, upper, step, *_ = list(loop.operands)
    trips = _static_trip_count(loop)
    guarded = trips is None or trips % stages != 0
    body = loop.regions[0].blocks[0]
    terminator = list(body.operations)[-1].operation
    carried = list(terminator.operands)
    predicate = arith.CmpIPredicate.ult if "unsignedCmp" in loop.attributes \
        else arith.CmpIPredicate.slt
    with loop.context, loop.location:
        extra = {alloc: [_slot_values(alloc, loop) for _ in range(1, n)]
                 for alloc, n in private.items()}
        slots = [{key: value for alloc, n in private.items() if s % n
                  for key, value in extra[alloc][s % n - 1].items()}
                 for s in range(1, stages)]
        copies = [loop.clone(ip=ir.InsertionPoint(loop)) for _ in range(1, stages)]
        with ir.InsertionPoint(loop):
            loop.operands[2] = _scaled(step, stages)
        for s, (copy, mapping) in enumerate(zip(copies, slots, strict=True), start=1):
            with ir.InsertionPoint(terminator):
                iv = irb.add(body.arguments[0], _scaled(step, s))
                if guarded:
                    more = arith.cmpi(predicate, iv, upper)
                    branch = scf.IfOp(more, [v.type for v in carried], has_else=bool(carried))
            copy_body = copy.regions[0].blocks[0]
            copy_body.arguments[0].replace_all_uses_with(iv)
            for argument, value in zip(list(copy_body.arguments)[1:], carried, strict=True):
                argument.replace_all_uses_with(value)
            _remap(copy, mapping)
            copy_yield = list(copy_body.operations)[-1].operation
            results = list(copy_yield.operands)
            if guarded:
                with ir.InsertionPoint(branch.then_block):
                    target = scf.YieldOp(results).operation
                if carried:
                    with ir.InsertionPoint(branch.else_block):
                        scf.YieldOp(carried)
                results = list(branch.results)
            else:
                target = terminator
            for inner in list(copy_body.operations)[:-1]:
                inner.operation.move_before(target)
            copy.erase()
            carried = results
        if carried:
            with ir.InsertionPoint(terminator):
                scf.YieldOp(carried)
            terminator.erase()


def _scaled(step: ir.Value, factor: int) -> ir.Value:
    constant = irb.constant_int(step)
    if constant is not None:
        return irb.index(constant * factor)
    return arith.muli(step, irb.index(factor))
