"""What the scalar unit puts into a pipe's queue.

The interpreter does everything that can be decided at issue time (operand
values, views, byte regions, fixed costs) and leaves the scheduler only the
timing-dependent part: when the instruction starts, what L2 makes its GM
transfer cost, and applying its effect on memory at that moment.
"""

from __future__ import annotations

from collections.abc import Callable

from tilec.sim.memory import Region
from tilec.sim.races import Site

S, V, M, MTE1, MTE2, MTE3, FIX = range(7)
PIPE_NAMES = ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX")
PIPE_IDS = {name.lower(): index for index, name in enumerate(PIPE_NAMES)}
COPY_PIPES = {("gm", "ub"): MTE2, ("gm", "l1"): MTE2, ("ub", "gm"): MTE3, ("ub", "ub"): V,
              ("l1", "ub"): MTE3, ("ub", "l1"): MTE3}
"""The pipe of `ascend.copy` by (source space, destination space), as in
AscendOps.td; the simulator and the sync pass both read it."""
PIPES_OF_CORE = {"aic": frozenset({S, M, MTE1, MTE2, MTE3, FIX}),
                 "aiv": frozenset({S, V, MTE2, MTE3})}
"""The pipes each kind of core has."""

EXEC, SET, WAIT, CROSS_SET, CROSS_WAIT, MARK = range(6)


class Instr:
    """One instruction in a pipe queue.

    `kind` EXEC does work: `effect` changes memory at the start time and the
    pipe stays busy `cycles` (+ the L2 cost of `gm_read`/`gm_write`). SET,
    WAIT, CROSS_SET and CROSS_WAIT carry their flag in `key`; MARK (a
    single-pipe barrier) only shows in the trace: a pipe is in order already.
    """

    __slots__ = ("cycles", "effect", "gm_read", "gm_write", "key", "kind", "macs", "nbytes",
                 "path", "pipe", "reads", "site", "writes")

    def __init__(self, kind: int, pipe: int, site: Site, *, cycles: int = 0,
                 effect: Callable[[], None] | None = None,
                 reads: tuple[Region, ...] = (), writes: tuple[Region, ...] = (),
                 gm_read: Region | None = None, gm_write: Region | None = None,
                 path: str | None = None, nbytes: int = 0, macs: int = 0,
                 key: tuple = ()):
        self.kind = kind
        self.pipe = pipe
        self.site = site
        self.cycles = cycles
        self.effect = effect
        self.reads = reads
        self.writes = writes
        self.gm_read = gm_read
        self.gm_write = gm_write
        self.path = path
        self.nbytes = nbytes
        self.macs = macs
        self.key = key
