"""Scalar operands and their type rules: what `a + b`, `a < b`, T.cast, T.exp ... mean.

Every scalar value of a kernel (an element read, a loop index, a block index,
the value of a symbolic dim or a T.alloc_var) goes through `operand`, and
every pair of them through `unify`, so these rules hold wherever a DSL call
combines values.

Type rules for scalar operators:
- Python ints and floats take the dtype of the other operand; a float with
  an integer value computes in float32.
- Two integer values combine as `index` if either is `index`, else as the
  wider integer type (the unsigned one of two of a width, as in C).
- Two float values combine as the wider type (float16 with bfloat16 gives
  float32); float16 arithmetic stays float16, as written.
- An integer value with a float value is converted to the float type, as in
  TileLang (TVM); booleans mix with nothing but booleans.
- What is stored (`buf[i] = x`, T.fill, T.atomic_add) converts to the
  destination's element type, as TileLang's stores do.
- A condition (`if`, `and`, `or`, `not`) is a boolean, or a number that is
  true when not zero, as in Python.

Index values also carry their affine form (`v.Affine`), with which a slice's
extent is known when its bounds differ by a constant, as TVM's simplifier
knows it.
"""

from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Callable
from itertools import count
from weakref import WeakKeyDictionary

from mlir import ir

from .. import builder
from .. import values as v
from ..builder import Trace
from ..dtypes import BY_NAME, DType, boolean, float32, index, parse_dtype
from .checks import check_divisor, check_fits, describe, error
from .dims import DIM_OPERATIONS, dim_arithmetic, dim_expression
from .placement import check_buffer, check_visible, require_kernel, require_trace

Number = int | float


_atoms = count()


def _has_affine_forms(dtype: DType) -> bool:
    """Integers of 32 bits or more (`index`, int32 offsets read from a tensor): their sums
    and products are exact, or wrap alike on both sides of a slice, so the difference of
    a slice's bounds is the extent TVM's simplifier would prove too."""
    return dtype.is_integer and dtype.bits >= 32


def affine_of(x: v.Scalar | Number) -> v.Affine | None:
    """`x` as an affine form, when it is an integer (an atom unless it has a known form)."""
    if isinstance(x, bool) or not isinstance(x, int | v.Scalar):
        return None
    if isinstance(x, int):
        return v.Affine((), x)
    if not _has_affine_forms(x.dtype):
        return None
    if x.affine is None:
        atom = _load_atom(x) if isinstance(x, v.Element) else next(_atoms)
        x.affine = v.Affine((((atom,), 1),), 0)
    return x.affine


def _load_atom(x: v.Element) -> int:
    """The atom of an element of a global tensor read in the kernel, by the tensor and
    the indices: two reads of `cu_seqlens[b]` in one slice's bounds are one value (the
    tensors are the kernel's inputs), as TVM's simplifier takes them."""
    buffer = x.region.buffer
    if buffer.scope != "global":
        return next(_atoms)
    loaded = x.home.trace.loaded_atoms
    key = (buffer.value, *(_value_key(i) for i in x.region.offsets))
    if key not in loaded:
        loaded[key] = next(_atoms)
    return loaded[key]


def _value_key(value: ir.Value) -> object:
    """A constant index by its number (each use makes its own), another value by itself."""
    constant = builder.constant_int(value)
    return value if constant is None else constant


