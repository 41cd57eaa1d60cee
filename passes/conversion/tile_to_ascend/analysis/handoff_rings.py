"""Part of tile-ascend-split-cores: the tiles a mix kernel hands between its
cores, and the ring of GM workspace slots each goes through.

Two kinds of handoff, both found from uses:

- down (AIC -> AIVs): an L0C tile that vector work reads. It is handed
  over before the first op that does, in the block it shares with the
  last cube write before that read (so a gemm in a K loop hands its
  accumulator over once, after the loop; attention's gemms inside the K/V
  loop hand theirs over every iteration). The AIC fixpipes it into its
  slot, each AIV copies its half of the rows back into UB.
- up (AIVs -> AIC): a copy of a UB tile into a cube tile (attention's P,
  the A operand of the second gemm). Each AIV copies its half of the rows
  into the slot (casting to the cube tile's type), the AIC copies the
  slot into L1 (nd2nz).

Ring r uses cross-core flags 2r ("ready", producer -> consumer) and 2r+1
("free", consumer -> producer), in mode 2 (the AIC and both its AIVs);
ids stop below the profile's budget, so 11-14 stay free for
`ascend.sync_all`. Where a kernel hands over more tiles than there are
pairs (linear attention: Q and S_shared up, S, the state and O down, the
state back up), ring r uses id r for both: a core counts the sets of an id
it receives on a counter of its own, so the AIC's "ready" (counted by the
AIVs) and the AIVs' "free" (counted by the AIC) never meet. Where there
are more tiles than ids, consecutive handoffs in one block and one
direction share a pair (`_share_flags`): the producer
waits for "free" before the first copy of the group and sets "ready" after
the last, the consumer the other way round. No other handoff lies between
them, so neither core waits for the other inside a group and sharing adds
no cycle to the wait graph; it only hands the group's tiles over together.

Slot positions come from the loops both cores run alike, so the cores agree
without exchanging anything:

- a handoff directly in the kernel body uses the trip number of the
  grid-stride loop, k = (block - block_idx) / block_num: slot k mod slots.
  The producer waits for "free" only when k >= slots, the consumer sets
  "free" only when block + slots * block_num is still in the grid;
- a handoff directly in a loop (scf.for, tile.pipelined) uses the loop's
  trip number t = (iv - lb) / step; in an `scf.while` (stream-K's walk
  over its iterations, a tile at a time) a trip counter that the loop
  carries, counted alike on each core. The consumer sets "free" after every
  copy; the producer waits for it when t >= slots, and after the loop for
  the last min(slots, trips) of them, so the ring is empty when the loop
  ends (whatever its trip count: zero, fewer than the slots, not a
  multiple, a causal bound that differs per block) and the next run of
  the loop starts afresh.

Either way every set is consumed and at most `slots` are outstanding.

Where the fixpipe reaches UB (the 950), a down handoff skips GM: its ring
is a UB tile of `slots` half tiles (M/2 rows each) marked `ascend.ub_ring`,
one alloc in front of the cores' regions that both use (the memory planner
keeps its bytes out of the AIVs' other buffers for the whole kernel). The
AIC's copy into slot k mod slots becomes one fixpipe with a dual
destination (rows [0, M/2) into AIV 0's UB, the rest into AIV 1's, at the
same bytes); each AIV copies its half out of the slot on the V pipe, so its
flags wait and set on V, or, where it only does vector work on that half,
does the work on the slot itself and frees it after (`work_in_slots`). The
ring is per AI core (each has its own UBs), so slot rows do not count the
block. Up handoffs still go through GM.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from mlir import ir
from mlir.dialects import arith, memref, scf

from tilec.dialects import ascend, tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_to_ascend.analysis.core_sides import VIEWS
from tilec.passes.conversion.tile_to_ascend.analysis.cross_core_pipelining import (
    STAGE_END,
    STAGE_START,
)
from tilec.passes.conversion.tile_to_ascend.ops import buffers
from tilec.passes.conversion.tile_to_ascend.place_tiles import (
    CUBE_SPACES,
    copy_operands,
    scope_name,
)
from tilec.passes.registry import emit_error
from tilec.targets.ascend import attributes as ascend_attr

MIX_MODE = 2  # AIC <-> both AIVs of its AI core
UB_RING = "ascend.ub_ring"
"""On the alloc of a ring in UB and on its flags: the ring number."""
DUAL_DST = "ascend.dual_dst"
"""On the AIC's tile.copy of an L0C tile into a UB ring: a dual-destination fixpipe."""
_SLOT_COPY = "ascend.slot_copy"
"""On an AIV's copy out of a UB ring slot and on its "free" set, until `work_in_slots`."""
_GM_RECEIVE = "ascend.gm_receive"
"""On an AIV's copy out of a GM workspace slot, until `work_in_slots`."""
_VECTOR_USERS = frozenset({"tile.reduce", "tile.fill", "tile.clear"})
HANDOFF = "ascend.handoff"
"""On the op a handoff goes before (down) or replaces (up): its ring numbers."""
LOOPS = frozenset({"scf.for", "tile.pipelined"})
RING_LOOPS = LOOPS | {"scf.while"}
"""Loops whose trips number the slots of a ring in them."""
COUNTED = "ascend.trip_counter"
"""On an `scf.while` whose last carried value counts its trips (`_counted`)."""
_CUBE_ROLES = {("tile.gemm", 2), ("tile.clear", 0), ("tile.fill", 0)}


