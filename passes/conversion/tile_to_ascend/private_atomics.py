"""tile-ascend-private-atomics: an atomic add of a scalar into an on-chip tile is a plain
read, add and write.

Per-thread code (TileLang's `T.atomic_add(hist[bin], 1)` into shared memory, or
`pos = T.atomic_add(count[0], 1, return_prev=True)`) runs on the NPU as loops
over the threads (language/threads.py) on one vector core, and an on-chip
tile is that core's own: a UB belongs to one AIV (../shared/ASCEND.md,
"Buffers (per core)": UB, vector unified buffer, per AIV; asc-devkit
docs: the Unified Buffer is local memory of the AI Vector core). No other
core or thread adds into it meanwhile, so the add needs no atomicity: the
scalar unit loads the element, adds and stores it back, and `return_prev`'s
value is what it loaded. Adds into global memory keep their atomic DMA
(ascend-vector-atomic-add); a fetch-and-add on GM has no NPU form and stays
an error there.

Before:

    tile.atomic_add %one, %hist[%bin] : i32, memref<257xi32, #tile.scope<shared>>
    %old = memref.atomic_rmw addi %one, %count[%c0]
        : (i32, memref<2xi32, #tile.scope<shared>>) -> i32

After:

    %h = memref.load %hist[%bin] : memref<257xi32, #tile.scope<shared>>
    %s = arith.addi %h, %one : i32
    memref.store %s, %hist[%bin] : memref<257xi32, #tile.scope<shared>>
    %old = memref.load %count[%c0] : memref<2xi32, #tile.scope<shared>>
    %n = arith.addi %old, %one : i32
    memref.store %n, %count[%c0] : memref<2xi32, #tile.scope<shared>>
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, memref

from tilec.dialects import tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.registry import Pass, register_pass


def _on_chip(value: ir.Value) -> bool:
    return tile.scope_of(ir.MemRefType(value.type)) is not tile.Scope.global_


def _scalar_add(op: ir.Operation) -> bool:
    """A scalar `tile.atomic_add`, or an add-kind `memref.atomic_rmw`, into an on-chip tile."""
    if op.name == "tile.atomic_add":
        return not isinstance(op.operands[0].type, ir.MemRefType) and _on_chip(op.operands[1])
    if op.name == "memref.atomic_rmw":
        kind = ir.IntegerAttr(op.attributes["kind"]).value
        adds = (arith.AtomicRMWKind.addf, arith.AtomicRMWKind.addi)
        return kind in [int(k) for k in adds] and _on_chip(op.operands[1])
    return False


def _read_add_write(op: ir.Operation) -> None:
    value, dst, *indices = op.operands
    with ir.InsertionPoint(op), op.location:
        old = memref.load(dst, indices)
        total = arith.addf(old, value) if irb.is_float(value.type) else arith.addi(old, value)
        memref.store(total, dst, indices)
    if op.results:
        op.results[0].replace_all_uses_with(old)
    op.erase()


@register_pass
@dataclass(frozen=True)
class AscendPrivateAtomicsPass(Pass):
    """Atomic adds of scalars into on-chip tiles as load, add, store."""

    argument = "tile-ascend-private-atomics"
    anchor = "func.func"
    summary = "Atomic adds of a scalar into an on-chip tile (a core's own) as load, add, store"

    def run(self, op: ir.Operation) -> None:
        adds = [o for o in irb.collect(op, {"tile.atomic_add", "memref.atomic_rmw"})
                if _scalar_add(o)]
        for add in adds:
            _read_add_write(add)
