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
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import gpu
from mlir.passmanager import PassManager

from tilec.backends.base import Backend, CodegenOptions, OptionError
from tilec.backends.cuda.binary import CudaBinary
from tilec.backends.cuda.driver import CudaDriver
from tilec.backends.cuda.launch_plan import LaunchPlan
from tilec.diagnostics import CompileError, Diagnostic, capture_errors, error
from tilec.passes.conversion.tile_to_cuda.pipelines import tile_to_cuda
from tilec.targets import CudaTarget, TargetError, get_target


@dataclass(frozen=True)
class CudaOptions(CodegenOptions):
    arch: str = ""
    """The compute capability (sm_80, sm_86, sm_89, sm_90a); default: the target's variant."""
    fast_math: bool = False
    """Every exp/log/log2/tanh as the GPU's approximate instruction (default: those
    marked `afn`); exp2, rsqrt and sqrt are approximate always."""

    def check(self) -> None:
        super().check()
        if self.arch and self.arch not in CudaTarget.variants:
            raise OptionError(f"compile option 'arch' must be one of "
                              f"{', '.join(CudaTarget.variants)} but got '{self.arch}'")


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


class CudaBackend(Backend):
    name = "cuda"
    options_type = CudaOptions
    driver = CudaDriver()
    codegen_stage = "ptx-codegen"
    final_stage = "ptx"

    def configure(self, target: CudaTarget, options: CudaOptions) -> CudaTarget:  # type: ignore[override]
        if not options.arch or options.arch == target.variant:
            return target
        try:
            return get_target(f"cuda:{options.arch}")  # type: ignore[return-value]
        except TargetError as exc:
            raise OptionError(str(exc)) from None

    def pipeline(self, target: CudaTarget, options: CudaOptions) -> str:  # type: ignore[override]
        return tile_to_cuda(target, options.opt_level, options.fast_math)

    def codegen(  # type: ignore[override]
        self, module: ir.Module, entry: str, target: CudaTarget, options: CudaOptions
    ) -> CudaBinary:
        plan = LaunchPlan.from_module(module, entry)
        return CudaBinary(module_to_ptx(module), target.arch, plan)
