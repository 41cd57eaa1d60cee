"""The proxy values a kernel function is traced with.

While a kernel is traced its parameters, block indices, loop variables and
everything computed from them are proxies for MLIR values: `Scalar` (one
value with a DSL dtype), `SymbolicDim` (a tensor dim known only at run time;
a `DimExpr` is one computed from others, `T.ceildiv(K, 128)`), `Buffer` (a
tensor or tile; a `Var` is a one-element one that reads as its value), and
what indexing a buffer gives: an `Element` (a loaded element that can also
serve as the start of a region) or a `BufferRegion` (a sliced region). An
index `Scalar` may carry its `Affine` form, with which T.copy checks slice
extents.

The classes define Python's operators, subscripts and truth tests, but what
these mean is a rule of the semantic layer, which imports this module: the
methods call it through `syntax.rules()`, which `semantic` installs, so this
module stays below it. Each method is a DSL entry point (`dsl_api`): the
user's line that applies an operator is where its ops are located and its
errors point.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

from mlir import ir

from . import syntax
from .builder import OpenRegion
from .dtypes import DType
from .errors import DSLError, SourceLoc
from .source import dsl_api, site


@dataclass(frozen=True)
class Affine:
    """An index value as `const + sum(coefficient * monomial)`: a monomial is a sorted
    tuple of atoms, opaque values (`(a,)` is the atom a, `(a, b)` the product a * b), so
    that `(i + 1) * n - i * n` is known to be `n`, as TVM's simplifier knows it."""

    terms: tuple[tuple[tuple[int, ...], int], ...]
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

    def product(self, other: Affine) -> Affine:
        """`self * other`, expanded."""
        result = other.times(self.const)
        for monomial, coefficient in self.terms:
            scaled = other.times(coefficient)
            terms = tuple((tuple(sorted(monomial + m)), c) for m, c in scaled.terms)
            result = result.plus(Affine(terms, 0))
            if scaled.const:
                result = result.plus(Affine(((monomial, scaled.const),), 0))
        return result


def _forward(op: str) -> Callable[[Expr, object], Expr | int | float]:
    """`x op y` for a symbolic x."""

    @dsl_api
    def apply(x: Expr, y: object) -> Expr | int | float:
        return syntax.rules().binary(op, x, y)

    return apply


def _reflected(op: str) -> Callable[[Expr, object], Expr | int | float]:
    """`y op x` for a symbolic x and a y that does not know x."""

    @dsl_api
    def apply(x: Expr, y: object) -> Expr | int | float:
        return syntax.rules().binary(op, y, x)

    return apply


def _comparison(op: str) -> Callable[[Expr, object], Scalar]:
    @dsl_api
    def apply(x: Expr, y: object) -> Scalar:
        return syntax.rules().compare(op, x, y)

    return apply


def _augmented(op: str) -> Callable[[Var, object], Var]:
    """`x op= y` on a T.alloc_var: stores `x op y` into it, and x stays the variable."""

    @dsl_api
    def update(var: Var, y: object) -> Var:
        rules = syntax.rules()
        return rules.store_var(var, rules.binary(op, var, y))

    return update


def _refusal(message: str) -> Callable[[Expr], NoReturn]:
    """A conversion a symbolic value does not have while the kernel is traced."""

    @dsl_api
    def refuse(_: Expr) -> NoReturn:
        raise DSLError(message, site())

    return refuse


class Expr:
    """A symbolic value in an expression: a `Scalar` or a `SymbolicDim`.

    It has Python's arithmetic, comparisons and bit operators, by the rules of
    `semantic.scalars`. It has no Python truth or int value: a kernel's `if`,
    `and`, `or` and `not` are rewritten to trace it (see `rewrite`); `while`,
    `int()` and the like on it raise a DSLError that says what to write instead.
    """

    __slots__ = ()

    # `==` traces a comparison; a value still hashes (as a dict key) by identity.
    __hash__ = object.__hash__

    __add__, __radd__ = _forward("+"), _reflected("+")
    __sub__, __rsub__ = _forward("-"), _reflected("-")
    __mul__, __rmul__ = _forward("*"), _reflected("*")
    __truediv__, __rtruediv__ = _forward("/"), _reflected("/")
    __floordiv__, __rfloordiv__ = _forward("//"), _reflected("//")
    __mod__, __rmod__ = _forward("%"), _reflected("%")
    __and__, __rand__ = _forward("&"), _reflected("&")
    __or__, __ror__ = _forward("|"), _reflected("|")
    __xor__, __rxor__ = _forward("^"), _reflected("^")
    __lshift__, __rlshift__ = _forward("<<"), _reflected("<<")
    __rshift__, __rrshift__ = _forward(">>"), _reflected(">>")

    __lt__, __le__ = _comparison("<"), _comparison("<=")
    __gt__, __ge__ = _comparison(">"), _comparison(">=")
    __eq__, __ne__ = _comparison("=="), _comparison("!=")

    @dsl_api
    def __neg__(self) -> Scalar:
        return syntax.rules().negate(self)

    @dsl_api
    def __invert__(self) -> Scalar:
        return syntax.rules().invert(self)

    @dsl_api
    def __abs__(self) -> Scalar | int | float:
        return syntax.rules().absolute(self)

    @dsl_api
    def astype(self, dtype: object) -> Scalar:
        """TileLang's `x.astype(dtype)`: `T.cast(x, dtype)`."""
        return syntax.rules().cast(self, dtype)

    __bool__ = _refusal(
        "a symbolic value has no Python truth value while the kernel is traced: `if`, "
        "`and`, `or`, `not` and `a if c else b` on it are traced in the code of a kernel or "
        "a T.macro, but not in `while`, `assert`, comprehensions or other functions; use "
        "T.if_then_else(cond, a, b) for a choice between values and & | ~ on conditions"
    )
    __index__ = __int__ = _refusal(
        "a symbolic value has no Python int value while the kernel is traced: loop over "
        "it with T.serial or T.Pipelined instead of range(), and use Python ints for shapes"
    )
    __float__ = _refusal("a symbolic value has no Python float value while the kernel is traced")
    __iter__ = _refusal("a symbolic value is not iterable; loop with T.serial(n)")


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


