"""The checks every rule of the DSL shares.

Each error a user sees is a `DSLError` at the user line of the DSL call being
checked (`error`), and speaks about the user's program: values are named as
the user wrote them (`describe`, `format_shape`). Python ints become the sizes
and attributes of the tile dialect, all 64-bit, so their range is checked here
(`python_int`, `check_fits`) rather than failing in MLIR.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

from .. import builder
from .. import values as v
from ..dtypes import DType, index
from ..errors import DSLError
from ..source import site


def error(message: str) -> DSLError:
    """A DSLError at the user line of the current DSL call."""
    return DSLError(message, site())


def python_int(x: object, what: str) -> int | None:
    """`x` as an int when it is a Python or numpy integer (not a bool, not symbolic).

    Such ints become sizes and attributes of the tile dialect, all 64-bit, so
    one that `index` cannot hold is an error here rather than in MLIR.
    """
    if isinstance(x, numbers.Integral) and not isinstance(x, bool):
        return check_fits(int(x), index, what)
    return None


def check_fits(value: int, dtype: DType, what: str) -> int:
    """`value`, which `dtype` must be able to hold.

    The one range check of the DSL: every Python int it turns into IR passes
    here, through `literal` (constants, bounds, offsets, grid sizes) or
    `python_int` (shapes, extents, attributes).
    """
    low, high = dtype.int_range
    if not low <= value <= high:
        raise error(f"{what}: {value} does not fit in {dtype} ({low} to {high})")
    return value


def flag(value: object, what: str, name: str) -> bool:
    if not isinstance(value, bool):
        raise error(f"{what}: {name} must be a Python bool but got {describe(value)}")
    return value


def check_divisor(divisor: v.Scalar | int | float, what: str) -> None:
    """An integer division by a constant zero is a mistake the trace can see.

    arith leaves it undefined, so it would compile to whatever the target
    does; a divisor that is zero only at run time is the target's to handle.
    """
    if isinstance(divisor, v.Scalar):
        zero = builder.constant_int(divisor.value) == 0
    else:
        zero = divisor == 0
    if zero:
        raise error(f"{what}: integer division by zero")


def describe(x: object) -> str:
    if isinstance(x, v.Buffer):
        return f"buffer '{x.name}'"
    if isinstance(x, v.Scalar):
        return f"a {x.dtype} value"
    return f"{type(x).__name__} {x!r}"


def format_shape(shape: Sequence[object]) -> str:
    return (
        "("
        + ", ".join(str(d) if isinstance(d, int) else getattr(d, "name", "?") for d in shape)
        + ")"
    )
