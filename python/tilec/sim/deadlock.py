"""Explaining a deadlock: which waits can never be satisfied, and what every pipe is doing.

When the event queue runs dry and some core has not finished, every stuck
pipe (and stuck scalar unit) sits at a wait. For each wait we look for what
would satisfy it: the matching set may be queued on another pipe behind that
pipe's own stuck wait (then this wait is only a consequence), or nowhere at
all (then it is a root: a wait that can never be satisfied). Roots are
reported; when there is none, the waits form a cycle, which is reported as
one error naming each wait of the cycle.
"""

from __future__ import annotations

import dataclasses

from tilec.diagnostics import Diagnostic
from tilec.sim.diagnostics import error, note
from tilec.sim.instruction import CROSS_SET, PIPE_NAMES, PIPES_OF_CORE, SET, WAIT, S
from tilec.sim.races import Site
from tilec.sim.scheduler import N_PIPES, Core, Machine, flag_text


@dataclasses.dataclass(eq=False)
class _Wait:
    core: Core
    pipe: int
    site: Site
    what: str
    since: int
    key: tuple | None = None
    """(src, dst, event) of a flag wait, (flag,) of a cross-core wait, None for sync_all."""
    never: str = "which is never set"
    """How the message ends when nothing will satisfy the wait."""

    @property
    def where(self) -> str:
        return self.core.where[self.pipe]


def _stuck_waits(machine: Machine) -> dict[tuple[int, int], _Wait]:
    """The wait each stuck pipe or scalar unit sits at, by (core index, pipe)."""
    waits = {}
    for core in machine.cores:
        if not core.started or core.finished_at is not None:
            continue
        for pipe in range(1, N_PIPES):
            instr = core.blocked[pipe]
            if instr is None:
                continue
            what = (f"flag {flag_text(instr.key)}" if instr.kind == WAIT
                    else f"cross-core flag {instr.key[0]}")
            waits[core.index, pipe] = _Wait(core, pipe, instr.site, what,
                                            core.blocked_since[pipe], instr.key)
        stall = core.stall
        if stall is None or stall.site is None or stall.kind in ("drain", "time"):
            continue
        if stall.kind == "flag":
            what, key = f"flag {flag_text(stall.detail)}", stall.detail
        elif stall.kind == "cross":
            what, key = f"cross-core flag {stall.detail}", (stall.detail,)
        else:
            waits[core.index, S] = _Wait(
                core, S, stall.site, "every core of the grid", stall.since,
                never=f"but only {len(machine.sync_arrived)} of {len(machine.cores)} arrive")
            continue
        waits[core.index, S] = _Wait(core, S, stall.site, what, stall.since, key)
    return waits


def _stuck_point(machine: Machine, waits: dict, core: Core, pipe: int) -> _Wait | None:
    """The wait that keeps `pipe` of `core` from reaching what is queued on it."""
    found = waits.get((core.index, pipe))
    if found is not None or pipe != S:
        return found
    # A scalar unit waiting for its pipes to drain is held by their waits.
    return next((waits[core.index, p] for p in range(1, N_PIPES) if (core.index, p) in waits),
                None)


def _blocker(machine: Machine, waits: dict, wait: _Wait) -> _Wait | None:
    """The stuck wait that holds back what would satisfy `wait` (None: nothing will)."""
    core = wait.core
    if wait.key is None:  # sync_all: held by any core that is stuck elsewhere
        for other in machine.cores:
            if other.started and other.finished_at is None and other not in machine.sync_arrived:
                return _stuck_point(machine, waits, other, S)
        return None
    program = machine.program
    if len(wait.key) == 3:
        src = wait.key[0]
        if src == S:
            if core.done or wait.key not in program.flags_set:
                return None
            return _stuck_point(machine, waits, core, S)
        if any(i.kind == SET and i.key == wait.key for i in core.queues[src]):
            return _stuck_point(machine, waits, core, src)
        return None
    flag = wait.key[0]
    for other in machine.cores:
        for pipe in range(1, N_PIPES):
            if any(i.kind == CROSS_SET and i.key[1] == flag for i in other.queues[pipe]):
                return _stuck_point(machine, waits, other, pipe)
    for other in machine.cores:
        if other.started and not other.done and _could_set(machine, other, core, flag):
            return _stuck_point(machine, waits, other, S)
    return None


