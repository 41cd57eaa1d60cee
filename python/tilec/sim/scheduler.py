"""Event-driven timing of every pipe of every core, with the effects applied in time order.

Each core's scalar unit (the S pipe) interprets the program and pushes
instructions into the queues of the other pipes; each pipe runs its queue in
order, an instruction starting when the pipe is free and, for a wait, when
its flag is set. The effect of an instruction on memory is applied at its
start time, in global time order, so the numbers a program computes are the
ones this timing produces (for a race-free program, the only ones possible).

Scalar work costs no time except scalar loads/stores of buffers: the
per-instruction start-up cost of the pipes stands for issue overhead, and
the scalar unit normally runs far ahead of the pipes.

When nothing is left to happen and some core has not finished, the program
is deadlocked; `tilec.sim.deadlock` explains which waits can never be satisfied.
"""

from __future__ import annotations

import collections
import heapq
import itertools
from collections.abc import Callable

import numpy as np

from tilec.diagnostics import Diagnostic
from tilec.sim.budget import Budget
from tilec.sim.diagnostics import error, fail, note
from tilec.sim.gm_transfer import GmTransferModel
from tilec.sim.instruction import (
    CROSS_SET,
    CROSS_WAIT,
    EXEC,
    JOIN,
    PIPE_IDS,
    PIPE_NAMES,
    PIPES_OF_CORE,
    SET,
    WAIT,
    Instr,
    S,
)
from tilec.sim.memory import Arena, Region
from tilec.sim.races import RaceDetector, Site
from tilec.targets.ascend.machine import hardware_block_idx, logical_block, ordered_pipes
from tilec.targets.ascend.profiles import Profile

RUNTIME_SITE = "TPipe::Init"
"""The site of the flags the AscendC runtime sets before the kernel (`Profile.runtime_flags`)."""

N_PIPES = len(PIPE_NAMES)
_ANY = None
FLAG_IDENTITIES = ("pair", "source")
"""How the hardware names a 1-bit flag: by (source pipe, destination pipe,
event), as the HardEvent pairs of the documentation suggest, or by (source
pipe, event) only, the stricter reading that one public tool needed on A2/A3.
Under `source`, sets from one pipe to two others with one id are one flag."""


def flag_text(key: tuple[int, int, int]) -> str:
    src, dst, event = key
    return f"{PIPE_NAMES[src].lower()} -> {PIPE_NAMES[dst].lower()}, {event}"


class Stall:
    """Why a scalar unit stopped; a resume event only acts on the stall it was made for."""

    __slots__ = ("detail", "kind", "since", "site")

    def __init__(self, kind: str, site: Site | None, since: int, detail: object = None):
        self.kind = kind
        self.site = site
        self.since = since
        self.detail = detail


