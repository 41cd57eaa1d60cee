"""Warp specialization of a TMA-fed tile.pipelined loop on sm_90a (TileLang's default on Hopper).

The kernel gets one more warpgroup, the producer (threads T .. T + 127
after the T of the kernel, which stay the consumers and run the kernel's
code as before). One producer thread issues the loop's TMA boxes; the
consumers run the loop body on wgmma. Per slot s of `num_stages` S there
are two mbarriers: full[s] (1 arrival + the boxes' bytes) and empty[s]
(T arrivals, one per consumer thread once it has read the slot):

    all:        thread 0: init full[s] (1), empty[s] (T); bar.sync 0
    consumers:  setmaxnreg.inc; ... loop i: wait full[i % S] parity (i / S) % 2;
                the body; arrive empty[i % S]; ...       (their barriers: bar.sync 1, T)
    producer:   setmaxnreg.dec; thread T: loop i: wait empty[i % S] parity (i / S) % 2 ^ 1;
                arrive.expect_tx full[i % S]; the boxes of iteration i
    all:        bar.sync 0; thread 0: inval

The first round's empty waits use parity 1, which a fresh mbarrier has
already completed, so the producer runs up to S iterations ahead. Register
reallocation moves registers from the producer (which needs few) to the
consumers (the accumulators); the kernel declares its register budget
(`nvvm.maxnreg`, set on the outlined kernel by tile-cuda-merge-kernel-modules)
so ptxas can apply it.

It applies where the ring would (`mbarrier_ring.py`), the loop is a direct
child of the kernel body and the only pipelined loop of the kernel, at most
two consumer warpgroups, and what the producer computes (bounds, offsets)
is integer arithmetic on block ids and values from outside the kernel. No
thread copies can stand in for a box here (the producer is not the threads
the copy is spread over), so the tensors must have static shapes (then
`tma_plan` has checked their rows and dims) and the driver requires the
tensor maps: a tensor whose base is not 16-byte aligned (a GPU tensor view)
is a clear error at launch. Tensors of dynamic shape keep the ring, whose
thread copies stand in where the map cannot be encoded.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, gpu, nvvm, scf

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.conversion.tile_to_cuda.analysis.layouts import guarded, thread_id
from tilec.passes.conversion.tile_to_cuda.analysis.mbarriers import Mbarriers, i32_constant
from tilec.passes.conversion.tile_to_cuda.analysis.wgmma_plan import WARPGROUP
from tilec.passes.conversion.tile_to_cuda.ops.kernel import CONSUMER_BRANCH, CONSUMERS
from tilec.passes.conversion.tile_to_cuda.ops.mbarrier_ring import TmaStage, tma_stage
from tilec.passes.conversion.tile_to_cuda.ops.pipeline import (
    StageSlots,
    materialize,
    move_body_into,
    num_stages,
    src_rank,
)
from tilec.passes.conversion.tile_to_cuda.ops.tma_copy import host_descriptor, issue
from tilec.targets import CudaTarget

# Registers per thread: at entry (so 384 threads fit the 64K register file),
# then the producer gives 128 each back and the consumers take 64 each more.
KERNEL_REGISTERS = 168
PRODUCER_REGISTERS = 40
CONSUMER_REGISTERS = 232
MAX_CONSUMERS = 2 * WARPGROUP
CONSUMER_HINT = "tile.max_nreg_inc"
PRODUCER_HINT = "tile.max_nreg_dec"
NO_REALLOCATION = "tile.no_set_max_nreg"
"""The kernel's register hints (T.set_max_nreg, T.no_set_max_nreg): they replace the
counts above, or leave the registers where they are."""


def _registers(kernel: ir.Operation, hint: str, default: int) -> int:
    if hint in kernel.attributes:
        return ir.IntegerAttr(kernel.attributes[hint]).value
    return default
_SCRATCH = {"gpu.dynamic_shared_memory", "memref.view", "memref.alloca", "arith.constant",
            "memref.extract_aligned_pointer_as_index"}


def _producer_computable(value: ir.Value, kernel_body: ir.Block, loop_body: ir.Block) -> bool:
    """Whether the producer can rebuild `value`: arith, constants and block ids
    of the kernel body or the loop body, the induction variable, values from outside."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return True
    op = owner.operation
    if op.block not in (kernel_body, loop_body):
        return irb.enclosing(op, {"tile.kernel"}) is None
    if not op.name.startswith("arith."):
        return False
    return all(_producer_computable(v, kernel_body, loop_body) for v in op.operands)


def _applies(op: ir.Operation) -> str | None:
    kernel = op.parent
    if kernel is None or kernel.name != "tile.kernel":
        return "the loop is not at the kernel's top level"
    kernel = kernel.operation
    if len(irb.collect(kernel, "tile.pipelined")) != 1:
        return "the kernel has several pipelined loops"
    threads = ir.IntegerAttr(kernel.attributes["threads"]).value
    if threads % WARPGROUP or threads > MAX_CONSUMERS:
        return "one or two consumer warpgroups only"
    stage = tma_stage(op)
    if stage is None:
        return "its stage copies are not all TMA loads of wgmma operand tiles"
    if any(ir.ShapedType.is_dynamic_size(s) for p in stage.plans for s in p.copy.src.tile.shape):
        return "a tensor of dynamic shape may need thread copies in place of TMA"
    kernel_body, loop_body = kernel.regions[0].blocks[0], op.regions[0].blocks[0]
    needed = list(op.operands) + [v for c in stage.copies for v in c.operands[1 : 1 + src_rank(c)]]
    if not all(_producer_computable(v, kernel_body, loop_body) for v in needed):
        return "the producer cannot compute the loop's bounds and offsets"
    return None


