"""Transcendental math on scalars, computed by the vector unit on one UB element.

The AI core's scalar unit has no log/exp/tanh instructions, and the vendor headers
declare no scalar form of them (`AscendC::Std` offers `sqrt` and `abs` for a few
types only), so a scalar `math.*` op goes through the UB scratch: the scalar pipe
stores the operand, the vector pipe computes it, and the scalar pipe reads the
result back. A V -> S flag first waits for earlier vector calls that use the
scratch, an S -> V flag orders the store before the vector call, a V -> S flag
the call before the read; they use an event id that no S <-> V flag of the
kernel uses (`plan`).

Log, exp, sqrt and rsqrt are basic vector calls (Ln, Exp, Sqrt, Rsqrt: the same
as the ascend.v* ops), run in place on the element. Base-2 forms scale on the
scalar pipe, as the simulator defines them: log2(x) = ln(x) / ln(2),
exp2(x) = exp(x * ln(2)). Tanh, sin, cos and erf have no basic call: they are
advanced-API routines (`adv_api/math`, declared for arch 2201 and 3510 alike)
that take a separate destination (their operands may not overlap) and a
`sharedTmpBuffer` of UB bytes. The scratch gives them the operand's block, the
result's block and, after them, at least the minimum their tiling functions
(`Get<Op>MaxMinTmpSize`) ask for: one 256-byte repeat per intermediate buffer,
1 (f32) or 4 (f16) for tanh, 3 or 8 for sin, cos and erf. The 950's default
algorithms need none, and the buffer runs to the end of UB, which holds only
scratch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mlir import ir

from tilec.backends.ascend.ascendc.base import EmitterBase
from tilec.backends.ascend.ascendc.tables import BLOCK_BYTES, REPEAT_BYTES
from tilec.diagnostics import error


@dataclass(frozen=True)
class ScalarCall:
    """The vector call that computes one scalar math op on one element."""

    call: str
    tmp_repeats: dict[str, int] | None = None
    """Advanced API: 256-byte repeats of `sharedTmpBuffer` per element type; None for a
    basic call, which runs in place and needs none."""


SCALAR_MATH = {
    "math.log": ScalarCall("Ln"), "math.log2": ScalarCall("Ln"),
    "math.exp": ScalarCall("Exp"), "math.exp2": ScalarCall("Exp"),
    "math.sqrt": ScalarCall("Sqrt"), "math.rsqrt": ScalarCall("Rsqrt"),
    "math.tanh": ScalarCall("Tanh", {"f32": 1, "f16": 4}),
    "math.sin": ScalarCall("Sin", {"f32": 3, "f16": 8}),
    "math.cos": ScalarCall("Cos", {"f32": 3, "f16": 8}),
    "math.erf": ScalarCall("Erf", {"f32": 3, "f16": 8}),
}
"""Scalar math op -> the vector call that computes it on one element."""

_ELEMENTS = {"f32": "float", "f16": "half"}
"""Scalar types those calls take (all of them: half and float)."""

_LN2 = repr(math.log(2.0))


def scalar_math_scratch(op: ir.Operation) -> int:
    """UB scratch bytes scalar math op `op` uses: its element's block, and for an
    advanced call the result's block and the temporary buffer after them."""
    tmp = SCALAR_MATH[op.name].tmp_repeats
    if tmp is None:
        return BLOCK_BYTES
    return 2 * BLOCK_BYTES + tmp.get(str(op.results[0].type), 0) * REPEAT_BYTES


class ScalarMath(EmitterBase):
    """Scalar `math.*` ops through one-element UB tensors."""

    def scalar_math(self, op: ir.Operation) -> None:
        name = op.name
        element = str(op.results[0].type)
        if element not in _ELEMENTS:
            raise error(f"'{name}' on a {element} scalar has no AscendC form (the vector "
                        "calls take half and float)", op.location)
        if not self.on_vector_core(op):
            raise error(f"'{name}' on a scalar outside the vector core: the cube core has "
                        "no UB to compute it in", op.location)
        ctype = _ELEMENTS[element]
        spec = SCALAR_MATH[name]
        operand = self.value(op.operands[0])
        if name == "math.exp2":
            operand = f"({operand}) * static_cast<{ctype}>({_LN2})"
        self.marker(op, spec.call)
        one = self.fresh("one")
        event = self.spare_event(op, "s", "v", f"order '{name}' on a scalar")
        self.line(f"LocalTensor<{ctype}> {one} = ub[{self.scratch_offset}]"
                  f".ReinterpretCast<{ctype}>();")
        result = one
        if spec.tmp_repeats is not None:
            result = self.fresh("res")
            self.line(f"LocalTensor<{ctype}> {result} = ub[{self.scratch_offset + BLOCK_BYTES}]"
                      f".ReinterpretCast<{ctype}>();")
        self.handshake("V", "S", event)  # earlier calls done with the scratch
        self.line(f"{one}.SetValue(0, static_cast<{ctype}>({operand}));")
        self.handshake("S", "V", event)
        if spec.tmp_repeats is None:
            self.line(f"{spec.call}({one}, {one}, 1);")
        else:
            self.line(f"{spec.call}({result}, {one}, "
                      f"ub[{self.scratch_offset + 2 * BLOCK_BYTES}], 1);")
        self.handshake("V", "S", event)
        value = f"{result}.GetValue(0)"
        if name == "math.log2":
            value = f"{value} / static_cast<{ctype}>({_LN2})"
        self.bind(op, value)

    op_math_log = op_math_log2 = op_math_exp = op_math_exp2 = scalar_math
    op_math_sqrt = op_math_rsqrt = scalar_math
    op_math_tanh = op_math_sin = op_math_cos = op_math_erf = scalar_math
