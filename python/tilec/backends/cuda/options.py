"""The compile options of the cuda target."""

from __future__ import annotations

from dataclasses import dataclass

from tilec.backends.base import CodegenOptions, OptionError
from tilec.targets.cuda import CudaTarget


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
