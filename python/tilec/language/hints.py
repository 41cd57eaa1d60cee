"""Scheduling hints as TileLang spells them: `T.GemmWarpPolicy`, `T.Layout`, `T.Fragment`.

They say how a target should map a kernel onto its hardware (which warps
compute which part of a gemm, where each element of a buffer lives), never
what the kernel computes. The DSL checks them and records them in the IR as
discardable `tile.*` attributes for the targets' lowerings; the cpu target
ignores them.

A layout is TileLang's forward index function, called once with index
placeholders as it is in TileLang. What it computes with `+ - * // %` and
constants becomes an `affine_map`; a function that needs other operators
(the `^` of a swizzle) is recorded as the text of its expressions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import IntEnum

from mlir import ir

from .errors import DSLError
from .source import dsl_api, site


class GemmWarpPolicy(IntEnum):
    """How T.gemm spreads the warps of a block over C (TileLang's values)."""

    Square = 0
    FullRow = 1
    FullCol = 2

    @property
    def attr_name(self) -> str:
        """The name recorded in `tile.policy`: square, full_row, full_col."""
        return {0: "square", 1: "full_row", 2: "full_col"}[self.value]


_AFFINE_OPS = {"+", "-", "*", "//", "%"}


def _operator(op: str, reflected: bool = False) -> Callable[[IndexExpr, object], IndexExpr]:
    """`x op y` on an index expression `x` (`y op x` when reflected), with an int or
    another index expression: the node of `op` over the two."""

    def apply(x: IndexExpr, y: object) -> IndexExpr:
        if isinstance(y, bool) or not isinstance(y, IndexExpr | int):
            return NotImplemented
        return IndexExpr(op, y, x) if reflected else IndexExpr(op, x, y)

    return apply


class IndexExpr:
    """An index expression over the input dims of a layout (`i0`, `i1`, ...)."""

    __slots__ = ("args", "op")

    __add__, __radd__ = _operator("+"), _operator("+", reflected=True)
    __sub__, __rsub__ = _operator("-"), _operator("-", reflected=True)
    __mul__, __rmul__ = _operator("*"), _operator("*", reflected=True)
    __floordiv__, __rfloordiv__ = _operator("//"), _operator("//", reflected=True)
    __mod__, __rmod__ = _operator("%"), _operator("%", reflected=True)
    __xor__, __rxor__ = _operator("^"), _operator("^", reflected=True)
    __and__, __rand__ = _operator("&"), _operator("&", reflected=True)
    __or__, __ror__ = _operator("|"), _operator("|", reflected=True)
    __lshift__, __rlshift__ = _operator("<<"), _operator("<<", reflected=True)
    __rshift__, __rrshift__ = _operator(">>"), _operator(">>", reflected=True)

    def __init__(self, op: str, *args: IndexExpr | int):
        self.op = op
        self.args = args

    @staticmethod
    def dim(position: int) -> IndexExpr:
        return IndexExpr("dim", position)

    def affine(self) -> ir.AffineExpr | None:
        """The expression as an affine expression, or None when it is not one."""
        if self.op == "dim":
            return ir.AffineDimExpr.get(self.args[0])
        if self.op not in _AFFINE_OPS:
            return None
        lhs, rhs = (_affine_operand(a) for a in self.args)
        if lhs is None or rhs is None:
            return None
        if self.op == "+":
            return lhs + rhs
        if self.op == "-":
            return lhs - rhs
        constant = isinstance(self.args[1], int)
        if self.op == "*" and (constant or isinstance(self.args[0], int)):
            return lhs * rhs
        if not constant or self.args[1] <= 0:
            return None
        if self.op == "//":
            return ir.AffineFloorDivExpr.get(lhs, rhs)
        if self.op == "%":
            return lhs % rhs
        return None

    def __str__(self) -> str:
        if self.op == "dim":
            return f"i{self.args[0]}"
        lhs, rhs = self.args
        return f"({lhs} {self.op} {rhs})"

    def __neg__(self) -> IndexExpr:
        return IndexExpr("-", 0, self)


def _affine_operand(x: IndexExpr | int) -> ir.AffineExpr | None:
    return ir.AffineConstantExpr.get(x) if isinstance(x, int) else x.affine()


Index = IndexExpr | int


def _as_indices(result: object, what: str) -> tuple[Index, ...]:
    """What a forward function returned, as a tuple of index expressions."""
    items = tuple(result) if isinstance(result, list | tuple) else (result,)
    for item in items:
        if isinstance(item, bool) or not isinstance(item, IndexExpr | int):
            raise DSLError(
                f"{what} must return index expressions of its arguments but returned "
                f"{type(item).__name__} {item!r}",
                site(),
            )
    return items


def _expression_attr(indices: Sequence[Index], dims: int) -> ir.Attribute:
    """An `affine_map` over `dims` inputs, or the text of the expressions."""
    affine = [_affine_operand(i) for i in indices]
    if all(e is not None for e in affine):
        return ir.AffineMapAttr.get(ir.AffineMap.get(dims, 0, affine))
    inputs = ", ".join(f"i{d}" for d in range(dims))
    return ir.StringAttr.get(f"({inputs}) -> ({', '.join(map(str, indices))})")


Shape = tuple[object, ...]


def _shape(shape: object) -> Shape:
    return tuple(shape) if isinstance(shape, list | tuple) else (shape,)


class Layout:
    """`T.Layout(shape, forward_fn)`: element `(i0, i1, ...)` of a buffer of `shape`
    lives at `forward_fn(i0, i1, ...)` (e.g. a swizzled shared tile)."""

    @dsl_api
    def __init__(self, shape: object, forward_fn: Callable[..., object]):
        self.shape = _shape(shape)
        dims = [IndexExpr.dim(d) for d in range(len(self.shape))]
        self.forward = _as_indices(forward_fn(*dims), "the forward function of T.Layout")

    def attributes(self) -> dict[str, ir.Attribute]:
        """What `tile.layout` records: the forward index map."""
        return {"forward": _expression_attr(self.forward, len(self.shape))}

    def __repr__(self) -> str:
        inputs = ", ".join(f"i{d}" for d in range(len(self.shape)))
        return f"T.Layout(({inputs}) -> ({', '.join(map(str, self.forward))}))"


class Fragment(Layout):
    """`T.Fragment(shape, forward_thread_fn=..., forward_index_fn=..., replicate=1)`
    (or `forward_fn` returning both): which thread holds element `(i0, ...)` of a
    register tile and where in that thread's registers. With `replicate > 1`
    the thread function takes one more argument, the replica."""

    @dsl_api
    def __init__(
        self,
        shape: object,
        forward_fn: Callable[..., object] | None = None,
        forward_thread_fn: Callable[..., object] | None = None,
        replicate: int = 1,
        forward_index_fn: Callable[..., object] | None = None,
    ):
        self.shape = _shape(shape)
        if isinstance(replicate, bool) or not isinstance(replicate, int) or replicate < 1:
            raise DSLError(
                f"T.Fragment: replicate must be a positive int but got {replicate!r}", site()
            )
        self.replicate = replicate
        dims = [IndexExpr.dim(d) for d in range(len(self.shape))]
        replica = [IndexExpr.dim(len(dims))] if replicate > 1 else []
        if forward_fn is not None:
            result = forward_fn(*dims, *replica)
            if not isinstance(result, list | tuple) or len(result) != 2:
                raise DSLError("T.Fragment: forward_fn must return (thread, index)", site())
            thread, index = result
        elif forward_thread_fn is not None:
            thread = forward_thread_fn(*dims, *replica)
            index = () if forward_index_fn is None else forward_index_fn(*dims)
        else:
            raise DSLError("T.Fragment needs forward_fn or forward_thread_fn", site())
        (self.thread,) = _as_indices(thread, "the thread function of T.Fragment")
        self.forward = _as_indices(index, "the index function of T.Fragment")

    def attributes(self) -> dict[str, ir.Attribute]:
        """What `tile.layout` records: index and thread maps, and the replication.

        The thread map has one more input, the replica, when `replicate > 1`.
        """
        dims = len(self.shape)
        return {
            "forward": _expression_attr(self.forward, dims),
            "thread": _expression_attr((self.thread,), dims + (self.replicate > 1)),
            "replicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), self.replicate),
        }

    def __repr__(self) -> str:
        return f"T.Fragment({len(self.shape)}-D, replicate={self.replicate})"
