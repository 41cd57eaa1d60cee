"""Transcendental math on scalars, computed by the vector unit on one UB element.

The AI core's scalar unit has no log/exp instructions, and the vendor headers
declare no scalar form of them (`AscendC::Std` offers `sqrt` and `abs` for a few
types only), so a scalar `math.*` op goes through the UB scratch: the scalar pipe
stores the operand, the vector pipe computes it (Ln, Exp, Sqrt, Rsqrt: the same
calls as the ascend.v* ops), and the scalar pipe reads the result back. A
V -> S flag first waits for earlier vector calls that use the scratch, an S -> V
flag orders the store before the vector call, a V -> S flag the call before the
read; they use an event id that no S <-> V flag of the kernel uses (`plan`).
Base-2 forms scale on the scalar pipe, as the simulator defines them:
log2(x) = ln(x) / ln(2), exp2(x) = exp(x * ln(2)).
"""

from __future__ import annotations

import math

from mlir import ir

from tilec.backends.ascend.ascendc.base import EmitterBase
from tilec.backends.ascend.ascendc.text import keyword
from tilec.diagnostics import error

SCALAR_MATH = {"math.log": "Ln", "math.log2": "Ln", "math.exp": "Exp", "math.exp2": "Exp",
               "math.sqrt": "Sqrt", "math.rsqrt": "Rsqrt"}
"""Scalar math op -> the vector call that computes it on one element."""

_ELEMENTS = {"f32": "float", "f16": "half"}
"""Scalar types those calls take (Ln/Exp/Sqrt/Rsqrt: half and float)."""

_LN2 = repr(math.log(2.0))


class ScalarMath(EmitterBase):
    """Scalar `math.*` ops through a one-element UB tensor."""

    def scalar_math(self, op: ir.Operation) -> None:
        name = op.name
        element = str(op.results[0].type)
        if element not in _ELEMENTS:
            raise error(f"'{name}' on a {element} scalar has no AscendC form (the vector "
                        "calls take half and float)", op.location)
        if not self.on_vector_core(op):
            raise error(f"'{name}' on a scalar outside the vector core: the cube core has "
                        "no UB to compute it in", op.location)
        if self.scalar_event is None:
            raise error(f"'{name}' on a scalar needs an event id that no S <-> V flag of "
                        "the kernel uses, and none is left", op.location)
        ctype = _ELEMENTS[element]
        operand = self.value(op.operands[0])
        if name == "math.exp2":
            operand = f"({operand}) * static_cast<{ctype}>({_LN2})"
        self.marker(op, SCALAR_MATH[name])
        one = self.fresh("one")
        event = self.scalar_event
        self.line(f"LocalTensor<{ctype}> {one} = ub[{self.scratch_offset}]"
                  f".ReinterpretCast<{ctype}>();")
        self.line(f"SetFlag<HardEvent::V_S>({event});")  # earlier calls done with the scratch
        self.line(f"WaitFlag<HardEvent::V_S>({event});")
        self.line(f"{one}.SetValue(0, static_cast<{ctype}>({operand}));")
        self.line(f"SetFlag<HardEvent::S_V>({event});")
        self.line(f"WaitFlag<HardEvent::S_V>({event});")
        self.line(f"{SCALAR_MATH[name]}({one}, {one}, 1);")
        self.line(f"SetFlag<HardEvent::V_S>({event});")
        self.line(f"WaitFlag<HardEvent::V_S>({event});")
        result = f"{one}.GetValue(0)"
        if name == "math.log2":
            result = f"{result} / static_cast<{ctype}>({_LN2})"
        self.bind(op, result)

    op_math_log = op_math_log2 = op_math_exp = op_math_exp2 = scalar_math
    op_math_sqrt = op_math_rsqrt = scalar_math

    def on_vector_core(self, op: ir.Operation) -> bool:
        """Whether `op` runs on a vector core: an aiv kernel, or a mix kernel's aiv region."""
        if self.kind == "aiv":
            return True
        parent = op.parent
        while parent is not None and parent.name != "func.func":
            if parent.name == "ascend.core":
                return keyword(parent.attributes["core"]) == "aiv"
            parent = parent.parent
        return False
