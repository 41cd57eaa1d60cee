"""tile-ascend-inject-sync: set_flag/wait_flag between pipes, pipe_barrier within one.

Each pipe runs its own queue in order; ops on different pipes that touch the
same bytes (RAW, WAR, WAW; exact byte ranges of planned buffers, see
`sync_model`) need a flag from the earlier op's pipe to the later one's.
A pipe also overlaps its own successive instructions, so two dependent ops of
one pipe need a `pipe_barrier` of that pipe between them, except on the pipes
the machine model says the hardware orders (the scalar pipe; the 950's vector
pipe; a large mmad after the mmads it accumulates on). The barrier goes right
before the later op, so one barrier covers every hazard pending there, and
none goes between independent ops.
The pass repeats: run the checker (`sync_walk`) over the kernel with the
flags found so far; at the first unordered hazard, add one flag for it, from
the latest conflicting op of that pipe. A flag orders everything before it
on its pipe, and the checker follows chains of flags, so every hazard that
some flag already orders costs nothing. Placement of a flag from A to B in
their innermost common block R:

- A before B in R: set right after A, wait right before B. A set inside a
  loop that does not hold B moves after that loop (a wait: before it); a set
  inside one branch of an `scf.if` is matched by a set at the end of every
  other branch, a wait by a wait at the start of every other branch, so the
  flag is set and waited exactly once per run of R on every path.
- A at or after B in R (B of the next iteration, e.g. the WAR "slot free"
  of a double-buffered loop): the same in the body, plus a credit set before
  the innermost loop around R and a drain wait after it. Each iteration then
  waits before it sets. When the credit of one entry of that loop could be
  set before the drain of the previous entry has run, the credit moves out a
  loop.
- A hazard in a loop whose body holds two copies of one iteration
  (`ascend.twin_copies`, the grid loop with two L0C slots), on bytes both
  copies touch: one flag for it and its twin in the other copy, a credit
  around both copies (the second copy's first wait takes the first copy's
  last set), so the copies need no more event ids than one does. A hazard
  from one copy to the other becomes the producer's copy's own. The hazards
  on the bytes each copy has to itself (its L0C slot) keep their own flags.
- A same-pipe hazard: a `pipe_barrier` of the pipe right before the later op
  (in the loop body too when the earlier op is of the previous iteration),
  unless a barrier or a chain of flags back to the pipe already orders them.
- A flag that could be set again before its last wait has run (its source
  pipe runs ahead and nothing orders it after the wait) gets an
  acknowledgement: a flag back from right after each of its waits to right
  before each of its sets.

Event ids are given per source pipe, so that no two flags from one pipe
that may be pending at once share an id: correct whether the hardware names
a flag by (source, destination, id) or by (source, id) only. A mix
kernel's handoff flags are ordered against the bytes of their own ring
(`sync_model.GUARDS`); when that leaves more flags pending at once than a
pipe has ids, the body is planned again with each of them standing for all
of its memory, as a fence: more ordering, fewer flags. The ids the AscendC
runtime holds for the whole kernel (`Profile.runtime_flags`: M -> MTE1 0-2 on
the AIC) are kept clear; a body that needs them borrows them instead (`_borrow`:
waits them at its start, sets them again at its end). Running out of ids
even so is an error (never a silent PIPE_ALL): use fewer multi-buffer stages.

`strategy=barrier` is the slow baseline for benchmarks: the same hazards,
each ordered by an `ascend.pipe_barrier all` right before the later op.

Before (one chunk of a vector add):

    ascend.copy %x[%o], %ub_x[%c0] sizes [256] : ...        // mte2
    ascend.vbin add %ub_y, %ub_x, %ub_x : ...               // v
    ascend.vbin mul %ub_z, %ub_y, %ub_x : ...               // v, reads %ub_y
    ascend.copy %ub_z[%c0], %z[%o] sizes [256] : ...        // mte3

After (910b):

    ascend.copy %x[%o], %ub_x[%c0] sizes [256] : ...
    ascend.set_flag mte2 -> v, 0
    ascend.wait_flag mte2 -> v, 0
    ascend.vbin add %ub_y, %ub_x, %ub_x : ...
    ascend.pipe_barrier v
    ascend.vbin mul %ub_z, %ub_y, %ub_x : ...
    ascend.set_flag v -> mte3, 0
    ascend.wait_flag v -> mte3, 0
    ascend.copy %ub_z[%c0], %z[%o] sizes [256] : ...
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from mlir import ir
from mlir.dialects import scf

from tilec.dialects import ascend
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.target_options import target_option
from tilec.passes.conversion.tile_to_ascend.analysis.sync_model import (
    Block,
    IfNode,
    LoopNode,
    Model,
    Node,
    OpNode,
    common_block,
    hazard_bytes,
    item_in,
    loops_around,
    pipe_name,
)
from tilec.passes.conversion.tile_to_ascend.analysis.sync_walk import (
    Conflict,
    Event,
    FlagMisuse,
    Points,
    Sync,
    Walker,
)
from tilec.passes.registry import Pass, PassFailure, emit_error, option, register_pass
from tilec.sim.interpreter import keyword
from tilec.targets import target_of
from tilec.targets.ascend import AscendTarget
from tilec.targets.ascend import attributes as ascend_attr
from tilec.targets.ascend.machine import PIPE_IDS, ordered_pipes
from tilec.targets.ascend.profiles import Profile

_TERMINATORS = frozenset({"scf.yield", "func.return"})


class _Planner:
    """The syncs of one kernel body, grown until the checker finds no hazard."""

    def __init__(self, model: Model, strategy: str):
        self.model = model
        self.strategy = strategy
        self.syncs: list[Sync] = []
        self.points = Points()
        self.walker: Walker | None = None
        self.shared: dict[Sync, tuple[OpNode, OpNode]] = {}
        """Syncs that also order the twin hazard of the other copy: its producer
        and consumer."""

    def solve(self) -> None:
        limit = 4 * len(self.model.nodes) ** 2 + 16
        for _ in range(limit):
            # Which syncs interfere is only needed once they are all known.
            walker = Walker(self.model, self.syncs, self.points, interference=False,
                            same_pipe=False)
            try:
                walker.run()
            except Conflict as conflict:
                self._order(conflict.producer, conflict.consumer)
                continue
            if walker.self_interference:
                for sync, reentry in walker.self_interference.items():
                    self._separate(sync, reentry)
                continue
            break
        else:
            raise FlagMisuse(None, "the flags did not converge")
        # Barriers of one pipe change no flag: one walk puts them where the flags
        # leave a same-pipe hazard, then the last walk checks everything.
        Walker(self.model, self.syncs, self.points, interference=False,
               barrier=self._barrier).run()
        self.walker = Walker(self.model, self.syncs, self.points)
        try:
            self.walker.run()
        except Conflict as conflict:
            raise FlagMisuse(conflict.consumer, "a hazard is left after the barriers") from None

    def _barrier(self, consumer: OpNode) -> None:
        """A barrier of the consumer's pipe right before it: one covers every hazard
        with the earlier ops of the pipe pending there."""
        self.points.add("before", consumer, Event("pipe barrier", pipe=consumer.pipe))

    # -- one hazard --------------------------------------------------------------

    def _order(self, producer: OpNode, consumer: OpNode) -> None:
        if self.strategy == "barrier":
            if any(e.kind == "barrier" for e in self.points.at("before", consumer)):
                raise FlagMisuse(consumer, "a barrier did not order a hazard")
            self.points.add("before", consumer, Event("barrier"))
            return
        self.add(producer, consumer)

    @staticmethod
    def _kind(producer: OpNode, consumer: OpNode) -> tuple[list, list, LoopNode | None]:
        """The way down from the common block to each end of a flag from
        `producer` to `consumer`, and its credit loop (None: not loop-carried)."""
        region = common_block(producer, consumer)
        item_p, chain_p = item_in(producer, region)
        item_c, chain_c = item_in(consumer, region)
        credit = None
        if item_p.index >= item_c.index:
            loops = loops_around(region)
            if not loops:
                raise FlagMisuse(consumer, "a hazard on a later op in straight-line code")
            credit = loops[0]
        return chain_p, chain_c, credit

    def _existing(self, producer: OpNode, consumer: OpNode, credit: LoopNode | None) -> bool:
        return any((producer, consumer) in ((s.producer, s.consumer), self.shared.get(s))
                   and not s.ack and (s.credit is None) == (credit is None)
                   for s in self.syncs)

    def _twins(self, producer: OpNode, consumer: OpNode
               ) -> tuple[tuple[OpNode, OpNode], tuple[OpNode, OpNode]] | None:
        """The hazard as a pair of ops of one copy of a loop whose body holds two
        (`Model.twins`) and the same pair in the other copy, where all of them
        conflict on the same bytes (buffers both copies share): one flag then
        orders both pairs, and the hazards from one copy to the other with them
        (the other copy's first wait takes this copy's last set, or its own
        producer's set, which runs after this one's). A hazard from one copy to
        the other becomes that of the producer's copy. The flag's events
        alternate as each copy's do, since all of one copy's come before the
        other's. None where the copies touch different bytes (each L0C slot
        keeps its own flags)."""
        twins, copy_of = self.model.twins, self.model.copy_of
        if producer not in twins or consumer not in twins \
                or copy_of[producer][0] is not copy_of[consumer][0]:
            return None
        same = consumer if copy_of[producer] == copy_of[consumer] else twins[consumer]
        mine, theirs = (producer, same), (twins[producer], twins[same])
        hazard = hazard_bytes(producer, consumer)
        if not hazard or any(hazard_bytes(*pair) != hazard for pair in (mine, theirs)):
            return None
        return mine, theirs

    def add(self, producer: OpNode, consumer: OpNode) -> Sync:
        twins = self._twins(producer, consumer)
        if twins is not None:
            producer, consumer = twins[0]
        _, _, credit = self._kind(producer, consumer)
        if self._existing(producer, consumer, credit):
            raise FlagMisuse(consumer, "a flag did not order its hazard")
        if twins is not None and credit is not None:
            # Set once before the loop around both copies, waited once after it.
            credit = self.model.copy_of[producer][0]
        sync = Sync(producer.pipe, consumer.pipe, producer, consumer, credit)
        self.syncs.append(sync)
        for set_at, wait_at in twins or ((producer, consumer),):
            chain_p, chain_c, _ = self._kind(set_at, wait_at)
            self._place(sync, set_at, chain_p, "set")
            self._place(sync, wait_at, chain_c, "wait")
        if twins is not None:
            self.shared[sync] = twins[1]
        if credit is not None:
            self._credit(sync, credit)
        return sync

    def _place(self, sync: Sync, node: Node, chain: list[tuple[Node, Block]], kind: str) -> None:
        """The set after `node` (or the wait before it), out of loops that do
        not hold the other end, balanced in every other branch of each `if`:
        a set at its end, a wait at its start, so that the flag also orders
        the work of that branch on its pipe (one flag serves both branches)."""
        loops = [i for i, (construct, _) in enumerate(chain) if isinstance(construct, LoopNode)]
        anchor, rest = node, chain
        if loops:
            anchor, rest = chain[loops[-1]][0], chain[loops[-1] + 1:]
        event = Event(kind, sync)
        self.points.add("after" if kind == "set" else "before", anchor, event)
        for construct, branch in rest:
            assert isinstance(construct, IfNode)
            for other in construct.branches:
                if other is not branch:
                    self.points.add("end" if kind == "set" else "start", other, event)

    def _credit(self, sync: Sync, loop: LoopNode) -> None:
        sync.credit = loop
        self.points.add("before", loop, Event("set", sync))
        self.points.add("after", loop, Event("wait", sync))

    def _separate(self, sync: Sync, reentry: bool) -> None:
        """`sync` may be set again before its last wait ran: order the two.

        A credit set again when its loop is entered again moves out a loop.
        Otherwise an acknowledgement flag goes back from right after each
        wait of `sync` to right before each of its sets in the body (a
        loop-carried one when the set comes first in the body)."""
        if reentry:
            outer = loops_around(sync.credit.parent)
            if not outer:
                raise FlagMisuse(sync.credit, "a loop-carried flag may be set twice")
            for where in ("before", "after"):
                events = self.points.at(where, sync.credit)
                events[:] = [e for e in events if e.sync is not sync]
            self._credit(sync, outer[0])
            return
        # A shared flag's acknowledgement is shared too: its credit goes around both copies.
        consumer = self.shared[sync][1] if sync in self.shared else sync.consumer
        loops = loops_around(common_block(sync.producer, consumer))
        if not loops:
            raise FlagMisuse(sync.consumer, "a flag may be set twice")
        ack = Sync(sync.dst, sync.src, sync.consumer, sync.producer, ack=True)
        self.syncs.append(ack)
        skip = frozenset()
        if sync.credit is not None:
            skip = frozenset({Points.key("before", sync.credit), Points.key("after", sync.credit)})
        self.points.beside(sync, "wait", Event("set", ack), True, skip)
        self.points.beside(sync, "set", Event("wait", ack), False, skip)
        if sync.credit is None:
            self._credit(ack, loops[0])


def _assign_events(syncs: list[Sync], interference: set[tuple[Sync, Sync]],
                   ids: int, held: dict[int, set[int]]) -> tuple[Sync, set[Sync]] | None:
    """Event ids per source pipe: interfering syncs differ, and none takes an id
    that the runtime holds for the whole kernel on its source pipe (`held`). When
    the ids run out: the flag that got none and the ones pending with it."""
    neighbours: dict[Sync, set[Sync]] = {s: set() for s in syncs}
    for a, b in interference:
        neighbours[a].add(b)
        neighbours[b].add(a)
    for sync in sorted(syncs, key=lambda s: (s.producer.pos, s.serial)):
        taken = {n.event for n in neighbours[sync]} | held.get(sync.src, set())
        event = next(e for e in range(len(syncs) + 1) if e not in taken)
        if event >= ids:
            return sync, neighbours[sync]
        sync.event = event
    return None


def _held_by_runtime(profile: Profile, kind: str) -> dict[int, set[int]]:
    """Per source pipe, the event ids the AscendC runtime keeps set on this kind of core
    (`Profile.runtime_flags`; `mix`: the body either kind runs). Per source pipe, so the
    kernel's flags stay clear of them however the hardware names a flag."""
    held: dict[int, set[int]] = {}
    for core in ("aic", "aiv") if kind == "mix" else (kind,):
        for src, _, event in profile.runtime_flags.get(core, ()):
            held.setdefault(PIPE_IDS[src], set()).add(event)
    return held


