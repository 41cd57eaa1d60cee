"""What a condition is on the first iteration of the loops around it.

The gemm lowering makes the first mmad of a K loop overwrite its
accumulator (`init`) under `scf.if (%k == %lb)`, and multi-buffering unrolls
that test into `(%k + s * step) == %lb` for copy s. Read on the first
iteration of the K loop, the first copy's test holds and the others' fail, so
the accumulator is written whole before anything reads it: what the memory
planner's privacy analysis needs to know that an L0C accumulator holds
nothing from one block of the grid to the next.

A value is followed through `arith.addi` of constants down to an induction
variable (the loop's lower bound on its first iteration), a constant or a
value defined outside the loops; `arith.cmpi eq/ne` of two such values with
the same base is decided, and `andi`/`ori`/`xori` combine decided tests.
Anything else is undecided (None).
"""

from __future__ import annotations

from collections.abc import Collection

from mlir import ir

from tilec.passes.conversion import ir_builders as irb

_Linear = tuple[ir.Value | None, int]
"""A value as base + offset (base None: a constant)."""

_EQ, _NE = 0, 1
"""`arith.cmpi` predicates."""


def runs_at_least_once(loop: ir.Operation) -> bool:
    """Whether the `scf.for` `loop` has static bounds and at least one iteration."""
    lower, upper, step = (irb.constant_int(v) for v in list(loop.operands)[:3])
    return lower is not None and upper is not None and bool(step) and lower < upper


def _owner(value: ir.Value) -> ir.Operation | None:
    owner = value.owner
    return None if isinstance(owner, ir.Block) else owner.operation


def _linear(value: ir.Value, firsts: Collection[ir.Operation]) -> _Linear:
    constant = irb.constant_int(value)
    if constant is not None:
        return None, constant
    for loop in firsts:
        if value == loop.regions[0].blocks[0].arguments[0]:
            return _linear(loop.operands[0], ())
    owner = _owner(value)
    if owner is not None and owner.name == "arith.addi":
        left, right = (_linear(v, firsts) for v in owner.operands)
        if left[0] is None or right[0] is None:
            return left[0] if left[0] is not None else right[0], left[1] + right[1]
    return value, 0


def decided_on_first(condition: ir.Value, firsts: Collection[ir.Operation]) -> bool | None:
    """`condition` (an i1) on the first iteration of every loop in `firsts`,
    or None when that does not decide it."""
    owner = _owner(condition)
    if owner is None:
        return None
    if owner.name == "arith.constant":
        return bool(ir.IntegerAttr(owner.attributes["value"]).value)
    if owner.name == "arith.cmpi":
        predicate = ir.IntegerAttr(owner.attributes["predicate"]).value
        if predicate not in (_EQ, _NE):
            return None
        (left, at), (right, to) = (_linear(v, firsts) for v in owner.operands)
        if (left is None) != (right is None) or (left is not None and left != right):
            return None
        return (at == to) == (predicate == _EQ)
    if owner.name in ("arith.andi", "arith.ori", "arith.xori"):
        left, right = (decided_on_first(v, firsts) for v in owner.operands)
        if owner.name == "arith.andi" and False in (left, right):
            return False
        if owner.name == "arith.ori" and True in (left, right):
            return True
        if left is None or right is None:
            return None
        return {"arith.andi": left and right, "arith.ori": left or right,
                "arith.xori": left != right}[owner.name]
    return None
