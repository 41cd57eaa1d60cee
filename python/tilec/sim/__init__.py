"""Simulator of the `ascend` dialect: numerics, races, deadlocks, cycles.

`simulate(module, inputs, profile="910b", block_dim=N, trace=path)` runs a
kernel on numpy inputs on every core of the grid and returns a `SimResult`
(outputs, cycles, per-pipe busy time, utilization, bandwidth, races,
deadlocks), within a `Budget` of steps, cycles, memory and blocks.
`tile-sim` is the command-line front end.
"""

from tilec.sim.api import load_program, simulate
from tilec.sim.budget import Budget
from tilec.sim.diagnostics import SimError
from tilec.sim.result import PathTraffic, SimResult
from tilec.targets.ascend.profiles import PROFILES, Profile, get_profile

__all__ = [
    "PROFILES",
    "Budget",
    "PathTraffic",
    "Profile",
    "SimError",
    "SimResult",
    "get_profile",
    "load_program",
    "simulate",
]