def _give_ids(planner: _Planner, ids: int, profile: Profile, kind: str
              ) -> tuple[tuple[Sync, set[Sync]] | None, dict[int, set[int]],
                         tuple[tuple[str, str, int], ...]]:
    """Gives the syncs event ids clear of the runtime's flags or, when too few are left,
    any ids, the body borrowing the runtime's flags (`_borrow`). Returns `_assign_events`'
    result (None: every sync got one), the ids still held, and the runtime's flags the
    body borrows (none: it keeps clear of them)."""
    syncs, interference = planner.syncs, planner.walker.interference
    held = _held_by_runtime(profile, kind)
    short = _assign_events(syncs, interference, ids, held)
    borrowed = profile.runtime_flags.get(kind, ()) if short is not None else ()
    if borrowed:
        held = {}
        short = _assign_events(syncs, interference, ids, held)
    return short, held, borrowed


def _borrow(body: ir.Block, flags: tuple[tuple[str, str, int], ...], loc: ir.Location) -> None:
    """Frees the ids of the runtime's flags for the kernel's own: their waits at the start of
    the body, a `pipe_barrier all` (no flag of the kernel is set before they ran), and at its
    end a `pipe_barrier all` (every flag of the kernel has been waited for) and their sets,
    so that the runtime's final waits find them set once. Correct however the hardware names
    a flag. AscendC's matmul borrows them the same way: its L0 ping-pong waits M_MTE1 0/1
    before loading L0A/L0B and sets it after the mmad (adv_api/detail/matmul/resource/
    l0_buffer/tbuf_pool_l0_base.h), its bias table M_MTE1 2 (bias_buffer/c2_buffer/
    c2_buffer.h), the initial credit being TPipe::Init's set. Each block is one run of the
    kernel's entry, with its own TPipe, so this runs once per block. The barriers order no
    hazard: they drain pipes that are idle (at the start) or finishing (at the end)."""
    ops = list(body.operations)
    terminator = ops[-1] if ops and ops[-1].name in _TERMINATORS else None
    with loc:
        start = ir.InsertionPoint(ops[0]) if ops else ir.InsertionPoint(body)
        end = ir.InsertionPoint(terminator) if terminator is not None else ir.InsertionPoint(body)
        for src, dst, event in flags:
            _flag(ascend.wait_flag, src, dst, event, start)
        ascend.pipe_barrier(ascend.pipe_attr("all"), ip=start)
        ascend.pipe_barrier(ascend.pipe_attr("all"), ip=end)
        for src, dst, event in flags:
            _flag(ascend.set_flag, src, dst, event, end)


