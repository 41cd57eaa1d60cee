"""The cpu backend's compiler half: the `tile-to-cpu` pipeline and LLVM's JIT.

The pipeline ends in the LLVM dialect; `codegen` hands it to MLIR's
ExecutionEngine, which runs LLVM's code generation at `opt_level` and keeps
the engine so that the disk cache can link its object code. `.source()`
shows the LLVM dialect module that was compiled.
"""

from __future__ import annotations

from mlir import ir

from tilec.backends.base import Backend, CodegenOptions
from tilec.backends.cpu import native
from tilec.backends.cpu.driver import CpuBinary, CpuDriver
from tilec.passes.conversion.tile_to_cpu.pipelines import tile_to_cpu
from tilec.targets.cpu import CpuTarget


class CpuBackend(Backend[CpuTarget, CodegenOptions, CpuBinary]):
    name = "cpu"
    options_type = CodegenOptions
    driver = CpuDriver()
    codegen_stage = "llvm-codegen"
    final_stage = "llvm"

    def pipeline(self, target: CpuTarget, options: CodegenOptions) -> str:
        return tile_to_cpu(target)

    def codegen(
        self, module: ir.Module, entry: str, target: CpuTarget, options: CodegenOptions
    ) -> CpuBinary:
        text = str(module)
        function, engine = native.jit(module, entry, options.opt_level)
        return CpuBinary(function, text, engine)
