"""Scalar math on symbolic values (and on Python numbers, computed in Python).

The float functions keep their operand's dtype (float16 stays float16);
integers must be converted with `T.cast` first.
"""

from __future__ import annotations

from . import semantic
from .dtypes import DType, parse_dtype
from .source import dsl_api
from .values import Scalar

Value = Scalar | int | float


@dsl_api
def exp(x: Value) -> Value:
    """e ** x."""
    return semantic.float_unary("exp", x)


@dsl_api
def exp2(x: Value) -> Value:
    """2 ** x; the cheap exponential of online softmax."""
    return semantic.float_unary("exp2", x)


@dsl_api
def log(x: Value) -> Value:
    """Natural logarithm."""
    return semantic.float_unary("log", x)


@dsl_api
def log2(x: Value) -> Value:
    """Base-2 logarithm."""
    return semantic.float_unary("log2", x)


@dsl_api
def sqrt(x: Value) -> Value:
    """Square root."""
    return semantic.float_unary("sqrt", x)


@dsl_api
def rsqrt(x: Value) -> Value:
    """1 / sqrt(x), as one op (RMSNorm)."""
    return semantic.float_unary("rsqrt", x)


@dsl_api
def tanh(x: Value) -> Value:
    """Hyperbolic tangent."""
    return semantic.float_unary("tanh", x)


@dsl_api
def sigmoid(x: Value) -> Value:
    """1 / (1 + e ** -x), in x's float type (0 where e ** -x overflows)."""
    a = semantic.operand(x, "T.sigmoid")
    if isinstance(a, Scalar) and not a.dtype.is_float:
        raise semantic.error(
            f"T.sigmoid needs a float operand but got {a.dtype}; convert it with "
            'T.cast(x, "float32")'
        )
    decay = semantic.float_unary("exp", semantic.binary("-", 0.0, a))
    return semantic.binary("/", 1.0, semantic.binary("+", 1.0, decay))


@dsl_api
def floor(x: Value) -> Value:
    """Largest integral value not above x, in x's float type."""
    return semantic.float_unary("floor", x)


@dsl_api
def ceil(x: Value) -> Value:
    """Smallest integral value not below x, in x's float type."""
    return semantic.float_unary("ceil", x)


@dsl_api
def abs(x: Value) -> Value:
    """|x| for floats and integers."""
    return semantic.absolute(x)


@dsl_api
def max(a: Value, b: Value) -> Value:
    """The larger of a and b (a NaN operand gives NaN)."""
    return semantic.binary("max", a, b)


@dsl_api
def min(a: Value, b: Value) -> Value:
    """The smaller of a and b (a NaN operand gives NaN)."""
    return semantic.binary("min", a, b)


@dsl_api
def clamp(x: Value, min_val: Value, max_val: Value) -> Value:
    """x limited to [min_val, max_val] (TileLang's T.clamp)."""
    return semantic.binary("min", semantic.binary("max", x, min_val), max_val)


@dsl_api
def if_then_else(cond: Value, then_value: Value, else_value: Value) -> Value:
    """`then_value` where `cond` holds, else `else_value` (both are evaluated)."""
    return semantic.select(cond, then_value, else_value)


@dsl_api
def cast(x: Value, dtype: str | DType) -> Value:
    """x converted to `dtype` (ints <-> index, int <-> float, float widths, bool)."""
    return semantic.cast(x, dtype)


@dsl_api
def Cast(dtype: str | DType, x: Value) -> Value:
    """TileLang's `T.Cast(dtype, x)`: T.cast with the dtype first."""
    return semantic.cast(x, dtype)


@dsl_api
def ceildiv(a: Value, b: Value) -> Value:
    """a / b rounded up, for integers: the number of tiles that cover a extent."""
    return semantic.ceildiv(a, b)


@dsl_api
def floordiv(a: Value, b: Value) -> Value:
    """TileLang's `T.floordiv`: `a // b`, rounded toward minus infinity (Python's `//`)."""
    return semantic.binary("//", a, b)


@dsl_api
def floormod(a: Value, b: Value) -> Value:
    """TileLang's `T.floormod`: `a % b` with the sign of `b` (Python's `%`)."""
    return semantic.binary("%", a, b)


@dsl_api
def shift_left(a: Value, b: Value) -> Value:
    """TileLang's `T.shift_left`: `a << b` on integers."""
    return semantic.binary("<<", a, b)


@dsl_api
def shift_right(a: Value, b: Value) -> Value:
    """TileLang's `T.shift_right`: `a >> b` on integers (arithmetic on signed ones)."""
    return semantic.binary(">>", a, b)


@dsl_api
def index_to_coordinates(index: Value, shape: tuple[Value, ...] | list[Value]) -> tuple[Value, ...]:
    """TileLang's `T.index_to_coordinates`: the row-major coordinates in `shape` of the
    flat `index` (`i, j = T.index_to_coordinates(k, (M, N))` is `k // N, k % N`)."""
    coordinates: list[Value] = []
    for dim in reversed(tuple(shape)):
        coordinates.append(semantic.binary("%", index, dim))
        index = semantic.binary("//", index, dim)
    return tuple(reversed(coordinates))


@dsl_api
def reinterpret(dtype: str | DType | Value, x: Value | str | DType) -> Value:
    """TileLang's `T.reinterpret`: the bits of a value read as a dtype of the same width
    (`T.reinterpret("int32", f)` gives the float's bit pattern). Both of TileLang's
    argument orders are taken: `(dtype, value)` and its current `(value, dtype)`."""
    if parse_dtype(dtype) is None and parse_dtype(x) is not None:
        dtype, x = x, dtype
    return semantic.reinterpret(dtype, x)


@dsl_api
def infinity(dtype: str | DType) -> Scalar:
    """+inf of a float dtype (negate it for the start of a running max)."""
    kind = semantic.as_dtype(dtype, "T.infinity")
    if not kind.is_float:
        raise semantic.error(f"T.infinity needs a float dtype but got {kind}")
    return semantic.literal(float("inf"), kind, "T.infinity")
