"""Element types: how each MLIR element type is stored in simulated memory.

Memory holds the exact bytes the hardware would hold, so types numpy lacks
(bf16, the fp8 formats) are stored as their raw bit patterns (uint16/uint8)
and converted with round-to-nearest-even whenever an op computes on them.
`i1` masks take one byte per element (the hardware packs them into bits;
nothing in the dialect addresses single bits, so only sizes differ).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np


def _bf16_decode(raw: np.ndarray) -> np.ndarray:
    return (raw.astype(np.uint32) << 16).view(np.float32)


def _bf16_encode(values: np.ndarray) -> np.ndarray:
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    rounded = ((bits + (((bits >> 16) & 1) + 0x7FFF)) >> 16).astype(np.uint16)
    return np.where(np.isnan(values), np.uint16(0x7FC0), rounded)


def _e5m2_decode(raw: np.ndarray) -> np.ndarray:
    return (raw.astype(np.uint16) << 8).view(np.float16).astype(np.float32)


def _e5m2_encode(values: np.ndarray) -> np.ndarray:
    half = np.asarray(values, dtype=np.float32).astype(np.float16)
    bits = np.ascontiguousarray(half).view(np.uint16)
    rounded = ((bits + (((bits >> 8) & 1) + 0x7F)) >> 8).astype(np.uint8)
    return np.where(np.isnan(half), np.uint8(0x7E), rounded)


def _e4m3fn_table() -> np.ndarray:
    """Values of the 256 codes of f8E4M3FN (bias 7, no infinities, S.1111.111 is NaN)."""
    codes = np.arange(256, dtype=np.uint32)
    sign = np.where(codes & 0x80, -1.0, 1.0)
    exponent = (codes >> 3) & 0xF
    mantissa = (codes & 0x7).astype(np.float64)
    normal = (1.0 + mantissa / 8.0) * np.exp2(exponent.astype(np.float64) - 7.0)
    subnormal = mantissa / 8.0 * np.exp2(-6.0)
    values = sign * np.where(exponent == 0, subnormal, normal)
    values[(codes & 0x7F) == 0x7F] = np.nan
    return values.astype(np.float32)


_E4M3FN = _e4m3fn_table()
_E4M3FN_POSITIVE = _E4M3FN[:0x7F]  # codes 0x00..0x7E, ascending


def _e4m3fn_decode(raw: np.ndarray) -> np.ndarray:
    return _E4M3FN[raw]


def _e4m3fn_encode(values: np.ndarray) -> np.ndarray:
    """Round to nearest, ties to the even code; out-of-range values saturate
    to ±448 (the format has no infinity)."""
    values = np.asarray(values, dtype=np.float32)
    magnitude = np.minimum(np.abs(values), _E4M3FN_POSITIVE[-1])
    upper = np.clip(np.searchsorted(_E4M3FN_POSITIVE, magnitude), 1, 0x7E)
    lower = upper - 1
    below = magnitude - _E4M3FN_POSITIVE[lower]
    above = _E4M3FN_POSITIVE[upper] - magnitude
    pick_upper = (above < below) | ((above == below) & (upper % 2 == 0))
    code = np.where(pick_upper, upper, lower).astype(np.uint8)
    code = np.where(np.signbit(values), code | np.uint8(0x80), code)
    return np.where(np.isnan(values), np.uint8(0x7F), code).astype(np.uint8)


@dataclasses.dataclass(frozen=True)
class ElementType:
    """An MLIR element type as the simulator stores and computes it."""

    name: str
    storage: np.dtype
    kind: str
    """'float', 'int', 'uint' or 'bool'."""
    decode: Callable[[np.ndarray], np.ndarray] | None = None
    """Raw storage -> values numpy computes with (None: storage is computable)."""
    encode: Callable[[np.ndarray], np.ndarray] | None = None

    @property
    def itemsize(self) -> int:
        return self.storage.itemsize

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def compute_dtype(self) -> np.dtype:
        return np.dtype(np.float32) if self.decode is not None else self.storage

    def values(self, raw: np.ndarray) -> np.ndarray:
        """The numbers stored in `raw` (a computable array)."""
        return raw if self.decode is None else self.decode(raw)

    def store(self, values: np.ndarray) -> np.ndarray:
        """`values` converted to this type's storage (rounding, wrapping as the hardware does)."""
        if self.encode is not None:
            return self.encode(np.asarray(values, dtype=np.float32))
        if self.kind == "bool":
            return np.asarray(values) != 0
        return np.asarray(values).astype(self.storage)


def _plain(name: str, dtype: type, kind: str) -> ElementType:
    return ElementType(name, np.dtype(dtype), kind)


ELEMENT_TYPES = {
    t.name: t
    for t in (
        _plain("f16", np.float16, "float"),
        _plain("f32", np.float32, "float"),
        _plain("f64", np.float64, "float"),
        ElementType("bf16", np.dtype(np.uint16), "float", _bf16_decode, _bf16_encode),
        ElementType("f8E4M3FN", np.dtype(np.uint8), "float", _e4m3fn_decode, _e4m3fn_encode),
        ElementType("f8E5M2", np.dtype(np.uint8), "float", _e5m2_decode, _e5m2_encode),
        _plain("i1", np.bool_, "bool"),
        _plain("i8", np.int8, "int"),
        _plain("i16", np.int16, "int"),
        _plain("i32", np.int32, "int"),
        _plain("i64", np.int64, "int"),
        _plain("ui8", np.uint8, "uint"),
        _plain("ui16", np.uint16, "uint"),
        _plain("ui32", np.uint32, "uint"),
        _plain("ui64", np.uint64, "uint"),
        _plain("index", np.int64, "int"),
    )
}


def element_type(mlir_type: object) -> ElementType | None:
    """The `ElementType` of an MLIR element type (None when the simulator has no storage for it)."""
    name = str(mlir_type)
    if name.startswith("si"):
        name = name[1:]
    return ELEMENT_TYPES.get(name)