@register_lowering
class PipelinedWarpSpecialized(TileOpLowering[TmaStage, CudaTarget]):
    """tile.pipelined fed by TMA as a producer warpgroup and consumer warpgroups."""

    target = "cuda"
    op_names = ("tile.pipelined",)
    name = "cuda-pipelined-warp-specialized"
    phase = Phase.LOOP_SCHEDULES
    restructures = True
    supersedes = ("cuda-pipelined-tma-ring", "cuda-pipelined-cp-async", "cuda-pipelined-loop")

    def applies(self, op: ir.Operation, target: CudaTarget) -> str | None:
        if not target.has_wgmma:
            return "warp specialization needs sm_90a"
        if num_stages(op) < 2:
            return "num_stages is 1"
        return _applies(op)

    def infer(self, op: ir.Operation, target: CudaTarget) -> TmaStage:
        stage = tma_stage(op)
        assert stage is not None
        return stage

    def lower(self, op: ir.Operation, plan: TmaStage, target: CudaTarget) -> None:
        stages = num_stages(op)
        kernel = op.parent.operation
        threads = ir.IntegerAttr(kernel.attributes["threads"]).value
        kernel.attributes[CONSUMERS] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                                          threads)
        kernel_body = kernel.regions[0].blocks[0]
        descriptors = [host_descriptor(p, kernel, required=True) for p in plan.plans]
        with ir.InsertionPoint(op), op.location:
            slots = [StageSlots(copy, kernel, stages) for copy in plan.copies]
            full, empty = Mbarriers(op, stages), Mbarriers(op, stages)
        ops = [o.operation for o in kernel_body.operations][:-1]
        first = next(i for i, o in enumerate(ops) if o.name not in _SCRATCH)
        with ir.InsertionPoint(ops[first]), op.location:
            full.init(1, synchronize=False)
            empty.init(threads)
            consumer = arith.cmpi(arith.CmpIPredicate.ult, thread_id(), irb.index(threads))
            split = scf.IfOp(consumer, has_else=True)
            split.operation.attributes[CONSUMER_BRANCH] = ir.UnitAttr.get()
            reallocate = NO_REALLOCATION not in kernel.attributes
            with ir.InsertionPoint(split.then_block):
                if reallocate:
                    nvvm.setmaxregister(_registers(kernel, CONSUMER_HINT, CONSUMER_REGISTERS),
                                        nvvm.SetMaxRegisterAction.increase)
                consumer_end = scf.YieldOp([])
            with ir.InsertionPoint(split.else_block):
                if reallocate:
                    nvvm.setmaxregister(_registers(kernel, PRODUCER_HINT, PRODUCER_REGISTERS),
                                        nvvm.SetMaxRegisterAction.decrease)
                self._producer(op, plan, slots, descriptors, full, empty, threads, stages)
                scf.YieldOp([])
            gpu.barrier()
            full.invalidate(synchronize=False)
            empty.invalidate(synchronize=False)
        for inner in ops[first:]:
            inner.move_before(consumer_end.operation)
        self._consumer(op, plan, slots, full, empty, stages)

    def _producer(self, op: ir.Operation, plan: TmaStage, slots: list[StageSlots],
                  descriptors: list[ir.Value], full: Mbarriers, empty: Mbarriers,
                  threads: int, stages: int) -> None:
        kernel_body = op.parent.regions[0].blocks[0]
        loop_body = op.regions[0].blocks[0]
        mapping: dict[ir.Value, ir.Value] = {}
        lower, upper, step = (materialize(v, (kernel_body, loop_body), mapping)
                              for v in op.operands)
        leader = arith.cmpi(arith.CmpIPredicate.eq, thread_id(), irb.index(threads))
        with guarded(leader):
            loop = scf.ForOp(lower, upper, step)
            with ir.InsertionPoint(loop.body):
                iv = loop.induction_variable
                slot, parity = _slot_and_parity(iv, lower, step, stages)
                empty.wait(slot, arith.xori(parity, i32_constant(1)))
                full.arrive_expect_tx(slot, i32_constant(sum(p.bytes for p in plan.plans)))
                inner = {**mapping, loop_body.arguments[0]: iv}
                for copy, copy_plan, slots_of, descriptor in zip(
                    plan.copies, plan.plans, slots, descriptors, strict=True
                ):
                    offsets = [materialize(v, (kernel_body, loop_body), inner)
                               for v in copy.operands[1 : 1 + src_rank(copy)]]
                    issue(copy_plan, descriptor, slots_of.view(slot), offsets, full.address(slot))
                scf.YieldOp([])

    def _consumer(self, op: ir.Operation, plan: TmaStage, slots: list[StageSlots], full: Mbarriers,
                  empty: Mbarriers, stages: int) -> None:
        lower, upper, step = op.operands
        with ir.InsertionPoint(op), op.location:
            loop = scf.ForOp(lower, upper, step)
            with ir.InsertionPoint(loop.body):
                iv = loop.induction_variable
                slot, parity = _slot_and_parity(iv, lower, step, stages)
                full.wait(slot, parity)
                views = [s.view(slot) for s in slots]
                # Each consumer thread has read the slot when it arrives.
                arrival = empty.arrive(slot)
                scf.YieldOp([])
        move_body_into(op, loop, slots, views, arrival)


def _slot_and_parity(iv: ir.Value, lower: ir.Value, step: ir.Value,
                     stages: int) -> tuple[ir.Value, ir.Value]:
    count = arith.divui(arith.subi(iv, lower), step)
    slot = arith.remui(count, irb.index(stages))
    round_parity = arith.remui(arith.divui(count, irb.index(stages)), irb.index(2))
    return slot, arith.index_cast(ir.IntegerType.get_signless(32), round_parity)
