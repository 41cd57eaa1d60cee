"""Scalar `arith` and `math` ops: the address arithmetic and loop control of the scalar unit.

Values are Python ints for `index` and integers (kept in the signed range of
their width, so i32 arithmetic wraps as on the hardware; i1 is 0 or 1) and
numpy scalars of the exact width for floats (so f16/f32 arithmetic rounds
as on the hardware; bf16/fp8 values are float32 scalars rounded to the type).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable

import numpy as np
from mlir import ir

from tilec.sim.diagnostics import fail
from tilec.sim.dtypes import element_type
from tilec.sim.interpreter import Compiler, compiles, location


def int_width(t: ir.Type) -> int | None:
    """Bit width of an integer type; None for `index` (unbounded here: 64-bit in practice)."""
    return None if isinstance(t, ir.IndexType) else ir.IntegerType(t).width


def int_cast(t: ir.Type) -> Callable[[int], int]:
    """Wraps a Python int into the value range of integer type `t`."""
    width = int_width(t)
    if width is None:
        return int
    if width == 1:
        return lambda v: int(v) & 1
    mask, half = (1 << width) - 1, 1 << (width - 1)
    return lambda v: ((int(v) + half) & mask) - half


def unsigned(t: ir.Type) -> Callable[[int], int]:
    width = int_width(t)
    if width is None:
        return lambda v: int(v) & ((1 << 64) - 1)
    mask = (1 << width) - 1
    return lambda v: int(v) & mask


def signed(t: ir.Type) -> Callable[[int], int]:
    """The signed value of a stored integer (only i1 differs: 1 means -1)."""
    if int_width(t) == 1:
        return lambda v: -int(v)
    return int


def float_cast(t: ir.Type) -> Callable[[object], object]:
    """Rounds a number to float type `t`, as a numpy scalar."""
    name = str(t)
    if name in ("f16", "f32", "f64"):
        return {"f16": np.float16, "f32": np.float32, "f64": np.float64}[name]
    element = element_type(t)
    if element is None or not element.is_float or element.decode is None:
        raise ValueError(f"unsupported float type {t}")
    return lambda v: element.decode(element.encode(np.asarray([v], np.float32)))[0]


def is_float(t: ir.Type) -> bool:
    return isinstance(t, ir.FloatType)


def int_range(t: ir.Type) -> tuple[int, int]:
    """The least and greatest value a parameter of integer type `t` takes
    (signless types are signed, as the simulator holds them; i1 is 0 or 1)."""
    if isinstance(t, ir.IndexType):
        return -(1 << 63), (1 << 63) - 1
    integer = ir.IntegerType(t)
    width = integer.width
    if width == 1 or integer.is_unsigned:
        return 0, (1 << width) - 1
    return -(1 << (width - 1)), (1 << (width - 1)) - 1


def scalar_value(t: ir.Type, value: object) -> object:
    """A Python or numpy number given for a parameter of type `t` (`index`,
    integer or float), as the simulator holds it. ValueError when it is not a
    number or, for an integer type, not a whole number in the type's range:
    the kernel must not silently see 2 for 2.5, or 2^32 wrapped to 0."""
    if not isinstance(value, numbers.Real | np.bool_):  # numpy's bool is no `numbers` type
        raise ValueError(f"needs a number, not {value!r}")
    if is_float(t):
        try:
            number = float(value)
        except OverflowError:  # an int beyond any float
            raise ValueError(f"needs a number that fits a 64-bit float, not {value}") from None
        with np.errstate(over="ignore"):  # rounds to ±inf, as IEEE arithmetic does
            return float_cast(t)(number)
    if not (isinstance(value, numbers.Integral) or float(value).is_integer()):
        raise ValueError(f"needs an integer, not {value}")
    number = int(value)
    lo, hi = int_range(t)
    if not lo <= number <= hi:
        raise ValueError(f"needs an integer in [{lo}, {hi}], not {number}")
    return int_cast(t)(number)


# -- constants -------------------------------------------------------------------


@compiles("arith.constant")
def _constant(c: Compiler, op: ir.Operation) -> None:
    attr = op.attributes["value"]
    result = op.results[0]
    if isinstance(attr, ir.BoolAttr):
        c.set_constant(result, int(attr.value))
    elif isinstance(attr, ir.IntegerAttr):
        c.set_constant(result, int_cast(result.type)(attr.value))
    elif isinstance(attr, ir.FloatAttr):
        c.set_constant(result, float_cast(result.type)(attr.value))
    else:
        raise fail(location(op), f"the simulator supports scalar constants only, not {attr.type}")


# -- integer arithmetic --------------------------------------------------------------


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _int_ops(u: Callable[[int], int]) -> dict[str, Callable[[int, int], int]]:
    return {
        "arith.addi": lambda a, b: a + b,
        "arith.subi": lambda a, b: a - b,
        "arith.muli": lambda a, b: a * b,
        "arith.divsi": _trunc_div,
        "arith.divui": lambda a, b: u(a) // u(b),
        "arith.remsi": lambda a, b: a - b * _trunc_div(a, b),
        "arith.remui": lambda a, b: u(a) % u(b),
        "arith.ceildivsi": lambda a, b: -(-a // b),
        "arith.ceildivui": lambda a, b: -(-u(a) // u(b)),
        "arith.floordivsi": lambda a, b: a // b,
        "arith.maxsi": max,
        "arith.minsi": min,
        "arith.maxui": lambda a, b: a if u(a) >= u(b) else b,
        "arith.minui": lambda a, b: a if u(a) <= u(b) else b,
        "arith.andi": lambda a, b: a & b,
        "arith.ori": lambda a, b: a | b,
        "arith.xori": lambda a, b: a ^ b,
        "arith.shli": lambda a, b: a << b,
        "arith.shrsi": lambda a, b: a >> b,
        "arith.shrui": lambda a, b: u(a) >> b,
    }


_DIVISIONS = {"arith.divsi", "arith.divui", "arith.remsi", "arith.remui", "arith.ceildivsi",
              "arith.ceildivui", "arith.floordivsi"}


@compiles(*_int_ops(int))
def _int_binary(c: Compiler, op: ir.Operation) -> None:
    name = op.operation.name
    result_type = op.results[0].type
    fn = _int_ops(unsigned(result_type))[name]
    wrap = int_cast(result_type)
    if name in _DIVISIONS:
        where = location(op)

        def compute(a: int, b: int) -> int:
            if b == 0:
                raise fail(where, f"{name}: division by zero")
            return wrap(fn(a, b))
    else:
        def compute(a: int, b: int) -> int:
            return wrap(fn(a, b))

    c.emit_compute(compute, c.slot(op.results[0]), c.slots_of(op.operands))


_CMPI = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


@compiles("arith.cmpi")
def _cmpi(c: Compiler, op: ir.Operation) -> None:
    predicate = _CMPI[ir.IntegerAttr(op.attributes["predicate"]).value]
    t = op.operands[0].type
    conv = unsigned(t) if predicate.startswith("u") else signed(t)
    test = {"eq": int.__eq__, "ne": int.__ne__, "lt": int.__lt__, "le": int.__le__,
            "gt": int.__gt__, "ge": int.__ge__}[predicate.lstrip("su") or predicate]
    c.emit_compute(lambda a, b: int(test(conv(a), conv(b))), c.slot(op.results[0]),
                   c.slots_of(op.operands))


# -- float arithmetic --------------------------------------------------------------


_FLOAT_BINARY: dict[str, Callable] = {
    "arith.addf": lambda a, b: a + b,
    "arith.subf": lambda a, b: a - b,
    "arith.mulf": lambda a, b: a * b,
    "arith.divf": lambda a, b: a / b,
    "arith.remf": np.fmod,
    "arith.maximumf": np.maximum,
    "arith.minimumf": np.minimum,
    "arith.maxnumf": np.fmax,
    "arith.minnumf": np.fmin,
    "math.powf": np.power,
    "math.atan2": np.arctan2,
    "math.copysign": np.copysign,
}

_FLOAT_UNARY: dict[str, Callable] = {
    "arith.negf": np.negative,
    "math.absf": np.abs,
    "math.exp": np.exp,
    "math.exp2": np.exp2,
    "math.expm1": np.expm1,
    "math.log": np.log,
    "math.log2": np.log2,
    "math.log10": np.log10,
    "math.log1p": np.log1p,
    "math.sqrt": np.sqrt,
    "math.rsqrt": lambda x: 1 / np.sqrt(x),
    "math.tanh": np.tanh,
    "math.sin": np.sin,
    "math.cos": np.cos,
    "math.floor": np.floor,
    "math.ceil": np.ceil,
    "math.trunc": np.trunc,
    "math.roundeven": np.rint,
    "math.round": lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5),
    "math.erf": np.vectorize(math.erf),
}


@compiles(*_FLOAT_BINARY, *_FLOAT_UNARY, "math.fma")
def _float_op(c: Compiler, op: ir.Operation) -> None:
    name = op.operation.name
    cast = float_cast(op.results[0].type)
    out, ins = c.slot(op.results[0]), c.slots_of(op.operands)
    if name == "math.fma":
        c.emit_compute(lambda a, b, d: cast(np.float64(a) * b + d), out, ins)
    elif name in _FLOAT_BINARY:
        fn = _FLOAT_BINARY[name]
        c.emit_compute(lambda a, b: cast(fn(a, b)), out, ins)
    else:
        fn = _FLOAT_UNARY[name]
        c.emit_compute(lambda a: cast(fn(a)), out, ins)


@compiles("math.absi")
def _absi(c: Compiler, op: ir.Operation) -> None:
    wrap = int_cast(op.results[0].type)
    c.emit_compute(lambda a: wrap(abs(a)), c.slot(op.results[0]), c.slots_of(op.operands))


_CMPF = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
         "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true")
_COMPARE = {"eq": lambda a, b: a == b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
            "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "ne": lambda a, b: a != b}


@compiles("arith.cmpf")
def _cmpf(c: Compiler, op: ir.Operation) -> None:
    predicate = _CMPF[ir.IntegerAttr(op.attributes["predicate"]).value]
    if predicate in ("false", "true"):
        constant = int(predicate == "true")
        c.emit_compute(lambda a, b: constant, c.slot(op.results[0]), c.slots_of(op.operands))
        return
    if predicate in ("ord", "uno"):
        want_ordered = predicate == "ord"
        c.emit_compute(lambda a, b: int((not (np.isnan(a) or np.isnan(b))) == want_ordered),
                       c.slot(op.results[0]), c.slots_of(op.operands))
        return
    test = _COMPARE[predicate[1:]]
    if predicate[0] == "o":
        fn = lambda a, b: int(not (np.isnan(a) or np.isnan(b)) and bool(test(a, b)))  # noqa: E731
    else:
        fn = lambda a, b: int(bool(np.isnan(a) or np.isnan(b)) or bool(test(a, b)))  # noqa: E731
    c.emit_compute(fn, c.slot(op.results[0]), c.slots_of(op.operands))


@compiles("arith.select")
def _select(c: Compiler, op: ir.Operation) -> None:
    c.emit_compute(lambda cond, a, b: a if cond else b, c.slot(op.results[0]),
                   c.slots_of(op.operands))


# -- conversions --------------------------------------------------------------


def _float_to_int(wrap: Callable[[int], int]) -> Callable[[object], int]:
    def convert(x: object) -> int:
        value = float(x)
        return 0 if math.isnan(value) or math.isinf(value) else wrap(math.trunc(value))

    return convert


@compiles("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui",
          "arith.trunci", "arith.sitofp", "arith.uitofp", "arith.fptosi", "arith.fptoui",
          "arith.extf", "arith.truncf")
def _cast(c: Compiler, op: ir.Operation) -> None:
    name = op.operation.name
    source, target = op.operands[0].type, op.results[0].type
    if name in ("arith.index_cast", "arith.extsi", "arith.trunci"):
        read, write = signed(source), int_cast(target)
        fn = lambda x: write(read(x))  # noqa: E731
    elif name in ("arith.index_castui", "arith.extui"):
        read, write = unsigned(source), int_cast(target)
        fn = lambda x: write(read(x))  # noqa: E731
    elif name in ("arith.sitofp", "arith.uitofp"):
        read = signed(source) if name == "arith.sitofp" else unsigned(source)
        cast = float_cast(target)
        fn = lambda x: cast(read(x))  # noqa: E731
    elif name in ("arith.fptosi", "arith.fptoui"):
        fn = _float_to_int(int_cast(target) if name == "arith.fptosi" else unsigned(target))
    else:
        fn = float_cast(target)
    c.emit_compute(fn, c.slot(op.results[0]), c.slots_of(op.operands))


@compiles("arith.bitcast")
def _bitcast(c: Compiler, op: ir.Operation) -> None:
    """The bits of a scalar read as another type of the same width (T.reinterpret):
    through the storage of both types, as the scalar unit moves a register."""
    source, target = op.operands[0].type, op.results[0].type
    src, dst = element_type(source), element_type(target)
    if src is None or dst is None or src.storage.itemsize != dst.storage.itemsize:
        raise fail(location(op), f"the simulator cannot bitcast {source} to {target}")
    bits_type = np.dtype(f"u{src.storage.itemsize}")
    read = unsigned(source) if not is_float(source) else None
    write = int_cast(target) if not is_float(target) else None

    def convert(x: object) -> object:
        if read is not None:
            bits = np.asarray([read(x)], bits_type)
        else:
            # exact (an f8 NaN or inf stays one), not the hardware's saturating conversion
            bits = src.from_host(np.asarray([x])).view(bits_type)
        if write is not None:
            return write(int(bits[0]))
        return dst.values(bits.view(dst.storage))[0]

    c.emit_compute(convert, c.slot(op.results[0]), c.slots_of(op.operands))
