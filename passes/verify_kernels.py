"""tile-verify-kernels: structural rules of tile programs that no single op
verifier can see, and what a target accepts.

The op verifiers check each op alone; this pass checks where ops stand
(tile ops belong inside a `tile.kernel`) and, with `target`, what the
target's description (`tilec.targets`) allows: its scopes, the element
types of its tensors and tiles, its block and grid limits and the size of
a tile one block can hold.

Example (fails with `target=cuda`):

    tile.kernel blocks(%bx) in (%n) threads = 100 { ... }
    // error: expected a thread count that is a multiple of 32 and at most 1024
    //        on cuda:sm_80 but got 100
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from tilec.dialects import tile
from tilec.passes.conversion.ir_builders import bit_width, constant_int
from tilec.passes.registry import Pass, PassFailure, option, register_pass
from tilec.targets import TargetDescription, get_target

# Ops that only make sense inside a kernel body (they touch on-chip tiles or
# synchronize the threads of one block).
_KERNEL_ONLY = {
    "tile.alloc",
    "tile.copy",
    "tile.gemm",
    "tile.reduce",
    "tile.cumsum",
    "tile.parallel",
    "tile.pipelined",
    "tile.barrier",
    "tile.atomic_add",
}


def check_target_spec(text: str) -> None:
    """Accepts `any` or a target spec; raises ValueError naming the targets."""
    if text != "any":
        get_target(text)


@register_pass
@dataclass(frozen=True)
class VerifyKernelsPass(Pass):
    """Checks kernel structure and, with `target`, what that target accepts."""

    argument = "tile-verify-kernels"
    summary = "Check that tile ops stand inside kernels and fit the chosen target"

    target: str = option(
        "any",
        "the target whose rules apply: cpu, cuda:sm_90a, ascend:950, ... (any: structure only)",
        check_target_spec,
    )

    def run(self, op: ir.Operation) -> None:
        target = None if self.target == "any" else get_target(self.target)
        failed = False
        for inner, in_kernel in _walk_with_kernel_flag(op, in_kernel=False):
            found = _structure_violations(inner, in_kernel)
            if target is not None:
                found += _target_violations(inner, target)
            for message in found:
                inner.location.emit_error(message)
                failed = True
        if failed:
            raise PassFailure(self.argument)


def _structure_violations(op: ir.Operation, in_kernel: bool) -> list[str]:
    name = op.name
    if name in _KERNEL_ONLY and not in_kernel:
        return [f"'{name}' must be inside a 'tile.kernel'"]
    if name in ("tile.fill", "tile.clear") and not in_kernel:
        dst_scope = _scope(op.operands[0].type)
        if dst_scope is not None and dst_scope is not tile.Scope.global_:
            return [f"'{name}' of a {dst_scope} tile must be inside a 'tile.kernel'"]
    return []


def _target_violations(op: ir.Operation, target: TargetDescription) -> list[str]:
    found: list[str] = []
    # Each value is checked where it is defined, so a bad tensor is reported
    # once, not at every use.
    values = list(op.results)
    for region in op.regions:
        for block in region.blocks:
            values.extend(block.arguments)
    for value in values:
        scope = _scope(value.type)
        if scope is None:
            continue
        memref = ir.MemRefType(value.type)
        problem = target.scope_violation(scope) or target.element_violation(
            str(memref.element_type)
        )
        if problem is not None:
            found.append(problem)
            break
    if op.name == "tile.alloc":
        memref = ir.MemRefType(op.results[0].type)
        size_problem = target.tile_violation(
            tile.scope_of(memref), list(memref.shape), bit_width(memref.element_type)
        )
        if size_problem is not None:
            found.append(size_problem)
    if op.name == "tile.kernel":
        threads = ir.IntegerAttr(op.attributes["threads"]).value
        grid = [constant_int(v) for v in op.operands]
        found.extend(target.kernel_violations(threads, grid))
    return found


def _walk_with_kernel_flag(op: ir.Operation, in_kernel: bool):
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                child = child.operation
                yield child, in_kernel
                yield from _walk_with_kernel_flag(
                    child, in_kernel or child.name == "tile.kernel"
                )


def _scope(type_: ir.Type) -> tile.Scope | None:
    """The tile scope of a memref type (global when it has no memory space),
    None for other types and other memory spaces."""
    if not isinstance(type_, ir.MemRefType):
        return None
    memref = ir.MemRefType(type_)
    if memref.memory_space is not None and not tile.is_scope_attr(memref.memory_space):
        return None
    return tile.scope_of(memref)