class Core:
    """One AIC or AIV: its scalar unit's state, pipe queues, flags, memories and clocks."""

    def __init__(self, machine: Machine, index: int, block: int, kind: str, sub: int):
        self.machine = machine
        self.index = index
        self.block = block
        """The block index (`ascend.block_idx`) this core runs."""
        self.kind = kind
        self.sub = sub
        self.name = f"block {block} {kind}" + (str(sub) if kind == "aiv" else "")
        kernel_kind = machine.program.core_kind
        self.block_idx = logical_block(kernel_kind, kind,
                                       hardware_block_idx(kernel_kind, kind, block, sub))
        """What `ascend.block_idx` gives: the block of the core's AIC, from the hardware's
        index the way the emitted code derives it (`GetBlockIdx() / GetTaskRatio()`)."""
        self.where = tuple(f"{p} of {self.name}" for p in PIPE_NAMES)
        self.actor0 = index * N_PIPES
        self.env: list = []
        self.pc = 0
        self.started = False
        self.done = False
        self.finished_at: int | None = None
        self.stall: Stall | None = None
        self.queues: list[collections.deque[Instr]] = [collections.deque() for _ in PIPE_NAMES]
        self.free_at = [0] * N_PIPES
        self.fence = [0] * N_PIPES
        """Per pipe: the epoch up to which its instructions have finished before the
        next one of the pipe starts (a barrier, or a flag chain back to the pipe)."""
        self.ordered = ordered_pipes(machine.profile, kind)
        """The pipes whose dependent instructions the hardware orders on this core."""
        self.blocked: list[Instr | None] = [None] * N_PIPES
        self.blocked_since = [0] * N_PIPES
        self.cross_waiting = 0
        """How many of its pipes (and its scalar unit) wait on cross-core flags now."""
        self.cross_since = 0
        self.scheduled = [False] * N_PIPES
        self.busy = [0] * N_PIPES
        self.clocks: list[np.ndarray] = []
        self.flags: dict[tuple[int, int, int], tuple[np.ndarray, Site]] = {}
        self.runtime_flags: set[tuple[int, int, int]] = set()
        """The flags the runtime set before the kernel (`Profile.runtime_flags`)."""
        self.tokens: dict[int, dict[tuple[int, int], collections.deque[np.ndarray]]] = {}
        self.arenas: dict[str, Arena] = {}

    def issue(self, instr: Instr) -> None:
        """Puts `instr` at the back of its pipe's queue (the scalar unit runs at `machine.now`)."""
        pipe = instr.pipe
        self.queues[pipe].append(instr)
        if not self.scheduled[pipe] and self.blocked[pipe] is None:
            self.scheduled[pipe] = True
            machine = self.machine
            machine.schedule(max(machine.now, self.free_at[pipe]), machine.pump, self, pipe)

    def scalar_waited(self, site: Site) -> None:
        """The scalar unit got past a wait (a flag to S, or a cross-core flag): what
        it learned orders every instruction it issues from now on, on every pipe
        (AscendC's `WaitFlag`/`CrossCoreWaitFlag` on the scalar unit hold back the
        issue of everything after them). Not its own scalar accesses: those still
        need a flag from S."""
        knowledge = self.clocks[S].copy()
        knowledge[self.actor0 + S] = 0
        for pipe in sorted(PIPES_OF_CORE[self.kind] - {S}):
            self.issue(Instr(JOIN, pipe, site, key=(knowledge,)))

    def tick(self, pipe: int) -> int:
        """A new event on `pipe`: its epoch."""
        clock = self.clocks[pipe]
        clock[self.actor0 + pipe] += 1
        return int(clock[self.actor0 + pipe])

    def drained_at(self) -> int | None:
        """When every pipe will be idle, or None while some queue is not empty."""
        for pipe in range(1, N_PIPES):
            if self.queues[pipe] or self.blocked[pipe] is not None:
                return None
        return max(self.free_at)

    def join_all_pipes(self) -> None:
        self.machine.sync_counts["pipe_barrier_all"] += 1
        joined = np.maximum.reduce(self.clocks)
        for clock in self.clocks:
            np.maximum(clock, joined, out=clock)
        self.see_own(joined)

    def see_own(self, clock: np.ndarray, pipe: int | None = None) -> None:
        """`clock` (what a wait or barrier joined in) says which of this core's own
        instructions have finished: on `pipe`, or on every pipe."""
        for p in range(N_PIPES) if pipe is None else (pipe,):
            self.fence[p] = max(self.fence[p], int(clock[self.actor0 + p]))

    def pipe_barrier(self, pipe: int) -> None:
        """`pipe_barrier` on `pipe`: what came before on the pipe finishes before what follows."""
        self.fence[pipe] = self.tick(pipe)