def _parent(op: ir.Operation) -> ir.Operation | None:
    parent = op.parent
    return None if parent is None else parent.operation if hasattr(parent, "operation") else parent


def _ancestors(op: ir.Operation, kernel: ir.Operation) -> list[ir.Operation]:
    """`op` and the ops around it, up to the one in the kernel body."""
    chain = [op]
    while _parent(chain[-1]) != kernel:
        chain.append(_parent(chain[-1]))
    return chain


@dataclass
class Handoff:
    """One tile handed between the cores."""

    ring: int
    down: bool
    """AIC -> AIVs (else AIVs -> AIC)."""
    tile: ir.Value
    """Down: the L0C tile. Up: the UB tile copied."""
    site: ir.Operation
    """Down: the op the handoff goes before. Up: the copy it replaces."""
    position: int
    """Of the site in program order (ops hash by their attributes: no dict key once marked)."""
    element: ir.Type
    """Of the workspace: what the consumer receives."""
    rows: int
    cols: int
    in_ub: bool = False
    """A down handoff whose ring is in UB (the fixpipe writes the AIVs' UBs)."""
    cube_again: int | None = None
    """Down: where (program order) the cube first works on the tile again
    after the handoff; from there on its uses are the AIC's (`_down_site`)."""
    group: list[Handoff] | None = field(default=None, compare=False, repr=False)
    """The handoffs that share this one's pair of flags, in order (None: alone)."""
    pair: int = -1
    """The number of the pair of flags (ring numbers where no flags are shared)."""
    one_id: bool = False
    """"ready" and "free" on one cross-core flag id (`_share_flags`)."""

    @property
    def ready(self) -> int:
        return self.pair if self.one_id else 2 * self.pair

    @property
    def free(self) -> int:
        return self.pair if self.one_id else 2 * self.pair + 1

    @property
    def members(self) -> list[Handoff]:
        return self.group or [self]

    @property
    def first(self) -> bool:
        """The first of its group: the producer waits for "free" and the consumer
        for "ready" here."""
        return self.members[0] is self

    @property
    def last(self) -> bool:
        """The last of its group: the producer sets "ready" and the consumer
        "free" here."""
        return self.members[-1] is self


def _is_vector_use(op: ir.Operation, number: int) -> bool:
    """Whether a use of an L0C tile needs the vector cores: anything but a
    gemm onto it, a clear or fill, or a copy of it to global memory."""
    if (op.name, number) in _CUBE_ROLES:
        return False
    if op.name == "tile.copy" and number == 0:
        return scope_name(copy_operands(op)[2][0]) in CUBE_SPACES | {"ub"}
    return True