class DimExpr(SymbolicDim):
    """A tensor dim computed from symbolic dims and ints (`T.ceildiv(K, 128)`, `2 * N`),
    as TileLang's shapes are PrimExprs: what `+ - * // %`, T.ceildiv, T.min and T.max
    give on symbolic dims outside a kernel's body, where there is no value to compute.

    Its `name` is its text in Python syntax (`ceildiv(K, 128)`): dims compare by
    name, the tensor's `tile.dims` carries it, and the runtime evaluates it to check
    a call's shapes. In a kernel it is the expression's value.
    """

    __slots__ = ("op", "operands")

    # The infix operators by binding strength; the others are written as calls.
    PRECEDENCE = {"+": 1, "-": 1, "*": 2, "//": 2, "%": 2}
    CALLS = ("ceildiv", "min", "max")

    def __init__(self, op: str, operands: tuple[int | SymbolicDim, int | SymbolicDim]):
        self.op = op
        self.operands = operands
        super().__init__(self._text())

    def _text(self) -> str:
        lhs, rhs = (_operand_text(x) for x in self.operands)
        if self.op in self.CALLS:
            return f"{self.op}({lhs}, {rhs})"
        strength = self.PRECEDENCE[self.op]
        # Parentheses where Python would group otherwise: `(M + 1) * 2`, `M - (N - 1)`.
        if _binds_weaker(self.operands[0], strength):
            lhs = f"({lhs})"
        if _binds_weaker(self.operands[1], strength + 1):
            rhs = f"({rhs})"
        return f"{lhs} {self.op} {rhs}"

    def symbols(self) -> tuple[str, ...]:
        """The names of the plain symbolic dims it is computed from, in order of use."""
        found: dict[str, None] = {}
        for x in self.operands:
            if isinstance(x, DimExpr):
                found.update(dict.fromkeys(x.symbols()))
            elif isinstance(x, SymbolicDim):
                found[x.name] = None
        return tuple(found)

    def __repr__(self) -> str:
        return f"<dim {self.name}>"


def _operand_text(x: int | SymbolicDim) -> str:
    return x.name if isinstance(x, SymbolicDim) else f"({x})" if x < 0 else str(x)


def _binds_weaker(x: int | SymbolicDim, strength: int) -> bool:
    return isinstance(x, DimExpr) and DimExpr.PRECEDENCE.get(x.op, 3) < strength


Dim = int | SymbolicDim


class Buffer:
    """A tensor parameter (scope "global") or a tile allocated in a kernel.

    `buf[i, j]` reads an element (or names the region starting there, for
    T.copy and T.atomic_add), `buf[i, j] = x` writes one, and slices such as
    `buf[i:, 0:64]` name a region whose sliced dims the other side of T.copy
    covers, by the rules of `semantic.buffers`.
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

    @dsl_api
    def __getitem__(self, key: object) -> Element | BufferRegion:
        return syntax.rules().subscript(self, key)

    @dsl_api
    def __setitem__(self, key: object, value: object) -> None:
        syntax.rules().store(self, key, value)

    @dsl_api
    def __iter__(self) -> NoReturn:
        raise DSLError(
            f"buffer '{self.name}' is not iterable; loop over its elements with T.Parallel",
            site(),
        )


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

    __iadd__, __isub__, __imul__ = _augmented("+"), _augmented("-"), _augmented("*")
    __itruediv__, __ifloordiv__, __imod__ = _augmented("/"), _augmented("//"), _augmented("%")
    __iand__, __ior__, __ixor__ = _augmented("&"), _augmented("|"), _augmented("^")
    __ilshift__, __irshift__ = _augmented("<<"), _augmented(">>")


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
