"""The proxy values a kernel function is traced with.

While a kernel is traced its parameters, block indices, loop variables and
everything computed from them are proxies for MLIR values: `Scalar` (one
value with a DSL dtype), `SymbolicDim` (a tensor dim known only at run time),
`Buffer` (a tensor or tile; a `Var` is a one-element one that reads as its
value), and what indexing a buffer gives: an `Element` (a loaded element that
can also serve as the start of a region) or a `BufferRegion` (a sliced
region). An index `Scalar` may carry its `Affine` form, with which T.copy
checks slice extents.

These classes are plain data. What Python's operators, subscripts and truth
tests mean on them is a rule of the semantic layer, so `semantic` attaches
those methods; this module stays below it.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from .builder import OpenRegion
from .dtypes import DType
from .errors import SourceLoc


@dataclass(frozen=True)
class Affine:
    """An index value as `const + sum(coefficient * atom)`; atoms are opaque values."""

    terms: tuple[tuple[int, int], ...]
    const: int

    def plus(self, other: Affine, sign: int = 1) -> Affine:
        terms = dict(self.terms)
        for atom, coefficient in other.terms:
            terms[atom] = terms.get(atom, 0) + sign * coefficient
        kept = tuple(sorted((a, c) for a, c in terms.items() if c != 0))
        return Affine(kept, self.const + sign * other.const)

    def times(self, factor: int) -> Affine:
        if factor == 0:
            return Affine((), 0)
        return Affine(tuple((a, c * factor) for a, c in self.terms), self.const * factor)


class Expr:
    """A symbolic value in an expression: a `Scalar` or a `SymbolicDim`.

    `semantic` gives it Python's arithmetic, comparisons and bit operators.
    It has no Python truth or int value: a kernel's `if`, `and`, `or` and
    `not` are rewritten to trace it (see `rewrite`); `while`, `int()` and the
    like on it raise a DSLError that says what to write instead.
    """

    __slots__ = ()


class Scalar(Expr):
    """One MLIR value of dtype `dtype`, created while `home` was the innermost region."""

    __slots__ = ("affine", "dtype", "home", "value")

    def __init__(self, value: ir.Value, dtype: DType, home: OpenRegion):
        self.value = value
        self.dtype = dtype
        self.home = home
        # The value as a sum of atoms times constants, for index values; it lets
        # T.copy check slice extents such as `by * 64:(by + 1) * 64`.
        self.affine: Affine | None = None

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
    covers; `semantic` gives it these subscripts.
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
    def data(self) -> BufferData:
        """The buffer's memory, from which `T.Tensor(shape, dtype, buf.data)` is a view."""
        return BufferData(self)

    @property
    def static_shape(self) -> tuple[int, ...] | None:
        """The shape when every dim is a Python int, else None."""
        if all(isinstance(d, int) for d in self.shape):
            return tuple(d for d in self.shape if isinstance(d, int))
        return None

    def __repr__(self) -> str:
        dims = ", ".join(str(d) if isinstance(d, int) else d.name for d in self.shape)
        return f"<{self.scope} buffer '{self.name}' ({dims}) {self.dtype}>"


@dataclass(frozen=True)
class BufferData:
    """`buf.data`: the memory of `buffer`, as TileLang names it to reshape a buffer."""

    buffer: Buffer


class Var(Buffer, Expr):
    """`T.alloc_var(dtype)`: a one-element local buffer that reads as its value.

    As in TileLang it is a mutable scalar: in an expression it is its current
    value, `x += v` stores into it, and so does `x = v` in a kernel's code
    (the kernel's assignments are rewritten to do so); `x[0]` reads and writes
    it as a buffer, and tile ops (T.clear, T.fill) take it as one.
    """


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
