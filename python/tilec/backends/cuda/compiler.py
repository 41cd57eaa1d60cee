"""The cuda backend's compiler half: registered, its lowering still to come.

`tilec.compile(kernel, target="cuda:sm_90a")` resolves here and checks its
options and the kernel against the arch's description; the compile step
then says plainly that `tile-to-cuda` (tile IR through gpu/nvgpu/nvvm to
PTX) does not exist yet.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from tilec.backends.base import Backend, Binary, OptionError, Options
from tilec.backends.cuda.driver import CudaDriver
from tilec.diagnostics import error
from tilec.targets import TargetDescription


@dataclass(frozen=True)
class CudaOptions(Options):
    opt_level: int = 3
    """The NVPTX backend's optimization level, 0 to 3."""

    def check(self) -> None:
        super().check()
        if not 0 <= self.opt_level <= 3:
            raise OptionError(f"compile option 'opt_level' must be 0 to 3 but got {self.opt_level}")


class CudaBackend(Backend):
    name = "cuda"
    options_type = CudaOptions
    driver = CudaDriver()
    lowering_ready = False

    def pipeline(self, target: TargetDescription, options: Options) -> str:
        # What exists already: the kernel is checked against the target.
        return f"tile-verify-kernels{{target={target.spec}}}"

    def codegen(
        self, module: ir.Module, entry: str, target: TargetDescription, options: Options
    ) -> Binary:
        raise error(
            f"the cuda lowering (tile-to-cuda) does not exist yet, so {target.spec} kernels "
            "cannot be compiled; compile for target='cpu' meanwhile"
        )
