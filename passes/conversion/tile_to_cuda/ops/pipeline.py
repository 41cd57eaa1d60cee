"""The cuda lowering of tile.pipelined with num_stages >= 2: a cp.async software pipeline.

The stage copies of the loop are its top-level `tile.copy`s from global
memory into a shared tile that can use cp.async, whose offsets are integer
arithmetic on the induction variable and values from outside, and whose
tile the loop only reads after the copy (and nothing after the loop reads).
Each such tile gets `num_stages` slots in shared memory (the tile's own
place and num_stages - 1 more). The loop then becomes, as TileLang and
Triton build it:

    prologue:  for s < S - 1:  copies of iteration s into slot s; commit
    loop i:    copies of iteration i + S - 1 into slot (i + S - 1) % S; commit
               cp.async.wait_group S - 1      (iteration i's group is complete)
               barrier                        (and every thread's part of it)
               the body, reading slot i % S
               barrier                        (slot i % S is refilled next)
    epilogue:  cp.async.wait_group 0

Every iteration commits one group, also when its copies are past the end of
the loop: those copies read nothing (their first offset is moved past the
tensor, so they zero-fill a slot nobody reads), which keeps the group count
uniform. A copy whose rows are not 16-byte aligned at run time falls back to
element copies inside the same stage, which are complete when the barrier
after the wait passes. A loop without stage copies, or with one stage, is a
plain `scf.for` (`cuda-pipelined-loop`).
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, gpu, memref, nvvm, scf

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.conversion.tile_to_cuda.analysis.layouts import (
    copy_swizzle,
    is_workgroup,
    kernel_threads,
)
from tilec.passes.conversion.tile_to_cuda.ops.copy import NO_WAIT, copy_of
from tilec.passes.conversion.tile_to_cuda.ops.kernel import SHARED_BYTES, tile_alignment
from tilec.targets import CudaTarget

# (op, operand number) uses that only read a stage copy's tile.
_READS = {("tile.gemm", 0), ("tile.gemm", 1), ("tile.copy", 0), ("memref.load", 0),
          ("tile.reduce", 0), ("tile.atomic_add", 0)}
# Moves a copy of an iteration past the end of the loop off the tensor.
_PAST_THE_END = 1 << 40


def num_stages(op: ir.Operation) -> int:
    return ir.IntegerAttr(op.attributes["num_stages"]).value


def _top_level(op: ir.Operation, loop: ir.Operation) -> ir.Operation | None:
    """The op of `loop`'s body that contains `op` (None: not in the loop)."""
    while op is not None and op.parent is not None:
        parent = op.parent
        if parent == loop:
            return op
        op = parent.operation if hasattr(parent, "operation") else parent
    return None


