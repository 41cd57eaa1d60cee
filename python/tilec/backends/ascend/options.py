"""The compile options of the ascend target."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tilec.backends.base import OptionError, Options
from tilec.sim.budget import Budget
from tilec.targets.ascend import AscendTarget

SYNC_STRATEGIES = ("flags", "barrier")

@dataclass(frozen=True)
class AscendOptions(Options):
    profile: str = ""
    """The architecture profile (910b, 950); default: the target's variant."""
    block_dim: int = 0
    """Cores the simulated launch uses; 0: one per block of the grid, at
    most the cores of the kernel's kind."""
    trace: str = ""
    """A path: every run writes its timeline there (Chrome trace / Perfetto JSON)."""
    max_steps: int = Budget.max_steps
    """The simulator's budget of interpreted steps per run."""
    max_stages: int = 0
    """A cap on the slots of multi-buffered loops (0: as the kernel asks)."""
    cross_core_skew: int = 0
    """How many iterations the cube and vector cores of a mix kernel run
    ahead of each other in a loop that hands tiles both ways (1 or 2; 0:
    2, lowered to 1 when the pipes run out of event ids)."""
    sync: str = "flags"
    """How pipes are ordered: "flags" (set/wait pairs on exact hazards) or
    "barrier" (a PIPE_ALL barrier between dependent ops: the baseline
    benchmarks compare with)."""

    auto_sync: bool | None = None
    """Whether tilec synchronizes the pipes of a kernel whose author did (`T.Scope`
    regions, `T.set_flag`/`T.wait_flag`/`T.pipe_barrier`/`T.barrier_all`): True drops
    the author's flags and barriers within each core and places tilec's own
    (tilelang-ascend's `TL_ASCEND_AUTO_SYNC`); False or None keeps them as written.
    A kernel without its author's sync is always synchronized by tilec."""

    RUN_ONLY: ClassVar[frozenset[str]] = frozenset(
        {"timing", "block_dim", "trace", "max_steps"})

    def check(self) -> None:
        super().check()
        if self.profile and self.profile not in AscendTarget.variants:
            raise OptionError(f"compile option 'profile' must be one of "
                              f"{', '.join(AscendTarget.variants)} but got '{self.profile}'")
        if self.cross_core_skew not in (0, 1, 2):
            raise OptionError(f"compile option 'cross_core_skew' must be 0, 1 or 2 but got "
                              f"{self.cross_core_skew}")
        for name in ("block_dim", "max_stages"):
            if getattr(self, name) < 0:
                raise OptionError(f"compile option '{name}' must be 0 or more but got "
                                  f"{getattr(self, name)}")
        if self.sync not in SYNC_STRATEGIES:
            raise OptionError(f"compile option 'sync' must be one of {', '.join(SYNC_STRATEGIES)} "
                              f"but got '{self.sync}'")
        if self.auto_sync not in (None, True, False):
            raise OptionError(f"compile option 'auto_sync' must be True, False or None but got "
                              f"{self.auto_sync!r}")
        if self.max_steps <= 0:
            raise OptionError(f"compile option 'max_steps' must be positive but got "
                              f"{self.max_steps}")
