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

import ml_dtypes
import numpy as np


def _bf16_decode(raw: np.ndarray) -> np.ndarray:
    return (raw.astype(np.uint32) << 16).view(np.float32)


def _bf16_encode(values: np.ndarray) -> np.ndarray:
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    rounded = ((bits + (((bits >> 16) & 1) + 0x7FFF)) >> 16).astype(np.uint16)
    return np.where(np.isnan(values), np.uint16(0x7FC0), rounded)


class _Fp8:
    """An 8-bit float format as the 950's vector unit converts into it.

    The vendor's `Cast<fp8_e4m3fn_t|fp8_e5m2_t, float>` takes CAST_RINT only
    (asc-devkit docs `基础API/Memory矢量计算/类型转换/Cast.md`, the Ascend 950
    table) and runs `Reg::Cast` with `SatMode::SAT`
    (`impl/basic_api/dav_3510/kernel_operator_vec_vconv_impl.h`); with the
    control register as a kernel starts (`SetCtrlSpr(ISASI).md`: CTRL[60] = 1,
    global; CTRL[48] = 0, saturate; CTRL[50] = 0, NaN to 0) the conversion
    rounds f32 once, to nearest even, takes overflow and ±inf to ±max finite
    and NaN to +0 (`__asc_cvt_float2_to_fp8x2.md`, saturating column). ml_dtypes
    (and the cpu target) give NaN or inf there instead.
    """

    def __init__(self, numpy_type: type):
        self.numpy_type = numpy_type
        self.table = np.arange(256, dtype=np.uint8).view(numpy_type).astype(np.float32)
        finite = self.table[:0x80]
        self.positive = finite[np.isfinite(finite)]
        """The finite non-negative values, ascending (their codes are their indices)."""

    def decode(self, raw: np.ndarray) -> np.ndarray:
        return self.table[raw]

    def encode(self, values: np.ndarray) -> np.ndarray:
        values = np.asarray(values, dtype=np.float32)
        top = len(self.positive) - 1
        magnitude = np.minimum(np.abs(values), self.positive[-1])
        upper = np.clip(np.searchsorted(self.positive, magnitude), 1, top)
        lower = upper - 1
        below = magnitude - self.positive[lower]
        above = self.positive[upper] - magnitude
        # ties to the even code, which is the even mantissa (across binades too)
        pick_upper = (above < below) | ((above == below) & (upper % 2 == 0))
        code = np.where(pick_upper, upper, lower).astype(np.uint8)
        code = np.where(np.signbit(values), code | np.uint8(0x80), code)
        return np.where(np.isnan(values), np.uint8(0), code).astype(np.uint8)

    def from_host(self, values: np.ndarray) -> np.ndarray:
        """Host data as its bytes: exact for the format's values, NaN and inf kept."""
        return np.asarray(values, dtype=np.float32).astype(self.numpy_type).view(np.uint8)


_E4M3FN = _Fp8(ml_dtypes.float8_e4m3fn)
_E5M2 = _Fp8(ml_dtypes.float8_e5m2)


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
    """Values -> raw storage as the hardware converts them."""
    host_encode: Callable[[np.ndarray], np.ndarray] | None = None
    """Values -> raw storage as the host's numpy types hold them (None: `encode`)."""

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

    def from_host(self, values: np.ndarray) -> np.ndarray:
        """A host array of this type's values (in any dtype that holds them) as storage."""
        if self.host_encode is not None:
            return self.host_encode(values)
        return self.store(values)


def _plain(name: str, dtype: type, kind: str) -> ElementType:
    return ElementType(name, np.dtype(dtype), kind)


ELEMENT_TYPES = {
    t.name: t
    for t in (
        _plain("f16", np.float16, "float"),
        _plain("f32", np.float32, "float"),
        _plain("f64", np.float64, "float"),
        ElementType("bf16", np.dtype(np.uint16), "float", _bf16_decode, _bf16_encode),
        ElementType("f8E4M3FN", np.dtype(np.uint8), "float", _E4M3FN.decode, _E4M3FN.encode,
                    _E4M3FN.from_host),
        ElementType("f8E5M2", np.dtype(np.uint8), "float", _E5M2.decode, _E5M2.encode,
                    _E5M2.from_host),
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
