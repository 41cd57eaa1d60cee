"""Part of tile-ascend-split-cores: each core starts the next iteration's first
stage before it finishes the current one, so the cube and the vector cores
work at the same time in a loop that hands tiles both ways.

In attention's K/V loop the AIC computes S(k) = Q K(k)^T, hands it down,
waits for P(k), computes P(k) V(k) and hands it down; the AIVs turn S(k)
into P(k), hand it up, wait for P(k) V(k) and add it to the output. Run in
that order each core idles while the other works. Each copy of the loop
body is cut into two stages where the core waits for the other's result of
the same iteration: on the AIC before its first wait for a tile of the
AIVs, on the AIVs after they hand their tile up. Stage 1 then runs d
iterations ahead of stage 2 (the skew, the pass option; 2 by default):

    if lb < ub:
      stage1(lb)
      if lb + step < ub: stage1(lb + step)   ... up to lb + (d-1) step
      for k: { if k + d step < ub: stage1(k + d step) }  stage2(k)

With d = 1 the AIC computes S(k+1) while the AIVs finish iteration k, but
each core still waits for most of a round trip: the AIC needs P(k+1) right
after it computed S(k+2), and the AIVs see P(k) V(k) only after P(k) went
up, into L1, through the gemm and the fixpipe and back into UB, which takes
longer than their vector work of one iteration. With d = 2 the other core
has a whole iteration more to answer in (attention on one 910b core, S =
1024, 64 x 64 tiles: 294k cycles with d = 1, 220k with d = 2). Every stage
still runs once per iteration, in the same order per ring, so each ring's
flags stay balanced, and no core waits for something the other can only do
later: the AIC's stage 2 of iteration k needs the AIVs' stage 1 of k, which
ran d iterations earlier on their side. The price is more flags pending at
once; the backend lowers d to 1 when the pipes run out of event ids. It is
legal when the stages share no tile one writes and the other reads:

- work of stage 1 on a tile that stage 2 writes (the output's rescale by
  this iteration's factor) first sinks into stage 2, past the stage-1 ops
  after it that it does not conflict with (a copy that may be a handoff's
  passes no cross-core flag: it stays between its flags);
- a UB tile stage 1 writes and stage 2 only reads (the rescale factor)
  gets a chain of d shadow copies shifted at the top of the body, before
  stage1(k + d) overwrites it, so stage 2 reads the value of its own
  iteration from the last of them.

A loop whose stages cannot be made independent is left as it is.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf

from tilec.dialects import tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_to_ascend.analysis.core_sides import is_pure

STAGE_START = "ascend.stage_start"
"""On the AIC's first wait for a tile of the AIVs in a loop body: stage 2 starts there."""
STAGE_END = "ascend.stage_end"
"""On the AIVs' "ready" set after they hand a tile up in a loop body: stage 1 ends there."""
_CROSS_CORE = ("ascend.cross_core_set_flag", "ascend.cross_core_wait_flag")
_WRITES = {"tile.gemm": 2, "tile.clear": 0, "tile.fill": 0, "memref.store": 1,
           "tile.reduce": 1}


def _memrefs(ops: list[ir.Operation]) -> tuple[set[ir.Value], set[ir.Value]]:
    """(every memref the ops touch, the ones they write), through nested ops."""
    touched: set[ir.Value] = set()
    written: set[ir.Value] = set()
    for op in ops:
        for inner in irb.every_op(op):
            operands = list(inner.operands)
            touched.update(v for v in operands if isinstance(v.type, ir.MemRefType))
            if inner.name == "tile.copy":
                counts = list(inner.attributes["operandSegmentSizes"])
                written.add(operands[counts[0] + counts[1]])
            elif inner.name in _WRITES:
                written.add(operands[_WRITES[inner.name]])
    return touched, written


def _memrefs_in_order(ops: list[ir.Operation]) -> list[ir.Value]:
    """The memrefs `_memrefs` finds in `ops`, once each, in the order the ops name them."""
    seen: dict[ir.Value, None] = {}
    for op in ops:
        for inner in irb.every_op(op):
            seen.update((v, None) for v in inner.operands if isinstance(v.type, ir.MemRefType))
    return list(seen)