def _down_site(kernel: ir.Operation, value: ir.Value,
               order: dict[ir.Operation, int]) -> tuple[ir.Operation, int | None] | None:
    """Where an L0C tile is handed down (None: no vector work reads it), and
    where the cube first works on it again after that (None: it does not).

    The cube may keep accumulating into the tile after handing it over (a
    running state that the vector cores read each iteration, as linear
    attention's h): a write in a loop around the first vector read puts the
    handoff in that loop, so each iteration hands the current value. The
    AIC's tile is still its own after a handoff (the fixpipe only copies
    it), so later cube work and copies of the tile are the AIC's; a vector
    read after such cube work would see the AIVs' older copy: an error."""
    uses = sorted(((irb.use_owner(u), u.operand_number) for u in value.uses),
                  key=lambda u: order[u[0]])
    first = next((op for op, n in uses if _is_vector_use(op, n)), None)
    if first is None:
        return None
    cube = [op for op, n in uses if (op.name, n) in _CUBE_ROLES and order[op] < order[first]]
    chain = _ancestors(first, kernel)
    site = chain[-1]
    if cube:
        around = _ancestors(cube[-1], kernel)
        site = next((op for op in chain if any(_parent(op) == _parent(o) for o in around)),
                    chain[-1])
    writes = [op for op, n in uses if (op.name, n) in _CUBE_ROLES and order[op] > order[first]]
    for write in writes:
        loop = next((op for op in chain[1:] if op.name in RING_LOOPS
                     and any(o == op for o in _ancestors(write, kernel))), None)
        inner = next(i for i, op in enumerate(chain) if op == site)
        if loop is None or any(op == loop for op in chain[inner + 1:]):
            continue  # no loop around both, or the site is in it already
        site = next(op for op in chain if _parent(op) == loop)
    again = min((order[op] for op, n in uses
                 if (op.name, n) in _CUBE_ROLES and order[op] >= order[site]), default=None)
    if again is not None:
        for op, number in uses:
            if order[op] > again and _is_vector_use(op, number):
                raise emit_error(op, f"tile-ascend-split-cores: '{op.name}' reads on the vector "
                                     f"cores an accumulator that the cube changed after "
                                     f"handing it to them (not supported yet): read it before "
                                     f"the cube's next gemm onto it, or gemm into a fresh "
                                     f"accumulator")
    return site, again


def _shape(op: ir.Operation, value: ir.Value) -> tuple[int, int]:
    shape = ir.MemRefType(value.type).shape
    if len(shape) != 2 or shape[0] % 2:
        raise emit_error(op, "tile-ascend-split-cores: a tile handed between the cores must be 2-D "
                             "with an even number of rows (one half per AIV)")
    return shape[0], shape[1]


def find_handoffs(kernel: ir.Operation, order: dict[ir.Operation, int],
                  flag_ids: int, direct: bool) -> list[Handoff]:
    """Every handoff of `kernel`, in program order of their sites; with
    `direct` (the fixpipe reaches UB) the down ones go through UB."""
    found: list[tuple[bool, ir.Value, ir.Operation, ir.Type]] = []
    kept: dict[ir.Value, int | None] = {}
    for alloc in irb.collect(kernel, "tile.alloc"):
        value = alloc.results[0]
        if scope_name(value) == "l0c":
            down = _down_site(kernel, value, order)
            if down is not None:
                kept[value] = down[1]
                found.append((True, value, down[0], ir.MemRefType(value.type).element_type))
    for copy in irb.collect(kernel, "tile.copy"):
        src, _, dst, _, _ = copy_operands(copy)
        if scope_name(src[0]) == "ub" and scope_name(dst[0]) in CUBE_SPACES:
            if scope_name(dst[0]) != "l1":
                raise emit_error(copy, "tile-ascend-split-cores: the vector cores hand tiles to "
                                       "the cube through L1 only")
            if not copied_whole(copy):
                raise emit_error(copy, "tile-ascend-split-cores: a tile handed to the cube must be "
                                       "copied whole (here a part of a tile the vector cores "
                                       "write): copy the part into a tile of its own on the "
                                       "vector side first, and hand that tile over")
            found.append((False, src[0], copy, ir.MemRefType(dst[0].type).element_type))
    found.sort(key=lambda item: order[item[2]])
    handoffs = []
    for ring, (down, value, site, element) in enumerate(found):
        rows, cols = _shape(site, value)
        _ring_loop(kernel, site)  # checks where it is
        handoffs.append(Handoff(ring, down, value, site, order[site], element, rows, cols,
                                in_ub=down and direct, cube_again=kept.get(value)))
    _share_flags(handoffs, flag_ids)
    return handoffs


def copied_whole(copy: ir.Operation) -> bool:
    """Whether a copy of a UB tile into a cube tile takes all of it, at once."""
    src, src_offsets, dst, _, _ = copy_operands(copy)
    return ir.MemRefType(src[0].type).shape == ir.MemRefType(dst[0].type).shape \
        and "sizes" not in copy.attributes \
        and all(irb.constant_int(o) == 0 for o in src_offsets)


def _can_share(before: Handoff, after: Handoff) -> bool:
    """Whether two handoffs, consecutive in program order, may share a pair of
    flags: same direction and kind of ring, sites in the same block."""
    return (before.down == after.down and before.in_ub == after.in_ub
            and before.site.block == after.site.block)


