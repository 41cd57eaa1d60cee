"""The element types each vector call of AscendC takes, per profile.

The lowering reads these tables to choose a form the call can run (or to say at
the user's line that there is none), and the emitter checks every call against
them, so no source it writes stops at a `static_assert` of the vendor's headers or
calls an instruction the hardware does not have. The calls are the count-mode
(level 2) forms the emitter writes. Sources, in the public AscendC devkit:
arch 2201 (910b) `impl/basic_api/dav_c220/kernel_operator_vec_*_impl.h`, where
most count-mode calls only check their type in debug builds, so the tables keep
the documented types (the `SupportType` lists of each call); arch 3510 (950)
`impl/basic_api/dav_3510/kernel_operator_vec_*_impl.h` (`*_continuous_impl.h`
for the binary ones), whose `static_assert` lists are the tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

VBIN = MappingProxyType({"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "max": "Max",
                         "min": "Min"})
"""The call of each `ascend.vbin` kind."""
VBINS = MappingProxyType({"adds": "Adds", "muls": "Muls", "maxs": "Maxs", "mins": "Mins"})
VUNARY = MappingProxyType({"exp": "Exp", "ln": "Ln", "abs": "Abs", "sqrt": "Sqrt",
                           "rsqrt": "Rsqrt", "relu": "Relu", "rec": "Reciprocal",
                           "neg": "Muls"})
"""The call of each `ascend.vunary` kind (a negation multiplies by -1)."""
REDUCE = MappingProxyType({"sum": "ReduceSum", "max": "ReduceMax", "min": "ReduceMin"})
PAIRED_BYTES = frozenset({"i8", "ui8", "i1"})
"""8-bit types a Duplicate that does not take them writes as 16-bit pairs (an even count)."""

_F = frozenset({"f16", "f32"})
_HALF_FLOAT_I16_I32 = _F | {"i16", "i32"}
_BYTES = frozenset({"i8", "ui8"})
_WIDE = frozenset({"i64"})

_910B: dict[str, frozenset[str]] = {
    # dav_c220/kernel_operator_vec_binary_impl.h (Add L34, Sub L94, Mul L153, Div L212,
    # Max L270, Min L330)
    "Add": _HALF_FLOAT_I16_I32, "Sub": _HALF_FLOAT_I16_I32, "Mul": _HALF_FLOAT_I16_I32,
    "Div": _F, "Max": _HALF_FLOAT_I16_I32, "Min": _HALF_FLOAT_I16_I32,
    # dav_c220/kernel_operator_vec_binary_scalar_impl.h (static_assert, L34-L216)
    "Adds": _HALF_FLOAT_I16_I32, "Muls": _HALF_FLOAT_I16_I32,
    "Maxs": _HALF_FLOAT_I16_I32, "Mins": _HALF_FLOAT_I16_I32,
    # dav_c220/kernel_operator_vec_unary_impl.h (L31-L114)
    "Exp": _F, "Ln": _F, "Abs": _F, "Sqrt": _F, "Rsqrt": _F, "Reciprocal": _F,
    "Relu": _F | {"i32"},
    # dav_c220/kernel_operator_vec_duplicate_impl.h L27-35: a static_assert, no 8-bit type
    "Duplicate": _F | {"bf16", "i16", "i32"},
    # dav_c220/kernel_operator_vec_cmpsel_impl.h L165: half / float (no vsel of integers)
    "Select": _F,
    # kernel_operator_vec_reduce_intf_impl.h: ReduceMax/Min/Sum take half / float
    "ReduceSum": _F, "ReduceMax": _F, "ReduceMin": _F,
    # dav_c220/kernel_operator_vec_cmp_impl.h L178-200 (int32 only for EQ; not used)
    "Compare": _F,
    # dav_c220/kernel_operator_vec_brcb_impl.h L34
    "Brcb": _F | {"bf16", "i16", "i32"},
}

_950: dict[str, frozenset[str]] = {
    # dav_3510/kernel_operator_vec_binary_continuous_impl.h (Add L77, Sub L96, Mul L118,
    # Div L141, Max L195, Min L217)
    "Add": _HALF_FLOAT_I16_I32 | _BYTES | _WIDE | {"bf16"},
    "Sub": _HALF_FLOAT_I16_I32 | _BYTES | _WIDE | {"bf16"},
    "Mul": _HALF_FLOAT_I16_I32 | _WIDE | {"bf16"},
    "Div": _HALF_FLOAT_I16_I32 | _WIDE,
    "Max": _HALF_FLOAT_I16_I32 | _BYTES | _WIDE | {"bf16"},
    "Min": _HALF_FLOAT_I16_I32 | _BYTES | _WIDE | {"bf16"},
    # dav_3510/kernel_operator_vec_binary_scalar_impl.h (count form: Adds L244, Muls L299,
    # Maxs L341, Mins L383)
    "Adds": _HALF_FLOAT_I16_I32 | _BYTES | {"bf16", "i64"},
    "Muls": _HALF_FLOAT_I16_I32 | {"bf16", "i64"},
    "Maxs": _HALF_FLOAT_I16_I32 | _BYTES | {"bf16", "i64"},
    "Mins": _HALF_FLOAT_I16_I32 | _BYTES | {"bf16", "i64"},
    # dav_3510/kernel_operator_vec_unary_impl.h (count form, L568-L718)
    "Exp": _F, "Ln": _F, "Sqrt": _F, "Rsqrt": _F, "Reciprocal": _F | {"i64"},
    "Abs": _HALF_FLOAT_I16_I32 | {"i8", "i64"}, "Relu": _F | {"i32", "i64"},
    # dav_3510/kernel_operator_vec_duplicate_impl.h L24-35 (count form)
    "Duplicate": _HALF_FLOAT_I16_I32 | _BYTES | _WIDE | {"bf16", "i1", "f8E4M3FN", "f8E5M2"},
    # dav_3510/kernel_operator_vec_sel_impl.h L1059-1439 (count form)
    "Select": _HALF_FLOAT_I16_I32 | _BYTES | _WIDE | {"bf16"},
    # dav_3510/kernel_operator_vec_reduce_impl.h (ReduceSum L738, ReduceMax L1082,
    # ReduceMin L1217)
    "ReduceSum": _F | {"i32", "i64"},
    "ReduceMax": _HALF_FLOAT_I16_I32 | _WIDE, "ReduceMin": _HALF_FLOAT_I16_I32 | _WIDE,
    # dav_3510/kernel_operator_vec_compare_continuous_impl.h L277-282
    "Compare": _HALF_FLOAT_I16_I32 | _BYTES | _WIDE | {"bf16"},
    # dav_3510/kernel_operator_vec_brcb_impl.h L102-118: any 1, 2, 4 or 8-byte type
    "Brcb": _HALF_FLOAT_I16_I32 | _BYTES | _WIDE | {"bf16", "i1"},
}

VECTOR_CALL_DTYPES: Mapping[str, Mapping[str, frozenset[str]]] = MappingProxyType(
    {"910b": MappingProxyType(_910B), "950": MappingProxyType(_950)})
"""Per profile: AscendC vector call -> the element types it takes (tilec's names)."""


LOADED_AS_BYTES: Mapping[str, frozenset[str]] = MappingProxyType({
    "910b": frozenset(),
    # dav_3510/kernel_operator_mm_impl.h: LoadData with LoadData2DParams (L68-92) and
    # LoadDataWithTranspose (L271-294) take no fp8 type (a static_assert)
    "950": frozenset({"f8E4M3FN", "f8E5M2"}),
})
"""Per profile: element types the L1 -> L0 loads move as uint8_t, the same bytes."""


FP8 = frozenset({"f8E4M3FN", "f8E5M2"})


def cast_problem(source: str, target: str) -> str | None:
    """Why one Cast cannot convert `source` to `target` (None: it can, as far as fp8
    goes): the vendor's Cast converts an fp8 type from and to float only
    (docs `基础API/Memory矢量计算/类型转换/Cast.md`, the Ascend 950 table;
    `dav_3510/kernel_operator_vec_vconv_impl.h`, `cast_rint` and `cast_none`)."""
    if (source in FP8 or target in FP8) and "f32" not in (source, target):
        return f"AscendC's Cast converts fp8 from and to f32 only, not {source} to {target}"
    return None


def duplicate_problem(profile: str, element: str, count: int) -> str | None:
    """Why a Duplicate of `count` `element`s cannot be written on `profile` (None: it can,
    as 16-bit pairs of 8-bit values where the call takes no 8-bit type)."""
    problem = vector_call_problem(profile, "Duplicate", element)
    if problem is None or (element in PAIRED_BYTES and count % 2 == 0):
        return None
    if element in PAIRED_BYTES:
        return f"{problem}, and {count} elements are not whole 16-bit pairs"
    return problem


def vector_call_problem(profile: str, call: str, element: str) -> str | None:
    """Why `call` cannot run on `element` tiles on `profile` (None: it can)."""
    taken = VECTOR_CALL_DTYPES[profile].get(call)
    if taken is None or element in taken:
        return None
    return (f"AscendC's {call} on the {profile} takes {', '.join(sorted(taken))}, "
            f"not {element}")
