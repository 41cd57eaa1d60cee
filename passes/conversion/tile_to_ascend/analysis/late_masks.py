"""Part of tile-ascend-place-tiles: a mask written right before the gemm that
accumulates onto it is applied to the gemm's result instead.

TileLang's attention writes its mask as the initial scores, 0 where a key
is visible and -inf where not, and the gemm adds Q K^T onto them. On the
NPU the vector cores write the mask and the cube cannot accumulate onto a
UB tile (`fresh_accumulators`): the scores come back into a tile of their
own and an add puts them onto the mask -- a second score tile in UB and an
add on every key tile, even where no key is masked. The gemm is made to
overwrite the scores and the region, moved after it, selects between them
and the constant: `s = c ? q k : -inf` is `(c ? 0 : -inf) + q k` for every
finite q k. The scores then arrive in place, as those of an unmasked
kernel do, and the vector lowering leaves the select out of every region
where it can show `c` holds at every point (`decided_compares`): for a
causal mask all key tiles but the diagonal ones.

Before:

    tile.parallel (%i, %j) in (64, 64) {
      %v = arith.select %visible, %zero, %minus_inf : f32
      memref.store %v, %s[%i, %j]
    }
    tile.gemm %q, %k, %s transpose_b

After:

    tile.gemm %q, %k, %s transpose_b clear_accum
    tile.parallel (%i, %j) in (64, 64) {
      %x = memref.load %s[%i, %j]
      %v = arith.select %visible, %x, %minus_inf : f32
      memref.store %v, %s[%i, %j]
    }
"""

from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import memref

from tilec.passes.conversion import ir_builders as irb


def _constant(value: ir.Value) -> float | None:
    owner = value.owner
    op = getattr(owner, "operation", None) if not isinstance(owner, ir.Block) else None
    if op is None or op.name != "arith.constant" or not isinstance(op.attributes["value"],
                                                                     ir.FloatAttr):
        return None
    return ir.FloatAttr(op.attributes["value"]).value


def _mask_store(parallel: ir.Operation, tile: ir.Value) -> ir.Operation | None:
    """The store of `select(c, 0.0, ±inf)` to every element of `tile` that is
    `parallel`'s only write and only access of `tile`; None if it is not one."""
    body = parallel.regions[0].blocks[0]
    extents = list(ir.DenseI64ArrayAttr(parallel.attributes["extents"]))
    ops = [o.operation for o in body.operations][:-1]
    stores = [o for o in ops if o.name in ("memref.store", "tile.atomic_add")]
    if len(stores) != 1 or any(o.regions and any(r.blocks for r in o.regions) for o in ops):
        return None
    (store,) = stores
    value, target, *indices = store.operands
    if (target != tile or indices != list(body.arguments)
            or extents != list(ir.MemRefType(tile.type).shape)
            or any(v == tile for o in ops if o != store for v in o.operands)):
        return None
    select = getattr(value.owner, "operation", None) if isinstance(value, ir.OpResult) else None
    if select is None or select.name != "arith.select":
        return None
    masked = _constant(select.operands[2])
    if _constant(select.operands[1]) != 0.0 or masked is None or not math.isinf(masked):
        return None
    return store


def apply_masks_after_gemms(value: ir.Value) -> bool:
    """Moves each mask of `value` written right before a gemm accumulating onto
    it after the gemm (which then overwrites the tile); whether any moved."""
    moved = False
    for use in list(value.uses):
        gemm = irb.use_owner(use)
        if gemm.name != "tile.gemm" or use.operand_number != 2 \
                or "clear_accum" in gemm.attributes:
            continue
        parallel = _previous_op(gemm)
        store = None if parallel is None or parallel.name != "tile.parallel" \
            else _mask_store(parallel, value)
        if store is None:
            continue
        select = store.operands[0].owner.operation
        with ir.InsertionPoint(select), select.location:
            scores = memref.load(value, list(store.operands)[2:])
        select.operands[1] = scores
        gemm.attributes["clear_accum"] = ir.UnitAttr.get()
        parallel.move_after(gemm)
        moved = True
    return moved


def _previous_op(op: ir.Operation) -> ir.Operation | None:
    """The op before `op` in its block (None: `op` is the first)."""
    previous = None
    for inner in op.block.operations:
        if inner.operation == op:
            return previous
        previous = inner.operation
    return None
