"""The checker of tile-ascend-inject-sync: an abstract run of a kernel with its syncs.

The walk executes the structured program on sets instead of data. Every op
instance (and every wait) gets a fresh number; `unknown[Q]` holds the
instances that pipe Q is not yet ordered after: those of other pipes, and Q's
own earlier ops where Q overlaps dependent instructions (every pipe but the
ones the machine model says the hardware orders). An op on Q whose bytes
conflict with an unknown instance is a hazard (`Conflict`). A `set_flag` on P
runs once everything before it on P has finished, and records what else P is
ordered after at that point; the matching `wait_flag` on Q makes Q ordered
after it, so happens-before is exact along each path, and transitive through
any chain of flags (also back to Q itself). A `pipe_barrier` of Q orders Q's
later ops after its earlier ones; `pipe_barrier all` orders everything. Only
flags and barriers order pipes: that a wait on the scalar unit stalls the
issue of later ops is not relied on for data (the simulator's race detector
does not either), only for the ordering of flags themselves.

`scf.if` walks both branches and joins (union of unknowns: must-order);
`scf.for` walks its body a few times from the join of the entry state and
the previous pass, so hazards between iterations (and flags that outlive an
iteration) show. The same walk checks the flags themselves: a set while the
flag may still be pending, a wait with no set, a flag pending on one path
and not the other. Two syncs from one source pipe *interfere* when one can
be set while the other may still be pending; interfering syncs need
different event ids (`interference`), and a sync that interferes with
itself needs more ordering (`self_interference`).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable

from mlir import ir

from tilec.passes.conversion.tile_to_ascend.analysis.sync_model import (
    Block,
    FenceNode,
    IfNode,
    LoopNode,
    Model,
    Node,
    OpNode,
    S,
    pipe_name,
)
from tilec.passes.conversion.tile_to_ascend.analysis.sync_offsets import Relation

PASSES = 3
"""Walks of a loop body: enough for a hazard or a flag to cross an iteration
boundary twice (the state repeats from there on)."""

N_PIPES = 7


@dataclasses.dataclass(eq=False)
class Sync:
    """One flag: set on `src` after the producer, waited on `dst` before the consumer."""

    src: int
    dst: int
    producer: OpNode
    consumer: Node
    credit: LoopNode | None = None
    """Loop-carried: set once before this loop, waited once after it."""
    ack: bool = False
    """An acknowledgement: orders the wait of another sync before its next set."""
    event: int = -1
    serial: int = dataclasses.field(default_factory=itertools.count().__next__)


@dataclasses.dataclass(frozen=True, eq=False)
class Event:
    kind: str
    """`set`, `wait`, `barrier` (PIPE_ALL) or `pipe barrier` (of `pipe` only)."""
    sync: Sync | None = None
    pipe: int | None = None


class Points:
    """Where each sync instruction goes: before/after a node, at the start/end of a block."""

    def __init__(self) -> None:
        self.table: dict[tuple[str, int], list[Event]] = {}

    def add(self, where: str, anchor: Node | Block, event: Event) -> None:
        self.table.setdefault((where, id(anchor)), []).append(event)

    def at(self, where: str, anchor: Node | Block) -> list[Event]:
        return self.table.get((where, id(anchor)), [])

    def beside(self, sync: Sync, kind: str, event: Event, after: bool,
               skip: frozenset[tuple[str, int]]) -> None:
        """Puts `event` right after (or before) every `kind` event of `sync`,
        except at the points in `skip`."""
        for key, events in self.table.items():
            if key in skip:
                continue
            placed: list[Event] = []
            for existing in events:
                mine = existing.sync is sync and existing.kind == kind
                if mine and not after:
                    placed.append(event)
                placed.append(existing)
                if mine and after:
                    placed.append(event)
            events[:] = placed

    @staticmethod
    def key(where: str, anchor: Node | Block) -> tuple[str, int]:
        return (where, id(anchor))


class Conflict(Exception):
    """An unordered hazard: `producer` (earlier) and `consumer` touch the same bytes."""

    def __init__(self, producer: OpNode, consumer: OpNode):
        super().__init__()
        self.producer = producer
        self.consumer = consumer


class FlagMisuse(Exception):
    """The syncs themselves are wrong (a bug of the placement, never of the input)."""

    def __init__(self, node: Node | None, message: str):
        super().__init__(message)
        self.node = node
        self.message = message


@dataclasses.dataclass
class _Entry:
    pipe: int
    node: OpNode | None
    """None for a wait (tracked for the ordering of flags only)."""
    loops: tuple[tuple[LoopNode, int], ...] = ()
    """The loops around the instance, outermost first, each with the number of
    the walk of its body (its iteration) the instance ran in."""


class _State:
    __slots__ = ("flags", "unknown", "waits")

    def __init__(self) -> None:
        self.unknown: list[set[int]] = [set() for _ in range(N_PIPES)]
        self.flags: dict[Sync, tuple[frozenset[int], set[int]]] = {}
        """Pending flags: what the source pipe was not ordered after when it
        set it, and the instances that came after the set (on this path)."""
        self.waits: dict[Sync, frozenset[int]] = {}
        """Instance numbers of the last wait of each sync (one per path)."""

    def copy(self) -> _State:
        state = _State()
        state.unknown = [set(u) for u in self.unknown]
        state.flags = {k: (snapshot, set(later)) for k, (snapshot, later) in self.flags.items()}
        state.waits = dict(self.waits)
        return state


class Walker:
    """One abstract run of a model with the syncs in `points`."""

    def __init__(self, model: Model, syncs: Iterable[Sync], points: Points, *,
                 interference: bool = True, same_pipe: bool = True,
                 barrier: Callable[[OpNode], None] | None = None):
        self.model = model
        self.points = points
        self.same_pipe = same_pipe
        """Whether ops are checked against the earlier ops of their own pipe (flags
        never order those, and barriers of one pipe change no flag: they are found in
        a walk of their own, once the flags are)."""
        self.barrier = barrier
        """Where a same-pipe hazard is met: puts a barrier of the pipe before the op,
        which the walk then applies and goes on (None: the hazard is a `Conflict`)."""
        self.check_all = interference
        """Whether to find which syncs interfere (else only each with itself)."""
        self.by_source: dict[int, list[Sync]] = {}
        self.all_syncs = list(syncs)
        for sync in self.all_syncs:
            self.by_source.setdefault(sync.src, []).append(sync)
        self.entries: dict[int, _Entry] = {}
        self.pipes = sorted({n.pipe for n in model.nodes} | {s.src for s in self.all_syncs}
                            | {s.dst for s in self.all_syncs})
        """The pipes that run something: only they need to know what others did."""
        self.counter = itertools.count()
        self.iterations = itertools.count()
        self.loops: list[tuple[LoopNode, int]] = []
        """The loops around the op walked now, with the number of their iteration."""
        self.defining_loops: dict[ir.Value, ir.Operation | None] = {}
        self.interference: set[tuple[Sync, Sync]] = set()
        self.self_interference: dict[Sync, bool] = {}
        """Syncs that may be set again before their last wait ran: True when
        it is the credit set before the loop (the loop is entered again)."""

    def run(self) -> None:
        state = self._block(self.model.root, _State())
        for sync in state.flags:
            raise FlagMisuse(sync.producer, f"flag {_text(sync)} is still set at the end of "
                                            f"the kernel")

    # -- structure --------------------------------------------------------------

    def _block(self, block: Block, state: _State) -> _State:
        self._events(self.points.at("start", block), state, block.owner, False)
        for node in block.items:
            self._events(self.points.at("before", node), state, node, True)
            state = self._node(node, state)
            self._events(self.points.at("after", node), state, node, False)
        self._events(self.points.at("end", block), state, block.owner, False)
        return state

    def _node(self, node: Node, state: _State) -> _State:
        if isinstance(node, OpNode):
            self._op(node, state)
            return state
        if isinstance(node, FenceNode):
            self._fence(state, node.pipe)
            return state
        if isinstance(node, IfNode):
            return self._join(node, [self._block(b, state.copy()) for b in node.branches])
        assert isinstance(node, LoopNode)
        entry, last = state, state
        for _ in range(PASSES):
            self.loops.append((node, next(self.iterations)))
            last = self._block(node.body, entry.copy())
            self.loops.pop()
            entry = self._join(node, [state, last])
        return entry

    def _join(self, node: Node, states: list[_State]) -> _State:
        first, *others = states
        result = first.copy()
        for other in others:
            if set(other.flags) != set(result.flags):
                odd = next(iter(set(other.flags) ^ set(result.flags)))
                raise FlagMisuse(node, f"flag {_text(odd)} is set on one path and not on "
                                       f"another")
            for pipe in range(N_PIPES):
                result.unknown[pipe] |= other.unknown[pipe]
            for sync, (snapshot, later) in other.flags.items():
                mine, my_later = result.flags[sync]
                result.flags[sync] = (mine | snapshot, my_later | later)
            for sync, waits in other.waits.items():
                mine = result.waits.get(sync)
                if mine is None or not waits <= mine:
                    result.waits[sync] = waits if mine is None else mine | waits
        return result

    # -- ops and flags ------------------------------------------------------------

    def _fence(self, state: _State, pipe: int | None) -> None:
        """A barrier of `pipe` (None: of every pipe)."""
        if pipe is None:
            for unknown in state.unknown:
                unknown.clear()
        else:
            state.unknown[pipe] = {n for n in state.unknown[pipe]
                                   if self.entries[n].pipe != pipe}

    def _new(self, state: _State, pipe: int, node: OpNode | None) -> int:
        number = next(self.counter)
        self.entries[number] = _Entry(pipe, node, tuple(self.loops))
        for other in self.pipes:
            # A pipe knows its own waits have returned; its own ops overlap
            # unless the hardware orders them.
            if other != pipe or (node is not None and self.same_pipe
                                 and pipe not in self.model.ordered):
                state.unknown[other].add(number)
        for _, later in state.flags.values():
            later.add(number)
        return number

    def _op(self, node: OpNode, state: _State) -> None:
        pipe = node.pipe
        if node.accesses:
            latest, own = -1, False
            for number in state.unknown[pipe]:
                entry = self.entries[number]
                if entry.node is None or (number <= latest and entry.pipe != pipe):
                    continue
                if entry.pipe == pipe and (own or node.ordered or node.handoff
                                           or entry.node.handoff):
                    continue
                if entry.node.conflicts(node, lambda entry=entry: self._relation(entry)):
                    if entry.pipe == pipe:
                        own = True
                    else:
                        latest = number
            if latest >= 0:
                raise Conflict(self.entries[latest].node, node)
            if own:
                if self.barrier is None:
                    raise Conflict(node, node)
                self.barrier(node)
                self._fence(state, pipe)
        self._new(state, pipe, node)

    def _relation(self, entry: _Entry) -> Relation:
        """How the instance `entry` relates to the op walked now."""
        fixed: set[ir.Operation] = set()
        carried = None
        for (loop, walk), (now, current) in zip(entry.loops, self.loops, strict=False):
            if loop is not now:
                break
            if walk != current:
                carried = loop.op
                break
            fixed.add(loop.op)
        return Relation(carried, lambda atom: self._defining_loop(atom) in fixed | {None})

    def _defining_loop(self, atom: ir.Value) -> ir.Operation | None:
        """The innermost `scf.for` whose body defines `atom` (None: no loop does)."""
        if atom not in self.defining_loops:
            owner = atom.owner
            op = owner.owner if isinstance(owner, ir.Block) else owner.operation.parent
            while op is not None and op.name not in ("scf.for", "scf.while", "func.func"):
                op = op.parent
            self.defining_loops[atom] = op.operation if op is not None and \
                op.name in ("scf.for", "scf.while") else None
        return self.defining_loops[atom]

    def _events(self, events: list[Event], state: _State, where: Node | None,
                before: bool) -> None:
        for event in events:
            if event.kind in ("barrier", "pipe barrier"):
                self._fence(state, event.pipe)
            elif event.kind == "set":
                credit = before and where is not None and where is event.sync.credit
                self._set(event.sync, state, where, credit)
            else:
                self._wait(event.sync, state, where)

    def _overlapping(self, sync: Sync, state: _State, pipe: int) -> Iterable[Sync]:
        """Syncs from the source pipe of `sync` that may be pending when an
        instruction of `sync` runs on `pipe` (set or not yet waited for as far
        as `pipe` knows)."""
        unknown = state.unknown[pipe]
        for other in self.by_source.get(sync.src, ()) if self.check_all else (sync,):
            if other in state.flags or any(w in unknown for w in state.waits.get(other, ())):
                yield other

    def _interferes(self, sync: Sync, other: Sync) -> None:
        self.interference.add((sync, other) if sync.serial < other.serial else (other, sync))

    def _set(self, sync: Sync, state: _State, where: Node | None, credit: bool) -> None:
        if sync in state.flags:
            raise FlagMisuse(where, f"flag {_text(sync)} is set again while set")
        for other in self._overlapping(sync, state, sync.src):
            if other is sync:
                self.self_interference[sync] = self.self_interference.get(sync, False) or credit
            else:
                self._interferes(sync, other)
        # It runs once every earlier op of its own pipe has finished.
        state.flags[sync] = (frozenset(n for n in state.unknown[sync.src]
                                       if self.entries[n].pipe != sync.src), set())

    def _wait(self, sync: Sync, state: _State, where: Node | None) -> None:
        if sync not in state.flags:
            raise FlagMisuse(where, f"wait for flag {_text(sync)} that no set precedes")
        snapshot, later = state.flags.pop(sync)
        pipe = sync.dst
        # If flags are named by (source, event) only, a wait takes whatever flag of
        # its id its source pipe has set: it must not run while another is pending.
        for other in self._overlapping(sync, state, pipe):
            if other is not sync:
                self._interferes(sync, other)
        state.unknown[pipe] = {n for n in state.unknown[pipe] if n in snapshot or n in later}
        if pipe == S:
            # Every later set is issued after this wait has returned: no flag of
            # another sync can overtake it. (Data still needs flags: what the
            # scalar unit waited for is not ordered with the other pipes.)
            state.waits[sync] = frozenset()
        else:
            state.waits[sync] = frozenset({self._new(state, pipe, None)})


def _text(sync: Sync) -> str:
    return f"{pipe_name(sync.src)} -> {pipe_name(sync.dst)}"
