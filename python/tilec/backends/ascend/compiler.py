"""The ascend backend's compiler half: registered, its lowering still to come.

`tilec.compile(kernel, target="ascend:910b")` resolves here and checks the
kernel against the profile's description; the compile step then says
plainly that `tile-to-ascend` (tile IR to the `ascend` dialect, run by the
simulator and emitted as AscendC) does not exist yet.
"""

from __future__ import annotations

from mlir import ir

from tilec.backends.ascend.driver import AscendDriver
from tilec.backends.base import Backend, Binary, Options
from tilec.diagnostics import error
from tilec.targets import TargetDescription


class AscendBackend(Backend):
    name = "ascend"
    driver = AscendDriver()
    lowering_ready = False

    def pipeline(self, target: TargetDescription, options: Options) -> str:
        # What exists already: the kernel is checked against the target.
        return f"tile-verify-kernels{{target={target.spec}}}"

    def codegen(
        self, module: ir.Module, entry: str, target: TargetDescription, options: Options
    ) -> Binary:
        raise error(
            f"the ascend lowering (tile-to-ascend) does not exist yet, so {target.spec} kernels "
            "cannot be compiled; compile for target='cpu' meanwhile"
        )
