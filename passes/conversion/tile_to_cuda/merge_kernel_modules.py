"""tile-cuda-merge-kernel-modules: every kernel of a module in one gpu.module.

`gpu-kernel-outlining` gives each `gpu.launch` its own `gpu.module`, and
`gpu-module-to-binary` then makes one PTX module per launch. An entry with
several kernels (a split-KV attention and its combine step) is one program:
this pass moves the kernels of all gpu.modules into the first one (outlining
names them uniquely) and points each `gpu.launch_func` at its kernel there,
so the entry has one PTX module, one cubin and one `ptxas -v` report. Run it
right after gpu-kernel-outlining. A kernel that reallocates registers between
warpgroups (`setmaxnreg`, warp_specialize.py) also gets its register budget
at entry (`nvvm.maxnreg`): ptxas ignores setmaxnreg without one.

Before:

    gpu.launch_func @f_kernel::@f_kernel ...
    gpu.launch_func @f_kernel_0::@f_kernel ...
    gpu.module @f_kernel { gpu.func @f_kernel(...) kernel { ... } }
    gpu.module @f_kernel_0 { gpu.func @f_kernel(...) kernel { ... } }

After:

    gpu.launch_func @f_kernel::@f_kernel ...
    gpu.launch_func @f_kernel::@f_kernel_0 ...
    gpu.module @f_kernel {
      gpu.func @f_kernel(...) kernel { ... }
      gpu.func @f_kernel_0(...) kernel { ... }
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_to_cuda.ops.warp_specialize import KERNEL_REGISTERS
from tilec.passes.registry import Pass, register_pass


def _name(op: ir.Operation) -> str:
    return ir.StringAttr(op.attributes["sym_name"]).value


def _reallocates_registers(kernel: ir.Operation) -> bool:
    """Whether `kernel` has an nvvm.setmaxregister (the walk stops at the first)."""
    found = False

    def visit(op: ir.Operation) -> ir.WalkResult:
        nonlocal found
        found = op.name == "nvvm.setmaxregister"
        return ir.WalkResult.INTERRUPT if found else ir.WalkResult.ADVANCE

    kernel.operation.walk(visit)
    return found


@register_pass
@dataclass(frozen=True)
class CudaMergeKernelModulesPass(Pass):
    """Moves every outlined kernel into the first gpu.module."""

    argument = "tile-cuda-merge-kernel-modules"
    summary = "Put every kernel in one gpu.module (run after gpu-kernel-outlining)"

    def run(self, op: ir.Operation) -> None:
        with op.context:
            modules = [m.operation for m in op.regions[0].blocks[0].operations
                       if m.operation.name == "gpu.module"]
            for module in modules:
                for kernel in module.regions[0].blocks[0].operations:
                    if kernel.operation.name == "gpu.func" and _reallocates_registers(kernel):
                        kernel.attributes["nvvm.maxnreg"] = ir.IntegerAttr.get(
                            ir.IntegerType.get_signless(32), KERNEL_REGISTERS)
            if len(modules) < 2:
                return
            first = modules[0]
            target = first.regions[0].blocks[0]
            taken = {_name(f.operation) for f in target.operations if "sym_name" in f.attributes}
            moved: dict[tuple[str, str], str] = {}
            for module in modules[1:]:
                for kernel in list(module.regions[0].blocks[0].operations):
                    kernel = kernel.operation
                    if kernel.name != "gpu.func":
                        continue
                    old = _name(kernel)
                    # The module's name is unique, so it makes a unique kernel name.
                    new = old if old not in taken else _name(module)
                    taken.add(new)
                    kernel.attributes["sym_name"] = ir.StringAttr.get(new)
                    target.append(kernel)
                    moved[_name(module), old] = new
            for launch in irb.collect(op, "gpu.launch_func"):
                symbol = str(launch.attributes["kernel"]).lstrip("@")
                module_name, kernel_name = (part.strip('"') for part in symbol.split("::@"))
                if (module_name, kernel_name) in moved:
                    launch.attributes["kernel"] = ir.SymbolRefAttr.get(
                        [_name(first), moved[module_name, kernel_name]]
                    )
            for module in modules[1:]:
                module.erase()

