"""tile-cpu-emulate-fp8: 8-bit floats (f8E4M3FN, f8E5M2) as bytes and integer code.

LLVM IR has no 8-bit float types, so on cpu an 8-bit float is its bit
pattern in an i8: memrefs of f8 become memrefs of i8 (a numpy float8 array
is those bytes), and loads, stores, selects, broadcasts and control flow
carry the bytes unchanged. Arithmetic on f8 values (reductions too) is done
in f32 by upstream `arith-emulate-unsupported-floats` and
`math-extend-to-supported-types`, which run before this pass in
tile-to-cpu, each result rounded to f8; what they leave are the
conversions, which become exact integer code with ml_dtypes' `astype`
semantics:

- f8 -> f32 is exact: a normal number's exponent is rebiased, a subnormal
  is scaled with one exact f32 subtraction, NaN (e4m3fn 0x7F, e5m2
  0x7D-0x7F) is f32's quiet NaN and e5m2's inf is inf, each with its sign;
  f16 and f64, which hold every f8 value, are converted from that, and a
  bf16 is the top half of the f32 bits.
- f32 -> f8 rounds to nearest even: normal results by integer rounding of
  the f32 bits, subnormal ones by the f32 adder (adding a constant whose
  ulp is the format's smallest subnormal). e4m3fn has no inf, so an
  overflow or an inf gives NaN (0x7F with the sign); e5m2 overflows to inf;
  NaN gives the format's quiet NaN with its sign. f16, bf16 and f64 go
  through f32 first, as ml_dtypes does (f64 rounds twice).
- an f8 constant is its bit pattern.

An atomic add of f8 values is a compare-and-swap loop of the bytes
(`memref.generic_atomic_rmw`, whose f32 sum is rounded as above). Any other
op left with an f8 value is an error at its location.

Before:

    %x = vector.load %t[%i] : memref<32xf8E4M3FN>, vector<32xf8E4M3FN>
    %y = arith.extf %x : vector<32xf8E4M3FN> to vector<32xf32>

After (schematically):

    %x = vector.load %t[%i] : memref<32xi8>, vector<32xi8>
    %u = arith.extui %x : vector<32xi8> to vector<32xi32>
    %mag = arith.andi %u, %c127
    %normal = arith.addi (arith.shli %mag, %c20), %c120_shl_23
    %sub = bitcast(bitcast(%mag + bits(2^14)) - 2^14)  // mag * 2^-9, exact
    %bits = select(%mag < 8, %sub, %normal), NaN where %mag == 127
    %y = arith.bitcast (%bits | sign << 24) : vector<32xi32> to vector<32xf32>
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass

import ml_dtypes
import numpy as np
from mlir import ir
from mlir.dialects import arith

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.registry import Pass, emit_error, register_pass


@dataclass(frozen=True)
class _Format:
    """An 8-bit float format: sign, exponent and `mantissa` bits."""

    mantissa: int
    bias: int
    first_nan: int
    """The lowest magnitude (code without its sign) that is NaN."""
    nan: int
    """The NaN magnitude a conversion gives."""
    inf: int | None
    """The magnitude of inf, when the format has one."""
    numpy: type

    @property
    def overflow(self) -> int:
        """What a magnitude that rounds past the largest finite one gives."""
        return self.nan if self.inf is None else self.inf

    @property
    def magic(self) -> float:
        """The f32 whose ulp is the smallest subnormal: added to a magnitude
        below the smallest normal, the adder rounds it (to nearest even) to
        a whole number of subnormals, counted by the low bits of the sum."""
        return 2.0 ** (23 + 1 - self.bias - self.mantissa)

    @property
    def smallest_normal_bits(self) -> int:
        return (127 + 1 - self.bias) << 23


_FORMATS = {
    "f8E4M3FN": _Format(3, 7, 0x7F, 0x7F, None, ml_dtypes.float8_e4m3fn),
    "f8E5M2": _Format(2, 15, 0x7D, 0x7E, 0x7C, ml_dtypes.float8_e5m2),
}
_F32_SIGN_BITS = 24  # the shift between an f32's sign bit and an f8's
_F32_INF = 0x7F800000
_F32_NAN = 0x7FC00000
_F32_MAGNITUDE = 0x7FFFFFFF

# Ops that move f8 values or memrefs without looking at them: with the
# bytes in place of the floats they do the same.
_BYTE_OPS = irb.ELEMENT_AGNOSTIC | {
    "arith.select",
    "memref.generic_atomic_rmw",  # the compare-and-swap of an f8 atomic add, on the bytes
    "memref.atomic_yield",
    "memref.load",
    "memref.prefetch",  # tile-cpu-prefetch-copies of an f8 tile's source
    "memref.store",
    "vector.broadcast",
    "vector.load",
    "vector.store",
    "vector.maskedload",
    "vector.maskedstore",
}


def _f32_bits(value: float) -> int:
    return struct.unpack("<i", struct.pack("<f", value))[0]


def fp8_format(type_: ir.Type) -> _Format | None:
    """The f8 format of a scalar, vector or memref type's elements, if any."""
    if isinstance(type_, ir.ShapedType):
        type_ = ir.ShapedType(type_).element_type
    return _FORMATS.get(str(type_))