def _out_of_ids(sync: Sync, pending: set[Sync], ids: int, profile: str,
                held: dict[int, set[int]]) -> PassFailure:
    busy = sorted({pipe_name(n.dst) for n in pending | {sync}})
    taken = len(held.get(sync.src, ()))
    runtime = f" ({taken} of them held by the AscendC runtime)" if taken else ""
    return emit_error(
        sync.producer.op,
        f"tile-ascend-inject-sync: out of event ids for flags from the "
        f"{pipe_name(sync.src)} pipe (to {', '.join(busy)}): {len(pending) + 1} would "
        f"be pending at once, the {profile} profile has {ids} ids per pipe{runtime}; use "
        f"fewer multi-buffer stages (max-stages) or, in a mix kernel, skew=1")


# -- writing the IR ------------------------------------------------------------------


def _ensure_block(block: Block) -> ir.Block:
    if block.block is None:
        region = block.owner.op.regions[block.branch]
        block.block = region.blocks.append()
        with ir.InsertionPoint(block.block), block.owner.op.location:
            scf.YieldOp([])
    return block.block


def _emit(event: Event, ip: ir.InsertionPoint, loc: ir.Location) -> None:
    with loc:
        if event.kind in ("barrier", "pipe barrier"):
            pipe = "all" if event.pipe is None else pipe_name(event.pipe)
            ascend.pipe_barrier(ascend.pipe_attr(pipe), ip=ip)
            return
        sync = event.sync
        build = ascend.set_flag if event.kind == "set" else ascend.wait_flag
        _flag(build, pipe_name(sync.src), pipe_name(sync.dst), sync.event, ip)


