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
from tilec.targets.ascend.machine import (  # noqa: F401 (re-exported for the simulator)
    COPY_PIPES,
    FIX,
    MTE1,
    MTE2,
    MTE3,
    PIPE_IDS,
    PIPE_NAMES,
    PIPES_OF_CORE,
    M,
    S,
    V,
)

EXEC, SET, WAIT, CROSS_SET, CROSS_WAIT, MARK, JOIN = range(7)


class Instr:
    """One instruction in a pipe queue.

    `kind` EXEC does work: `effect` changes memory at the start time and the
    pipe stays busy `cycles` (+ the L2 cost of `gm_read`/`gm_write`). SET,
    WAIT, CROSS_SET and CROSS_WAIT carry their flag in `key`; MARK is a
    single-pipe barrier: the pipe's later instructions start after its earlier
    ones have finished. JOIN (`key`: a vector clock) orders the pipe's later
    instructions after what a wait of the scalar unit saw: the scalar unit
    issues nothing while it waits. `ordered`: the hardware starts this instruction only
    after the earlier ones of its pipe that it depends on have finished, on a
    pipe that otherwise overlaps them (a large Mmad, `machine.mmad_orders_itself`).
    """

    __slots__ = ("cycles", "effect", "gm_read", "gm_write", "key", "kind", "macs", "nbytes",
                 "ordered", "path", "pipe", "reads", "site", "writes")

    def __init__(self, kind: int, pipe: int, site: Site, *, cycles: int = 0,
                 effect: Callable[[], None] | None = None,
                 reads: tuple[Region, ...] = (), writes: tuple[Region, ...] = (),
                 gm_read: Region | None = None, gm_write: Region | None = None,
                 path: str | None = None, nbytes: int = 0, macs: int = 0,
                 key: tuple = (), ordered: bool = False):
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
        self.ordered = ordered
