"""tile-verify-kernels: structural rules of tile programs that no single op
verifier can see.

The op verifiers check each op alone; this pass checks where ops stand
(tile ops belong inside a `tile.kernel`) and what a chosen target accepts
(Ascend scopes exist only on `ascend`; CUDA blocks are whole warps).

Example (fails with `target=cuda`):

    tile.kernel blocks(%bx) in (%n) threads = 100 { ... }
    // error: expected a thread count that is a multiple of 32 on the cuda target but got 100
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from mlir import ir

from tilec.passes.registry import Pass, PassFailure, option, register_pass

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
_ASCEND_SCOPES = {"l1", "l0a", "l0b", "l0c", "ub"}
_CUDA_MAX_THREADS = 1024


@register_pass
@dataclass(frozen=True)
class VerifyKernelsPass(Pass):
    """Checks kernel structure and, with `target`, what that target accepts."""

    argument = "tile-verify-kernels"
    summary = "Check that tile ops stand inside kernels and fit the chosen target"

    target: Literal["any", "cpu", "cuda", "ascend"] = option(
        "any", "the target whose rules apply (any: structure only)"
    )

    def run(self, op: ir.Operation) -> None:
        failed = False
        for inner, in_kernel in _walk_with_kernel_flag(op, in_kernel=False):
            for message in self._violations(inner, in_kernel):
                inner.location.emit_error(message)
                failed = True
        if failed:
            raise PassFailure(self.argument)

    def _violations(self, op: ir.Operation, in_kernel: bool) -> list[str]:
        name = op.name
        found: list[str] = []
        if name in _KERNEL_ONLY and not in_kernel:
            found.append(f"'{name}' must be inside a 'tile.kernel'")
        if name == "tile.fill" or name == "tile.clear":
            dst_scope = _scope(op.operands[0].type)
            if dst_scope != "global" and not in_kernel:
                found.append(f"'{name}' of a {dst_scope} tile must be inside a 'tile.kernel'")
        if self.target in ("cpu", "cuda"):
            for value in [*op.operands, *op.results]:
                scope = _scope(value.type)
                if scope in _ASCEND_SCOPES:
                    found.append(
                        f"scope '{scope}' exists only on the ascend target, not on {self.target}"
                    )
                    break
        if self.target == "cuda" and name == "tile.kernel":
            threads = ir.IntegerAttr(op.attributes["threads"]).value
            if threads % 32 or threads > _CUDA_MAX_THREADS:
                found.append(
                    "expected a thread count that is a multiple of 32 and at most "
                    f"{_CUDA_MAX_THREADS} on the cuda target but got {threads}"
                )
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


def _scope(type_: ir.Type) -> str | None:
    """The tile scope of a memref type (global when it has no memory space)."""
    if not isinstance(type_, ir.MemRefType):
        return None
    space = type_.memory_space
    if space is None:
        return "global"
    text = str(space)
    if text.startswith("#tile.scope<"):
        return text[len("#tile.scope<") : -1]
    return None
