"""`affine.apply`, `affine.min`, `affine.max`: index arithmetic in affine-map form.

Lowerings compute edge-tile extents with `affine.min`; each map result is
compiled once into a Python function of the dims and symbols.
"""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir

from tilec.sim.diagnostics import fail
from tilec.sim.interpreter import Compiler, compiles, location

Expr = Callable[[list[int]], int]


def _expr(expr: ir.AffineExpr, n_dims: int, where: str) -> Expr:
    """`expr` as a function of the operand values (dims first, then symbols)."""
    expr = expr.maybe_downcast()
    if isinstance(expr, ir.AffineConstantExpr):
        value = expr.value
        return lambda v: value
    if isinstance(expr, ir.AffineDimExpr):
        index = expr.position
        return lambda v: v[index]
    if isinstance(expr, ir.AffineSymbolExpr):
        index = n_dims + expr.position
        return lambda v: v[index]
    lhs, rhs = _expr(expr.lhs, n_dims, where), _expr(expr.rhs, n_dims, where)
    if isinstance(expr, ir.AffineAddExpr):
        return lambda v: lhs(v) + rhs(v)
    if isinstance(expr, ir.AffineMulExpr):
        return lambda v: lhs(v) * rhs(v)

    def divisor(v: list[int]) -> int:
        d = rhs(v)
        if d <= 0:
            raise fail(where, f"affine map divides by {d} (must be positive)")
        return d

    if isinstance(expr, ir.AffineModExpr):
        return lambda v: lhs(v) % divisor(v)
    if isinstance(expr, ir.AffineFloorDivExpr):
        return lambda v: lhs(v) // divisor(v)
    return lambda v: -(-lhs(v) // divisor(v))


@compiles("affine.apply", "affine.min", "affine.max")
def _affine(c: Compiler, op: ir.Operation) -> None:
    where = location(op)
    amap = ir.AffineMapAttr(op.attributes["map"]).value
    results = [_expr(e, amap.n_dims, where) for e in amap.results]
    reduce = {"affine.apply": None, "affine.min": min, "affine.max": max}[op.operation.name]
    if reduce is None:
        (only,) = results
        fn = lambda *v: only(v)  # noqa: E731
    else:
        fn = lambda *v: reduce(r(v) for r in results)  # noqa: E731
    ins = c.slots_of(op.operands)
    out = c.slot(op.results[0])
    if ins:
        c.emit_compute(fn, out, ins)
    else:
        c.set_constant(op.results[0], fn())