def _share_flags(handoffs: list[Handoff], flag_ids: int) -> None:
    """Gives each handoff its pair of flags: two ids while the pairs fit in
    `flag_ids` (one id, one direction: the IR and the simulator's reports
    name what waits for what), else one id for both, merging consecutive
    handoffs that `_can_share` (earliest first) until the pairs fit.

    One id serves both directions because each core has its own counter per
    id: in mode 2 the AIC's set of id k adds 1 to each AIV's counter k, the
    AIVs' sets add 1 to the AIC's counter k, and a wait takes from the
    waiting core's counter (asc-devkit docs/zh/api/SIMD-API/基础API/同步控制/
    核间同步/关键特性说明.md, "单AI Core中AIC与AIV全核同步")."""
    groups = [[hand] for hand in handoffs]
    one_id = 2 * len(groups) > flag_ids
    while len(groups) > flag_ids:
        at = next((i for i in range(len(groups) - 1)
                   if _can_share(groups[i][-1], groups[i + 1][0])), None)
        if at is None:
            raise emit_error(handoffs[0].site, f"tile-ascend-split-cores: {len(handoffs)} tiles "
                                               f"handed between the cores need "
                                               f"{len(groups)} cross-core flags, more than "
                                               f"the {flag_ids} there are (handoffs share flags "
                                               f"only when consecutive, in one block, one way)")
        groups[at] += groups.pop(at + 1)
    for pair, group in enumerate(groups):
        for hand in group:
            hand.pair = pair
            hand.one_id = one_id
            hand.group = group if len(group) > 1 else None


def mark_sites(handoffs: list[Handoff]) -> None:
    """Marks each site with its rings, so the copies of the kernel find them."""
    for hand in handoffs:
        site = hand.site
        marks = list(ir.ArrayAttr(site.attributes[HANDOFF])) if HANDOFF in site.attributes else []
        site.attributes[HANDOFF] = ir.ArrayAttr.get(
            [*marks, ir.IntegerAttr.get(ir.IntegerType.get_signless(64), hand.ring)])


def _ring_loop(kernel: ir.Operation, site: ir.Operation) -> ir.Operation | None:
    """The loop whose trips number a handoff's uses (None: the grid's): the
    one around its site, past the `scf.if`s between them (`conditions`)."""
    parent = _parent(site)
    while parent.name == "scf.if":
        parent = _parent(parent)
    if parent == kernel:
        return None
    if parent.name not in RING_LOOPS:
        raise emit_error(site, f"tile-ascend-split-cores: a tile handed between the cores must be "
                               f"handed in the kernel body or in a loop (under `if`s at most), "
                               f"not in '{parent.name}' (not supported yet): use the tile "
                               f"there in the kernel body or in a loop (T.serial, "
                               f"T.Pipelined, `while`), whose trips number the slots of its "
                               f"ring")
    top = site
    while _parent(top) != parent:
        top = _parent(top)
    if parent.name == "scf.while" and top.block.region == parent.regions[0]:
        raise emit_error(site, "tile-ascend-split-cores: a tile handed between the cores must "
                               "not be handed in the condition of a `while` (not supported "
                               "yet): compute the condition from scalars and tensors the "
                               "kernel only reads, and use the tile in the loop's body")
    return parent


def conditions(site: ir.Operation) -> list[tuple[ir.Operation, int]]:
    """The `scf.if`s between a handoff's site and its ring's loop (or the
    kernel body), innermost first, each with the number of the branch that
    holds the site."""
    found = []
    op = site
    while (parent := _parent(op)).name == "scf.if":
        found.append((parent, 0 if op.block.region == parent.regions[0] else 1))
        op = parent
    return found


def check_conditions(hand: Handoff, side_of: Callable[[ir.Operation], str | None]) -> None:
    """Each core runs the `if`s around a handoff itself, so their conditions
    must be values both compute (`side_of`: the op's core side): scalar code
    on loop indices, kernel scalars and tensors the kernel only reads."""
    for branch, _ in conditions(hand.site):
        pending, seen = [branch.operands[0]], set()
        while pending:
            owner = pending.pop().owner
            if not isinstance(owner, ir.Operation | ir.OpView):
                continue  # a block argument: a loop index, a kernel coordinate
            owner = owner.operation
            if owner in seen:
                continue
            seen.add(owner)
            side = side_of(owner)
            if side not in (None, "both"):
                cores = "cube" if side == "aic" else "vector"
                raise emit_error(branch, f"tile-ascend-split-cores: a tile is handed between "
                                         f"the cores under this `if`, but its condition "
                                         f"depends on a tile only the {cores} cores hold "
                                         f"('{owner.name}'): compute it from loop indices, "
                                         f"scalars and tensors the kernel only reads, or hand "
                                         f"the tile over outside the `if`")
            pending.extend(owner.operands)


