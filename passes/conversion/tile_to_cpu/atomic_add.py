"""The cpu lowering of tile.atomic_add: one memref.atomic_rmw per element.

Each element is added with its own `memref.atomic_rmw` (an LLVM
`atomicrmw`), so blocks that run on different cores may add into the same
region. Elements whose destination lies past the end of `dst` are skipped
(`scf.if`), matching the op's edge semantics; a bound known statically to
hold needs no check.

Before:

    tile.atomic_add %t, %out[%i, %j] : memref<4x8xf32, #tile.scope<fragment>>, memref<?x?xf32>

After (schematically):

    scf.for %r = %c0 to %c4 step %c1 {
      scf.for %c = %c0 to %c8 step %c1 {
        %v = memref.load %t[%r, %c] : memref<4x8xf32, #tile.scope<fragment>>
        scf.if %inside {
          %old = memref.atomic_rmw addf %v, %out[%row, %col] : (f32, memref<?x?xf32>) -> f32
        }
      }
    }
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref, scf

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import TileOpLowering, register_lowering
from tilec.targets import CpuTarget


def _statically_inside(dst: ir.Value, offsets: list[ir.Value], sizes: list[int]) -> bool:
    return all(
        irb.statically_inside(dst, dim, offset, size)
        for dim, (offset, size) in enumerate(zip(offsets, sizes, strict=True))
    )


def _inside(dst: ir.Value, positions: list[ir.Value]) -> ir.Value:
    """Whether every position lies inside `dst` (unsigned: negatives are out)."""
    inside = None
    for dim, position in enumerate(positions):
        extent = memref.dim(dst, irb.index(dim))
        check = arith.cmpi(arith.CmpIPredicate.ult, position, extent)
        inside = check if inside is None else arith.andi(inside, check)
    return inside


def _add(value: ir.Value, dst: ir.Value, positions: list[ir.Value], inside: ir.Value | None):
    kind = arith.AtomicRMWKind.addf if irb.is_float(value.type) else arith.AtomicRMWKind.addi
    if inside is None:
        memref.atomic_rmw(kind, value, dst, positions)
        return
    branch = scf.IfOp(inside)
    with ir.InsertionPoint(branch.then_block):
        memref.atomic_rmw(kind, value, dst, positions)
        scf.YieldOp([])


@register_lowering
class AtomicAddToAtomicRmw(TileOpLowering):
    """tile.atomic_add as per-element atomics, skipped past the end of `dst`."""

    target = "cpu"
    op_names = ("tile.atomic_add",)
    name = "cpu-atomic-add-rmw"

    def lower(self, op: ir.Operation, plan: object, target: CpuTarget) -> None:
        src, dst, *offsets = op.operands
        with ir.InsertionPoint(op), op.location:
            if not isinstance(src.type, ir.MemRefType):
                static = _statically_inside(dst, offsets, [1] * len(offsets))
                _add(src, dst, offsets, None if static else _inside(dst, offsets))
            else:
                shape = ir.MemRefType(src.type).shape
                static = _statically_inside(dst, offsets, shape)
                with irb.loop_nest(shape) as ivs:
                    positions = [irb.add(o, i) for o, i in zip(offsets, ivs, strict=True)]
                    inside = None if static else _inside(dst, positions)
                    _add(memref.load(src, ivs), dst, positions, inside)
        op.erase()
