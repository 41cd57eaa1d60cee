"""tile-cpu-outline-gemms: the gemms of a long kernel as calls of shared functions.

Each `tile.gemm` lowers to a few hundred lines of loops, and the whole
kernel ends up in one LLVM function (the body of the block loop). LLVM's
loop passes ask ScalarEvolution questions whose answers walk the chain of
dominating blocks (IndVarSimplify's comparisons, loop strength reduction,
unrolling), so their time grows with the square of the function's length:
a kernel of 64 chained 64x64x64 gemms spent 7.1 s in LLVM, 16 gemms 0.86 s
(CPU time, measured; at -O0, without those passes, 1.2 s and 0.27 s).

A function with more than `INLINE_GEMMS` gemms therefore calls them: every
gemm becomes a `func.call` of a private function holding just that gemm,
one function per distinct gemm (operand types and attributes), marked
`noinline` so that LLVM keeps it apart. The lowering then sees an ordinary
gemm in each function. A kernel's one or two gemms (a GEMM, attention's
two) stay inline: there the tile-cpu-prefetch-copies pass spreads a
pipelined loop's prefetches over the gemm's loops, which a call would hide
from it.

Before:

    tile.gemm %a, %b, %c : !a, !b, !c      // one of more than INLINE_GEMMS

After:

    func.call @tile_cpu_gemm_0(%a, %b, %c) : (!a, !b, !c) -> ()
    ...
    func.func private @tile_cpu_gemm_0(%a: !a, %b: !b, %c: !c)
        attributes {passthrough = ["noinline"]} {
      tile.gemm %a, %b, %c : !a, !b, !c
      return
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import func

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.registry import Pass, register_pass

INLINE_GEMMS = 2
"""At most this many gemms of one function are lowered in place."""

_PREFIX = "tile_cpu_gemm_"


def _signature(gemm: ir.Operation) -> str:
    """What the outlined function depends on: operand types and attributes."""
    types = ", ".join(str(value.type) for value in gemm.operands)
    attrs = ", ".join(f"{name}={gemm.attributes[name]}" for name in gemm.attributes)
    return f"({types}) {{{attrs}}}"


def _outline(gemm: ir.Operation, body: ir.Block, name: str) -> None:
    """A private function `name` in `body` that runs a clone of `gemm` on its arguments."""
    types = [value.type for value in gemm.operands]
    with ir.InsertionPoint(body), gemm.location:
        callee = func.FuncOp(name, ir.FunctionType.get(types, []), visibility="private")
        callee.attributes["passthrough"] = ir.ArrayAttr.get([ir.StringAttr.get("noinline")])
        entry = callee.add_entry_block()
        with ir.InsertionPoint(entry):
            clone = gemm.clone()
            for i, argument in enumerate(entry.arguments):
                clone.operands[i] = argument
            func.ReturnOp([])


@register_pass
@dataclass(frozen=True)
class CpuOutlineGemmsPass(Pass):
    """Calls one shared private function per distinct gemm in functions with many gemms."""

    argument = "tile-cpu-outline-gemms"
    summary = "Outline the gemms of functions with many of them into shared functions (cpu)"

    def run(self, op: ir.Operation) -> None:
        body = op.regions[0].blocks[0]
        names: dict[str, str] = {}
        with op.context, op.location:
            for function in irb.collect(op, "func.func"):
                gemms = irb.collect(function, "tile.gemm")
                if len(gemms) <= INLINE_GEMMS:
                    continue
                for gemm in gemms:
                    key = _signature(gemm)
                    if key not in names:
                        names[key] = f"{_PREFIX}{len(names)}"
                        _outline(gemm, body, names[key])
                    with ir.InsertionPoint(gemm), gemm.location:
                        func.CallOp([], names[key], list(gemm.operands))
                    gemm.erase()