def _as_bytes(type_: ir.Type) -> ir.Type:
    """`type_` with i8 in place of its f8 elements."""
    if fp8_format(type_) is None:
        return type_
    byte = ir.IntegerType.get_signless(8)
    if isinstance(type_, ir.MemRefType):
        memref = ir.MemRefType(type_)
        return ir.MemRefType.get(memref.shape, byte, memref.layout, memref.memory_space)
    return irb.with_element(type_, byte)


class _Ints:
    """i32 and f32 constants and comparisons in the shape (scalar or
    vector) of one value."""

    def __init__(self, like: ir.Type):
        self.i32 = irb.with_element(like, ir.IntegerType.get_signless(32))
        self.f32 = irb.with_element(like, ir.F32Type.get())

    def int(self, value: int) -> ir.Value:
        return irb.constant(self.i32, value)

    def float(self, value: float) -> ir.Value:
        return irb.constant(self.f32, value)

    def below(self, a: ir.Value, bound: int) -> ir.Value:
        return arith.cmpi(arith.CmpIPredicate.ult, a, self.int(bound))

    def at_least(self, a: ir.Value, bound: int) -> ir.Value:
        return arith.cmpi(arith.CmpIPredicate.uge, a, self.int(bound))


def decode(byte: ir.Value, fmt: _Format) -> ir.Value:
    """The f32 value of the f8 bit patterns `byte` (i8, scalar or vector): exact."""
    c = _Ints(byte.type)
    code = arith.extui(c.i32, byte)
    sign = arith.shli(arith.andi(code, c.int(0x80)), c.int(_F32_SIGN_BITS))
    magnitude = arith.andi(code, c.int(0x7F))
    rebiased = c.int((127 - fmt.bias) << 23)
    normal = arith.addi(arith.shli(magnitude, c.int(23 - fmt.mantissa)), rebiased)
    # magic + magnitude ulps, less magic: magnitude subnormals, exactly.
    magic = c.float(fmt.magic)
    counted = arith.bitcast(c.f32, arith.addi(magnitude, c.int(_f32_bits(fmt.magic))))
    subnormal = arith.bitcast(c.i32, arith.subf(counted, magic))
    bits = arith.select(c.below(magnitude, 1 << fmt.mantissa), subnormal, normal)
    if fmt.inf is not None:
        is_inf = arith.cmpi(arith.CmpIPredicate.eq, magnitude, c.int(fmt.inf))
        bits = arith.select(is_inf, c.int(_F32_INF), bits)
    bits = arith.select(c.at_least(magnitude, fmt.first_nan), c.int(_F32_NAN), bits)
    return arith.bitcast(c.f32, arith.ori(bits, sign))


def encode(value: ir.Value, fmt: _Format) -> ir.Value:
    """The f8 bit patterns (i8) of the f32 `value`, rounded to nearest even."""
    c = _Ints(value.type)
    bits = arith.bitcast(c.i32, value)
    magnitude = arith.andi(bits, c.int(_F32_MAGNITUDE))
    # Normal results: round the dropped mantissa bits to nearest even, then
    # rebias the exponent; a carry rounds into the next binade, and past the
    # largest finite magnitude (or from inf) into the overflow code.
    shift = 23 - fmt.mantissa
    odd = arith.andi(arith.shrui(magnitude, c.int(shift)), c.int(1))
    rounded = arith.addi(magnitude, arith.addi(odd, c.int((1 << (shift - 1)) - 1)))
    rebiased = arith.subi(
        arith.shrui(rounded, c.int(shift)), c.int((127 - fmt.bias) << fmt.mantissa)
    )
    normal = arith.minui(rebiased, c.int(fmt.overflow))
    # Subnormal results (up to the smallest normal, where rounding may end).
    summed = arith.addf(arith.bitcast(c.f32, magnitude), c.float(fmt.magic))
    subnormal = arith.subi(arith.bitcast(c.i32, summed), c.int(_f32_bits(fmt.magic)))
    code = arith.select(c.below(magnitude, fmt.smallest_normal_bits), subnormal, normal)
    code = arith.select(c.at_least(magnitude, _F32_INF + 1), c.int(fmt.nan), code)
    sign = arith.andi(arith.shrui(bits, c.int(_F32_SIGN_BITS)), c.int(0x80))
    return arith.trunci(
        irb.with_element(value.type, ir.IntegerType.get_signless(8)), arith.ori(code, sign)
    )


