"""The ascend lowerings of tile.kernel, tile.pipelined and tile.barrier.

A block of the grid is one AI core's (or vector core's) work, and a launch
has as many cores as the host asks for, not as many as the grid has blocks:
the kernel becomes a grid-stride loop over the linearized grid, from
`ascend.block_idx` by `ascend.block_num`, so it is correct for any launch
size. The first grid dimension varies fastest, so neighbouring cores take
neighbouring tiles of it. When the blocks' work differs (a loop in the body
whose bounds depend on the block, as causal attention's key loop stops at the
diagonal), each odd full round of the loop takes its blocks in reverse
(snake order): a core whose block was the longest of one round gets the
shortest of the next, so the cores' totals even out (causal attention at
S = 32K on 32 cores: the busiest core walks 12 % more key tiles than the
mean in plain order, none more in snake order). A round covers the same
blocks either way. `tile.pipelined` is an `scf.for` that keeps its
stage count (`tile.num_stages`, from 2 stages on) for
`tile-ascend-multi-buffer`; `tile.barrier` orders nothing the pipes'
flags (inserted by `tile-ascend-inject-sync`) do not already order. A
vector-only kernel in a mix function strides over the AIVs (AI core
`block_idx` times 2 plus `sub_block_idx`), and a function of several
kernels is launched on as many cores as its widest needs.

Before:

    tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 128 {
      ... %bx ... %by ...
    }

After:

    %n = arith.muli %gx, %gy : index
    %b0 = ascend.block_idx : index
    %nb = ascend.block_num : index
    scf.for %b = %b0 to %n step %nb {    // the func gets ascend.grid = gx * gy when static
      %bx = arith.remui %b, %gx : index
      %q = arith.divui %b, %gx : index
      %by = arith.remui %q, %gy : index
      ...
    }
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf

from tilec.dialects import ascend
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.kernel_lowering import KernelLowering
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.targets.ascend import AscendTarget
from tilec.targets.ascend import attributes as ascend_attr

SPREAD = "ascend.spread_over_aivs"
"""On a vector-only tile.kernel of a mix function (set by
`tile-ascend-split-cores`): both AIVs of an AI core take blocks of their own."""
NUM_STAGES = "tile.num_stages"


def _block_indices(linear: ir.Value, sizes: list[ir.Value]) -> list[ir.Value]:
    """The grid coordinates of a linear block number, first dimension fastest."""
    indices = []
    rest = linear
    for dim, size in enumerate(sizes):
        last = dim == len(sizes) - 1
        indices.append(rest if last else arith.remui(rest, size))
        if not last:
            rest = arith.divui(rest, size)
    return indices


SNAKE = "ascend.snake_grid"
"""On a function whose kernels walk their grids in snake order."""
_LOOPS = ("scf.for", "tile.pipelined")


def _snake_order(kernel: ir.Operation) -> bool:
    """Whether the kernels of the function of `kernel` walk their grids in snake
    order: all of them or none, since the AIC's and the AIVs' copies of a mix
    kernel must agree on which block an iteration runs. Decided while none is
    lowered yet, and recorded on the function (`SNAKE`) for the later ones."""
    func = irb.enclosing(kernel, {"func.func"})
    if func is None:
        return _work_varies(kernel.regions[0].blocks[0])
    if SNAKE not in func.attributes:
        bodies = [k.regions[0].blocks[0] for k in irb.collect(func, "tile.kernel")]
        if any(_work_varies(b) for b in bodies) and not any(_numbers_cores(b) for b in bodies):
            func.attributes[SNAKE] = ir.UnitAttr.get()
    return SNAKE in func.attributes


def _numbers_cores(body: ir.Block) -> bool:
    """Whether the kernel body computes with the number of cores (a handoff
    ring's slot at grid level counts a core's blocks as (block - c) / n): it
    assumes the plain order, core c running blocks c, c + n, c + 2n, ...
    (The core's own number alone, as a ring's part of a workspace, does not.)"""
    return any(op.name == "ascend.block_num"
               for top in body.operations for op in irb.every_op(top.operation))


def _work_varies(body: ir.Block) -> bool:
    """Whether a loop in the kernel body has bounds computed from the block's
    coordinates (the arguments of `body`)."""
    known: dict[ir.Value, bool] = {argument: True for argument in body.arguments}

    def depends(value: ir.Value) -> bool:
        if value not in known:
            owner = value.owner
            known[value] = not isinstance(owner, ir.Block) and any(
                depends(operand) for operand in owner.operation.operands)
        return known[value]

    return any(op.name in _LOOPS and any(depends(v) for v in list(op.operands)[:2])
               for top in body.operations for op in irb.every_op(top.operation))


def _snake(block: ir.Value, step: ir.Value, total: ir.Value) -> ir.Value:
    """The block that grid-stride iteration `block` runs in snake order: in an
    odd round that the grid fills, the mirror image of `block` in the round."""
    round_ = arith.divui(block, step)
    start = arith.muli(round_, step)
    last = arith.subi(step, irb.index(1))
    mirror = arith.subi(arith.addi(start, last), arith.subi(block, start))
    odd = arith.cmpi(arith.CmpIPredicate.ne, arith.andi(round_, irb.index(1)), irb.index(0))
    full = arith.cmpi(arith.CmpIPredicate.ule, arith.addi(start, step), total)
    return arith.select(arith.andi(odd, full), mirror, block)


@register_lowering
class KernelToGridStrideLoop(KernelLowering[None, AscendTarget]):
    """tile.kernel as a loop over the linearized grid, strided by the launch size."""

    target = "ascend"
    name = "ascend-kernel-grid-stride"

    def grid(
        self, op: ir.Operation, plan: None, target: AscendTarget
    ) -> tuple[list[ir.Value], ir.Operation]:
        sizes = list(op.operands)
        index = ir.IndexType.get()
        spread = SPREAD in op.attributes
        lanes = target.profile.aiv_per_aic if spread else 1
        total = sizes[0]
        for size in sizes[1:]:
            total = arith.muli(total, size)
        first, step = ascend.block_idx(index), ascend.block_num(index)
        if spread:
            # Each AIV of an AI core is a core of its own here.
            first = arith.addi(arith.muli(first, irb.index(lanes)), ascend.sub_block_idx(index))
            step = arith.muli(step, irb.index(lanes))
        loop = scf.ForOp(first, total, step)
        with ir.InsertionPoint(loop.body):
            block = loop.induction_variable
            if _snake_order(op):
                block = _snake(block, step, total)
            coordinates = _block_indices(block, sizes)
            end = scf.YieldOp([])
        _record_cores(op, sizes, lanes)
        return coordinates, end.operation


def _record_cores(kernel: ir.Operation, sizes: list[ir.Value], lanes: int) -> None:
    """Gives the function of `kernel` the cores its launch needs (`ascend.grid`)
    when its grid is static: as many as the widest of its kernels."""
    static = [irb.constant_int(size) for size in sizes]
    func = irb.enclosing(kernel, {"func.func"})
    if func is None or None in static:
        return
    blocks = 1
    for size in static:
        blocks *= size
    cores = -(-blocks // lanes)
    if ascend_attr.GRID in func.attributes:
        cores = max(cores, ascend_attr.integer(func, ascend_attr.GRID))
    func.attributes[ascend_attr.GRID] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), cores)


@register_lowering
class PipelinedToStagedLoop(TileOpLowering[None, AscendTarget]):
    """tile.pipelined as an scf.for that records its stage count."""

    target = "ascend"
    op_names = ("tile.pipelined",)
    name = "ascend-pipelined-staged-loop"
    phase = Phase.LOOPS

    def lower(self, op: ir.Operation, plan: None, target: AscendTarget) -> None:
        stages = ir.IntegerAttr(op.attributes["num_stages"]).value
        loop = irb.pipelined_as_loop(op)
        if stages >= 2:
            i64 = ir.IntegerType.get_signless(64)
            loop.attributes[NUM_STAGES] = ir.IntegerAttr.get(i64, stages)


@register_lowering
class BarrierToNothing(TileOpLowering[None, AscendTarget]):
    """tile.barrier is erased: a core's pipes are ordered by flags, not barriers."""

    target = "ascend"
    op_names = ("tile.barrier",)
    name = "ascend-barrier-erased"
    phase = Phase.BARRIERS

    def lower(self, op: ir.Operation, plan: None, target: AscendTarget) -> None:
        op.erase()
