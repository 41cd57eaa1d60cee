"""The ascend backend's compiler half: registered, its lowering still to come.

`tilec.compile(kernel, target="ascend:910b")` resolves here, checks the
kernel against the profile's description, then says plainly that
`tile-to-ascend` (tile IR to the `ascend` dialect, run by the simulator and
emitted as AscendC) does not exist yet; `ascend` IR written by hand runs in
tile-sim.
"""

from __future__ import annotations

from tilec.backends.ascend.driver import AscendDriver
from tilec.backends.base import PlannedBackend


class AscendBackend(PlannedBackend):
    name = "ascend"
    driver = AscendDriver()
