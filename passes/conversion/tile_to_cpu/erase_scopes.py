"""tile-cpu-erase-scopes: drop #tile.scope memory spaces from memref types.

On cpu every scope is ordinary memory, and the LLVM lowering of memrefs
accepts only integer memory spaces. Once no tile op is left, this pass
rewrites every memref type that carries a `#tile.scope` (op results, block
arguments, function signatures) to the same memref without a memory space.

Before:

    %t = memref.alloca() : memref<64xf32, #tile.scope<shared>>

After:

    %t = memref.alloca() : memref<64xf32>
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from tilec.dialects import tile
from tilec.passes.registry import Pass, emit_error, register_pass


def _without_scope(type_: ir.Type) -> ir.Type:
    if not isinstance(type_, ir.MemRefType):
        return type_
    memref_type = ir.MemRefType(type_)
    space = memref_type.memory_space
    if not tile.is_scope_attr(space):
        return type_
    return ir.MemRefType.get(memref_type.shape, memref_type.element_type, memref_type.layout)


def _values(op: ir.Operation):
    yield from op.results
    for region in op.regions:
        for block in region.blocks:
            yield from block.arguments


@register_pass
@dataclass(frozen=True)
class CpuEraseScopesPass(Pass):
    """Rewrites memref types in #tile.scope memory spaces to plain memrefs."""

    argument = "tile-cpu-erase-scopes"
    anchor = "func.func"
    summary = "Drop #tile.scope memory spaces from memref types (cpu)"

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            ops: list[ir.Operation] = []

            def visit(inner: ir.Operation) -> ir.WalkResult:
                ops.append(inner.operation)
                return ir.WalkResult.ADVANCE

            op.walk(visit)
            for inner in ops:
                if inner.name.startswith("tile."):
                    raise emit_error(
                        inner, f"'{inner.name}' must be lowered before its scopes are erased"
                    )
                for value in _values(inner):
                    value.set_type(_without_scope(value.type))
            function_type = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            op.attributes["function_type"] = ir.TypeAttr.get(
                ir.FunctionType.get(
                    [_without_scope(t) for t in function_type.inputs],
                    [_without_scope(t) for t in function_type.results],
                )
            )