def _combine_affine(op: str, a: v.Scalar | Number, b: v.Scalar | Number) -> v.Affine | None:
    fa, fb = affine_of(a), affine_of(b)
    if fa is None or fb is None:
        return None
    if op == "+":
        return fa.plus(fb)
    if op == "-":
        return fa.plus(fb, -1)
    if op == "*":
        return fa.product(fb)
    if op == "//" and not fb.terms and fb.const > 0:
        # an exact division, such as tilelang-ascend's `vid * block_M // 2` (TVM's
        # simplifier proves the bounds of `A[r + vid * M // 2 : r + (vid + 1) * M // 2]` so)
        d = fb.const
        if fa.const % d == 0 and all(c % d == 0 for _, c in fa.terms):
            return v.Affine(tuple((m, c // d) for m, c in fa.terms), fa.const // d)
    return None


def operand(x: object, what: str) -> v.Scalar | Number:
    """A Scalar (visible here) or a Python number; symbolic dims and vars become their values."""
    if isinstance(x, v.SymbolicDim):
        return dim_value(x)
    if isinstance(x, v.Var):
        return var_value(x)
    if isinstance(x, v.Element) and x.released:
        raise error(
            f"{what}: this element of buffer '{x.region.buffer.name}' named the start of a "
            "region in a tile op; index the buffer again to read the element"
        )
    if isinstance(x, v.Scalar):
        check_visible(x.home, "this value")
        return x
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, numbers.Integral):
        return int(x)
    if isinstance(x, numbers.Real):
        return float(x)
    if isinstance(x, v.BufferRegion):
        raise error(f"{what}: a sliced region A[a:b] is not a value; it can only be copied")
    raise error(f"{what} expects a number or a symbolic value but got {describe(x)}")


# The value of each symbolic dim in a trace. One Scalar per dim, so that every
# use of `M` is the same affine atom; kept here because the builder's Trace
# holds no proxy values.
_dims: WeakKeyDictionary[Trace, dict[str, v.Scalar]] = WeakKeyDictionary()


def symbolic_dims(trace: Trace) -> dict[str, v.Scalar]:
    """The values of the symbolic dims in `trace` by name; the kernel binds them."""
    return _dims.setdefault(trace, {})


def dim_value(dim: v.SymbolicDim) -> v.Scalar:
    """The value of a symbolic dim in the kernel: bound by the tensor parameters that
    have it (see PrimFunc), or, for a dim expression that is no tensor's dim, computed
    here from the dims it uses."""
    if builder.active() is None:
        raise error(
            f"symbolic dim '{dim.name}' can only be used inside the body of a @T.prim_func "
            f"kernel, or in a T.Tensor dim as {DIM_OPERATIONS} of symbolic dims and ints"
        )
    trace = require_trace(f"symbolic dim '{dim.name}'")
    value = symbolic_dims(trace).get(dim.name)
    if value is None and isinstance(dim, v.DimExpr):
        return derived_value(dim)
    if value is None:
        raise error(
            f"symbolic dim '{dim.name}' is not a dim of any T.Tensor parameter of this kernel"
        )
    return value


def derived_value(dim: v.DimExpr) -> v.Scalar:
    """The value of a dim expression, computed as the same expression written in the
    kernel's body would be: from the values of the dims it uses."""
    lhs, rhs = (dim_value(x) if isinstance(x, v.SymbolicDim) else x for x in dim.operands)
    value = ceildiv(lhs, rhs) if dim.op == "ceildiv" else binary(dim.op, lhs, rhs)
    assert isinstance(value, v.Scalar), "a dim expression uses a symbolic dim"
    return value


def var_value(var: v.Var) -> v.Scalar:
    """The current value of a T.alloc_var."""
    require_kernel(f"reading variable '{var.name}'")
    check_buffer(var)
    return scalar(builder.load(var.value, [literal(0, index, "an index").value]), var.dtype)


def scalar(value: ir.Value, dtype: DType) -> v.Scalar:
    return v.Scalar(value, dtype, require_trace("a value").current)


def literal(x: Number, dtype: DType, what: str) -> v.Scalar:
    """The Python number `x` as a constant of `dtype`."""
    if isinstance(x, float) and not dtype.is_float:
        raise error(
            f"{what}: the float {x!r} cannot be used as {dtype}; write an int, or convert the "
            f'other side with T.cast(x, "float32")'
        )
    if dtype.kind == "bool" and x not in (0, 1):
        raise error(f"{what}: {x!r} is not a boolean")
    if not dtype.is_float:
        check_fits(int(x), dtype, what)
    result = scalar(builder.constant(dtype, x), dtype)
    if _has_affine_forms(dtype):
        result.affine = v.Affine((), int(x))
    return result


def promoted_dtype(a: DType, b: DType, what: str) -> DType:
    if a == b:
        return a
    if a.kind == "bool" or b.kind == "bool":
        raise error(
            f"{what}: cannot combine {a} with {b}; convert the boolean with "
            f'T.cast(x, "{b if a.kind == "bool" else a}")'
        )
    if a.is_float and b.is_float:
        return a if a.bits > b.bits else b if b.bits > a.bits else float32
    if a.is_integer and b.is_integer:
        if index in (a, b):
            return index
        if a.bits == b.bits:  # signed with unsigned: unsigned, as in C
            return a if a.is_unsigned else b
        return a if a.bits > b.bits else b
    # An integer with a float computes in the float type, as in TileLang (TVM).
    return a if a.is_float else b


def unify(a: object, b: object, what: str) -> tuple[v.Scalar, v.Scalar, DType]:
    """Both operands as Scalars of one dtype, by the rules in the module docstring."""
    x, y = operand(a, what), operand(b, what)
    if not isinstance(x, v.Scalar) and not isinstance(y, v.Scalar):
        dtype = float32 if isinstance(x, float) or isinstance(y, float) else index
        return literal(x, dtype, what), literal(y, dtype, what), dtype
    if not isinstance(x, v.Scalar):
        assert isinstance(y, v.Scalar)
        a, b, dtype = unify(y, x, what)
        return b, a, dtype
    if not isinstance(y, v.Scalar):
        if isinstance(y, float) and x.dtype.is_integer:
            # A float constant with an integer value computes in float32, as in TVM.
            return convert(x, float32), literal(y, float32, what), float32
        return x, literal(y, x.dtype, what), x.dtype
    dtype = promoted_dtype(x.dtype, y.dtype, what)
    return convert(x, dtype), convert(y, dtype), dtype


def convert(x: v.Scalar, dtype: DType) -> v.Scalar:
    if x.dtype == dtype:
        return x
    return scalar(builder.convert(x.value, x.dtype, dtype), dtype)


_PYTHON_BINARY: dict[str, Callable[[Number, Number], Number]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
    "<<": operator.lshift,
    ">>": operator.rshift,
    "max": max,
    "min": min,
}


def binary(op: str, lhs: object, rhs: object) -> v.Scalar | v.DimExpr | Number:
    """`lhs op rhs` for the arithmetic and bit operators, `max` and `min`.

    Two Python numbers are combined by Python: they are constants of the trace.
    `//` and `%` are Python's floor division and its remainder, on integers
    and (unlike TileLang, whose floormod takes integers only) on floats, as
    numpy's floor_divide and mod. By an integer zero known at run time both
    give what the target defines for division: 0 on cpu (as numpy), so
    `x % 0` is 0, not x; by a float zero, `%` is NaN and `//` is `x / 0`.
    Outside a kernel's body, on symbolic dims, it is a `DimExpr`.
    """
    what = f"'{op}'" if op not in ("max", "min") else f"T.{op}"
    if dim_arithmetic(op, lhs, rhs):
        return dim_expression(op, lhs, rhs, what)
    x, y = operand(lhs, what), operand(rhs, what)
    if not isinstance(x, v.Scalar) and not isinstance(y, v.Scalar):
        return _PYTHON_BINARY[op](x, y)
    a, b, dtype = unify(x, y, what)
    if op in ("&", "|", "^"):
        if dtype.is_float:
            raise error(f"{what} needs integer or boolean operands but got {dtype}")
        return scalar(builder.binary(op, a.value, b.value, dtype=dtype), dtype)
    if op in ("<<", ">>") and dtype.is_float:
        raise error(f"{what} needs integer operands but got {dtype}")
    if dtype.kind == "bool":
        raise error(f'{what} on booleans: use & | ^ to combine conditions, or T.cast(x, "int32")')
    if op == "/" and not dtype.is_float:
        raise error(
            f"'/' on {dtype} operands: use '//' for floor division, or convert to a float "
            'type with T.cast(x, "float32")'
        )
    if op in ("//", "%") and not dtype.is_float:
        check_divisor(b, what)
    if op == "%":
        return scalar(builder.floor_mod(a.value, b.value, dtype=dtype), dtype)
    if op == "//" and dtype.is_float:
        return scalar(builder.float_floor_div(a.value, b.value, dtype=dtype), dtype)
    result = scalar(builder.binary(op, a.value, b.value, dtype=dtype), dtype)
    if _has_affine_forms(dtype):
        result.affine = _combine_affine(op, x, y)
    return result


def compare(op: str, lhs: object, rhs: object) -> v.Scalar:
    a, b, dtype = unify(lhs, rhs, f"'{op}'")
    return scalar(builder.compare(op, a.value, b.value, dtype=dtype), boolean)


def truth(x: object, what: str) -> v.Scalar | bool:
    """`x` as a condition: a Python bool for a Python value, a boolean value for a symbolic one.

    As in Python, a number is true when it is not zero.
    """
    if not isinstance(x, v.Expr):
        return bool(x)
    a = operand(x, what)
    assert isinstance(a, v.Scalar)
    return a if a.dtype.kind == "bool" else compare("!=", a, 0)


def negate(x: object) -> v.Scalar:
    a = operand(x, "unary '-'")
    assert isinstance(a, v.Scalar)
    if a.dtype.kind == "bool":
        raise error("unary '-' on a boolean: use ~ to negate a condition")
    if a.dtype.is_float:
        return scalar(builder.float_unary("neg", a.value), a.dtype)
    return binary("-", 0, a)


def invert(x: object) -> v.Scalar:
    a = operand(x, "'~'")
    assert isinstance(a, v.Scalar)
    if a.dtype.is_float:
        raise error(f"'~' needs an integer or boolean operand but got {a.dtype}")
    # All bits set: 1 for a bool, -1 for a signed integer, the maximum for an unsigned one.
    ones = a.dtype.int_range[1] if a.dtype.kind in ("bool", "uint") else -1
    return binary("^", a, ones)


_PYTHON_UNARY: dict[str, Callable[[float], float]] = {
    "exp": math.exp,
    "exp2": lambda x: 2.0**x,
    "log": math.log,
    "log2": math.log2,
    "sqrt": math.sqrt,
    "rsqrt": lambda x: 1.0 / math.sqrt(x),
    "tanh": math.tanh,
    "floor": math.floor,
    "ceil": math.ceil,
}


def float_unary(name: str, x: object) -> v.Scalar | float:
    a = operand(x, f"T.{name}")
    if not isinstance(a, v.Scalar):
        return _PYTHON_UNARY[name](a)
    if not a.dtype.is_float:
        raise error(
            f"T.{name} needs a float operand but got {a.dtype}; convert it with "
            'T.cast(x, "float32")'
        )
    return scalar(builder.float_unary(name, a.value), a.dtype)


def absolute(x: object) -> v.Scalar | Number:
    a = operand(x, "T.abs")
    if not isinstance(a, v.Scalar):
        return abs(a)
    if a.dtype.is_float:
        return scalar(builder.float_unary("abs", a.value), a.dtype)
    if a.dtype.kind == "bool":
        raise error("T.abs needs a number but got a boolean")
    if a.dtype.is_unsigned:
        return a
    return scalar(builder.int_abs(a.value), a.dtype)


def select(condition: object, true_value: object, false_value: object) -> v.Scalar | Number:
    cond = operand(condition, "T.if_then_else")
    if not isinstance(cond, v.Scalar):
        return operand(true_value if cond else false_value, "T.if_then_else")
    if cond.dtype.kind != "bool":
        raise error(f"T.if_then_else needs a boolean condition (a comparison) but got {cond.dtype}")
    a, b, dtype = unify(true_value, false_value, "T.if_then_else")
    return scalar(builder.select(cond.value, a.value, b.value), dtype)


def as_dtype(value: object, what: str) -> DType:
    dtype = parse_dtype(value)
    if dtype is None:
        raise error(
            f"{what}: unknown dtype {value!r}; expected one of {', '.join(BY_NAME)} "
            "(or T.float32, ...)"
        )
    return dtype


def cast(x: object, dtype_name: object) -> v.Scalar:
    dtype = as_dtype(dtype_name, "T.cast")
    a = operand(x, "T.cast")
    if not isinstance(a, v.Scalar):
        return literal(a if dtype.is_float else int(a), dtype, "T.cast")
    return convert(a, dtype)


def reinterpret(dtype_name: object, x: object) -> v.Scalar:
    """TileLang's `T.reinterpret(dtype, value)`: the bits of a scalar read as `dtype`."""
    what = "T.reinterpret"
    dtype = as_dtype(dtype_name, what)
    a = operand(x, what)
    if not isinstance(a, v.Scalar):
        raise error(f"{what} needs a typed value (a tile element or a T.cast of a number), "
                    f"not the Python number {a!r}, whose width is unknown")
    if a.dtype.bits != dtype.bits or index in (a.dtype, dtype):
        raise error(f"{what}: {a.dtype} and {dtype} have different widths; T.cast converts "
                    "values between them")
    if a.dtype == dtype:
        return a
    return scalar(builder.bitcast(a.value, dtype), dtype)


def ceildiv(lhs: object, rhs: object) -> v.Scalar | v.DimExpr | int:
    if dim_arithmetic("ceildiv", lhs, rhs):
        return dim_expression("ceildiv", lhs, rhs, "T.ceildiv")
    x, y = operand(lhs, "T.ceildiv"), operand(rhs, "T.ceildiv")
    if not isinstance(x, v.Scalar) and not isinstance(y, v.Scalar):
        if isinstance(x, float) or isinstance(y, float):
            raise error("T.ceildiv needs integer operands")
        check_divisor(y, "T.ceildiv")
        return -(-x // y)
    a, b, dtype = unify(x, y, "T.ceildiv")
    if not dtype.is_integer:
        raise error(f"T.ceildiv needs integer operands but got {dtype}")
    check_divisor(b, "T.ceildiv")
    return scalar(builder.binary("ceildiv", a.value, b.value, dtype=dtype), dtype)


def index_value(x: object, what: str) -> ir.Value:
    """An `index` value for a subscript, offset or bound (integer values are converted)."""
    a = operand(x, what)
    if not isinstance(a, v.Scalar):
        if isinstance(a, float):
            raise error(f"{what} must be an integer but got the float {a!r}")
        return literal(a, index, what).value
    if not a.dtype.is_integer:
        raise error(f"{what} must be an integer but got a {a.dtype} value")
    return convert(a, index).value


def converted(x: object, dtype: DType, what: str) -> v.Scalar:
    """`x` as a `dtype` value, converted as TileLang converts what is stored.

    A store, fill or atomic add casts its value to the element type of the
    destination (float32 into float16, int into float, float into int by
    truncation, numbers into bool by `!= 0`), so only the range of a Python
    number is checked.
    """
    a = operand(x, what)
    if isinstance(a, v.Scalar):
        return convert(a, dtype)
    if dtype.kind == "bool":
        return literal(int(a != 0), dtype, what)
    if isinstance(a, float) and not dtype.is_float:
        if not math.isfinite(a):
            raise error(f"{what}: the float {a!r} has no {dtype} value")
        return literal(int(a), dtype, what)
    return literal(a, dtype, what)
