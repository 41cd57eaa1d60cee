"""The proxy values a kernel function is traced with.

While a kernel is traced its parameters, block indices, loop variables and
everything computed from them are proxies for MLIR values: `Scalar` (one
value with a DSL dtype), `SymbolicDim` (a tensor dim known only at run time),
`Buffer` (a tensor or tile), and what indexing a buffer gives: an `Element`
(a loaded element that can also serve as the start of a region) or a
`BufferRegion` (a sliced region). Their Python operators are defined by the
semantic rules in `semantic`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

from mlir import ir

from . import semantic
from .dtypes import DType
from .errors import SourceLoc
from .source import dsl_api

if TYPE_CHECKING:
    from .builder import OpenRegion


def _binary(op: str) -> tuple[Callable[[Expr, object], Scalar], Callable[[Expr, object], Scalar]]:
    def forward(self: Expr, other: object) -> Scalar:
        return semantic.binary(op, self, other)

    def reverse(self: Expr, other: object) -> Scalar:
        return semantic.binary(op, other, self)

    return dsl_api(forward), dsl_api(reverse)


def _compare(op: str) -> Callable[[Expr, object], Scalar]:
    def compare(self: Expr, other: object) -> Scalar:
        return semantic.compare(op, self, other)

    return dsl_api(compare)


class Expr:
    """Python arithmetic, comparisons and bit operators on symbolic values.

    Python control flow cannot be traced: `if`, `while`, `and`/`or` and `int()`
    on a symbolic value raise a DSLError that says what to write instead.
    """

    __slots__ = ()

    __add__, __radd__ = _binary("+")
    __sub__, __rsub__ = _binary("-")
    __mul__, __rmul__ = _binary("*")
    __truediv__, __rtruediv__ = _binary("/")
    __floordiv__, __rfloordiv__ = _binary("//")
    __mod__, __rmod__ = _binary("%")
    __and__, __rand__ = _binary("&")
    __or__, __ror__ = _binary("|")
    __xor__, __rxor__ = _binary("^")
    __lt__ = _compare("<")
    __le__ = _compare("<=")
    __gt__ = _compare(">")
    __ge__ = _compare(">=")
    __eq__ = _compare("==")  # type: ignore[assignment]
    __ne__ = _compare("!=")  # type: ignore[assignment]
    __hash__ = object.__hash__

    @dsl_api
    def __neg__(self) -> Scalar:
        return semantic.negate(self)

    @dsl_api
    def __invert__(self) -> Scalar:
        return semantic.invert(self)

    @dsl_api
    def __abs__(self) -> Scalar:
        return semantic.absolute(self)

    @dsl_api
    def __bool__(self) -> NoReturn:
        raise semantic.error(
            "a symbolic value has no Python truth value while the kernel is traced: "
            "use T.if_then_else(cond, a, b) for a choice between values, & and | instead of "
            "'and'/'or', or compute the condition from Python constants"
        )

    @dsl_api
    def __index__(self) -> NoReturn:
        raise semantic.error(
            "a symbolic value has no Python int value while the kernel is traced: loop over "
            "it with T.serial or T.Pipelined instead of range(), and use Python ints for shapes"
        )

    __int__ = __index__

    @dsl_api
    def __float__(self) -> NoReturn:
        raise semantic.error(
            "a symbolic value has no Python float value while the kernel is traced"
        )

    @dsl_api
    def __iter__(self) -> NoReturn:
        raise semantic.error("a symbolic value is not iterable; loop with T.serial(n)")


class Scalar(Expr):
    """One MLIR value of dtype `dtype`, created while `home` was the innermost region."""

    __slots__ = ("affine", "dtype", "home", "value")

    def __init__(self, value: ir.Value, dtype: DType, home: OpenRegion):
        self.value = value
        self.dtype = dtype
        self.home = home
        # The value as a sum of atoms times constants, for index values; it lets
        # T.copy check slice extents such as `by * 64:(by + 1) * 64`.
        self.affine: semantic.Affine | None = None

    def __repr__(self) -> str:
        return f"<symbolic {self.dtype}>"


class SymbolicDim(Expr):
    """A tensor dim known at run time (`T.symbolic("M")`); in expressions, its value."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"T.symbolic({self.name!r})"


Dim = int | SymbolicDim


class Buffer:
    """A tensor parameter (scope "global") or a tile allocated in a kernel.

    `buf[i, j]` reads an element (or names the region starting there, for
    T.copy and T.atomic_add), `buf[i, j] = x` writes one, and slices such as
    `buf[i:, 0:64]` name a region whose sliced dims the other side of T.copy
    covers.
    """

    def __init__(
        self,
        value: ir.Value,
        shape: tuple[Dim, ...],
        dtype: DType,
        scope: str,
        name: str,
        home: OpenRegion,
        loc: SourceLoc,
    ):
        self.value = value
        self.shape = shape
        self.dtype = dtype
        self.scope = scope
        self.name = name
        self.home = home
        self.loc = loc

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def static_shape(self) -> tuple[int, ...] | None:
        """The shape when every dim is a Python int, else None."""
        if all(isinstance(d, int) for d in self.shape):
            return tuple(d for d in self.shape if isinstance(d, int))
        return None

    @dsl_api
    def __getitem__(self, key: object) -> Element | BufferRegion:
        return semantic.subscript(self, key)

    @dsl_api
    def __setitem__(self, key: object, value: object) -> None:
        semantic.store(self, key, value)

    @dsl_api
    def __iter__(self) -> NoReturn:
        raise semantic.error(
            f"buffer '{self.name}' is not iterable; loop over its elements with T.Parallel"
        )

    def __repr__(self) -> str:
        dims = ", ".join(str(d) if isinstance(d, int) else d.name for d in self.shape)
        return f"<{self.scope} buffer '{self.name}' ({dims}) {self.dtype}>"


@dataclass(frozen=True)
class BufferRegion:
    """A region of `buffer` that starts at `offsets`.

    `sliced[d]` says whether dim d was given as a slice (covered by the other
    side of a copy) rather than an index (a unit dim); `extents[d]` is the
    slice's extent when it could be computed.
    """

    buffer: Buffer
    offsets: tuple[ir.Value, ...]
    sliced: tuple[bool, ...]
    extents: tuple[int | None, ...]


class Element(Scalar):
    """`buf[i, j]`: the loaded element, which T.copy / T.atomic_add read as a region start."""

    __slots__ = ("load", "region", "released")

    def __init__(self, value: ir.Value, region: BufferRegion, home: OpenRegion):
        super().__init__(value, region.buffer.dtype, home)
        self.region = region
        self.load = value.owner
        # Set once a tile op used the element as a region start and erased its load.
        self.released = False
