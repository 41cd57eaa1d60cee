"""tile-cuda-expand-fp8-conversions: conversions from and to 8-bit floats as integer code.

LLVM IR has no 8-bit float types: NVPTX stores an f8E4M3FN or f8E5M2 as its
byte, so loads, stores, copies (cp.async, TMA) and wgmma operands of them
lower as they are. What it cannot lower is arithmetic on them: upstream
`arith-emulate-unsupported-floats`, which runs before this pass, computes
it in f32 and leaves conversions, and this pass makes each conversion (and
f8 constant) exact integer code on the byte (`arith.bitcast` between the
f8 and i8), the code tile-cpu-emulate-fp8 builds, with ml_dtypes' `astype`
semantics: f8 -> f32 is exact (f16 and bf16 from that, which hold every
f8 value), f32 -> f8 rounds to nearest even, e4m3fn's overflow is NaN, e5m2's
inf. The same code runs on every arch: sm_89's `cvt.rn.satfinite` would
saturate an overflow instead, unlike the cpu and the references.

Before:

    %y = arith.extf %x : f8E4M3FN to f32

After (schematically):

    %b = arith.bitcast %x : f8E4M3FN to i8
    %y = <tile-cpu-emulate-fp8's decode of %b> : f32
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir
from mlir.dialects import arith

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_to_cpu.emulate_fp8 import decode, encode, fp8_format
from tilec.passes.registry import Pass, emit_error, register_pass

_BYTE = 8


def _byte_type(like: ir.Type) -> ir.Type:
    return irb.with_element(like, ir.IntegerType.get_signless(_BYTE))


def _expand(op: ir.Operation) -> None:
    """Replaces conversion or constant `op` by integer code on the f8's byte."""
    result = op.results[0]
    with ir.InsertionPoint(op), op.location:
        if op.name == "arith.extf":
            source = op.operands[0]
            fmt = fp8_format(source.type)
            value = decode(arith.bitcast(_byte_type(source.type), source), fmt)
            value = irb.convert(value, irb.element_type(result.type))
        elif op.name == "arith.truncf":
            fmt = fp8_format(result.type)
            byte = encode(irb.convert(op.operands[0], ir.F32Type.get()), fmt)
            value = arith.bitcast(result.type, byte)
        else:
            attr = op.attributes["value"]
            if not isinstance(attr, ir.FloatAttr):
                raise emit_error(op, "a vector constant of 8-bit floats has no cuda lowering")
            fmt = fp8_format(result.type)
            code = np.float32(ir.FloatAttr(attr).value).astype(fmt.numpy).view(np.int8)
            byte = arith.constant(_byte_type(result.type), int(code))
            value = arith.bitcast(result.type, byte)
    result.replace_all_uses_with(value)
    op.erase()


def _conversions(func: ir.Operation) -> list[ir.Operation]:
    found = []
    for op in irb.collect(func, {"arith.extf", "arith.truncf", "arith.constant"}):
        types = [op.results[0].type, *(v.type for v in op.operands)]
        if any(fp8_format(t) is not None for t in types):
            found.append(op)
    return found


@register_pass
@dataclass(frozen=True)
class CudaExpandFp8ConversionsPass(Pass):
    """Makes conversions from and to 8-bit floats exact integer code on their bytes."""

    argument = "tile-cuda-expand-fp8-conversions"
    anchor = "func.func"
    summary = "Expand conversions from and to 8-bit floats into integer code on their bytes"

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            for conversion in _conversions(op):
                _expand(conversion)