@dataclass
class _Position:
    """Where this use of the ring is, and which flags it owes."""

    row: ir.Value
    """First workspace row of the slot."""
    wait_free: ir.Value
    """The producer must wait for the slot to be free."""
    set_free: ir.Value | None
    """The consumer must free the slot (None: always)."""


def _grid_position(kernel: ir.Operation, hand: Handoff, slots: int) -> _Position:
    body = kernel.regions[0].blocks[0]
    linear, stride = None, None
    for coordinate, size in zip(body.arguments, list(kernel.operands), strict=True):
        term = coordinate if stride is None else arith.muli(coordinate, stride)
        linear = term if linear is None else arith.addi(linear, term)
        stride = size if stride is None else arith.muli(stride, size)
    index = ir.IndexType.get()
    first, step = ascend.block_idx(index), ascend.block_num(index)
    trip = arith.divui(arith.subi(linear, first), step)
    row = _slot_row(first, trip, hand, slots)
    reused = arith.cmpi(arith.CmpIPredicate.uge, trip, irb.index(slots))
    later = arith.addi(linear, arith.muli(step, irb.index(slots)))
    again = arith.cmpi(arith.CmpIPredicate.ult, later, stride)
    return _Position(row, reused, again)


def _slot_row(first: ir.Value, trip: ir.Value, hand: Handoff, slots: int) -> ir.Value:
    """The first row of the slot: in the AI core's part of a GM workspace, or
    of a UB ring of half tiles (each AI core has its own)."""
    slot = arith.remui(trip, irb.index(slots))
    if hand.in_ub:
        return arith.muli(slot, irb.index(hand.rows // 2))
    return arith.muli(arith.addi(arith.muli(first, irb.index(slots)), slot), irb.index(hand.rows))


def _loop_position(loop: ir.Operation, hand: Handoff, slots: int) -> _Position:
    if loop.name == "scf.while":
        body = loop.regions[1].blocks[0]
        trip = body.arguments[len(body.arguments) - 1]
    else:
        lower, _, step = list(loop.operands)[:3]
        iv = loop.regions[0].blocks[0].arguments[0]
        trip = arith.divui(arith.subi(iv, lower), step)
    row = _slot_row(ascend.block_idx(ir.IndexType.get()), trip, hand, slots)
    reused = arith.cmpi(arith.CmpIPredicate.uge, trip, irb.index(slots))
    return _Position(row, reused, None)


def _when(condition: ir.Value | None, build: Callable[[], object]) -> ir.Operation:
    """`build()` inside `scf.if condition` (None: always); the op built (or the if)."""
    if condition is None:
        return build().operation
    branch = scf.IfOp(condition)
    with ir.InsertionPoint(branch.then_block):
        build()
        scf.YieldOp([])
    return branch.operation


def _pipes(hand: Handoff) -> tuple[str, str]:
    """The pipes of the producer's copy and of the consumer's."""
    if hand.in_ub:
        return "fix", "v"
    return ("fix", "mte2") if hand.down else ("mte3", "mte2")


def ub_ring(kernel: ir.Operation, hand: Handoff, slots: int) -> ir.Value:
    """The UB ring of `hand`: `slots` half tiles, slot k at rows
    [k M/2, (k+1) M/2), allocated in front of `kernel`, outside the regions
    of the cores, as both use it: the AIC names with it the bytes its
    fixpipe writes in the AIVs' UBs."""
    with ir.InsertionPoint(kernel), kernel.location:
        ring = memref.alloc(tile.memref_type([slots * hand.rows // 2, hand.cols], hand.element,
                                             tile.Scope.ub), [], [])
    ring.owner.attributes[UB_RING] = _i64(hand.ring)
    return ring


def _i64(value: int) -> ir.IntegerAttr:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)


def _guarding(op: ir.OpView, hand: Handoff, rings: dict[int, ir.Value]) -> ir.OpView:
    """Marks a flag of `hand`'s pair with the memory of every ring that shares
    it (`rings`: each ring's workspace): the numbers of their GM workspace
    arguments (sync_model reads `ascend.guards`), or their UB ring numbers
    (the memory planner turns those into the rings' bytes). One ring's mark
    is a plain integer."""
    attrs = op.operation.attributes
    if hand.in_ub:
        marks = [_i64(member.ring) for member in hand.members]
        name = UB_RING
    else:
        marks = [_i64(ir.BlockArgument(rings[member.ring]).arg_number)
                 for member in hand.members]
        name = ascend_attr.GUARDS
    attrs[name] = marks[0] if len(marks) == 1 else ir.ArrayAttr.get(marks)
    return op


def ring_numbers(flag: ir.Operation) -> list[int]:
    """The UB rings a flag's `ascend.ub_ring` mark names."""
    mark = flag.attributes[UB_RING]
    marks = list(ir.ArrayAttr(mark)) if isinstance(mark, ir.ArrayAttr) else [mark]
    return [ir.IntegerAttr(m).value for m in marks]


def _set_flag(pipe: str, flag: int, hand: Handoff, rings: dict[int, ir.Value]) -> ir.OpView:
    return _guarding(ascend.cross_core_set_flag(MIX_MODE, ascend.pipe_attr(pipe), flag),
                     hand, rings)


def _wait_flag(flag: int, pipe: str, hand: Handoff, rings: dict[int, ir.Value]) -> ir.OpView:
    return _guarding(ascend.cross_core_wait_flag(flag, pipe=ascend.pipe_attr(pipe)), hand, rings)


def _opening(hand: Handoff, where: _Position, producer: bool,
             rings: dict[int, ir.Value]) -> ir.Operation | ir.OpView | None:
    """The wait a group starts with (None: not its first handoff): the
    producer's for a free slot, the consumer's for a ready one."""
    if not hand.first:
        return None
    produce, consume = _pipes(hand)
    if producer:
        return _when(where.wait_free, lambda: _wait_flag(hand.free, produce, hand, rings))
    return _wait_flag(hand.ready, consume, hand, rings)


def _closing(hand: Handoff, where: _Position, producer: bool,
             rings: dict[int, ir.Value]) -> ir.Operation | ir.OpView | None:
    """The set a group ends with (None: not its last handoff): the
    producer's "ready", the consumer's "free"."""
    if not hand.last:
        return None
    produce, consume = _pipes(hand)
    if producer:
        return _set_flag(produce, hand.ready, hand, rings)
    return _when(where.set_free, lambda: _set_flag(consume, hand.free, hand, rings))


def build(kernel: ir.Operation, site: ir.Operation, hand: Handoff, value: ir.Value,
          rings: dict[int, ir.Value], producer: bool, slots: int) -> None:
    """One core's side of a handoff at `site` in its copy `kernel` of the
    kernel, whose copy of the handed tile is `value`: the producer copies
    it into its slot, the consumer out of it (into the L1 tile of an up
    handoff). `rings[r]` is ring r: the GM workspace argument, or this
    core's UB ring tile (`ub_ring`). The flags are the group's: waited for
    at its first handoff, set at its last.

    A site under `scf.if`s (whose conditions both cores compute alike, so
    both take the same branches) keeps its flags there, and the other
    branch of each of those ifs gets the same flags without the copy
    (`_skipped`): every trip of the ring's loop then waits and sets each
    flag once, whichever way it branches, so the slot counting and the
    drain stay those of an unconditional handoff."""
    loop = _ring_loop(kernel, site)
    if loop is not None and loop.name == "scf.while":
        loop = _counted(loop)
    staged = loop is not None and loop.name in LOOPS and _parent(site) == loop
    workspace = rings[hand.ring]
    with ir.InsertionPoint(site), site.location:
        zero = irb.index(0)
        where = _position(kernel, loop, hand, slots)
        if producer:
            _opening(hand, where, producer, rings)
            if hand.in_ub:
                fixpipe = tile.copy(value, [zero, zero], workspace, [where.row, zero],
                                    sizes=[hand.rows, hand.cols])
                fixpipe.operation.attributes[DUAL_DST] = ir.UnitAttr.get()
            else:
                tile.copy(value, [zero, zero], workspace, [where.row, zero])
            ready = _closing(hand, where, producer, rings)
            if ready is not None and not hand.down and staged:
                ready.attributes[STAGE_END] = ir.UnitAttr.get()
        else:
            target = value if hand.down else copy_operands(site)[2][0]
            wait = _opening(hand, where, producer, rings)
            if wait is not None and not hand.down and staged:
                wait.attributes[STAGE_START] = ir.UnitAttr.get()
            copy = tile.copy(workspace, [where.row, zero], target, [zero, zero])
            free = _closing(hand, where, producer, rings)
            if hand.in_ub and free is not None and hand.group is None:
                for op in (copy.operation, free):
                    op.attributes[_SLOT_COPY] = _i64(hand.ring)
            elif hand.down and not hand.in_ub:
                copy.operation.attributes[_GM_RECEIVE] = ir.UnitAttr.get()
    for branch, taken in conditions(site):
        _skipped(kernel, loop, branch, 1 - taken, hand, rings, producer, slots)
    if producer and loop is not None and hand.last:
        _drain(loop, hand, slots, _pipes(hand)[0], rings)


def _position(kernel: ir.Operation, loop: ir.Operation | None, hand: Handoff,
              slots: int) -> _Position:
    return _grid_position(kernel, hand, slots) if loop is None \
        else _loop_position(loop, hand, slots)


def _skipped(kernel: ir.Operation, loop: ir.Operation | None, branch: ir.Operation,
             number: int, hand: Handoff, rings: dict[int, ir.Value], producer: bool,
             slots: int) -> None:
    """At the end of region `number` of `branch` (the way that does not
    hand the tile over; made where the `if` has no else): the flags of
    `hand` without its copy, after those of the handoffs built before it,
    so both cores see them in program order as in the branch that hands."""
    region = branch.regions[number]
    if not region.blocks:
        with ir.InsertionPoint(region.blocks.append()), branch.location:
            scf.YieldOp([])
    block = region.blocks[0]
    with ir.InsertionPoint(list(block.operations)[-1]), branch.location:
        where = _position(kernel, loop, hand, slots)
        _opening(hand, where, producer, rings)
        _closing(hand, where, producer, rings)


def _counted(loop: ir.Operation) -> ir.Operation:
    """`loop`, an `scf.while`, carrying the number of trips it has made last
    (added at its first handoff in this core's copy): its body's argument
    is the trip's number, its result the trip count. The cores compute
    the loop's condition alike, so they count alike."""
    if COUNTED in loop.attributes:
        return loop
    with ir.InsertionPoint(loop), loop.location:
        counted = irb.carry(loop, irb.index(0))
    body = counted.regions[1].blocks[0]
    end = list(body.operations)[-1].operation
    with ir.InsertionPoint(end), end.location:
        end.operands[len(end.operands) - 1] = arith.addi(
            body.arguments[len(body.arguments) - 1], irb.index(1))
    counted.attributes[COUNTED] = ir.UnitAttr.get()
    return counted


def forget_counters(kernel: ir.Operation) -> None:
    """Drops the marks of the counted loops once every handoff is built."""
    for loop in irb.collect(kernel, "scf.while"):
        if COUNTED in loop.attributes:
            del loop.attributes[COUNTED]


def _trip_count(loop: ir.Operation) -> ir.Value:
    """How many trips `loop` made, built after it."""
    if loop.name == "scf.while":
        return loop.results[len(loop.results) - 1]
    lower, upper, step = list(loop.operands)[:3]
    span = arith.maxsi(arith.subi(upper, lower), irb.index(0))
    return arith.ceildivui(span, step)


def _drain(loop: ir.Operation, hand: Handoff, slots: int, pipe: str,
           rings: dict[int, ir.Value]) -> None:
    """After `loop`, the producer takes the "free" sets of the last
    min(slots, trips) uses of the ring."""
    with ir.InsertionPoint.after(loop), loop.location:
        trips = _trip_count(loop)
        pending = arith.minui(trips, irb.index(slots))
        drain = scf.ForOp(irb.index(0), pending, irb.index(1))
        with ir.InsertionPoint(drain.body):
            _wait_flag(hand.free, pipe, hand, rings)
            scf.YieldOp([])


def work_in_slots(kernel: ir.Operation) -> None:
    """On the AIVs (after `row_halves` gave each its half tiles): where every
    later use of the half tile a slot is copied into is vector work in the
    copy's block, that work runs on the slot itself, which is freed after
    the last of it instead of after the copy. The copy (V-pipe time the
    vector side is short of) goes; the slot's flags and all its uses are on
    the V pipe, so the pipe's order keeps the AIC from overwriting the slot
    early. A half tile used otherwise (copied to GM, used after the loop)
    keeps its copy.

    Where the slots are in GM (the 910b), the AIV's DMA out of the slot
    goes straight into the working tile instead (`_receive_in_place`)."""
    _receive_in_place(kernel)
    for copy in [op for op in irb.pre_order(kernel) if _SLOT_COPY in op.attributes
                 and op.name == "tile.copy"]:
        ring = copy.attributes[_SLOT_COPY]
        block = copy.block
        ops = [o.operation for o in block.operations]

        def position(op: ir.Operation, ops: list[ir.Operation] = ops) -> int:
            return next(i for i, known in enumerate(ops) if known == op)

        start = position(copy)
        free = next(op for op in ops[start + 1:]
                    if _SLOT_COPY in op.attributes and op.attributes[_SLOT_COPY] == ring)
        for op in (copy, free):
            del op.attributes[_SLOT_COPY]
        src, src_offsets, dst, _, _ = copy_operands(copy)
        half = dst[0]
        uses = [use for use in half.uses if irb.use_owner(use) != copy]
        tops = [_top_in(block, irb.use_owner(use)) for use in uses]
        # Stage 1 of a pipelined loop ends where the AIVs hand a tile up: a
        # slot taken in stage 1 must be freed there too, or the AIC, a few
        # iterations ahead, would wait for a slot the AIVs free only later.
        end = next((i for i, op in enumerate(ops) if i > start and STAGE_END in op.attributes),
                   len(ops))
        if not uses or any(top is None or not start < position(top) < end for top in tops) \
                or not all(_on_vector(irb.use_owner(use)) for use in uses):
            continue
        with ir.InsertionPoint(copy), copy.location:
            slot = buffers.view(src[0], src_offsets, ir.MemRefType(half.type).shape)
        for use in uses:
            irb.use_owner(use).operands[use.operand_number] = slot
        free.move_after(max(tops, key=position))
        copy.erase()


def _receive_in_place(kernel: ir.Operation) -> None:
    """A half tile copied out of a GM slot whose only other use is a copy
    of the whole of it into another UB tile of its type (the L0C -> UB copy
    of the kernel, where the vector work happens) is not needed: the DMA
    writes that tile itself, one full-tile UB buffer and one V-pipe copy
    fewer. Only when nothing touches the working tile between the two
    copies, so that writing it earlier changes no value anyone reads."""
    for copy in [op for op in irb.pre_order(kernel) if _GM_RECEIVE in op.attributes]:
        del copy.attributes[_GM_RECEIVE]
        half = copy_operands(copy)[2][0]
        others = [irb.use_owner(use) for use in half.uses if irb.use_owner(use) != copy]
        if len(others) != 1 or others[0].block != copy.block:
            continue
        (forward,) = others
        src, src_offsets, dst, dst_offsets, pad = copy_operands(forward)
        work = dst[0]
        if src[0] != half or work.type != half.type or pad or "sizes" in forward.attributes \
                or any(irb.constant_int(o) != 0 for o in (*src_offsets, *dst_offsets)):
            continue
        ops = [o.operation for o in copy.block.operations]
        start = next(i for i, op in enumerate(ops) if op == copy)
        stop = next(i for i, op in enumerate(ops) if op == forward)
        if stop < start or any(_top_in(copy.block, user) in ops[start + 1:stop]
                               for user in _users_through_views(work)):
            continue
        copy.operands[1 + len(copy_operands(copy)[1])] = work  # [src, *src offsets, dst, ...]
        forward.erase()


def _users_through_views(value: ir.Value) -> list[ir.Operation]:
    """The ops that use `value`, directly or through views of it."""
    users = []
    for use in value.uses:
        owner = irb.use_owner(use)
        users.append(owner)
        if owner.name in VIEWS:
            users.extend(_users_through_views(owner.results[0]))
    return users


def _top_in(block: ir.Block, op: ir.Operation) -> ir.Operation | None:
    """The op of `block` that is or holds `op` (None: `op` is not in it)."""
    while op.block != block:
        op = _parent(op)
        if op is None or op.name == "func.func":
            return None
    return op


def _on_vector(op: ir.Operation) -> bool:
    """Whether a use of a UB tile is V-pipe work: element code of a
    tile.parallel, a reduce or fill, a copy to another UB tile."""
    if op.name in ("memref.load", "memref.store"):
        return irb.enclosing(op, {"tile.parallel"}) is not None
    if op.name == "tile.copy":
        src, _, dst, _, _ = copy_operands(op)
        return scope_name(src[0]) == scope_name(dst[0]) == "ub"
    return op.name in _VECTOR_USERS
