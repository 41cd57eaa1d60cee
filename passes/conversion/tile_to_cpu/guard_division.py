"""tile-cpu-guard-division: integer division and remainder by zero give 0.

x86's `div` and `idiv` trap on a zero divisor and on INT_MIN / -1: the
SIGFPE kills the Python process that called the kernel, and LLVM treats
both as undefined behaviour. On cpu tilec defines them instead, as numpy
does: a quotient or remainder by zero is 0, and INT_MIN / -1 wraps to
INT_MIN (its remainder is 0). This pass rewrites each integer division or
remainder (`arith.divsi`, `divui`, `remsi`, `remui`, `floordivsi`,
`ceildivsi`, `ceildivui`; scalar or vector, integer or index) into the same
op on a divisor that cannot trap (1 where it would), and selects 0 where
the divisor was zero. Taken on a divisor of 1, INT_MIN / -1 gives the
wrapped INT_MIN. A constant divisor that cannot trap (not 0, nor -1 for the
signed ops) is left alone, so the common `i // 16` costs nothing.

Before:

    %q = arith.floordivsi %a, %d : i32

After:

    %zero = arith.cmpi eq, %d, %c0_i32 : i32
    %min = arith.cmpi eq, %a, %c-2147483648_i32 : i32
    %minus_one = arith.cmpi eq, %d, %c-1_i32 : i32
    %overflow = arith.andi %min, %minus_one : i1
    %trap = arith.ori %zero, %overflow : i1
    %safe = arith.select %trap, %c1_i32, %d : i32
    %raw = arith.floordivsi %a, %safe : i32
    %q = arith.select %zero, %c0_i32, %raw : i32
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.registry import Pass, register_pass

_SIGNED = frozenset({"arith.divsi", "arith.remsi", "arith.floordivsi", "arith.ceildivsi"})
_UNSIGNED = frozenset({"arith.divui", "arith.remui", "arith.ceildivui"})


def _constant(type_: ir.Type, value: int) -> ir.Value:
    """`value` as a constant of the integer (or index) scalar or vector `type_`."""
    attr = ir.IntegerAttr.get(irb.element_type(type_), value)
    if isinstance(type_, ir.VectorType):
        return arith.constant(type_, ir.DenseElementsAttr.get_splat(type_, attr))
    return arith.constant(type_, attr)


def _constant_elements(value: ir.Value) -> list[int] | None:
    """The elements of an integer `arith.constant` (one for a scalar), else None."""
    owner = value.owner
    if not isinstance(owner, ir.Operation | ir.OpView) or owner.name != "arith.constant":
        return None
    attr = owner.attributes["value"]
    if isinstance(attr, ir.IntegerAttr):
        return [attr.value]
    if isinstance(attr, ir.DenseIntElementsAttr):
        if attr.is_splat:
            return [ir.IntegerAttr(attr.get_splat_value()).value]
        return [attr[i] for i in range(len(attr))]
    return None


def _cannot_trap(divisor: ir.Value, signed: bool) -> bool:
    elements = _constant_elements(divisor)
    unsafe = {0, -1} if signed else {0}
    return elements is not None and not unsafe.intersection(elements)


def _guard(target: ir.Operation, signed: bool) -> ir.Value:
    """Builds, before `target`, the guarded division and returns its result."""
    lhs, divisor = target.operands
    type_ = divisor.type
    eq = arith.CmpIPredicate.eq
    zero = _constant(type_, 0)
    is_zero = arith.cmpi(eq, divisor, zero)
    trap = is_zero
    if signed:
        int_min = _constant(type_, -(2 ** (irb.bit_width(irb.element_type(type_)) - 1)))
        overflow = arith.andi(
            arith.cmpi(eq, lhs, int_min), arith.cmpi(eq, divisor, _constant(type_, -1))
        )
        trap = arith.ori(is_zero, overflow)
    safe = arith.select(trap, _constant(type_, 1), divisor)
    guarded = ir.Operation.create(
        target.name,
        results=[target.results[0].type],
        operands=[lhs, safe],
        attributes=dict(target.attributes.items()),
    )
    return arith.select(is_zero, zero, guarded.results[0])


@register_pass
@dataclass(frozen=True)
class CpuGuardDivisionPass(Pass):
    """Defines integer division and remainder by zero (0) and INT_MIN / -1 (INT_MIN)."""

    argument = "tile-cpu-guard-division"
    anchor = "func.func"
    summary = "Make integer division and remainder by zero give 0 instead of trapping (cpu)"

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            for target in irb.collect(op, _SIGNED | _UNSIGNED):
                signed = target.name in _SIGNED
                if _cannot_trap(target.operands[1], signed):
                    continue
                with ir.InsertionPoint(target), target.location:
                    result = _guard(target, signed)
                target.results[0].replace_all_uses_with(result)
                target.erase()
