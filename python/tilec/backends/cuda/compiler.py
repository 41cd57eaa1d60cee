"""The cuda backend's compiler half: `tile-to-cuda`, PTX in process.

`tilec.compile(kernel, target="cuda", arch="sm_80")` (or `target="cuda:sm_80"`)
lowers tile IR to a gpu.module in the NVVM dialect and takes it to PTX with
`gpu-module-to-binary{format=isa}` in this process; the result is a
`binary.CudaBinary` (`.source()` the PTX; the cubin and the resources of
`ptxas -v` on first use). The host function's `gpu.launch_func`s become a
`launch_plan.LaunchPlan`, so the driver can run the entry without running
host code. All kernels of an entry are in one PTX module
(tile-cuda-merge-kernel-modules).
"""

from __future__ import annotations

import dataclasses

from mlir import ir
from mlir.dialects import gpu
from mlir.passmanager import PassManager

from tilec.backends.base import Backend, OptionError
from tilec.backends.cuda.binary import CudaBinary
from tilec.backends.cuda.driver import CudaDriver
from tilec.backends.cuda.launch_plan import LaunchPlan
from tilec.backends.cuda.options import CudaOptions
from tilec.diagnostics import CompileError, Diagnostic, capture_errors, error
from tilec.passes.conversion.tile_to_cuda.pipelines import tile_to_cuda
from tilec.targets import TargetError, target_of
from tilec.targets.cuda import CudaTarget


def _short(errors: list[Diagnostic]) -> list[Diagnostic]:
    """The errors without the notes that print the whole failing module."""
    return [
        dataclasses.replace(
            d, notes=tuple(n for n in d.notes if not n.message.startswith("see current operation"))
        )
        for d in errors
    ]


def module_to_ptx(module: ir.Module) -> str:
    """PTX of the module's one gpu.module, made in this process."""
    with capture_errors(module.context) as errors:
        try:
            PassManager.parse("builtin.module(gpu-module-to-binary{format=isa})",
                              module.context).run(module.operation)
        except ir.MLIRError as exc:
            raise CompileError(_short(errors) or [Diagnostic("error", str(exc))]) from None
    if errors:
        raise CompileError(_short(errors))
    for op in module.body.operations:
        if op.operation.name == "gpu.binary":
            payload = gpu.ObjectAttr(op.attributes["objects"][0]).object
            return payload.decode() if isinstance(payload, bytes) else str(payload)
    raise error("the cuda pipeline left no gpu.module to compile")


def emit_ptx(module: ir.Module, target: CudaTarget) -> str:
    """`tile-opt --emit=ptx`: the PTX of a module `tile-to-cuda` lowered."""
    return module_to_ptx(module)


class CudaBackend(Backend[CudaTarget, CudaOptions, CudaBinary]):
    name = "cuda"
    options_type = CudaOptions
    driver = CudaDriver()
    codegen_stage = "ptx-codegen"
    final_stage = "ptx"

    def configure(self, target: CudaTarget, options: CudaOptions) -> CudaTarget:
        if not options.arch or options.arch == target.variant:
            return target
        try:
            return target_of(CudaTarget, f"cuda:{options.arch}")
        except TargetError as exc:
            raise OptionError(str(exc)) from None

    def pipeline(self, target: CudaTarget, options: CudaOptions) -> str:
        return tile_to_cuda(target, options.opt_level, options.fast_math)

    def codegen(
        self, module: ir.Module, entry: str, target: CudaTarget, options: CudaOptions
    ) -> CudaBinary:
        plan = LaunchPlan.from_module(module, entry)
        return CudaBinary(module_to_ptx(module), target.arch, plan)