# An element of an f8 constant as MLIR prints it: decimal where that reads
# back as the same value, else the bit pattern in hex.
_ELEMENT = re.compile(r"0x[0-9A-Fa-f]+|[-+]?[0-9][0-9.]*(?:e[-+]?[0-9]+)?")


def _constant_bytes(op: ir.Operation, fmt: _Format) -> ir.Value:
    """An f8 `arith.constant` as the i8 constant of its bit patterns."""
    attr = op.attributes["value"]
    text = str(attr).rsplit(" : ", 1)[0]
    codes = []
    for element in _ELEMENT.findall(text):
        if element.startswith("0x"):
            codes.append(int(element, 16))
        else:
            codes.append(int(np.float32(element).astype(fmt.numpy).view(np.uint8)))
    signed = np.array(codes, np.uint8).view(np.int8)
    type_ = _as_bytes(op.results[0].type)
    if not isinstance(type_, ir.VectorType):
        return arith.constant(type_, ir.IntegerAttr.get(type_, int(signed[0])))
    shape = ir.VectorType(type_).shape
    values = np.broadcast_to(signed, shape) if len(codes) == 1 else signed.reshape(shape)
    return arith.constant(type_, ir.DenseElementsAttr.get(np.ascontiguousarray(values), type=type_))


@dataclass(frozen=True)
class _Conversion:
    """An op to rewrite once the f8 values are bytes: an extf from f8, a
    truncf to f8 or an f8 constant."""

    op: ir.Operation
    fmt: _Format


def _planned(op: ir.Operation) -> _Conversion | None:
    """What `op` becomes; raises at `op` when it has f8 values and no meaning on bytes."""
    values = [*op.operands, *irb.defined_values(op)]
    formats = [f for f in map(fp8_format, (v.type for v in values)) if f is not None]
    if not formats or op.name in _BYTE_OPS:
        return None
    if op.name in ("arith.extf", "arith.truncf", "arith.constant"):
        return _Conversion(op, formats[0])
    raise emit_error(
        op,
        f"'{op.name}' on 8-bit float values has no cpu lowering "
        "(8-bit floats are bytes on cpu: convert them to float32 to compute)",
    )


def _from_f32(value: ir.Value, element: ir.Type) -> ir.Value:
    """The f32 `value` of an f8 as `element`, which holds it exactly: a bf16
    is the top half of its bits (NaN keeps its sign, which the rounding
    truncf of bf16 drops)."""
    if not isinstance(element, ir.BF16Type):
        return irb.convert(value, element)
    c = _Ints(value.type)
    top = arith.shrui(arith.bitcast(c.i32, value), c.int(16))
    half = arith.trunci(irb.with_element(value.type, ir.IntegerType.get_signless(16)), top)
    return arith.bitcast(irb.with_element(value.type, element), half)


def _rewrite(conversion: _Conversion) -> None:
    op, fmt = conversion.op, conversion.fmt
    with ir.InsertionPoint(op), op.location:
        if op.name == "arith.constant":
            result = _constant_bytes(op, fmt)
        elif op.name == "arith.extf":
            result = _from_f32(decode(op.operands[0], fmt), irb.element_type(op.results[0].type))
        else:
            result = encode(irb.convert(op.operands[0], ir.F32Type.get()), fmt)
    op.results[0].replace_all_uses_with(result)
    op.erase()


@register_pass
@dataclass(frozen=True)
class CpuEmulateFp8Pass(Pass):
    """Stores 8-bit floats as bytes and converts them with exact integer code."""

    argument = "tile-cpu-emulate-fp8"
    anchor = "func.func"
    summary = "Store 8-bit floats as bytes and convert them with exact integer code (cpu)"

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            conversions = [c for c in map(_planned, irb.every_op(op)) if c is not None]
            irb.retype(op, _as_bytes)
            for conversion in conversions:
                _rewrite(conversion)
