"""Part of tile-ascend-split-cores: each core starts the next iteration's first
stage before it finishes the current one, so the cube and the vector cores
work at the same time in a loop that hands tiles both ways.

In attention's K/V loop the AIC computes S(k) = Q K(k)^T, hands it down,
waits for P(k), computes P(k) V(k) and hands it down; the AIVs turn S(k)
into P(k), hand it up, wait for P(k) V(k) and add it to the output. Run in
that order each core idles while the other works. Each copy of the loop
body is cut into two stages where the core waits for the other's result of
the same iteration: on the AIC before its first wait for a tile of the
AIVs, on the AIVs after they hand their tile up. Stage 1 of iteration k + 1
then runs before stage 2 of iteration k:

    stage1(lb)                                   (if the loop runs at all)
    for k: { if k + step < ub: stage1(k + step) }  stage2(k)

so the AIC computes S(k+1) while the AIVs finish iteration k, and the AIVs
turn S(k+1) into P(k+1) while the AIC computes P(k) V(k). Every stage
still runs once per iteration, in the same order per ring, so each ring's
flags stay balanced and no core waits for something the other can only do
later. It is legal when the stages share no tile one writes and the other
reads:

- work of stage 1 on a tile that stage 2 writes (the output's rescale by
  this iteration's factor) first sinks into stage 2, past the stage-1 ops
  after it that it does not conflict with;
- a UB tile stage 1 writes and stage 2 only reads (the rescale factor)
  gets a shadow copy, taken at the top of the body before stage1(k + 1)
  overwrites it, which stage 2 reads instead.

A loop whose stages cannot be made independent is left as it is.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf

from tilec.dialects import tile
from tilec.passes.conversion.tile_to_ascend.core_sides import is_pure

STAGE_START = "ascend.stage_start"
"""On the AIC's first wait for a tile of the AIVs in a loop body: stage 2 starts there."""
STAGE_END = "ascend.stage_end"
"""On the AIVs' "ready" set after they hand a tile up in a loop body: stage 1 ends there."""
_WRITES = {"tile.gemm": 2, "tile.clear": 0, "tile.fill": 0, "memref.store": 1,
           "tile.reduce": 1}


def _nested(op: ir.Operation) -> list[ir.Operation]:
    found: list[ir.Operation] = []

    def visit(inner: ir.Operation) -> ir.WalkResult:
        found.append(inner.operation)
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    return found


def _memrefs(ops: list[ir.Operation]) -> tuple[set[ir.Value], set[ir.Value]]:
    """(every memref the ops touch, the ones they write), through nested ops."""
    touched: set[ir.Value] = set()
    written: set[ir.Value] = set()
    for op in ops:
        for inner in _nested(op):
            operands = list(inner.operands)
            touched.update(v for v in operands if isinstance(v.type, ir.MemRefType))
            if inner.name == "tile.copy":
                counts = list(inner.attributes["operandSegmentSizes"])
                written.add(operands[counts[0] + counts[1]])
            elif inner.name in _WRITES:
                written.add(operands[_WRITES[inner.name]])
    return touched, written


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
        for nested in _nested(new.operation):
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
        if _used(op) or _conflict([op], [o for o in after if not is_pure(o)]):
            return False
        op.move_before(stage2[0])
        stage1.remove(op)
        stage2.insert(0, op)
    return True


def pipeline(loop: ir.Operation, allocs_at: ir.Block) -> bool:
    """Pipelines one core's copy of `loop` (see the module docstring); new
    shadow tiles are allocated at the start of `allocs_at`. Whether it did."""
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
    shadows = written1 & touched2
    if not work or written2 & touched1 or any(_used(op) for op in work):
        return False
    if any(not isinstance(value.owner, ir.OpView | ir.Operation)
           or str(tile.scope_of(ir.MemRefType(value.type))) != "ub" for value in shadows):
        return False  # only UB tiles get shadows (a V-pipe copy; none for GM or L1)
    iv = body.arguments[0]
    lower, upper, step = list(loop.operands)[:3]
    copies: dict[ir.Value, ir.Value] = {}
    for value in shadows:
        with ir.InsertionPoint.at_block_begin(allocs_at), loop.location:
            copies[value] = tile.alloc(value.type)
        rank = len(ir.MemRefType(value.type).shape)
        with ir.InsertionPoint(ops[0]), loop.location:
            zeros = [arith.constant(ir.IndexType.get(), 0)] * rank
            tile.copy(value, zeros, copies[value], zeros)
    for op in stage2:
        for nested in _nested(op):
            for i, operand in enumerate(list(nested.operands)):
                if operand in copies:
                    nested.operands[i] = copies[operand]
    with ir.InsertionPoint(loop), loop.location:
        _guarded(arith.cmpi(arith.CmpIPredicate.slt, lower, upper), stage1, iv, lower)
    with ir.InsertionPoint(ops[0]), loop.location:
        following = arith.addi(iv, step)
        _guarded(arith.cmpi(arith.CmpIPredicate.slt, following, upper), stage1, iv, following)
    for op in reversed(stage1):
        if not is_pure(op) or not _used(op):
            op.erase()
    return True