def _conflict(a: list[ir.Operation], b: list[ir.Operation]) -> bool:
    touched_a, written_a = _memrefs(a)
    touched_b, written_b = _memrefs(b)
    return bool(written_a & touched_b or written_b & touched_a)


def _used(op: ir.Operation) -> bool:
    return any(True for result in op.results for _ in result.uses)


def _clone(ops: list[ir.Operation], mapping: dict[ir.Value, ir.Value]) -> None:
    """Clones `ops` at the current insertion point, their operands (nested
    ones too) renamed by `mapping`, which learns the clones' results."""
    for op in ops:
        new = op.clone()
        for nested in irb.every_op(new.operation):
            for i, operand in enumerate(list(nested.operands)):
                if operand in mapping:
                    nested.operands[i] = mapping[operand]
        for old, result in zip(op.results, new.results, strict=True):
            mapping[old] = result


def _guarded(condition: ir.Value, ops: list[ir.Operation], iv: ir.Value,
             value: ir.Value) -> None:
    branch = scf.IfOp(condition)
    with ir.InsertionPoint(branch.then_block):
        _clone(ops, {iv: value})
        scf.YieldOp([])


def _stages(ops: list[ir.Operation]) -> int | None:
    """Where stage 2 starts (None: the body is not marked); drops the marks."""
    starts = [i for i, op in enumerate(ops) if STAGE_START in op.attributes]
    ends = [i for i, op in enumerate(ops) if STAGE_END in op.attributes]
    for i in starts:
        del ops[i].attributes[STAGE_START]
    for i in ends:
        del ops[i].attributes[STAGE_END]
    if starts:
        return starts[0]
    return ends[-1] + 1 if ends else None


def _sink(stage1: list[ir.Operation], stage2: list[ir.Operation]) -> bool:
    """Moves the stage-1 work on tiles that stage 2 writes to the start of
    stage 2; whether it could."""
    for op in reversed(list(stage1)):
        if is_pure(op):
            continue
        _, written2 = _memrefs(stage2)
        touched, _ = _memrefs([op])
        if not touched & written2:
            continue
        after = stage1[stage1.index(op) + 1:]
        if _used(op) or _conflict([op], [o for o in after if not is_pure(o)]) \
                or (_may_hand_over(op) and any(o.name in _CROSS_CORE for inner in after
                                               for o in irb.every_op(inner))):
            return False
        op.move_before(stage2[0])
        stage1.remove(op)
        stage2.insert(0, op)
    return True


def _may_hand_over(op: ir.Operation) -> bool:
    """Whether `op` may hold the copy of a handoff, which must stay between
    its flags: a copy to or from GM (where the workspaces are) or a buffer
    that is not a tile (a UB ring is a `memref.alloc`)."""
    for inner in irb.every_op(op):
        if inner.name != "tile.copy":
            continue
        for value in inner.operands:
            if not isinstance(value.type, ir.MemRefType):
                continue
            owner = value.owner
            if str(tile.scope_of(ir.MemRefType(value.type))) == "global" or (
                    isinstance(owner, ir.Operation | ir.OpView) and owner.name == "memref.alloc"):
                return True
    return False


def _enter_once(loop: ir.Operation) -> None:
    """Moves `loop` into an `scf.if` on its first iteration running, where the
    prologue goes too: a loop that may run no iteration (a run-time bound, like
    causal attention's key tiles) then skips all of its pipelined work on one
    path. With a guard per prologue stage instead, the path that skips a stage
    but runs the next part would still pass every flag the skipped stage sets
    or waits, with none of the work that orders its pipes against the previous
    run, and the sync pass would order those flags with acknowledgements of
    their own: more flags pending than the pipes have ids. (A constant bound
    folds the `scf.if` away.) The values a loop yields leave the `scf.if`, its
    initial ones where it does not run."""
    lower, upper, _, *initial = list(loop.operands)
    results = list(loop.results)
    with ir.InsertionPoint(loop), loop.location:
        entered = scf.IfOp(arith.cmpi(arith.CmpIPredicate.slt, lower, upper),
                           [r.type for r in results], has_else=bool(results))
        for result, value in zip(results, entered.results, strict=True):
            result.replace_all_uses_with(value)
        with ir.InsertionPoint(entered.then_block):
            done = scf.YieldOp(results)
        if results:
            with ir.InsertionPoint(entered.else_block):
                scf.YieldOp(initial)
    loop.move_before(done)


