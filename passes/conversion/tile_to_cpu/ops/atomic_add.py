"""The cpu lowering of tile.atomic_add: one memref.atomic_rmw per element.

Each element is added with its own `memref.atomic_rmw` (an LLVM
`atomicrmw`), so blocks that run on different cores may add into the same
region. Elements whose destination lies past the end of `dst` are skipped
(`scf.if`), matching the op's edge semantics; a bound known statically to
hold needs no check. Bools (bytes marked `tile.bool_any` by
tile-widen-bools) are or-ed; 8-bit floats, for which no atomic add
exists, are added in a compare-and-swap loop (`memref.generic_atomic_rmw`)
in f32 and rounded, which tile-cpu-emulate-fp8 turns into byte code.

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
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.widen_bools import BOOL_ANY
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


def _is_f8(type_: ir.Type) -> bool:
    return isinstance(type_, ir.Float8E4M3FNType | ir.Float8E5M2Type)


def _atomic(value: ir.Value, dst: ir.Value, positions: list[ir.Value], bools: bool) -> None:
    """One atomic add of `value` at `positions`: an `atomicrmw`, an or of bools' bytes,
    or for 8-bit floats (no 8-bit float atomics) a compare-and-swap loop that adds in
    f32 and rounds the sum to the format, as a non-atomic f8 add does."""
    if not _is_f8(value.type):
        kind = (
            arith.AtomicRMWKind.ori
            if bools
            else arith.AtomicRMWKind.addf
            if irb.is_float(value.type)
            else arith.AtomicRMWKind.addi
        )
        memref.atomic_rmw(kind, value, dst, positions)
        return
    rmw = memref.GenericAtomicRMWOp(value.type, dst, positions)
    block = rmw.atomic_body.blocks.append(value.type)
    with ir.InsertionPoint(block):
        f32 = ir.F32Type.get()
        total = arith.addf(arith.extf(f32, block.arguments[0]), arith.extf(f32, value))
        memref.AtomicYieldOp(arith.truncf(value.type, total))


def _add(
    value: ir.Value, dst: ir.Value, positions: list[ir.Value], inside: ir.Value | None, bools: bool
) -> None:
    if inside is None:
        _atomic(value, dst, positions, bools)
        return
    branch = scf.IfOp(inside)
    with ir.InsertionPoint(branch.then_block):
        _atomic(value, dst, positions, bools)
        scf.YieldOp([])


@register_lowering
class AtomicAddToAtomicRmw(TileOpLowering[None, CpuTarget]):
    """tile.atomic_add as per-element atomics, skipped past the end of `dst`."""

    target = "cpu"
    op_names = ("tile.atomic_add",)
    name = "cpu-atomic-add-rmw"
    phase = Phase.ATOMIC_ADDS

    def lower(self, op: ir.Operation, plan: None, target: CpuTarget) -> None:
        src, dst, *offsets = op.operands
        bools = BOOL_ANY in op.attributes
        with ir.InsertionPoint(op), op.location:
            if not isinstance(src.type, ir.MemRefType):
                static = _statically_inside(dst, offsets, [1] * len(offsets))
                _add(src, dst, offsets, None if static else _inside(dst, offsets), bools)
            else:
                shape = ir.MemRefType(src.type).shape
                static = _statically_inside(dst, offsets, shape)
                with irb.loop_nest(shape) as ivs:
                    positions = [irb.add(o, i) for o, i in zip(offsets, ivs, strict=True)]
                    inside = None if static else _inside(dst, positions)
                    _add(memref.load(src, ivs), dst, positions, inside, bools)
        op.erase()