def _flag(build: Callable[..., object], src: str, dst: str, event: int,
          ip: ir.InsertionPoint) -> None:
    build(ascend.pipe_attr(src), ascend.pipe_attr(dst),
          ir.IntegerAttr.get(ir.IntegerType.get_signless(32), event), ip=ip)


def _location(event: Event, node: Node | None, fallback: ir.Location) -> ir.Location:
    if event.sync is None:
        return node.op.location if node is not None else fallback
    end = event.sync.producer if event.kind == "set" else event.sync.consumer
    return end.op.location


def _write_block(block: Block, points: Points, fallback: ir.Location) -> None:
    starts, ends = points.at("start", block), points.at("end", block)
    if block.block is None and not (starts or ends):
        return
    blk = _ensure_block(block)
    ops = list(blk.operations)

    def before(op: ir.Operation | None) -> ir.InsertionPoint:
        return ir.InsertionPoint(blk) if op is None else ir.InsertionPoint(op)

    for event in starts:
        _emit(event, before(ops[0] if ops else None), _location(event, block.owner, fallback))
    for node in block.items:
        for event in points.at("before", node):
            _emit(event, ir.InsertionPoint(node.op), _location(event, node, fallback))
        if isinstance(node, LoopNode):
            _write_block(node.body, points, fallback)
        elif isinstance(node, IfNode):
            for branch in node.branches:
                _write_block(branch, points, fallback)
        index = next(i for i, op in enumerate(ops) if op == node.op)
        follower = ops[index + 1] if index + 1 < len(ops) else None
        for event in points.at("after", node):
            _emit(event, before(follower), _location(event, node, fallback))
    terminator = ops[-1] if ops and ops[-1].name in _TERMINATORS else None
    for event in ends:
        _emit(event, before(terminator), _location(event, block.owner, fallback))


