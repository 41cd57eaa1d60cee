"""Race detection by happens-before with vector clocks.

Every pipe of every core is an actor with a vector clock. An op on a pipe
ticks the pipe's own entry; a set_flag/cross-core set snapshots the clock of
its pipe, and the wait that consumes it joins the snapshot into the waiting
pipe; barriers join whole cores (or the grid). Two accesses are ordered iff
the later one's clock has seen the earlier one's tick, so an access that
overlaps an earlier conflicting one (at least one write, different actor)
whose tick it has not seen is a race, whatever the timing happened to be.
Two accesses of one actor (one pipe) race too unless the pipe orders them:
a pipe overlaps its successive instructions (`tilec.targets.ascend.machine`),
so the later one is ordered only when the earlier one's epoch is at most the
pipe's `fence` (a barrier, or a flag chain back to the pipe, came between).
Atomic adds (writes of a site marked `atomic`) commute, so two of them are
never a race; against a plain read or write they still are.

The history of each memory keeps, per actor, only the latest access of each
kind to each exact byte range: a repeated access in a loop replaces the
previous one, which keeps the history small without losing a race (anything
unordered with the older access is unordered with the newer one too).
"""

from __future__ import annotations

import bisect
import dataclasses

import numpy as np

from tilec.diagnostics import Diagnostic
from tilec.sim.diagnostics import error, note
from tilec.sim.memory import Arena, Region, overlap


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Site:
    """An op of the IR, as messages name it."""

    name: str
    location: str
    text: str
    """A short rendering for messages and traces (`ascend.wait_flag mte2 -> v, 0`)."""
    atomic: bool = False
    """The op's writes are atomic adds (`ascend.copy ... atomic_add`): two of
    them never race with each other, only with plain reads and writes."""


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Access:
    region: Region
    write: bool
    actor: int
    epoch: int
    site: Site
    where: str
    """Pipe and core, for messages (`MTE2 of block 0 aiv0`)."""


@dataclasses.dataclass(frozen=True)
class Race:
    earlier: Access
    later: Access
    lo: int
    hi: int
    count: int = 1
    """How many times the two ops met unordered (loops, blocks)."""
    last: tuple[int, int] = (-1, -1)
    """(actor, epoch) of the later op's execution counted last."""

    @property
    def kind(self) -> str:
        if self.earlier.write and self.later.write:
            return "write-after-write"
        return "read-after-write" if self.earlier.write else "write-after-read"

    def diagnostic(self) -> Diagnostic:
        arena: Arena = self.later.region.arena
        verb = "writes" if self.later.write else "reads"
        other = "written" if self.earlier.write else "read"
        times = f" ({self.count} times)" if self.count > 1 else ""
        if self.earlier.actor == self.later.actor:
            pipe = self.later.where.split(" ", 1)[0].lower()
            why = (f"; the pipe overlaps its instructions, and no pipe_barrier {pipe} (or "
                   f"all) orders them")
        else:
            why = ", and no flag, barrier or cross-core sync orders them"
        message = (
            f"race ({self.kind}): {self.later.site.text} on {self.later.where} {verb} "
            f"{arena.describe(self.lo, self.hi)} {other} by {self.earlier.site.text} on "
            f"{self.earlier.where} at {self.earlier.site.location}{why}{times}{self.missing()}"
        )
        other_op = note(self.earlier.site.location,
                        f"the conflicting {'write' if self.earlier.write else 'read'} is here")
        return error(self.later.site.location, message, other_op)


    def missing(self) -> str:
        """The synchronization that would order the two ops, as a kernel author writes
        it in tilelang-ascend's DSL (empty when an op has no source line). It orders
        them in the order of their source lines (the order the timing happened to run
        them in may be the reverse): the usual fix of a producer and its consumer in
        one iteration; a hazard only across iterations needs the opposite flag."""
        first, then = self.earlier, self.later
        if _position(first.site)[1] is None or _position(then.site)[1] is None:
            return ""
        if _position(then.site) < _position(first.site):
            first, then = then, first
        src_line, dst_line = _position(first.site)[1], _position(then.site)[1]
        src, src_core = _pipe_and_core(first.where)
        dst, dst_core = _pipe_and_core(then.where)
        if first.actor == then.actor:
            return f'; missing T.pipe_barrier("{dst}") before line {dst_line}'
        if src_core == dst_core:
            return (f'; missing T.set_flag("{src}", "{dst}", id) after line {src_line} and '
                    f'T.wait_flag("{src}", "{dst}", id) before line {dst_line}')
        if src_core.split(" ")[:2] == dst_core.split(" ")[:2]:  # one AI core ("block n")
            return (f'; missing T.set_cross_flag("{src}", id) after line {src_line} and '
                    f"T.wait_cross_flag(id) before line {dst_line}")
        return f"; missing T.sync_all() between line {src_line} and line {dst_line}"


def _position(site: Site) -> tuple[str, int | None, int]:
    """(file, line, column) of a site; no line for `<unknown>`."""
    parts = site.location.rsplit(":", 2)
    if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
        return (site.location, None, 0)
    return (parts[0], int(parts[1]), int(parts[2]))


def _pipe_and_core(where: str) -> tuple[str, str]:
    """("MTE2", "block 0 aiv1") from `MTE2 of block 0 aiv1`."""
    pipe, _, core = where.partition(" of ")
    return pipe, core


