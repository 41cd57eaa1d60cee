"""Tensor dims that are expressions of symbolic dims, as a call sees them.

The DSL writes such a dim's expression into the parameter's `tile.dims` in
Python syntax (`ceildiv(K, 128)`, `2 * N`, `min(M, 64)`, `(M + 1) // 2`),
and the dim is dynamic in the memref. A call computes it from the sizes the
other arguments give its symbolic dims, to check the array passed and to
allocate an output, with the kernel's own arithmetic: `//` and `%` floor,
`ceildiv` rounds up. Only these forms parse; any other text is not an
expression (a hand-written IR's dim name stays a name).
"""

from __future__ import annotations

import ast
import functools
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass

_OPERATORS: dict[type[ast.operator], Callable[[int, int], int]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}
_CALLS: dict[str, Callable[[int, int], int]] = {
    "ceildiv": lambda a, b: -(-a // b),
    "min": min,
    "max": max,
}


@dataclass(frozen=True)
class DimExpr:
    """A parsed dim expression: its text and the symbolic dims it is computed from."""

    text: str
    tree: ast.expr
    names: tuple[str, ...]

    def value(self, sizes: Mapping[str, int]) -> int:
        """The dim for these sizes of its names (all present); ZeroDivisionError when a
        divisor is zero."""
        return _evaluate(self.tree, sizes)


def _evaluate(node: ast.expr, sizes: Mapping[str, int]) -> int:
    if isinstance(node, ast.Name):
        return sizes[node.id]
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp):
        return -_evaluate(node.operand, sizes)
    if isinstance(node, ast.BinOp):
        return _OPERATORS[type(node.op)](_evaluate(node.left, sizes), _evaluate(node.right, sizes))
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    lhs, rhs = (_evaluate(arg, sizes) for arg in node.args)
    return _CALLS[node.func.id](lhs, rhs)


def _names(node: ast.expr) -> list[str] | None:
    """The names `node` uses, in order, or None when it is not a dim expression."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Constant):
        plain_int = isinstance(node.value, int) and not isinstance(node.value, bool)
        return [] if plain_int else None
    if isinstance(node, ast.UnaryOp):
        negative_int = isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant)
        return _names(node.operand) if negative_int else None
    if isinstance(node, ast.BinOp):
        if type(node.op) not in _OPERATORS:
            return None
        left, right = _names(node.left), _names(node.right)
        return None if left is None or right is None else left + right
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _CALLS
        and len(node.args) == 2
        and not node.keywords
    ):
        parts = [_names(arg) for arg in node.args]
        return None if None in parts else [n for part in parts for n in part or ()]
    return None


@functools.cache
def parse(text: str) -> DimExpr | None:
    """`text` as a dim expression of at least one name; None for a plain name, a
    number or anything else."""
    if text.isidentifier():
        return None
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    names = _names(tree)
    if not names:
        return None
    return DimExpr(text, tree, tuple(dict.fromkeys(names)))
