"""Dims computed from symbolic dims: the expressions of TileLang's tensor shapes.

TileLang's shapes are expressions (`T.ceildiv(K, 128)`): outside a kernel's
body, where a symbolic dim has no value yet, the integer operations on
symbolic dims record the expression, a `DimExpr`, for a T.Tensor dim. In the
body a dim is a value; `scalars.dim_value` computes it, from the values of
the dims an expression uses.
"""

from __future__ import annotations

from .. import builder
from .. import values as v
from ..builder import RegionKind
from .checks import check_divisor, describe, error, python_int

DIM_OPERATIONS = "+ - * // % T.ceildiv T.min T.max"


def _has_dim(*operands: object) -> bool:
    return any(isinstance(x, v.SymbolicDim) for x in operands)


def dim_arithmetic(op: str, *operands: object) -> bool:
    """Whether `op` on `operands` makes a dim expression: outside a kernel's body on
    symbolic dims; and in the body before `T.Kernel` (where `T.empty` takes it as a dim
    the caller computes) when the operands are symbolic dims and ints only."""
    if not _has_dim(*operands):
        return False
    trace = builder.active()
    if trace is None:
        return True
    if op not in v.DimExpr.PRECEDENCE and op not in v.DimExpr.CALLS:
        return False
    at_top = trace.current is not None and trace.current.kind is RegionKind.FUNCTION
    return at_top and all(isinstance(x, v.SymbolicDim) or
                          (isinstance(x, int) and not isinstance(x, bool)) for x in operands)


def dim_expression(op: str, lhs: object, rhs: object, what: str) -> v.DimExpr:
    """`lhs op rhs` on symbolic dims and ints outside a kernel: the dim expression."""
    if op not in v.DimExpr.PRECEDENCE and op not in v.DimExpr.CALLS:
        raise error(
            f"{what} on symbolic dims outside a kernel: a T.Tensor dim computed from symbolic "
            f"dims may use {DIM_OPERATIONS} on them and on ints"
        )
    operands: list[int | v.SymbolicDim] = []
    for x in (lhs, rhs):
        size = python_int(x, what)
        if not isinstance(x, v.SymbolicDim) and size is None:
            raise error(
                f"{what} on symbolic dims outside a kernel: a T.Tensor dim is computed from "
                f"symbolic dims and Python ints, but got {describe(x)}"
            )
        operands.append(x if size is None else size)
    if op in ("//", "%", "ceildiv") and isinstance(operands[1], int):
        check_divisor(operands[1], what)
    return v.DimExpr(op, (operands[0], operands[1]))
