"""Part of tile-ascend-place-tiles: a gemm that accumulates onto a tile the
vector code also writes gets a fresh accumulator.

An L0C tile is the cube's alone: the vector cores cannot write it. When
vector work writes a tile that a later `tile.gemm` accumulates onto
(attention's scores, initialised by a mask before their gemm; its output,
rescaled every iteration before the next gemm adds to it), the tile cannot
stay in L0C. Each such gemm instead writes a fresh accumulator (cleared)
and an element-wise add puts its result onto the tile, which then lives in
UB like any vector tile; the add is vector work on the fresh accumulator,
so `tile-ascend-split-cores` hands it to the vector cores. The loop-carried
dependence (the running output) thus lives on one core.

The cube cannot zero L0C by itself: AscendC's `Fill` initialises L0A, L0B
and L1 only (asc-devkit include/basic_api/kernel_operator_mm_intf.h), so a
cleared accumulator is the `init` (`cmatrixInitVal`) of the next mmad. A
gemm under a condition in a loop after the clear of its accumulator
(block-sparse GEMM's `if mask[...]` in the K loop) has no next mmad that is
known at compile time, and may have none at all (a row of the mask that is
all false). Such an accumulator is zeroed by a vector fill instead: each of
its gemms writes a fresh accumulator and the vector cores add it on.

"Writes" and "later" come from uses, never from names: a `memref.store`,
a `tile.reduce` result or a copy into the tile is a vector write; it
reaches a gemm if it comes first in program order or both sit in one loop.
A gemm that overwrites such a tile (`clear_accum`) becomes a fresh gemm and
a copy into it.

A write that only zeroes the tile right before a gemm accumulates onto it
is no vector work: the gemm clears its accumulator instead
(`clear_accum`), and its fresh accumulator is copied onto the tile rather
than added. That is attention's mask
when the bounds of the loops show that no key is masked (a sequence length
that is a multiple of the key tile, non-causal): its compares are folded
first (`decided_compares`), which leaves a parallel region storing 0.0
everywhere; the vector cores then copy the scores instead of filling a
tile and adding onto it on every iteration.
A mask of some keys is applied after the gemm instead (`late_masks`), which
then overwrites the tile in the same way.

Before:

    tile.parallel (%i, %j) in (32, 32) { ... memref.store %m, %s[%i, %j] }
    tile.gemm %q, %k, %s transpose_b

After:

    %f = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) { ... memref.store %m, %s[%i, %j] }
    tile.gemm %q, %k, %f transpose_b clear_accum
    tile.parallel (%i, %j) in (32, 32) {
      %x = memref.load %s[%i, %j]   %y = memref.load %f[%i, %j]
      memref.store (%x + %y), %s[%i, %j]
    }
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref

from tilec.dialects import tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_to_ascend.analysis.decided_compares import fold_decided_compares
from tilec.passes.conversion.tile_to_ascend.analysis.late_masks import apply_masks_after_gemms

LOOPS = frozenset({"scf.for", "scf.while", "tile.pipelined"})
_PORTABLE = frozenset({tile.Scope.shared, tile.Scope.fragment, tile.Scope.local})


def _is_vector_write(op: ir.Operation, number: int) -> bool:
    if op.name == "memref.store":
        return number == 1
    if op.name == "tile.reduce":
        return number == 1
    return op.name == "tile.copy" and number == _copy_dst_number(op)


def _copy_dst_number(copy: ir.Operation) -> int:
    counts = list(copy.attributes["operandSegmentSizes"])
    return counts[0] + counts[1]


def _loops(op: ir.Operation, kernel: ir.Operation) -> list[ir.Operation]:
    found, parent = [], op.parent
    while parent is not None and parent != kernel:
        parent = parent.operation if hasattr(parent, "operation") else parent
        if parent.name in LOOPS:
            found.append(parent)
        parent = parent.parent
    return found


def _reaches(write: ir.Operation, gemm: ir.Operation, kernel: ir.Operation,
             order: dict[ir.Operation, int]) -> bool:
    if order[write] < order[gemm]:
        return True
    loops = _loops(gemm, kernel)
    return any(any(loop == other for other in loops) for loop in _loops(write, kernel))


def _parent_op(op: ir.Operation) -> ir.Operation | None:
    parent = op.parent
    return parent.operation if parent is not None else None


def _skippable_after_clear(gemm: ir.Operation, value: ir.Value) -> bool:
    """Whether `gemm` sits under an `scf.if` in a loop that a clear of its
    accumulator `value` precedes (the clear is outside the loop): which of
    its runs is the first to write the accumulator is known only at run time."""
    clears = [irb.use_owner(u) for u in value.uses
              if irb.use_owner(u).name in ("tile.clear", "tile.fill")]
    conditional, parent = False, _parent_op(gemm)
    while parent is not None and parent.name != "tile.kernel":
        if parent.name == "scf.if":
            conditional = True
        elif parent.name in LOOPS and conditional:
            return any(not _inside(clear, parent) for clear in clears)
        parent = _parent_op(parent)
    return False


def _inside(op: ir.Operation, region_owner: ir.Operation) -> bool:
    parent = _parent_op(op)
    while parent is not None:
        if parent == region_owner:
            return True
        parent = _parent_op(parent)
    return False


def _needs_fresh(value: ir.Value, kernel: ir.Operation, order: dict[ir.Operation, int],
                 cleared: bool) -> list[ir.Operation]:
    """The gemms onto `value` to rewrite (all of them, or none); `cleared`: a
    zero fill of the tile became a gemm's `clear_accum`, so the tile was
    accumulated onto and the vector writes need it in UB all the same."""
    uses = [(irb.use_owner(u), u.operand_number) for u in value.uses]
    gemms = [op for op, n in uses if op.name == "tile.gemm" and n == 2]
    if any(_skippable_after_clear(g, value) for g in gemms):
        return gemms
    writes = [op for op, n in uses if _is_vector_write(op, n)]
    if not gemms or not writes:
        return []
    accumulating = [g for g in gemms if "clear_accum" not in g.attributes]
    if cleared or any(_reaches(w, g, kernel, order) for w in writes for g in accumulating):
        return gemms
    return []


def _add_onto(target: ir.Value, fresh: ir.Value, shape: list[int]) -> None:
    """`target += fresh`, element by element (vector work)."""
    region = tile.ParallelOp(shape)
    block = region.regions[0].blocks.append(*([ir.IndexType.get()] * len(shape)))
    with ir.InsertionPoint(block):
        ivs = list(block.arguments)
        old = memref.load(target, ivs)
        new = memref.load(fresh, ivs)
        total = arith.addf(old, new) if irb.is_float(old.type) else arith.addi(old, new)
        memref.store(total, target, ivs)
        tile.YieldOp()


def _zero_fill(op: ir.Operation, value: ir.Value) -> bool:
    """Whether `op` is a tile.parallel that stores 0 to every element of `value`
    and nothing else."""
    if op.name != "tile.parallel":
        return False
    fold_decided_compares(op)
    body = op.regions[0].blocks[0]
    ops = [o.operation for o in body.operations][:-1]
    if len(ops) != 1 or ops[0].name != "memref.store":
        return False
    store = ops[0]
    stored, target, *indices = store.operands
    extents = list(ir.DenseI64ArrayAttr(op.attributes["extents"]))
    constant = stored.owner.operation if isinstance(stored, ir.OpResult) else None
    return (target == value and extents == list(ir.MemRefType(value.type).shape)
            and indices == list(body.arguments) and constant is not None
            and constant.name == "arith.constant"
            and isinstance(constant.attributes["value"], ir.FloatAttr | ir.IntegerAttr)
            and _numeric(constant.attributes["value"]) == 0)


def _numeric(attr: ir.Attribute) -> float:
    if isinstance(attr, ir.FloatAttr):
        return ir.FloatAttr(attr).value
    return ir.IntegerAttr(attr).value


def _drop_zero_fills(value: ir.Value) -> bool:
    """A gemm right after a region that only zeroes its accumulator clears it
    itself; whether there was such a region."""
    dropped = False
    for use in list(value.uses):
        store = irb.use_owner(use)
        parallel = store.parent
        parallel = parallel.operation if parallel is not None else None
        if store.name != "memref.store" or parallel is None or not _zero_fill(parallel, value):
            continue
        following = _next_op(parallel)
        if (following is not None and following.name == "tile.gemm"
                and following.operands[2] == value):
            following.attributes["clear_accum"] = ir.UnitAttr.get()
            parallel.erase()
            dropped = True
    return dropped


def _next_op(op: ir.Operation) -> ir.Operation | None:
    """The op after `op` in its block (None: `op` is the last)."""
    ops = [o.operation for o in op.block.operations]
    index = next(i for i, o in enumerate(ops) if o == op)
    return ops[index + 1] if index + 1 < len(ops) else None


def rewrite_fresh_accumulators(func: ir.Operation, order: dict[ir.Operation, int]) -> None:
    """Gives every gemm that accumulates onto a vector-written tile a fresh
    accumulator (see the module docstring); `order` numbers the ops in
    program order."""
    for kernel in irb.collect(func, "tile.kernel"):
        for alloc in irb.collect(kernel, "tile.alloc"):
            value = alloc.results[0]
            type_ = ir.MemRefType(value.type)
            if tile.scope_of(type_) not in _PORTABLE or len(type_.shape) != 2:
                continue
            dropped = _drop_zero_fills(value) | apply_masks_after_gemms(value)
            gemms = _needs_fresh(value, kernel, order, dropped)
            if not gemms:
                continue
            for gemm in gemms:
                # One per gemm: each is a tile of its own for the handoff.
                with ir.InsertionPoint(alloc), alloc.location:
                    fresh = tile.alloc(type_)
                overwrite = "clear_accum" in gemm.attributes
                gemm.operands[2] = fresh
                gemm.attributes["clear_accum"] = ir.UnitAttr.get()
                with ir.InsertionPoint.after(gemm), gemm.location:
                    if overwrite:
                        zero = irb.index(0)
                        tile.copy(fresh, [zero, zero], value, [zero, zero])
                    else:
                        _add_onto(value, fresh, list(type_.shape))

