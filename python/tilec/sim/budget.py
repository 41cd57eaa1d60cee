"""Budgets: how much work and memory one simulation may take.

The simulator interprets the user's kernel, so a loop that never ends, a loop
bound of 10^12 or a grid of 10^5 blocks would run for hours or until the OOM
killer. A `Budget` bounds each such resource; going over one stops the
simulation with an error that names the limit and how to raise it. The
defaults are far above what the examples and tests use (tens of thousands of
steps and cycles, megabytes, 50 blocks) and low enough that running into one
takes seconds to tens of seconds and a few GiB at most.

The checks sit where they cost nothing per step: the interpreter loop's step
count is the bound of a `range` (see `Machine.resume`), simulated time is
compared once per event, memory when a buffer is created and blocks before
the launch.
"""

from __future__ import annotations

import dataclasses
import operator

from tilec.sim.diagnostics import UNKNOWN, SimError, fail

GIB = 1024**3


def positive_int(name: str, value: object, where: str = UNKNOWN) -> int:
    """`value` (an int or a numpy integer) as an int of at least 1."""
    try:
        number = operator.index(value)
    except TypeError:
        raise fail(where, f"{name} must be an integer, not {value!r}") from None
    if number < 1:
        raise fail(where, f"{name} must be at least 1, not {number}")
    return number


@dataclasses.dataclass
class Budget:
    """The limits of one simulation (`simulate`'s keyword arguments and
    tile-sim's options of the same names) and what it has used of them."""

    max_steps: int = 2_000_000
    """Interpreted steps (about one per scalar or ascend op run), all cores together."""
    max_cycles: int = 10_000_000_000
    """Simulated time in cycles: an event later than this stops the run."""
    max_memory: int = 4 * GIB
    """Bytes of simulated memory: GM arguments and the on-chip memories of the cores."""
    max_blocks: int = 1024
    """`block_dim`: the simulator's cost grows with the square of the core count
    (every pipe of every core has a vector clock with an entry per pipe of every core)."""
    steps_used: int = dataclasses.field(init=False, default=0)
    memory_used: int = dataclasses.field(init=False, default=0)

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            if field.init:
                setattr(self, field.name, positive_int(field.name, getattr(self, field.name)))

    def exceeded(self, limit: str, where: str, message: str) -> SimError:
        """The error for going over `limit` (a field name): `message`, then how to raise it."""
        option = "--" + limit.replace("_", "-")
        return fail(where, f"{message}; raise the limit with {option}=N (tile-sim) or "
                           f"{limit}=N (simulate)")

    def charge_memory(self, nbytes: int, what: str, where: str) -> None:
        """Counts `nbytes` of simulated memory for `what`, before it is allocated."""
        if self.memory_used + nbytes > self.max_memory:
            raise self.exceeded("max_memory", where,
                                f"{what} needs {nbytes} bytes, and the memory budget of "
                                f"{self.max_memory} bytes has "
                                f"{self.max_memory - self.memory_used} left")
        self.memory_used += nbytes