def _scopes(func: ir.Operation) -> list[tuple[ir.Block, str]]:
    """The kernel body and the body of every `ascend.core` region, each with the kind
    of core it runs on: each has its own flags."""
    body = func.regions[0].blocks[0]
    cores = irb.collect(func, "ascend.core")
    for core in cores:
        if core.parent != func:
            # Its body would run once per iteration of what holds it.
            raise emit_error(core, "tile-ascend-inject-sync: an 'ascend.core' region inside "
                                   "control flow is not supported")
    kind = keyword(func.attributes[ascend_attr.KERNEL])
    return [(body, kind),
            *((core.regions[0].blocks[0], keyword(core.attributes["core"])) for core in cores)]


@register_pass
@dataclass(frozen=True)
class AscendInjectSyncPass(Pass):
    """Inserts ascend.set_flag/wait_flag (or PIPE_ALL barriers) for every cross-pipe hazard."""

    argument = "tile-ascend-inject-sync"
    anchor = "func.func"
    summary = "Synchronize the pipes of ascend kernels from read/write hazards (set/wait flags)"

    target: str = target_option(AscendTarget)
    strategy: Literal["flags", "barrier"] = option(
        "flags", "flags: set_flag/wait_flag placed per hazard; barrier: a PIPE_ALL barrier "
                 "before each dependent op (the slow baseline)")

    def run(self, op: ir.Operation) -> None:
        if ascend_attr.KERNEL not in op.attributes or ascend_attr.AUTHOR_SYNC in op.attributes:
            return  # not a kernel, or one its author synchronizes
        profile = target_of(AscendTarget, self.target).profile
        ids = profile.flag_event_ids
        for body, kind in _scopes(op):
            ordered = ordered_pipes(profile, kind)
            # Handoff flags ordered against their own ring first; against all
            # of GM when that leaves too many flags pending at once.
            for scoped in (True, False):
                model = Model(op, body, ordered, scoped_handoffs=scoped)
                planner = _Planner(model, self.strategy)
                try:
                    planner.solve()
                except FlagMisuse as misuse:
                    target = misuse.node.op if misuse.node is not None else op
                    raise emit_error(target, f"tile-ascend-inject-sync: internal error: "
                                             f"{misuse.message}") from None
                short, held, borrowed = _give_ids(planner, ids, profile, kind)
                if short is None or not model.has_scoped_handoffs:
                    break
            if short is not None:
                raise _out_of_ids(*short, ids, profile.name, held)
            _write_block(model.root, planner.points, op.location)
            if borrowed:
                _borrow(body, borrowed, op.location)

