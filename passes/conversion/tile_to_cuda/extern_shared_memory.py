"""tile-cuda-extern-shared-memory: dynamic shared memory as an `.extern .shared` array.

`gpu.dynamic_shared_memory` lowers to a zero-length global in address space
3 with internal linkage, which LLVM 22 shrinks to one byte and places like
static shared memory, so every view of it would alias one byte (DESIGN.md
§3). Giving it external linkage makes the PTX declare `.extern .shared
.align 16 .b8 name[]`, the dynamic shared memory the launch sizes. With
`alignment` (1024 on sm_90a) the array is aligned further: the 128-byte
swizzle that wgmma operands are stored with is computed from the shared
address bits 4-9. Run it after convert-gpu-to-nvvm.

Before:

    llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32} : !llvm.array<0 x i8>

After:

    llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32} : !llvm.array<0 x i8>
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from mlir import ir

from tilec.passes.registry import Pass, option, register_pass


def _globals(module: ir.Operation) -> Iterator[ir.Operation]:
    """The llvm.mlir.globals of `module` and of its gpu.modules: globals are
    symbols, at the top of a module, so the kernels' code is not walked."""
    for child in module.regions[0].blocks[0].operations:
        child = child.operation
        if child.name == "llvm.mlir.global":
            yield child
        elif child.name == "gpu.module":
            yield from _globals(child)


def _is_dynamic_shared(op: ir.Operation) -> bool:
    space = op.attributes.get("addr_space", None)
    if space is None or ir.IntegerAttr(space).value != 3:
        return False
    return str(ir.TypeAttr(op.attributes["global_type"]).value) == "!llvm.array<0 x i8>"


@register_pass
@dataclass(frozen=True)
class CudaExternSharedMemoryPass(Pass):
    """Gives the dynamic shared memory global external linkage (and an alignment)."""

    argument = "tile-cuda-extern-shared-memory"
    summary = "Declare dynamic shared memory as .extern .shared (run after convert-gpu-to-nvvm)"

    alignment: int = option(0, "the array's byte alignment (0: keep the lowering's)")

    def run(self, op: ir.Operation) -> None:
        with op.context:
            external = ir.Attribute.parse("#llvm.linkage<external>")
            for global_ in _globals(op):
                if _is_dynamic_shared(global_):
                    global_.attributes["linkage"] = external
                    if self.alignment:
                        global_.attributes["alignment"] = ir.IntegerAttr.get(
                            ir.IntegerType.get_signless(64), self.alignment
                        )
