"""tile-lower-atomics: tile.atomic_add to memref.atomic_rmw (cpu).

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

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, memref, scf

from tilec.passes import _cpu_ir as cpu
from tilec.passes.registry import Pass, register_pass


def _statically_inside(dst: ir.Value, offsets: list[ir.Value], sizes: list[int]) -> bool:
    shape = ir.MemRefType(dst.type).shape
    for extent, offset, size in zip(shape, offsets, sizes, strict=True):
        start = cpu.constant_int(offset)
        if ir.ShapedType.is_dynamic_size(extent) or start is None:
            return False
        if not 0 <= start <= extent - size:
            return False
    return True


def _inside(dst: ir.Value, positions: list[ir.Value]) -> ir.Value:
    """Whether every position lies inside `dst` (unsigned: negatives are out)."""
    inside = None
    for dim, position in enumerate(positions):
        extent = memref.dim(dst, cpu.index(dim))
        check = arith.cmpi(arith.CmpIPredicate.ult, position, extent)
        inside = check if inside is None else arith.andi(inside, check)
    return inside


def _add(value: ir.Value, dst: ir.Value, positions: list[ir.Value], inside: ir.Value | None):
    kind = arith.AtomicRMWKind.addf if cpu.is_float(value.type) else arith.AtomicRMWKind.addi
    if inside is None:
        memref.atomic_rmw(kind, value, dst, positions)
        return
    branch = scf.IfOp(inside)
    with ir.InsertionPoint(branch.then_block):
        memref.atomic_rmw(kind, value, dst, positions)
        scf.YieldOp([])


def lower_atomic_add(op: ir.Operation) -> None:
    src, dst, *offsets = op.operands
    with ir.InsertionPoint(op), op.location:
        if not isinstance(src.type, ir.MemRefType):
            static = _statically_inside(dst, offsets, [1] * len(offsets))
            _add(src, dst, offsets, None if static else _inside(dst, offsets))
        else:
            shape = ir.MemRefType(src.type).shape
            static = _statically_inside(dst, offsets, shape)
            with cpu.loop_nest(shape) as ivs:
                positions = [cpu.add(o, i) for o, i in zip(offsets, ivs, strict=True)]
                inside = None if static else _inside(dst, positions)
                _add(memref.load(src, ivs), dst, positions, inside)
    op.erase()


@register_pass
@dataclass(frozen=True)
class LowerAtomicsPass(Pass):
    """Lowers tile.atomic_add to per-element memref.atomic_rmw."""

    argument = "tile-lower-atomics"
    anchor = "func.func"
    summary = "Lower tile.atomic_add to memref.atomic_rmw with edge checks (cpu)"

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            for target in cpu.collect(op, "tile.atomic_add"):
                lower_atomic_add(target)
