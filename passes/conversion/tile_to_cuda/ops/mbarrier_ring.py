"""The sm_90a lowering of tile.pipelined whose stage copies are TMA loads: an mbarrier ring.

The stage copies are those of the cp.async pipeline (`pipeline.py`: top-level
copies into shared tiles that the loop only reads afterwards, offsets
computable for any iteration); when every one of them is a TMA copy
(`tma_copy.tma_plan`) the loop runs on `num_stages` slots per tile and one
mbarrier per slot, as TileLang builds it on Hopper:

    init:      thread 0: mbarrier.init(full[s], 1) for s < S; barrier
    prologue:  for s < S - 1: fill(iteration s, slot s); barrier
    loop i:    fill(i + S - 1, slot (i + S - 1) % S)
               mbarrier.try_wait.parity(full[i % S], (i / S) % 2)
               the body, reading slot i % S
               barrier                  (slot i % S is refilled next)
    after:     barrier; thread 0: mbarrier.inval(full[s])

    fill(j, s), for j < the loop's end only:
               thread 0: mbarrier.arrive.expect_tx(full[s], bytes); the TMA boxes of j into s
               copies whose tensor map the driver cannot encode: by threads

Slot s is filled for the k-th time by iteration s + k S, so that fill
completes phase k of full[s] and iteration i waits for phase i / S:
parity (i / S) % 2. Nothing is filled past the end, so every phase that is
waited for completes, for any trip count (none, fewer than S, not a
multiple of S). The barrier that ends each iteration protects the buffer
reuse: every thread has read slot i % S before any fill of iteration i + 1
targets it. When the map of a copy cannot be encoded (a run-time condition,
`tma_copy.usable`) that copy is made by the threads instead and the
expected bytes leave it out; its writes are ordered before their readers
by the barrier after the prologue and those ending the iterations. Where
the tensors have static shapes, the loop is warp-specialized instead
(`warp_specialize.py`, which supersedes this lowering there).
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, gpu, scf

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.conversion.tile_to_cuda.analysis.layouts import guarded, thread_id
from tilec.passes.conversion.tile_to_cuda.analysis.mbarriers import Mbarriers
from tilec.passes.conversion.tile_to_cuda.ops.pipeline import (
    StageSlots,
    materialize,
    move_body_into,
    num_stages,
    src_rank,
    stage_copies,
)
from tilec.passes.conversion.tile_to_cuda.ops.tma_copy import (
    TmaPlan,
    host_descriptor,
    issue,
    thread_copy,
    tma_plan,
    usable,
)
from tilec.targets import CudaTarget


@dataclass(frozen=True)
class TmaStage:
    copies: list[ir.Operation]
    plans: list[TmaPlan]


def tma_stage(op: ir.Operation) -> TmaStage | None:
    copies = stage_copies(op)
    plans = [plan for copy in copies if (plan := tma_plan(copy)) is not None]
    if not copies or len(plans) < len(copies):
        return None
    return TmaStage(copies, plans)


class _Fill:
    """Issues the stage copies of one iteration into one slot."""

    def __init__(self, stage: TmaStage, slots: list[StageSlots], descriptors: list[ir.Value],
                 usable_maps: list[ir.Value], barriers: Mbarriers, body: ir.Block,
                 upper: ir.Value):
        self.stage, self.slots, self.descriptors = stage, slots, descriptors
        self.usable, self.barriers, self.body, self.upper = usable_maps, barriers, body, upper

    def __call__(self, iteration: ir.Value, slot: ir.Value | int) -> None:
        i32 = ir.IntegerType.get_signless(32)
        inside = arith.cmpi(arith.CmpIPredicate.slt, iteration, self.upper)
        with guarded(inside):
            mapping = {self.body.arguments[0]: iteration}
            offsets = [
                [materialize(v, self.body, mapping)
                 for v in copy.operands[1 : 1 + src_rank(copy)]]
                for copy in self.stage.copies
            ]
            views = [slots.view(slot) for slots in self.slots]
            tx = arith.constant(i32, 0)
            for plan, ok in zip(self.stage.plans, self.usable, strict=True):
                tx = arith.addi(tx, arith.select(ok, arith.constant(i32, plan.bytes),
                                                 arith.constant(i32, 0)))
            first = arith.cmpi(arith.CmpIPredicate.eq, thread_id(), irb.index(0))
            with guarded(first):
                self.barriers.arrive_expect_tx(slot, tx)
                for plan, descriptor, ok, view, at in zip(
                    self.stage.plans, self.descriptors, self.usable, views, offsets, strict=True
                ):
                    with guarded(ok):
                        issue(plan, descriptor, view, at, self.barriers.address(slot))
            for copy, ok, view, at in zip(self.stage.copies, self.usable, views, offsets,
                                          strict=True):
                unusable = arith.xori(ok, arith.constant(irb.i1(), 1))
                with guarded(unusable):
                    thread_copy(copy, at, view)


@register_lowering
class PipelinedToTmaRing(TileOpLowering[TmaStage, CudaTarget]):
    """tile.pipelined fed by TMA loads as a num_stages-deep mbarrier ring."""

    target = "cuda"
    op_names = ("tile.pipelined",)
    name = "cuda-pipelined-tma-ring"
    phase = Phase.LOOP_SCHEDULES
    restructures = True
    supersedes = ("cuda-pipelined-cp-async", "cuda-pipelined-loop")

    def applies(self, op: ir.Operation, target: CudaTarget) -> str | None:
        if not target.has_wgmma:
            return "TMA needs sm_90a"
        if num_stages(op) < 2:
            return "num_stages is 1"
        if tma_stage(op) is None:
            return "its stage copies are not all TMA loads of wgmma operand tiles"
        return None

    def infer(self, op: ir.Operation, target: CudaTarget) -> TmaStage:
        stage = tma_stage(op)
        assert stage is not None
        return stage

    def lower(self, op: ir.Operation, plan: TmaStage, target: CudaTarget) -> None:
        stages = num_stages(op)
        lower, upper, step = op.operands
        body = op.regions[0].blocks[0]
        kernel = irb.enclosing(op, {"tile.kernel"})
        descriptors = [host_descriptor(p, kernel) for p in plan.plans]
        i32 = ir.IntegerType.get_signless(32)
        with ir.InsertionPoint(op), op.location:
            slots = [StageSlots(copy, kernel, stages) for copy in plan.copies]
            barriers = Mbarriers(op, stages)
            usable_maps = [usable(p) for p in plan.plans]
            fill = _Fill(plan, slots, descriptors, usable_maps, barriers, body, upper)
            barriers.init()
            for stage in range(stages - 1):
                fill(arith.addi(lower, arith.muli(irb.index(stage), step)), stage)
            gpu.barrier()
            loop = scf.ForOp(lower, upper, step)
            with ir.InsertionPoint(loop.body):
                iv = loop.induction_variable
                count = arith.divui(arith.subi(iv, lower), step)
                ahead = arith.addi(iv, arith.muli(irb.index(stages - 1), step))
                fill(ahead, arith.remui(arith.addi(count, irb.index(stages - 1)),
                                        irb.index(stages)))
                current = arith.remui(count, irb.index(stages))
                parity = arith.index_cast(
                    i32, arith.remui(arith.divui(count, irb.index(stages)), irb.index(2)))
                barriers.wait(current, parity)
                views = [slot.view(current) for slot in slots]
                end_barrier = gpu.barrier()
                scf.YieldOp([])
            barriers.invalidate()
        move_body_into(op, loop, slots, views, end_barrier.operation)