class _Spans:
    """Accesses whose byte spans share a bit length, sorted by first byte (then by when
    they were recorded): an access overlaps a region only if it starts at most its class's
    longest span before it, so one long access (a whole tile) does not widen the search
    window of the many one-element accesses of a scalar loop."""

    __slots__ = ("entries", "los", "max_span", "newest", "serials")

    def __init__(self) -> None:
        self.los: list[int] = []
        self.entries: list[Access] = []
        self.serials: list[int] = []
        self.max_span = 0
        self.newest: dict[int, int] = {}
        """Per actor, the highest epoch of its accesses recorded here (removed ones too)."""

    def ordered_before(self, actor: int, clock: np.ndarray, fence: int) -> bool:
        """Whether every access here is ordered before an access of `actor` with `clock`
        and `fence` (see `RaceDetector.access`): then none of them can race with it."""
        return all(epoch <= fence if other == actor else clock[other] >= epoch
                   for other, epoch in self.newest.items())

    def overlapping(self, region: Region, found: list[tuple[int, int, Access]]) -> None:
        first = bisect.bisect_left(self.los, region.lo - self.max_span)
        last = bisect.bisect_left(self.los, region.hi)
        entries, serials, lo = self.entries, self.serials, region.lo
        for index in range(first, last):
            entry = entries[index]
            if entry.region.hi > lo:
                found.append((entry.region.lo, serials[index], entry))

    def remove(self, access: Access) -> None:
        index = bisect.bisect_left(self.los, access.region.lo)
        while self.entries[index] is not access:
            index += 1
        del self.los[index]
        del self.entries[index]
        del self.serials[index]

    def insert(self, access: Access, serial: int) -> None:
        region = access.region
        index = bisect.bisect_right(self.los, region.lo)
        self.los.insert(index, region.lo)
        self.entries.insert(index, access)
        self.serials.insert(index, serial)
        self.max_span = max(self.max_span, region.hi - region.lo)
        if self.newest.get(access.actor, -1) < access.epoch:
            self.newest[access.actor] = access.epoch


class _History:
    """Accesses of one kind (reads or writes) to one memory: in classes of span length,
    candidates in the order of their first byte, then of when they were recorded."""

    def __init__(self) -> None:
        self.spans: dict[int, _Spans] = {}
        self.latest: dict[tuple, Access] = {}
        self.serial = 0

    def candidates(self, region: Region, actor: int, clock: np.ndarray,
                   fence: int) -> list[Access]:
        """The recorded accesses that overlap `region`'s span, but for classes whose every
        access is ordered before an access of `actor` at `clock` and `fence`."""
        found: list[tuple[int, int, Access]] = []
        for spans in self.spans.values():
            if not spans.ordered_before(actor, clock, fence):
                spans.overlapping(region, found)
        if len(self.spans) > 1 and len(found) > 1:
            found.sort(key=lambda item: (item[0], item[1]))
        return [entry for _, _, entry in found]

    def add(self, access: Access) -> None:
        region = access.region
        count = 1 if region.starts is None else len(region.starts)
        key = (access.actor, access.site.atomic, region.lo, region.hi, region.length, count)
        spans = self.spans.get((region.hi - region.lo).bit_length())
        if spans is None:
            spans = self.spans[(region.hi - region.lo).bit_length()] = _Spans()
        previous = self.latest.get(key)
        if previous is not None and (
            region.starts is None or np.array_equal(previous.region.starts, region.starts)
        ):
            spans.remove(previous)
        self.latest[key] = access
        self.serial += 1
        spans.insert(access, self.serial)


class RaceDetector:
    """Reads and writes are kept apart: a read need only be checked against
    writes, so the many reads of a GEMM's inputs cost nothing to check."""

    def __init__(self) -> None:
        self.histories: dict[tuple[int, bool], _History] = {}
        self.races: dict[tuple, Race] = {}

    def _history(self, region: Region, write: bool) -> _History:
        key = (region.arena.id, write)
        history = self.histories.get(key)
        if history is None:
            history = self.histories[key] = _History()
        return history

    def access(self, regions_read: tuple[Region, ...], regions_written: tuple[Region, ...],
               actor: int, epoch: int, clock: np.ndarray, site: Site, where: str,
               fence: int) -> None:
        """Checks the accesses of one op against the history, then records them;
        the actor's own accesses up to epoch `fence` are ordered before this one."""
        for write, regions in ((False, regions_read), (True, regions_written)):
            for region in regions:
                new = Access(region, write, actor, epoch, site, where)
                for against in (True, False) if write else (True,):
                    history = self._history(region, against)
                    for old in history.candidates(region, actor, clock, fence):
                        if old.actor == actor:
                            if old.epoch <= fence or old.epoch == epoch:
                                continue  # ordered on the pipe, or the op itself
                        elif clock[old.actor] >= old.epoch:
                            continue
                        if against and write and old.site.atomic and site.atomic:
                            continue
                        hit = overlap(old.region, region)
                        if hit is not None:
                            self._report(old, new, hit)
                self._history(region, write).add(new)

    def _report(self, earlier: Access, later: Access, hit: tuple[int, int]) -> None:
        arena = later.region.arena
        # One report per pair of ops and memory (a GM argument, or an on-chip
        # space of whichever core): loops and blocks repeat the same race.
        key = (frozenset((earlier.site, later.site)),
               arena.owner if arena.space == "gm" else arena.space)
        found = self.races.get(key)
        meeting = (later.actor, later.epoch)
        if found is None:
            self.races[key] = Race(earlier, later, hit[0], hit[1], last=meeting)
        elif found.last != meeting:
            # Another access of the same execution of the op (say, the in-place
            # write of an op that read the bytes) is the same meeting.
            self.races[key] = dataclasses.replace(found, count=found.count + 1, last=meeting)

    def diagnostics(self) -> list[Diagnostic]:
        return [race.diagnostic() for race in self.races.values()]
