"""Element types of the DSL, named as in TileLang ("float16", T.float32, ...).

A `DType` is the DSL's view of an MLIR element type plus what the semantic
rules need to know about it: is it a float, a signed or unsigned integer,
`index` (the type of block indices, loop variables and sizes) or a boolean
(comparisons). Unsigned integers are MLIR's signless integers too; their
dtype decides which arith ops (divui, cmpi ult, extui, ...) act on them.
TileLang's and torch's other names for the same types ("float", "half",
"float8_e4m3fn", ...) are aliases.
Calling a dtype converts a value (`T.float32(x)`), by the semantic rule of
T.cast, which `DType.__call__` reaches through `syntax` (the semantic layer
imports this module). Calling the class, `T.dtype(x)` as TileLang writes it,
gives the DType a name, numpy dtype or torch dtype stands for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
from mlir import ir

from . import syntax
from .errors import DSLError
from .source import caller_loc, dsl_api

Kind = Literal["float", "int", "uint", "index", "bool"]


class _DTypeClass(type):
    """`T.dtype(x)` (one argument) is the DType `x` names: TileLang's conversion of a
    name, a dtype object, or a numpy or torch dtype."""

    def __call__(cls, *args: object) -> DType:
        if len(args) != 1:
            return super().__call__(*args)
        dtype = parse_dtype(args[0])
        if dtype is None:
            raise DSLError(
                f"T.dtype: unknown dtype {args[0]!r}; expected one of {', '.join(BY_NAME)}",
                caller_loc(),
            )
        return dtype


@dataclass(frozen=True, eq=False)
class DType(metaclass=_DTypeClass):
    name: str
    kind: Kind
    bits: int

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_integer(self) -> bool:
        """Integers and `index`: the types integer arithmetic and subscripts accept."""
        return self.kind in ("int", "uint", "index")

    @property
    def is_unsigned(self) -> bool:
        return self.kind == "uint"

    @property
    def int_range(self) -> tuple[int, int]:
        """The least and greatest value of an integer, index or bool type.

        `index` is signed and 64-bit like the sizes and attributes of the tile
        dialect.
        """
        assert not self.is_float, "float types have no integer range"
        if self.kind == "bool":
            return 0, 1
        if self.kind == "uint":
            return 0, 2**self.bits - 1
        half = 2 ** (self.bits - 1)
        return -half, half - 1

    def mlir_type(self) -> ir.Type:
        return _MLIR_TYPES[self.name]()

    def __str__(self) -> str:
        return self.name

    def __eq__(self, other: object) -> bool:
        """Equal to the same DType and, as TileLang's dtype objects are, to its names
        (`T.float16 == "float16"`, `T.float32 == "float"`)."""
        if isinstance(other, str):
            other = BY_NAME.get(other) or ALIASES.get(other)
        return isinstance(other, DType) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    @dsl_api
    def __call__(self, x: object) -> object:
        """`T.float32(x)`: `x` converted to this dtype, as `T.cast(x, T.float32)` does."""
        return syntax.rules().cast(x, self)


float16 = DType("float16", "float", 16)
bfloat16 = DType("bfloat16", "float", 16)
float32 = DType("float32", "float", 32)
float64 = DType("float64", "float", 64)
float8_e4m3 = DType("float8_e4m3", "float", 8)
float8_e5m2 = DType("float8_e5m2", "float", 8)
int8 = DType("int8", "int", 8)
int16 = DType("int16", "int", 16)
int32 = DType("int32", "int", 32)
int64 = DType("int64", "int", 64)
uint8 = DType("uint8", "uint", 8)
uint16 = DType("uint16", "uint", 16)
uint32 = DType("uint32", "uint", 32)
uint64 = DType("uint64", "uint", 64)
boolean = DType("bool", "bool", 1)
index = DType("index", "index", 64)

_MLIR_TYPES: dict[str, Callable[[], ir.Type]] = {
    "float16": ir.F16Type.get,
    "bfloat16": ir.BF16Type.get,
    "float32": ir.F32Type.get,
    "float64": ir.F64Type.get,
    "float8_e4m3": ir.Float8E4M3FNType.get,
    "float8_e5m2": ir.Float8E5M2Type.get,
    "int8": lambda: ir.IntegerType.get_signless(8),
    "int16": lambda: ir.IntegerType.get_signless(16),
    "int32": lambda: ir.IntegerType.get_signless(32),
    "int64": lambda: ir.IntegerType.get_signless(64),
    "uint8": lambda: ir.IntegerType.get_signless(8),
    "uint16": lambda: ir.IntegerType.get_signless(16),
    "uint32": lambda: ir.IntegerType.get_signless(32),
    "uint64": lambda: ir.IntegerType.get_signless(64),
    "bool": lambda: ir.IntegerType.get_signless(1),
    "index": ir.IndexType.get,
}

BY_NAME: dict[str, DType] = {
    d.name: d
    for d in (
        float16,
        bfloat16,
        float32,
        float64,
        float8_e4m3,
        float8_e5m2,
        int8,
        int16,
        int32,
        int64,
        uint8,
        uint16,
        uint32,
        uint64,
        boolean,
    )
}

# TileLang's (and torch's, C's) other names for the dtypes above.
ALIASES: dict[str, DType] = {
    "float": float32,
    "half": float16,
    "double": float64,
    "short": int16,
    "int": int32,
    "long": int64,
    "uint": uint32,
    "ulong": uint64,
    "float8_e4m3fn": float8_e4m3,
}


def parse_dtype(value: object) -> DType | None:
    """The DType `value` names (a DType, a name such as "float16", a numpy dtype or
    scalar type, a torch dtype), or None."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        return BY_NAME.get(value) or ALIASES.get(value)
    if type(value).__module__ == "torch":  # torch.float16 prints as "torch.float16"
        return parse_dtype(str(value).removeprefix("torch."))
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return parse_dtype(np.dtype(value).name)
    return None
