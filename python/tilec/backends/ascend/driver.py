"""The ascend backend's driver half: kernels run in tilec's simulator.

There is no NPU to find here: the simulator (`tilec.sim`) is the machine,
so `present()` is false and the backend is never the default; running a
compiled kernel in the simulator comes with the ascend lowering.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tilec.backends.base import Binary, Driver, Launcher, Options
from tilec.diagnostics import error
from tilec.runtime.signature import Param


class AscendDriver(Driver):
    def launcher(self, binary: Binary, params: Sequence[Param]) -> Launcher:
        raise error("running ascend kernels is not implemented yet (it comes with tile-to-ascend)")

    def save(self, binary: Binary, directory: Path) -> None:
        raise error("ascend binaries are not cached yet (they come with tile-to-ascend)")

    def load(self, directory: Path, entry: str, options: Options) -> Binary:
        raise ValueError("ascend cache entries do not exist yet")