def _shift(chain: list[ir.Value], value: ir.Value, location: ir.Location) -> None:
    """chain[-1] := chain[-2], ..., chain[0] := value (V-pipe copies)."""
    rank = len(ir.MemRefType(value.type).shape)
    with location:
        zeros = [arith.constant(ir.IndexType.get(), 0)] * rank
        for target, source in zip(reversed(chain), [*reversed(chain[:-1]), value], strict=True):
            tile.copy(source, zeros, target, zeros)


def pipeline(loop: ir.Operation, allocs_at: ir.Block, skew: int) -> bool:
    """Pipelines one core's copy of `loop` with stage 1 `skew` iterations
    ahead (see the module docstring); new shadow tiles are allocated at the
    start of `allocs_at`. Whether it did."""
    body = loop.regions[0].blocks[0]
    ops = [o.operation for o in body.operations][:-1]
    split = _stages(ops)
    if split is None or not 0 < split < len(ops):
        return False
    stage1, stage2 = ops[:split], ops[split:]
    touched1, written1 = _memrefs([op for op in stage1 if not is_pure(op)])
    touched2, written2 = _memrefs(stage2)
    if written2 & touched1 and not _sink(stage1, stage2):
        return False
    work = [op for op in stage1 if not is_pure(op)]
    touched1, written1 = _memrefs(work)
    touched2, written2 = _memrefs(stage2)
    # In the order the work writes them: the shadows' allocs, and so everything
    # after them, must not depend on how a set of values happens to be hashed.
    shadows = [v for v in _memrefs_in_order(work) if v in written1 & touched2]
    if not work or written2 & touched1 or any(_used(op) for op in work):
        return False
    if any(not isinstance(value.owner, ir.OpView | ir.Operation)
           or str(tile.scope_of(ir.MemRefType(value.type))) != "ub" for value in shadows):
        return False  # only UB tiles get shadows (a V-pipe copy; none for GM or L1)
    iv = body.arguments[0]
    lower, upper, step = list(loop.operands)[:3]
    chains: dict[ir.Value, list[ir.Value]] = {}
    for value in shadows:
        with ir.InsertionPoint.at_block_begin(allocs_at), loop.location:
            chains[value] = [tile.alloc(value.type) for _ in range(skew)]
        with ir.InsertionPoint(ops[0]):
            _shift(chains[value], value, loop.location)
    for op in stage2:
        for nested in irb.every_op(op):
            for i, operand in enumerate(list(nested.operands)):
                if operand in chains:
                    nested.operands[i] = chains[operand][-1]
    _enter_once(loop)
    with ir.InsertionPoint(loop), loop.location:
        for ahead in range(skew):
            if ahead == 0:
                _clone(stage1, {iv: lower})
                continue
            start = arith.addi(lower, arith.muli(step, arith.constant(ir.IndexType.get(),
                                                                     ahead)))
            for value, chain in chains.items():
                _shift(chain, value, loop.location)
            _guarded(arith.cmpi(arith.CmpIPredicate.slt, start, upper), stage1, iv, start)
    with ir.InsertionPoint(ops[0]), loop.location:
        distance = step if skew == 1 else arith.muli(step, arith.constant(ir.IndexType.get(),
                                                                          skew))
        following = arith.addi(iv, distance)
        _guarded(arith.cmpi(arith.CmpIPredicate.slt, following, upper), stage1, iv, following)
    for op in reversed(stage1):
        if not is_pure(op) or not _used(op):
            op.erase()
    return True
