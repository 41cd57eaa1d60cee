"""tile-cpu-expand-exp: math.exp and math.exp2 to polynomial arith code.

LLVM lowers `math.exp` to a call of libm's `expf`, which its loop
vectorizer cannot widen without a vector math library, so one exponential
in a `tile.parallel` body (softmax, attention) keeps the whole loop scalar.
This pass replaces each f32 exp/exp2 (f16 and bf16 through f32) with
straight-line arith that vectorizes: Cody-Waite range reduction
`x = n ln2 + r`, |r| <= ln2/2, Cephes' degree-6 polynomial for e^r (about
1 ulp), and the scale 2^n built from exponent bits in two halves so that
results overflow to inf and underflow through the subnormals to 0 like
libm's. NaN stays NaN.

Before:

    %y = math.exp %x : f32

After (schematically):

    %n = math.floor (clamp(%x) * log2(e) + 0.5)
    %r = %x - %n * ln2                      // two fmas, ln2 split in hi + lo
    %p = 1 + r + r^2 * poly(r)              // math.fma chain
    %y = (%p * bitcast((n/2 + 127) << 23)) * bitcast((n - n/2 + 127) << 23)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith
from mlir.dialects import math as math_dialect

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.registry import Pass, register_pass

# Cephes expf: e^r ~ 1 + r + r^2 * (P0 + P1 r + ... + P5 r^5) on |r| <= ln2/2.
_POLYNOMIAL = (
    1.9875691500e-4,
    1.3981999507e-3,
    8.3334519073e-3,
    4.1665795894e-2,
    1.6666665459e-1,
    5.0000001201e-1,
)
# ln 2 = LN2_HI + LN2_LO, LN2_HI exact in 9 bits so n * LN2_HI is exact.
_LN2_HI = 0.693359375
_LN2_LO = -2.12194440e-4
# Inputs are clamped where e^x is already 0 or inf in f32 (with margin), so
# n fits the two-step scale and r stays small.
_EXP_LIMITS = (-176.0, 177.0)
_EXP2_LIMITS = (-254.0, 256.0)
_SUPPORTED = ("f32", "f16", "bf16")


class _Builder:
    """Constants and ops on f32 (or vector of f32) values of one shape."""

    def __init__(self, like: ir.Type):
        self.float_type = like
        self.int_type = irb.with_element(like, ir.IntegerType.get_signless(32))

    def const(self, value: float) -> ir.Value:
        return self._splat(self.float_type, ir.FloatAttr.get(ir.F32Type.get(), value))

    def int_const(self, value: int) -> ir.Value:
        i32 = ir.IntegerType.get_signless(32)
        return self._splat(self.int_type, ir.IntegerAttr.get(i32, value))

    @staticmethod
    def _splat(type_: ir.Type, attr: ir.Attribute) -> ir.Value:
        if isinstance(type_, ir.VectorType):
            return arith.constant(type_, ir.DenseElementsAttr.get_splat(type_, attr))
        return arith.constant(type_, attr)

    def clamp(self, x: ir.Value, low: float, high: float) -> ir.Value:
        # maxnum/minnum return the number when one side is NaN, so the
        # integer code below never sees NaN (its result is replaced anyway).
        return arith.minnumf(arith.maxnumf(x, self.const(low)), self.const(high))

    def fma(self, a: ir.Value, b: ir.Value, c: ir.Value) -> ir.Value:
        return math_dialect.fma(a, b, c)

    def scale(self, p: ir.Value, n: ir.Value) -> ir.Value:
        """p * 2^n for an integer-valued float n in [-254, 256]: two factors
        made of exponent bits (each half within the f32 exponent range),
        applied one after the other so that only the result can overflow."""
        exponent = arith.fptosi(self.int_type, n)
        half = arith.shrsi(exponent, self.int_const(1))
        rest = arith.subi(exponent, half)
        return arith.mulf(arith.mulf(p, self._bits(half)), self._bits(rest))

    def _bits(self, exponent: ir.Value) -> ir.Value:
        biased = arith.addi(exponent, self.int_const(127))
        return arith.bitcast(self.float_type, arith.shli(biased, self.int_const(23)))

    def exp_of_reduced(self, r: ir.Value) -> ir.Value:
        """e^r for |r| <= ln2/2."""
        poly = self.const(_POLYNOMIAL[0])
        for coefficient in _POLYNOMIAL[1:]:
            poly = self.fma(poly, r, self.const(coefficient))
        r_squared = arith.mulf(r, r)
        return self.fma(poly, r_squared, arith.addf(r, self.const(1.0)))


def expand(name: str, x: ir.Value) -> ir.Value:
    """e^x (`math.exp`) or 2^x (`math.exp2`) of an f32 scalar or vector."""
    b = _Builder(x.type)
    if name == "math.exp":
        clamped = b.clamp(x, *_EXP_LIMITS)
        n = math_dialect.floor(b.fma(clamped, b.const(1.0 / math.log(2.0)), b.const(0.5)))
        minus_n = arith.negf(n)
        r = b.fma(minus_n, b.const(_LN2_HI), clamped)
        r = b.fma(minus_n, b.const(_LN2_LO), r)
    else:
        clamped = b.clamp(x, *_EXP2_LIMITS)
        n = math_dialect.floor(arith.addf(clamped, b.const(0.5)))
        r = arith.mulf(arith.subf(clamped, n), b.const(math.log(2.0)))
    result = b.scale(b.exp_of_reduced(r), n)
    is_nan = arith.cmpf(arith.CmpFPredicate.UNO, x, x)
    return arith.select(is_nan, x, result)


@register_pass
@dataclass(frozen=True)
class CpuExpandExpPass(Pass):
    """Expands f32/f16/bf16 math.exp and math.exp2 into vectorizable arith."""

    argument = "tile-cpu-expand-exp"
    anchor = "func.func"
    summary = "Expand math.exp/exp2 into polynomial arith code that vectorizes (cpu)"

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            for target in irb.collect(op, {"math.exp", "math.exp2"}):
                value = target.operands[0]
                element = irb.element_type(value.type)
                if str(element) not in _SUPPORTED:
                    continue
                with ir.InsertionPoint(target), target.location:
                    wide = irb.convert(value, ir.F32Type.get())
                    result = irb.convert(expand(target.name, wide), element)
                target.results[0].replace_all_uses_with(result)
                target.erase()
