"""The outcome of a simulation: `SimResult`, and its text report (what `tile-sim` prints)."""

from __future__ import annotations

import dataclasses

import numpy as np

from tilec.diagnostics import Diagnostic
from tilec.targets.ascend.profiles import Profile

SYNC_KINDS = ("set_flag", "wait_flag", "pipe_barrier", "pipe_barrier_all")
"""The kinds of synchronization instruction that `SimResult.sync_counts` counts."""


@dataclasses.dataclass(frozen=True)
class PathTraffic:
    bytes: int
    bytes_per_cycle: float
    gb_per_s: float


@dataclasses.dataclass
class SimResult:
    """Outputs and measurements of one simulated launch."""

    kernel: str
    core_kind: str
    profile: Profile
    block_dim: int
    core_count: int
    outputs: dict[str, np.ndarray]
    """Every GM argument after the run, by argument name."""
    cycles: int
    steps: int
    """Interpreted steps, all cores together: what the `max_steps` budget bounds."""
    pipe_busy: dict[str, int]
    """Busy cycles per pipe, summed over all cores."""
    pipe_utilization: dict[str, float]
    """Busy cycles / (cycles x number of cores that have the pipe), for the
    pipes that the launch's cores have."""
    cube_utilization: float
    vector_utilization: float
    macs: int
    bandwidth: dict[str, PathTraffic]
    core_cycles: dict[str, int]
    """Cycle at which each core finished (unfinished cores are absent)."""
    memory_peak: dict[str, int]
    """Most bytes of each on-chip memory in use at once on any one core."""
    memory_capacity: dict[str, int]
    """Bytes of each memory in `memory_peak` this kernel may use
    (`attributes.usable_bytes`: a kernel that manages UB itself has the API's share too)."""
    races: list[Diagnostic]
    deadlocks: list[Diagnostic]
    errors: list[Diagnostic]
    sync_counts: dict[str, int] = dataclasses.field(default_factory=dict)
    """Synchronization instructions executed, all cores together, by kind:
    `set_flag`, `wait_flag`, `pipe_barrier` (one pipe) and
    `pipe_barrier_all` (`ascend.pipe_barrier all`, which drains every pipe)."""
    cross_wait_cycles: dict[str, int] = dataclasses.field(default_factory=dict)
    """Cycles in which a core waited for a cross-core flag (on any of its
    pipes or its scalar unit; two waiting at once count once), summed over
    the cores of each kind ("aic", "aiv"): how long one side of a mix kernel
    waited for the other."""
    flag_identity: str = "pair"
    """How flags were named in this run (`tilec.sim.scheduler.FLAG_IDENTITIES`)."""

    @property
    def microseconds(self) -> float:
        return self.cycles / (self.profile.clock_ghz * 1e3)

    @property
    def tflops(self) -> float:
        return 2 * self.macs / (self.microseconds * 1e6) if self.cycles else 0.0

    @property
    def ok(self) -> bool:
        return not (self.races or self.deadlocks or self.errors)

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return [*self.errors, *self.races, *self.deadlocks]

    @property
    def sync_instructions(self) -> int:
        """Synchronization instructions executed, of every kind (see `sync_counts`)."""
        return sum(self.sync_counts.values())

    @property
    def pipe_all_barriers(self) -> int:
        """`ascend.pipe_barrier all` executed, all cores together."""
        return self.sync_counts.get("pipe_barrier_all", 0)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.outputs[name]

    def report(self) -> str:
        return format_report(self)


def _bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def format_report(result: SimResult) -> str:
    profile = result.profile
    lines = [
        f"kernel @{result.kernel} ({result.core_kind}) on {profile.name} ({profile.arch}), "
        f"block_dim {result.block_dim}: {result.core_count} cores",
        f"cycles: {result.cycles} ({result.microseconds:.3f} us at {profile.clock_ghz} GHz)",
        f"interpreted steps: {result.steps}",
        "pipe busy (cycles summed over cores, % of cycles x cores that have the pipe):",
    ]
    for pipe, share in result.pipe_utilization.items():
        lines.append(f"  {pipe:<5}{result.pipe_busy[pipe]:>14} {100 * share:6.2f}%")
    lines.append(f"cube utilization: {100 * result.cube_utilization:.2f}%")
    lines.append(f"vector utilization: {100 * result.vector_utilization:.2f}%")
    if result.macs:
        lines.append(f"cube MACs: {result.macs} ({result.tflops:.2f} TFLOPS achieved)")
    if result.bandwidth:
        lines.append("traffic per path (bytes, bytes/cycle, GB/s):")
        for path, traffic in sorted(result.bandwidth.items()):
            lines.append(f"  {path:<9}{_bytes(traffic.bytes):>12} {traffic.bytes_per_cycle:10.2f}"
                         f" {traffic.gb_per_s:10.2f}")
    if result.memory_peak:
        usage = ", ".join(f"{space} {_bytes(peak)} of {_bytes(result.memory_capacity[space])}"
                          for space, peak in result.memory_peak.items())
        lines.append(f"on-chip memory (peak per core): {usage}")
    if result.cross_wait_cycles:
        lines.append("cross-core waits (cycles summed over cores): " + ", ".join(
            f"{kind} {cycles}" for kind, cycles in sorted(result.cross_wait_cycles.items())))
    lines.append(f"races: {len(result.races)}")
    lines.append(f"deadlocks: {len(result.deadlocks)}")
    if result.errors:
        lines.append(f"other errors: {len(result.errors)}")
    counts = result.sync_counts
    lines.append(f"sync instructions: {result.sync_instructions} (" + ", ".join(
        f"{name.replace('_all', ' all')} {counts.get(name, 0)}" for name in SYNC_KINDS) + ")")
    return "\n".join(lines)
