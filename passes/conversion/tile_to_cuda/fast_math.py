"""tile-cuda-fast-math: exp, log, log2, tanh of cuda kernels as approximate instructions.

convert-gpu-to-nvvm already makes `math.exp2`, `math.rsqrt` and
`math.sqrt` (f32) the single `ex2.approx`, `rsqrt.approx` and
`sqrt.approx` instructions, but `math.exp`, `math.log`, `math.log2` and
`math.tanh` become libdevice's accurate (longer) sequences. Where the
kernel allows it (the op's fastmath flags include `afn`, or the pass runs
with `everywhere=true`: `tilec.compile(..., fast_math=True)`), this pass rewrites
them inside the kernels (`tile.kernel`, or `gpu.launch`/`gpu.func` bodies
once lowered) into the approximate instructions:

    exp(x)  -> exp2(x * log2(e))          (ex2.approx.f32)
    log(x)  -> lg2.approx(x) * ln(2)
    log2(x) -> lg2.approx(x)
    tanh(x) -> tanh.approx(x)             (sm_75 and later)

computed in f32 (16-bit floats are extended and truncated back). The
approximations are those of CUDA's `__expf`, `__logf`, `__log2f` and
`tanh.approx`: a few ulp, with denormal inputs kept.

Before:

    %y = math.exp %x fastmath<afn> : f32

After:

    %s = arith.mulf %x, %cst_log2e : f32
    %y = math.exp2 %s : f32
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, llvm
from mlir.dialects import math as math_dialect

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.registry import Pass, option, register_pass

# math op -> (NVVM approximate intrinsic or None for exp2, factor applied to
# the input, factor applied to the result).
_REWRITES: dict[str, tuple[str | None, float, float]] = {
    "math.exp": (None, 1 / math.log(2), 1.0),
    "math.log": ("llvm.nvvm.lg2.approx.f", 1.0, math.log(2)),
    "math.log2": ("llvm.nvvm.lg2.approx.f", 1.0, 1.0),
    # NVPTX has no tanh intrinsic; llvm.tanh with `afn` is its tanh.approx.
    "math.tanh": ("llvm.tanh", 1.0, 1.0),
}


def _allows(op: ir.Operation, everywhere: bool) -> bool:
    if everywhere:
        return True
    if "fastmath" not in op.attributes:
        return False
    flags = str(op.attributes["fastmath"])
    return "afn" in flags or "fast" in flags.replace("fastmath", "")


def _scaled(value: ir.Value, factor: float) -> ir.Value:
    if factor == 1.0:
        return value
    return arith.mulf(value, irb.constant(value.type, factor))


def _approximate(op: ir.Operation) -> ir.Value:
    """The approximate value of math op `op`, built before it."""
    intrinsic, before, after = _REWRITES[op.name]
    f32 = ir.F32Type.get()
    x = op.operands[0]
    narrow = x.type != f32
    x = irb.convert(x, f32) if narrow else x
    x = _scaled(x, before)
    if intrinsic is None:
        y = math_dialect.exp2(x)
    else:
        y = llvm.call_intrinsic(f32, intrinsic, [x], [], [],
                                fastmath_flags=ir.Attribute.parse("#llvm.fastmath<afn>"))
    y = _scaled(y, after)
    return irb.convert(y, op.results[0].type) if narrow else y


def fast_math(root: ir.Operation, everywhere: bool) -> int:
    """Rewrites the allowed scalar math ops inside kernels; their count."""
    count = 0
    for op in irb.collect(root, set(_REWRITES)):
        if irb.enclosing(op, {"tile.kernel", "gpu.launch", "gpu.func"}) is None:
            continue
        if not irb.is_float(op.results[0].type) or irb.bit_width(op.results[0].type) > 32:
            continue
        if not _allows(op, everywhere):
            continue
        with ir.InsertionPoint(op), op.location:
            value = _approximate(op)
        op.results[0].replace_all_uses_with(value)
        op.erase()
        count += 1
    return count


@register_pass
@dataclass(frozen=True)
class CudaFastMathPass(Pass):
    """exp, log, log2, tanh of cuda kernels as approximate GPU instructions, where allowed."""

    argument = "tile-cuda-fast-math"
    anchor = "func.func"
    summary = "Approximate exp/log/log2/tanh instructions in cuda kernels where allowed (afn)"

    everywhere: bool = option(False, "rewrite every such op, not only those with the afn flag")

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            fast_math(op, self.everywhere)