def _computable(value: ir.Value, body: ir.Block) -> bool:
    """Whether `value` is made of arith ops of the body, the induction
    variable and values from outside: it can be made for another iteration."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return True
    op = owner.operation
    if op.block != body:
        return True
    return op.name.startswith("arith.") and all(_computable(v, body) for v in op.operands)


def _written_in(loop: ir.Operation, buffer: ir.Value) -> bool:
    """Whether an op of the loop may write `buffer` (then reading it ahead
    would see it too early)."""
    writes = {"tile.copy": None, "tile.fill": 0, "tile.clear": 0, "tile.gemm": 2,
              "tile.atomic_add": 1, "memref.store": 1, "memref.atomic_rmw": 1}
    for inner in irb.every_op(loop):
        if inner.name not in writes:
            continue
        number = 1 + src_rank(inner) if inner.name == "tile.copy" else writes[inner.name]
        if inner.operands[number] == buffer:
            return True
    return False


def _reads_only(tile: ir.Value, stage_copy: ir.Operation, loop: ir.Operation) -> bool:
    """Whether the loop only reads `tile` after `stage_copy` and nothing else uses it."""
    body = list(loop.regions[0].blocks[0].operations)
    position = next(i for i, o in enumerate(body) if o.operation == stage_copy)
    for use in tile.uses:
        user = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        if user == stage_copy:
            continue
        top = _top_level(user, loop)
        if top is None or (user.name, use.operand_number) not in _READS:
            return False
        if next(i for i, o in enumerate(body) if o.operation == top) <= position:
            return False
    return True


@dataclass(frozen=True)
class _Plan:
    copies: list[ir.Operation]


def stage_copies(op: ir.Operation) -> list[ir.Operation]:
    body = op.regions[0].blocks[0]
    threads = kernel_threads(op)
    found: list[ir.Operation] = []
    tiles: list[ir.Value] = []
    for inner in list(body.operations):
        inner = inner.operation
        if inner.name != "tile.copy" or NO_WAIT in inner.attributes:
            continue
        copy = copy_of(inner)
        tile = copy.dst.tile.value
        if copy.async_lanes(threads) is None or not is_workgroup(tile.type):
            continue
        view = tile.owner
        if not isinstance(view, ir.Operation | ir.OpView) or view.name != "memref.view":
            continue
        if any(t == tile for t in tiles) or not _reads_only(tile, inner, op):
            continue
        if not all(_computable(v, body) for v in inner.operands):
            continue
        if _written_in(op, inner.operands[0]):
            continue
        found.append(inner)
        tiles.append(tile)
    return found


class StageSlots:
    """The `num_stages` places of one stage copy's tile in shared memory."""

    def __init__(self, copy: ir.Operation, kernel: ir.Operation, stages: int):
        self.copy = copy
        self.tile = copy_of(copy).dst.tile.value
        view = self.tile.owner
        self.base, self.home = view.operands[0], view.operands[1]
        type_ = ir.MemRefType(self.tile.type)
        alignment = tile_alignment(view)
        self.bytes = -(-_bytes(type_) // alignment) * alignment
        used = ir.IntegerAttr(kernel.attributes[SHARED_BYTES]).value
        self.extra = -(-used // alignment) * alignment
        kernel.attributes[SHARED_BYTES] = ir.IntegerAttr.get(
            ir.IntegerType.get_signless(64), self.extra + (stages - 1) * self.bytes
        )

    def view(self, slot: ir.Value | int) -> ir.Value:
        if isinstance(slot, int):
            shift = self.home if slot == 0 else irb.index(self.extra + (slot - 1) * self.bytes)
        else:
            other = arith.addi(irb.index(self.extra - self.bytes),
                               arith.muli(slot, irb.index(self.bytes)))
            first = arith.cmpi(arith.CmpIPredicate.eq, slot, irb.index(0))
            shift = arith.select(first, self.home, other)
        view = memref.view(self.tile.type, self.base, shift, [])
        # Every slot is stored as the tile is.
        copy_swizzle(self.tile.owner, view.owner)
        return view


def move_body_into(op: ir.Operation, loop: scf.ForOp, slots: list[StageSlots],
                   views: list[ir.Value], before: ir.Operation) -> None:
    """Ends a pipelined loop's lowering: the stage copies go (their slots
    hold the data), their tiles become the current slot's views, the body
    moves into `loop` before `before` (the iteration's closing op) and the
    tile.pipelined op goes."""
    body = op.regions[0].blocks[0]
    for slot, view in zip(slots, views, strict=True):
        slot.copy.erase()
        slot.tile.replace_all_uses_with(view)
    body.arguments[0].replace_all_uses_with(loop.induction_variable)
    for inner in list(body.operations)[:-1]:
        inner.operation.move_before(before)
    op.erase()


def _bytes(type_: ir.MemRefType) -> int:
    count = 1
    for size in type_.shape:
        count *= size
    return count * irb.bit_width(type_.element_type) // 8


def materialize(value: ir.Value, body: ir.Block | tuple[ir.Block, ...],
                mapping: dict[ir.Value, ir.Value]) -> ir.Value:
    """`value` built at the insertion point for the iteration `mapping` gives
    the induction variable (ops of `body`, or of each of several blocks,
    cloned; others reused)."""
    if value in mapping:
        return mapping[value]
    owner = value.owner
    blocks = body if isinstance(body, tuple) else (body,)
    if isinstance(owner, ir.Block) or owner.operation.block not in blocks:
        return value
    op = owner.operation
    operands = [materialize(operand, body, mapping) for operand in op.operands]
    clone = op.clone()
    for i, operand in enumerate(operands):
        clone.operands[i] = operand
    for old, new in zip(op.results, clone.results, strict=True):
        mapping[old] = new
    return mapping[value]


def _issue(slots: StageSlots, body: ir.Block, iteration: ir.Value, upper: ir.Value,
           slot: ir.Value | int) -> None:
    """The stage copy of `iteration` into `slot`, read-nothing past `upper`."""
    mapping = {body.arguments[0]: iteration}
    operands = [materialize(v, body, mapping) for v in slots.copy.operands]
    valid = arith.cmpi(arith.CmpIPredicate.slt, iteration, upper)
    # Operand 1 is the first source offset.
    operands[1] = arith.select(valid, operands[1], irb.index(_PAST_THE_END))
    operands[1 + src_rank(slots.copy)] = slots.view(slot)
    issued = slots.copy.clone()
    for i, value in enumerate(operands):
        issued.operands[i] = value
    issued.attributes[NO_WAIT] = ir.UnitAttr.get()


def src_rank(copy: ir.Operation) -> int:
    return ir.DenseI32ArrayAttr(copy.attributes["operandSegmentSizes"])[1]


@register_lowering
class PipelinedToCpAsyncStages(TileOpLowering[_Plan, CudaTarget]):
    """tile.pipelined as a num_stages-deep cp.async pipeline of its stage copies."""

    target = "cuda"
    op_names = ("tile.pipelined",)
    name = "cuda-pipelined-cp-async"
    phase = Phase.LOOP_SCHEDULES
    restructures = True
    supersedes = ("cuda-pipelined-loop",)

    def applies(self, op: ir.Operation, target: CudaTarget) -> str | None:
        if num_stages(op) < 2:
            return "num_stages is 1"
        if not stage_copies(op):
            return "no copy of the loop can be a cp.async stage"
        return None

    def infer(self, op: ir.Operation, target: CudaTarget) -> _Plan:
        return _Plan(stage_copies(op))

    def lower(self, op: ir.Operation, plan: _Plan, target: CudaTarget) -> None:
        stages = num_stages(op)
        lower, upper, step = op.operands
        body = op.regions[0].blocks[0]
        kernel = irb.enclosing(op, {"tile.kernel"})
        with ir.InsertionPoint(op), op.location:
            slots = [StageSlots(copy, kernel, stages) for copy in plan.copies]
            for stage in range(stages - 1):
                iteration = arith.addi(lower, arith.muli(irb.index(stage), step))
                for slot in slots:
                    _issue(slot, body, iteration, upper, stage)
                nvvm.cp_async_commit_group()
            loop = scf.ForOp(lower, upper, step)
            with ir.InsertionPoint(loop.body):
                iv = loop.induction_variable
                count = arith.divui(arith.subi(iv, lower), step)
                ahead = arith.addi(iv, arith.muli(irb.index(stages - 1), step))
                refill = arith.remui(arith.addi(count, irb.index(stages - 1)), irb.index(stages))
                for slot in slots:
                    _issue(slot, body, ahead, upper, refill)
                nvvm.cp_async_commit_group()
                nvvm.cp_async_wait_group(stages - 1)
                gpu.barrier()
                current = arith.remui(count, irb.index(stages))
                views = [slot.view(current) for slot in slots]
                end_barrier = gpu.barrier()
                scf.YieldOp([])
            nvvm.cp_async_wait_group(0)
        move_body_into(op, loop, slots, views, end_barrier.operation)