def _could_set(machine: Machine, setter: Core, waiter: Core, flag: int) -> bool:
    """Whether the kernel has a cross_core_set_flag of `flag` that `setter`
    runs and that reaches `waiter`."""
    for kind, mode, set_flag in machine.program.cross_sets:
        if set_flag != flag or kind not in (None, setter.kind):
            continue
        if machine.cross_mode_problem(setter, mode) is None and \
                waiter in machine.cross_targets(setter, mode):
            return True
    return False


def _pipe_states(core: Core, location: str) -> list[Diagnostic]:
    """Notes on what every pipe of `core` is doing and which flags it left set."""
    notes, idle = [], []
    stall = core.stall
    if core.done:
        idle.append("S finished issuing")
    elif stall is not None and stall.site is not None:
        notes.append(note(stall.site.location, f"{core.name} S: stalled at {stall.site.text} "
                                               f"since cycle {stall.since}"))
    for pipe in sorted(PIPES_OF_CORE[core.kind] - {S}):
        queued = len(core.queues[pipe])
        blocked = core.blocked[pipe]
        name = PIPE_NAMES[pipe]
        if blocked is not None:
            notes.append(note(blocked.site.location,
                              f"{core.name} {name}: blocked at {blocked.site.text} since cycle "
                              f"{core.blocked_since[pipe]}, {queued - 1} more queued"))
        elif queued:
            idle.append(f"{name} {queued} queued")
        else:
            idle.append(f"{name} idle since cycle {core.free_at[pipe]}")
    notes.append(note(location, f"{core.name}: {'; '.join(idle)}"))
    for key, (_, site) in core.flags.items():
        notes.append(note(site.location, f"{core.name}: flag {flag_text(key)} is set and never "
                                         f"waited for"))
    return notes


def _unstarted(machine: Machine, location: str) -> list[Diagnostic]:
    unstarted = len(machine.blocks) - machine.next_block
    if not unstarted:
        return []
    return [note(location, f"{unstarted} blocks never started: the grid has "
                           f"{len(machine.blocks)} blocks for {machine.slots} cores")]


def deadlocks(machine: Machine) -> list[Diagnostic]:
    """One error per wait that can never be satisfied (or per cycle of waits)."""
    if machine.finished():
        return []
    waits = _stuck_waits(machine)
    blockers = {id(w): _blocker(machine, waits, w) for w in waits.values()}
    roots: dict[Site, list[_Wait]] = {}
    for wait in waits.values():
        if blockers[id(wait)] is None:
            roots.setdefault(wait.site, []).append(wait)
    diagnostics = []
    for site, group in roots.items():
        first = group[0]
        more = f" (and on {len(group) - 1} more cores)" if len(group) > 1 else ""
        diagnostics.append(error(
            site.location,
            f"deadlock: {site.text} on {first.where}{more} waits for {first.what}, "
            f"{first.never}",
            *_pipe_states(first.core, site.location), *_unstarted(machine, site.location)))
    if diagnostics or not waits:
        if not diagnostics:
            core = next(c for c in machine.cores if c.started and c.finished_at is None)
            location = machine.program.site.location
            diagnostics.append(error(location, f"deadlock: {core.name} never finishes",
                                     *_pipe_states(core, location),
                                     *_unstarted(machine, location)))
        return diagnostics
    cycle, wait = [], min(waits.values(), key=lambda w: w.since)
    while wait is not None and wait not in cycle:
        cycle.append(wait)
        wait = blockers[id(wait)]
    if wait is not None:
        cycle = cycle[cycle.index(wait):]
    after = [f"which is set only after {w.site.text} on {w.where}" for w in cycle[1:]]
    after.append("which is set only after the first wait of this cycle")
    first = cycle[0]
    links = [note(w.site.location, f"{w.site.text} on {w.where} waits for {w.what}, {text}")
             for w, text in zip(cycle[1:], after[1:], strict=True)]
    return [error(first.site.location,
                  f"deadlock: {first.site.text} on {first.where} waits for {first.what}, "
                  f"{after[0]}",
                  *links, *_pipe_states(first.core, first.site.location),
                  *_unstarted(machine, first.site.location))]
