"""Run-time byte offsets of tile-ascend-inject-sync, as linear forms of SSA values.

A DMA into GM at an offset computed from a loop variable (`%row = %i * 32`)
has no static byte range, and taken as "any byte of the tensor" it conflicts
with every other access of that tensor: a store per iteration would then wait
for the store before it (a `pipe_barrier mte3`), which the hardware does not
need when the two write different rows. So such an access also keeps its first
byte as `const + sum(coeff * atom)` over the SSA values it is computed from
(`arith.addi/subi`, `arith.muli` by a constant), and the number of bytes from
there it may touch. Two instances of such accesses are disjoint when:

- in the same iteration of every loop around both, every atom has one value
  in both, and the forms differ by a constant at least the earlier's span
  (or the later's, the other way round);
- in different iterations of a loop L (the outermost one whose iterations
  differ), every atom is L's induction variable or defined outside L, the
  variable has the same coefficient a in both, and the difference
  a * k * step + c is past either span for every k >= 1 (the step of an
  `scf.for` is positive: at least its value when constant, else 1). A loop
  that provably runs at most once (a constant upper bound no more than one
  step above a lower bound that is a constant or a block index) has no such
  pairs.

Anything else (an atom defined in a loop around only one of the two, a
coefficient that does not cancel) is a possible overlap: conservative.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

from mlir import ir

_NON_NEGATIVE = frozenset({"ascend.block_idx", "ascend.sub_block_idx"})


@dataclasses.dataclass(frozen=True, eq=False)
class Symbolic:
    """The bytes [first, first + span) of an access, `first` = const + sum(coeff * atom)."""

    terms: Mapping[ir.Value, int]
    const: int
    span: int


def constant(value: ir.Value) -> int | None:
    """The value of an integer `arith.constant` (None: not one)."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    op = owner.operation
    if op.name == "arith.constant" and isinstance(op.attributes["value"], ir.IntegerAttr):
        return ir.IntegerAttr(op.attributes["value"]).value
    return None


def linear(value: ir.Value) -> tuple[dict[ir.Value, int], int]:
    """`value` as (coefficient of each atom, constant)."""
    known = constant(value)
    if known is not None:
        return {}, known
    owner = value.owner
    if not isinstance(owner, ir.Block):
        op = owner.operation
        if op.name in ("arith.addi", "arith.subi"):
            (ta, ca), (tb, cb) = (linear(v) for v in op.operands)
            sign = 1 if op.name == "arith.addi" else -1
            terms = dict(ta)
            for atom, coeff in tb.items():
                terms[atom] = terms.get(atom, 0) + sign * coeff
            return {a: c for a, c in terms.items() if c}, ca + sign * cb
        if op.name == "arith.muli":
            for factor, other in ((op.operands[0], op.operands[1]),
                                  (op.operands[1], op.operands[0])):
                scale = constant(factor)
                if scale is not None:
                    terms, const = linear(other)
                    return {a: c * scale for a, c in terms.items() if c * scale}, const * scale
    return {value: 1}, 0


@dataclasses.dataclass(frozen=True)
class Relation:
    """How two instances of ops relate: `carried` is the outermost loop in whose
    different iterations they run (None: the same iteration of every loop around
    both); `fixed` says whether an atom has one value in both."""

    carried: ir.Operation | None
    fixed: Callable[[ir.Value], bool]

    def disjoint(self, earlier: Symbolic, later: Symbolic) -> bool:
        loop = self.carried
        if loop is not None and loop.name == "scf.for" and _at_most_once(loop):
            return True
        # a while has no induction variable: its atoms must be fixed too
        iv = loop.regions[0].blocks[0].arguments[0] if loop is not None \
            and loop.name == "scf.for" else None
        slope = 0
        for atom in {*earlier.terms, *later.terms}:
            a, b = earlier.terms.get(atom, 0), later.terms.get(atom, 0)
            if iv is not None and atom == iv:
                if a != b:
                    return False
                slope = a
            elif a != b or not self.fixed(atom):
                return False
        # later - earlier = slope * k * step + gap, k >= 1 (k = 0: the same iteration)
        gap = later.const - earlier.const
        if slope == 0:
            return gap >= earlier.span or -gap >= later.span
        step = constant(loop.operands[2])
        nearest = slope * (1 if step is None else step) + gap
        return nearest >= earlier.span if slope > 0 else -nearest >= later.span


def _at_most_once(loop: ir.Operation) -> bool:
    lower, upper, step = loop.operands[:3]
    top, first, stride = constant(upper), constant(lower), constant(step)
    if first is None and not isinstance(lower.owner, ir.Block) and \
            lower.owner.operation.name in _NON_NEGATIVE:
        first = 0
    if top is None or first is None:
        return False
    return top - first <= (1 if stride is None else stride)