class Machine:
    """All cores of one kernel launch and the events between them."""

    def __init__(self, program, arg_values: list, profile: Profile, block_dim: int,
                 budget: Budget, *, timeline: bool, flag_identity: str = "pair"):
        if flag_identity not in FLAG_IDENTITIES:
            raise ValueError(f"unknown flag identity '{flag_identity}' "
                             f"(known: {', '.join(FLAG_IDENTITIES)})")
        self.flag_identity = flag_identity
        self.sync_counts: collections.Counter[str] = collections.Counter()
        self.cross_wait_cycles: collections.Counter[str] = collections.Counter()
        """Cycles pipes (or scalar units) spent blocked on cross-core flags, per core kind."""
        """set_flag, wait_flag, pipe_barrier (one pipe) and pipe_barrier_all
        instructions executed, all cores together."""
        self.program = program
        self.arg_values = arg_values
        """This launch's bound arguments (the program is shared between launches)."""
        self.profile = profile
        self.block_dim = block_dim
        self.budget = budget
        self.now = 0
        self.heap: list = []
        self.sequence = itertools.count()
        self.races = RaceDetector()
        self.gm = GmTransferModel(profile)
        self.findings: list[Diagnostic] = []
        self._cross_set_sites: dict[tuple[int, int, tuple[int, int]], Site] = {}
        """The latest cross_core_set_flag of each (target core, flag, (mode, source core))."""
        self.path_bytes: dict[str, int] = collections.defaultdict(int)
        self.macs = 0
        self.timeline: list[tuple] | None = [] if timeline else None
        self.blocks: list[list[Core]] = []
        self.cores: list[Core] = []
        self._make_cores(program.core_kind)
        self.n_actors = len(self.cores) * N_PIPES
        self.next_block = 0
        self.end_time = 0
        self.sync_arrived: list[Core] = []
        self.slots = profile.aiv_cores if program.core_kind == "aiv" else profile.aic_cores
        self._reported_pending: set[Site] = set()

    # -- grid ---------------------------------------------------------------

    def _make_cores(self, kind: str) -> None:
        # every core keeps a vector clock per pipe over every pipe of the launch
        # (races.py): charged before the cores are made, so a huge grid is a budget
        # error at once, not a MemoryError after a long allocation
        cores = self.block_dim * (3 if kind == "mix" else 1)
        self.budget.charge_memory(cores * N_PIPES * cores * N_PIPES * 8,
                                  f"race detection over {self.block_dim} blocks",
                                  self.program.site.location)
        index = itertools.count()
        for block in range(self.block_dim):
            if kind == "mix":
                cores = [Core(self, next(index), block, "aic", 0)]
                cores += [Core(self, next(index), block, "aiv", sub) for sub in (0, 1)]
            else:
                # An AIV-only kernel puts blocks 2i and 2i+1 on the two AIVs of one AI core.
                cores = [Core(self, next(index), block, kind, block % 2 if kind == "aiv" else 0)]
            self.blocks.append(cores)
            self.cores.extend(cores)

    def siblings(self, core: Core) -> list[Core]:
        """The AIVs of `core`'s AI core (in an AIV-only kernel, blocks 2i and 2i+1 share one)."""
        if self.program.core_kind == "mix":
            return [c for c in self.blocks[core.block] if c.kind == "aiv"]
        pair = core.block - core.block % 2
        return [c for b in (pair, pair + 1) if b < len(self.blocks) for c in self.blocks[b]]

    def cube_of(self, core: Core) -> Core | None:
        aic = [c for c in self.blocks[core.block] if c.kind == "aic"]
        return aic[0] if aic else None

    # -- event loop ---------------------------------------------------------

    def schedule(self, time: int, fn: Callable, *args) -> None:
        heapq.heappush(self.heap, (time, next(self.sequence), fn, args))

    def advance(self, core: Core, cycles: int) -> bool:
        """Moves the scalar unit `cycles` ahead; False when other events come
        first (the caller stalls and is resumed at the new time)."""
        target = self.now + cycles
        if self.heap and self.heap[0][0] <= target:
            stall = Stall("time", None, self.now)
            core.stall = stall
            self.schedule(target, self.resume, core, stall)
            return False
        self.now = target
        return True

    def run(self) -> None:
        for _ in range(min(self.slots, len(self.blocks))):
            self._start_block(self._take_block(), 0)
        heap = self.heap
        max_cycles = self.budget.max_cycles
        while heap:
            time, _, fn, args = heapq.heappop(heap)
            if time > max_cycles:
                raise self.budget.exceeded(
                    "max_cycles", self.program.site.location,
                    f"the simulated time passed the cycle budget of {max_cycles} cycles")
            self.now = time
            fn(*args)
        self._report_pending_cross_flags()

    def _report_pending_cross_flags(self) -> None:
        """A cross-core set that no wait consumed is unbalanced: on hardware
        the next kernel on those cores inherits the count."""
        for core in self.cores:
            for flag, queues in core.tokens.items():
                for (mode, source), queue in sorted(queues.items()):
                    if queue:
                        site = self._cross_set_sites[core.index, flag, (mode, source)]
                        self.findings.append(error(
                            site.location,
                            f"cross-core flag {flag} (mode {mode}) set by "
                            f"{self.cores[source].name} is still pending ({len(queue)} set(s)) "
                            f"on {core.name} when the kernel ends: no cross_core_wait_flag "
                            f"consumed it"))

    def _take_block(self) -> int:
        """The next block to dispatch to a free core."""
        self.next_block += 1
        return self.next_block - 1

    def _start_block(self, block: int, time: int) -> None:
        for core in self.blocks[block]:
            core.started = True
            core.clocks = [np.zeros(self.n_actors, dtype=np.int64) for _ in PIPE_NAMES]
            core.env = self.program.new_env(self.arg_values)
            core.free_at = [time] * N_PIPES
            core.fence = [0] * N_PIPES
            self._set_runtime_flags(core)
            stall = Stall("start", None, time)
            core.stall = stall
            self.schedule(time, self.resume, core, stall)

    def _set_runtime_flags(self, core: Core) -> None:
        """The flags the AscendC runtime sets before the kernel's first op on this kind of
        core (`Profile.runtime_flags`: TPipe's M -> MTE1 ids on the AIC). Once per block:
        each block is one run of the kernel's entry, whose `TPipe` sets them in its
        constructor and waits for them in its destructor."""
        site = Site(RUNTIME_SITE, self.program.site.location,
                    "the AscendC runtime (TPipe::Init, kernel_tpipe_impl.h)")
        for src, dst, event in self.profile.runtime_flags.get(core.kind, ()):
            key = (PIPE_IDS[src], PIPE_IDS[dst], event)
            core.flags[key] = (np.zeros(self.n_actors, dtype=np.int64), site)
            core.runtime_flags.add(key)

    def resume(self, core: Core, stall: Stall) -> None:
        if core.stall is not stall:
            return
        core.stall = None
        if stall.kind == "cross":
            self._cross_wait_ends(core)
        if stall.site is not None and self.timeline is not None and self.now > stall.since:
            self.timeline.append((core.index, S, stall.since, self.now - stall.since,
                                  stall.site, "stall"))
        code = self.program.code
        pc = core.pc
        budget = self.budget
        # The step budget bounds the loop: `range` counts the steps at no cost per step.
        for steps in range(1, budget.max_steps - budget.steps_used + 1):  # noqa: B007 (read below)
            pc = code[pc](core)
            if pc < 0:
                break
        else:
            raise budget.exceeded(
                "max_steps", self.program.locations[pc],
                f"the simulation used up its budget of {budget.max_steps} interpreted steps "
                f"({core.name} is at this op)")
        budget.steps_used += steps
        if core.done:
            self._check_finished(core)

    def stall(self, core: Core, kind: str, site: Site, pc: int, detail: object = None) -> int:
        """Stops the scalar unit of `core` at `pc`; returns the interpreter's stop code."""
        core.stall = Stall(kind, site, self.now, detail)
        core.pc = pc
        if kind == "cross":
            self._cross_wait_starts(core)
        return -1

    def _cross_wait_starts(self, core: Core) -> None:
        """A pipe or the scalar unit of `core` starts waiting on a cross-core
        flag. The cycles counted are those in which at least one does, so two
        pipes waiting at once count once."""
        if core.cross_waiting == 0:
            core.cross_since = self.now
        core.cross_waiting += 1

    def _cross_wait_ends(self, core: Core) -> None:
        core.cross_waiting -= 1
        if core.cross_waiting == 0:
            self.cross_wait_cycles[core.kind] += self.now - core.cross_since

    # -- pipes --------------------------------------------------------------

    def pump(self, core: Core, pipe: int) -> None:
        core.scheduled[pipe] = False
        queue = core.queues[pipe]
        now = self.now
        while queue:
            if core.free_at[pipe] > now:
                core.scheduled[pipe] = True
                self.schedule(core.free_at[pipe], self.pump, core, pipe)
                return
            instr = queue[0]
            kind = instr.kind
            if kind == EXEC:
                queue.popleft()
                self._execute(core, pipe, instr)
            elif kind == SET:
                queue.popleft()
                self.set_flag(core, pipe, instr.key, instr.site)
            elif kind == WAIT:
                if not self.try_wait(core, pipe, instr.key):
                    self._block(core, pipe, instr)
                    return
                queue.popleft()
                self._unblocked(core, pipe, instr)
            elif kind == CROSS_SET:
                queue.popleft()
                self.cross_set(core, pipe, instr)
            elif kind == CROSS_WAIT:
                if not self.try_cross_wait(core, pipe, instr.key[0]):
                    self._block(core, pipe, instr)
                    return
                queue.popleft()
                self._unblocked(core, pipe, instr)
            elif kind == JOIN:
                queue.popleft()
                np.maximum(core.clocks[pipe], instr.key[0], out=core.clocks[pipe])
                core.see_own(instr.key[0], pipe)
            else:  # MARK
                queue.popleft()
                self.sync_counts["pipe_barrier"] += 1
                core.pipe_barrier(pipe)
                # The pipe drains: the next instruction pays its pipeline fill again.
                cycles = self.profile.startup_cycles[PIPE_NAMES[pipe].lower()]
                core.free_at[pipe] = now + cycles
                if self.timeline is not None:
                    self.timeline.append((core.index, pipe, now, cycles, instr.site, "barrier"))
        self._pipe_emptied(core)

    def _block(self, core: Core, pipe: int, instr: Instr) -> None:
        if core.blocked[pipe] is None:
            core.blocked[pipe] = instr
            core.blocked_since[pipe] = self.now
            if instr.kind == CROSS_WAIT:
                self._cross_wait_starts(core)

    def _unblocked(self, core: Core, pipe: int, instr: Instr) -> None:
        if core.blocked[pipe] is instr:
            core.blocked[pipe] = None
            since = core.blocked_since[pipe]
            if instr.kind == CROSS_WAIT:
                self._cross_wait_ends(core)
            if self.timeline is not None and self.now > since:
                self.timeline.append((core.index, pipe, since, self.now - since, instr.site,
                                      "wait"))

    def _wake(self, core: Core, pipe: int) -> None:
        """Lets a pipe whose head is a wait look at its flag again."""
        if core.blocked[pipe] is not None and not core.scheduled[pipe]:
            core.scheduled[pipe] = True
            self.schedule(self.now, self.pump, core, pipe)

    def _pipe_emptied(self, core: Core) -> None:
        stall = core.stall
        if stall is not None and stall.kind == "drain":
            when = core.drained_at()
            if when is not None:
                self.schedule(max(when, self.now), self.resume, core, stall)
        elif core.done:
            self._check_finished(core)

    def _execute(self, core: Core, pipe: int, instr: Instr) -> None:
        now = self.now
        epoch = core.tick(pipe)
        cycles = instr.cycles
        if instr.gm_read is not None:
            cycles += self.gm.read_cycles(instr.gm_read)
        if instr.gm_write is not None:
            cycles += self.gm.write_cycles(instr.gm_write)
        if instr.reads or instr.writes:
            ordered = instr.ordered or pipe in core.ordered
            self.races.access(instr.reads, instr.writes, core.actor0 + pipe, epoch,
                              core.clocks[pipe], instr.site, core.where[pipe],
                              epoch if ordered else core.fence[pipe])
        if instr.effect is not None:
            instr.effect()
        core.free_at[pipe] = now + cycles
        core.busy[pipe] += cycles
        if instr.path is not None:
            self.path_bytes[instr.path] += instr.nbytes
        self.macs += instr.macs
        if self.timeline is not None:
            self.timeline.append((core.index, pipe, now, cycles, instr.site, instr.path))

    def scalar_access(self, core: Core, site: Site, reads: tuple[Region, ...],
                      writes: tuple[Region, ...], cycles: int) -> None:
        """A load/store by the scalar unit itself, at the current time."""
        epoch = core.tick(S)
        self.races.access(reads, writes, core.actor0 + S, epoch, core.clocks[S], site,
                          core.where[S], epoch)
        core.busy[S] += cycles
        core.free_at[S] = self.now + cycles
        if self.timeline is not None:
            self.timeline.append((core.index, S, self.now, cycles, site, None))

    # -- flags within a core ---------------------------------------------------

    def set_flag(self, core: Core, pipe: int, key: tuple[int, int, int], site: Site) -> None:
        """`set_flag` executing on `pipe` now (every earlier op of the pipe has finished)."""
        core.tick(pipe)
        self.sync_counts["set_flag"] += 1
        held = self._holder(core, key)
        if held is not None:
            _, previous = core.flags[held]
            same = "" if held == key else f" (as {flag_text(held)}: one flag per source " \
                                          f"pipe and event)"
            self.findings.append(error(
                site.location,
                f"{site.text} on {core.name} sets flag {flag_text(key)} that is already set"
                f"{same} (the hardware may hang)",
                note(previous.location, "the flag was set here and not waited for since"
                     if previous.name != RUNTIME_SITE else f"{previous.text} set it before "
                     f"the kernel's first op and waits for it after the last")))
            return
        core.flags[key] = (core.clocks[pipe].copy(), site)
        by_source = self.flag_identity == "source"
        if key[1] != S and not by_source:
            self._wake(core, key[1])
            return
        if by_source:
            for other in range(1, N_PIPES):
                self._wake(core, other)
        stall = core.stall
        if stall is not None and stall.kind == "flag" and self._same_flag(stall.detail, key):
            self.schedule(self.now, self.resume, core, stall)

    def _same_flag(self, a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
        if self.flag_identity == "source":
            return a[0] == b[0] and a[2] == b[2]
        return a == b

    def _holder(self, core: Core, key: tuple[int, int, int]) -> tuple[int, int, int] | None:
        """The pending flag that `key` names on this hardware (None: not set)."""
        if key in core.flags:
            return key
        if self.flag_identity == "source":
            return next((k for k in core.flags if self._same_flag(k, key)), None)
        return None

    def try_wait(self, core: Core, pipe: int, key: tuple[int, int, int]) -> bool:
        held = self._holder(core, key)
        if held is None:
            return False
        entry = core.flags.pop(held)
        self.sync_counts["wait_flag"] += 1
        np.maximum(core.clocks[pipe], entry[0], out=core.clocks[pipe])
        core.see_own(entry[0], pipe)
        return True

    # -- cross-core counting semaphores --------------------------------------------

    def cross_mode_problem(self, core: Core, mode: int) -> str | None:
        """Why `core` cannot set a cross-core flag in `mode` (None: it can)."""
        if mode == 1 and core.kind != "aiv":
            return f"mode 1 syncs the two AIVs of an AI core, but it runs on {core.name}"
        if mode in (2, 4) and self.program.core_kind != "mix":
            return f"mode {mode} syncs the AIC with its AIVs, which needs a mix kernel"
        return None

    def cross_targets(self, core: Core, mode: int) -> list[Core]:
        """The cores whose semaphore a set by `core` in `mode` increments."""
        if mode == 0:
            return [c for c in self.cores if c.kind == core.kind]
        if mode == 1 or core.kind == "aic":
            return self.siblings(core)
        return [self.cube_of(core)]

    def cross_sources(self, core: Core, mode: int) -> list[Core] | None:
        """Cores whose sets a wait of `mode` needs one each of (None: any one)."""
        if mode == 0:
            return [c for c in self.cores if c.kind == core.kind]
        if mode == 1:
            return self.siblings(core)
        if core.kind == "aiv":
            return [self.cube_of(core)]
        return self.siblings(core) if mode == 2 else _ANY

    def cross_set(self, core: Core, pipe: int, instr: Instr) -> None:
        mode, flag = instr.key
        core.tick(pipe)
        snapshot = core.clocks[pipe].copy()
        problem = self.cross_mode_problem(core, mode)
        if problem is not None:
            raise fail(instr.site.location, f"{instr.site.text}: {problem}")
        targets = self.cross_targets(core, mode)
        self.schedule(self.now + self.profile.cross_core_latency_cycles, self._deliver,
                      targets, flag, (mode, core.index), snapshot, instr.site)

    def _deliver(self, targets: list[Core], flag: int, source: tuple[int, int],
                 snapshot: np.ndarray, site: Site) -> None:
        for target in targets:
            tokens = target.tokens.setdefault(flag, {}).setdefault(source, collections.deque())
            tokens.append(snapshot)
            self._cross_set_sites[target.index, flag, source] = site
            if len(tokens) > self.profile.cross_core_max_pending and site not in \
                    self._reported_pending:
                self._reported_pending.add(site)
                self.findings.append(error(
                    site.location,
                    f"{site.text}: more than {self.profile.cross_core_max_pending} sets of "
                    f"cross-core flag {flag} are pending on {target.name}"))
            self._wake_cross(target, flag)

    def _wake_cross(self, core: Core, flag: int) -> None:
        for pipe in range(1, N_PIPES):
            blocked = core.blocked[pipe]
            if blocked is not None and blocked.kind == CROSS_WAIT and blocked.key[0] == flag:
                self._wake(core, pipe)
        stall = core.stall
        if stall is not None and stall.kind == "cross" and stall.detail == flag:
            self.schedule(self.now, self.resume, core, stall)

    def try_cross_wait(self, core: Core, pipe: int, flag: int) -> bool:
        pending = core.tokens.get(flag)
        if not pending:
            return False
        for mode in sorted({mode for mode, _ in pending}):
            sources = self.cross_sources(core, mode)
            if sources is _ANY:
                queues = [q for (m, _), q in sorted(pending.items()) if m == mode and q]
                queues = queues[:1]
            else:
                queues = [pending.get((mode, source.index)) for source in sources]
                if not all(queues):
                    continue
            if not queues:
                continue
            clock = core.clocks[pipe]
            for queue in queues:
                snapshot = queue.popleft()
                np.maximum(clock, snapshot, out=clock)
                # what the setter knew of this pipe (not the joined clock: it holds the
                # pipe's own latest epoch)
                core.see_own(snapshot, pipe)
            return True
        return False

    # -- barriers -------------------------------------------------------------

    def sync_all_arrive(self, core: Core, site: Site, resume_pc: int) -> int:
        """The scalar unit of a drained core reaches `sync_all`: stop it until every core has."""
        stop = self.stall(core, "sync_all", site, resume_pc)
        self.sync_arrived.append(core)
        if len(self.sync_arrived) == len(self.cores):
            joined = np.maximum.reduce([c for core_ in self.cores for c in core_.clocks])
            release = self.now + self.profile.sync_all_cycles
            for waiting in self.sync_arrived:
                for clock in waiting.clocks:
                    np.maximum(clock, joined, out=clock)
                waiting.see_own(joined)
                self.schedule(release, self.resume, waiting, waiting.stall)
            self.sync_arrived = []
        return stop

    # -- completion -------------------------------------------------------------

    def _check_finished(self, core: Core) -> None:
        if core.finished_at is not None:
            return
        when = core.drained_at()
        if when is None:
            return
        core.finished_at = when
        core.clocks = []  # nothing orders against a finished core any more
        for key in core.runtime_flags - core.flags.keys():
            self.findings.append(error(
                self.program.site.location,
                f"{core.name}: the kernel waited for flag {flag_text(key)}, which the AscendC "
                f"runtime set before its first op and waits for after its last "
                f"(TPipe, kernel_tpipe_impl.h): the runtime's wait would hang"))
        for key, (_, site) in core.flags.items():
            if key in core.runtime_flags:
                continue  # the runtime's own: it waits for it after the kernel
            # A flag left set is unbalanced: on hardware the next kernel inherits it.
            self.findings.append(error(
                site.location,
                f"{site.text} on {core.name}: flag {flag_text(key)} is still set when the "
                f"core finishes (no wait_flag consumed it)"))
        cores = self.blocks[core.block]
        if all(c.finished_at is not None for c in cores):
            end = max(c.finished_at for c in cores)
            self.end_time = max(self.end_time, end)
            if self.next_block < len(self.blocks):
                self.schedule(end, self._start_block, self._take_block(), end)

    def finished(self) -> bool:
        return all(c.finished_at is not None for c in self.cores)
