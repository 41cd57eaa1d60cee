"""tile-ascend-plan-memory: a static byte offset for every on-chip buffer.

Every `memref.alloc` in an on-chip memory (`#ascend.mem<l1|l0a|l0b|l0c|ub|bt|fb>`)
gets `ascend.offset = <bytes> : i64`: where the buffer starts in its memory,
aligned as the profile says, inside the capacity less the bytes the runtime
reserves. The simulator places the buffer exactly there, the sync pass
compares exact byte ranges and the emitter will write the addresses.

Liveness is on the function's ops in program order. A buffer is live from
its first use to its last (a `memref.dealloc` is a last use); a use inside a
loop that does not contain the alloc keeps the buffer live for the whole
loop, since the next iteration may come back to it. Uses in the two branches
of an `scf.if` get disjoint positions, so buffers of different branches can
share bytes. Buffers whose live ranges do not overlap may be placed at
overlapping bytes: the reuse is a WAR/WAW hazard on exact byte ranges that
the sync pass orders across pipes like any other.

Placement is first fit, largest buffer first: each buffer takes the lowest
aligned offset that overlaps no already placed buffer whose live range meets
its own. Every pair of simultaneously live buffers is checked explicitly, so
the plan is safe by construction. An alloc that already has `ascend.offset`
keeps it (it is checked and placed first).

When a memory does not fit so, it is planned again with tighter lifetimes:
a buffer that is iteration-private to a loop (every element an iteration
reads was written earlier in that iteration, as `Privacy` checks) is live
only over its uses inside the iteration, so buffers of different phases of
one iteration of the block loop can share bytes; the loops multi-buffering
unrolled (`ascend.multi_buffer_slots`) still keep their slots apart. Whole-
loop lifetimes come first because they leave the pipes free to overlap one
iteration's stores with the next one's loads. A memory that still overflows
is an error at the function naming each of its buffers with size and
location.

A UB ring of a mix kernel (`ascend.ub_ring`, the 950's handoff from L0C
to UB: the AIC's fixpipe writes those bytes of the AIVs' UBs) keeps its
bytes for the whole kernel, its AIC and AIV regions, since the AIC writes
them while the AIVs run any part of their program; the other kernels of
the function, run before or after it, may use them (`_ring_life`). The
ring's cross-core flags then get the ring's bytes (`ascend.guards`, a
`[lo, hi)` byte range of UB), which the sync pass orders them against.

The buffer analysis here (views of a buffer, the elements each ascend op
reads and writes, iteration privacy) is shared with tile-ascend-multi-buffer.

Before:

    %x = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
    %y = memref.alloc() : memref<256xf32, #ascend.mem<ub>>

After:

    %x = memref.alloc() {ascend.offset = 0 : i64} : memref<256xf32, #ascend.mem<ub>>
    %y = memref.alloc() {ascend.offset = 1024 : i64} : memref<256xf32, #ascend.mem<ub>>
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from mlir import ir

from tilec.diagnostics import Diagnostic
from tilec.dialects import ascend
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.target_options import target_option
from tilec.passes.conversion.tile_to_ascend.analysis.first_iterations import (
    decided_on_first,
    runs_at_least_once,
)
from tilec.passes.conversion.tile_to_ascend.analysis.handoff_rings import UB_RING, ring_numbers
from tilec.passes.registry import Pass, PassFailure, emit_error, register_pass
from tilec.targets import target_of
from tilec.targets.ascend import AscendTarget
from tilec.targets.ascend import attributes as ascend_attr
from tilec.targets.ascend.profiles import Profile

SLOTS_ATTR = "ascend.multi_buffer_slots"
"""On a loop tile-ascend-multi-buffer unrolled: how many slots its private buffers have."""
ALLOCS = frozenset({"memref.alloc", "memref.alloca"})
# Ops whose result is a view of the same bytes as their first operand.
VIEW_OPS = frozenset(
    {
        "memref.subview",
        "memref.cast",
        "memref.collapse_shape",
        "memref.expand_shape",
        "memref.reinterpret_cast",
        "memref.view",
        "memref.transpose",
        "memref.memory_space_cast",
        "memref.assume_alignment",
    }
)
LOOPS = frozenset({"scf.for", "scf.while", "scf.parallel", "scf.forall", "affine.for"})


def on_chip_space(type_: ir.Type) -> str | None:
    """`ub`, `l1`, ... for a memref in an on-chip memory; None for GM or other types."""
    if not isinstance(type_, ir.MemRefType) or type_.memory_space is None:
        return None
    try:
        space = ascend.mem_space_of(ir.MemRefType(type_)).name
    except ValueError:
        return None
    return None if space == "gm" else space


def buffer_bytes(type_: ir.MemRefType) -> int:
    """Bytes a static memref occupies (sub-byte elements take a byte each, as
    the simulator stores them)."""
    count = 1
    for extent in type_.shape:
        count *= extent
    return count * max(1, -(-irb.bit_width(type_.element_type) // 8))


def align_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


def on_chip_allocs(root: ir.Operation) -> list[ir.Operation]:
    """The on-chip allocs nested in `root`, in program order."""
    return [a for a in irb.collect(root, set(ALLOCS)) if on_chip_space(a.results[0].type)]


def views_and_users(alloc: ir.Operation) -> tuple[list[ir.Value], list[ir.Operation]]:
    """Every value that views the bytes of `alloc`'s buffer (the buffer
    itself first) and every op that uses one of them, views included."""
    values = [alloc.results[0]]
    users: list[ir.Operation] = []
    seen: set[ir.Operation] = set()
    index = 0
    while index < len(values):
        for use in values[index].uses:
            owner = use.owner.operation
            if owner not in seen:
                seen.add(owner)
                users.append(owner)
            if owner.name in VIEW_OPS and use.operand_number == 0:
                values.extend(owner.results)
        index += 1
    return values, users


def format_bytes(n: int) -> str:
    return f"{n} B" if n < 1024 else f"{n / 1024:.2f} KiB"


def describe_location(location: ir.Location) -> str:
    found = Diagnostic.from_location("note", "", location)
    return f"{found.file}:{found.line}:{found.col}" if found.file else "<unknown>"


class ProgramOrder:
    """Positions of the ops of a function in pre-order: each op has its own
    position and the last position of anything nested in it."""

    def __init__(self, root: ir.Operation):
        self.first: dict[ir.Operation, int] = {}
        self.last: dict[ir.Operation, int] = {}
        self._number(root)

    def _number(self, op: ir.Operation) -> None:
        self.first[op] = len(self.first)
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    self._number(child.operation)
        self.last[op] = len(self.first) - 1


FRACTAL_ROWS = 16
FRACTAL_BYTES = 32

# The element indices of a view, as a numpy array of indices into the flat
# buffer, or None when they are only known at run time.
Elements = np.ndarray | None
# What an op reads or writes of one operand: a selection of its elements
# (None: not known statically).
Select = Callable[[np.ndarray], Elements]


def _whole(elements: np.ndarray) -> Elements:
    return elements


def _constants(values: list[ir.Value]) -> list[int] | None:
    found = [irb.constant_int(v) for v in values]
    return None if any(v is None for v in found) else found


def _box(offsets: list[ir.Value], sizes: list[int]) -> Select:
    """The rectangle `[offsets, offsets + sizes)`, when the offsets are constants."""
    starts = _constants(offsets)

    def select(elements: np.ndarray) -> Elements:
        if starts is None or len(starts) != elements.ndim:
            return None
        return elements[tuple(slice(o, o + n) for o, n in zip(starts, sizes, strict=True))]

    return select


def _fractals(rows: int, cols: int) -> Select:
    """The leading `rows x cols` fractals of a 4-D cube buffer."""
    return lambda elements: elements[:rows, :cols]


def _blocks(extent: int, per_block: int) -> int:
    return -(-extent // per_block)


def _c0(value: ir.Value) -> int:
    bits = irb.bit_width(ir.MemRefType(value.type).element_type)
    return FRACTAL_BYTES * 8 // bits


def _sizes(op: ir.Operation) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes["sizes"]))


Access = tuple[list[tuple[ir.Value, Select]], list[tuple[ir.Value, Select]]]


def _copy(op: ir.Operation) -> Access:
    sizes = _sizes(op)
    src, *rest = list(op.operands)
    n = len(sizes)
    src_offsets, dst, dst_offsets = rest[:n], rest[n], rest[n + 1:]
    return [(src, _box(src_offsets, sizes))], [(dst, _box(dst_offsets, sizes))]


def _copy_nd2nz(op: ir.Operation) -> Access:
    view = op.opview
    return [(view.src, _whole)], [(view.dst, _whole)]


def _load(to_l0a: bool) -> Callable[[ir.Operation], Access]:
    def access(op: ir.Operation) -> Access:
        src, dst = list(op.operands)
        rows, cols = _sizes(op)
        c0 = _c0(src)
        blocks = ((_blocks(rows, FRACTAL_ROWS), _blocks(cols, c0)) if to_l0a
                  else (_blocks(rows, c0), _blocks(cols, FRACTAL_ROWS)))
        return [(src, _whole)], [(dst, _fractals(*blocks))]

    return access


def _mmad(op: ir.Operation) -> Access:
    a, b, c = list(op.operands)
    m, n, _ = _sizes(op)
    written = [(c, _fractals(_blocks(n, FRACTAL_ROWS), _blocks(m, FRACTAL_ROWS)))]
    reads = [(a, _whole), (b, _whole)]
    if "init" not in op.attributes:
        reads.append((c, _whole))
    return reads, written


def _fixpipe(op: ir.Operation) -> Access:
    # The destination rectangle of an on-chip fixpipe is left unknown: no
    # write is counted, which can only make a buffer look less private.
    src, dst, *_ = list(op.operands)
    return [(src, _whole)], [(dst, lambda elements: None)]


def _vector(op: ir.Operation) -> Access:
    """Vector ops write their first operand whole and read the other buffers whole."""
    memrefs = [v for v in op.operands if isinstance(v.type, ir.MemRefType)]
    return [(v, _whole) for v in memrefs[1:]], [(memrefs[0], _whole)]


def _scalar(op: ir.Operation) -> Access:
    operands = list(op.operands)
    is_store = op.name == "memref.store"
    buffer, indices = operands[int(is_store)], operands[int(is_store) + 1:]
    where = _box(indices, [1] * len(indices))
    return ([], [(buffer, where)]) if is_store else ([(buffer, where)], [])


_ACCESSES: dict[str, Callable[[ir.Operation], Access]] = {
    "ascend.copy": _copy,
    "ascend.copy_nd2nz": _copy_nd2nz,
    "ascend.load_l0a": _load(True),
    "ascend.load_l0b": _load(False),
    "ascend.mmad": _mmad,
    "ascend.fixpipe": _fixpipe,
    "memref.load": _scalar,
    "memref.store": _scalar,
    **{f"ascend.{name}": _vector for name in (
        "vbin", "vbins", "vunary", "vdup", "vcast", "vreduce", "vbrcb", "vcmp", "vsel")},
}


def _view_elements(op: ir.Operation, source: Elements, size: int) -> Elements:
    """The elements a static view op selects of its source's elements (of a
    buffer of `size` elements)."""
    if source is None:
        return None
    result = ir.MemRefType(op.results[0].type)
    if not result.has_static_shape or len(op.operands) > 1:
        return None
    if op.name in ("memref.subview", "memref.reinterpret_cast"):
        offsets, sizes, strides = (list(op.attributes[name]) for name in
                                   ("static_offsets", "static_sizes", "static_strides"))
    if op.name == "memref.subview":
        box = tuple(slice(o, o + (n - 1) * s + 1, s)
                    for o, n, s in zip(offsets, sizes, strides, strict=True))
        return source[box].reshape(result.shape)
    if op.name == "memref.reinterpret_cast":
        # Offset and strides count from the start of the allocation, as the
        # Nz views of the cube lowering use it.
        elements = np.full(sizes, offsets[0], dtype=np.int64)
        for dim, (n, stride) in enumerate(zip(sizes, strides, strict=True)):
            shape = [1] * len(sizes)
            shape[dim] = n
            elements = elements + (np.arange(n) * stride).reshape(shape)
        inside = elements.size == 0 or (elements.min() >= 0 and elements.max() < size)
        return elements if inside else None
    if op.name in ("memref.cast", "memref.collapse_shape", "memref.expand_shape"):
        return source.reshape(result.shape)
    return None


class Privacy:
    """Whether a buffer is iteration-private to a loop: every element an
    iteration reads was written before in that iteration, on every path, and
    nothing after the loop reads what the loop left in it.

    With `first_iterations`, a loop nested in the one asked about that surely
    runs is read as its first iteration, with the `scf.if`s that this decides
    (`first_iterations.decided_on_first`: a K loop's `init` mmad under
    `%k == %lb`), then as any later one: an L0C accumulator is then private to
    the grid loop around its K loop. (Off by default: it would also give more
    slots to the pipelined loops around such K loops.)"""

    def __init__(self, alloc: ir.Operation, first_iterations: bool = False):
        self.first_iterations = first_iterations
        type_ = ir.MemRefType(alloc.results[0].type)
        self.size = int(np.prod(type_.shape, dtype=np.int64))
        values, users = views_and_users(alloc)
        self.elements: dict[ir.Value, Elements] = {
            values[0]: np.arange(self.size).reshape(type_.shape)}
        for value in values[1:]:
            owner = value.owner.operation
            self.elements[value] = _view_elements(owner, self.elements[owner.operands[0]],
                                                  self.size)
        self.values = set(values)
        self.accesses = [u for u in users if u.name not in VIEW_OPS]
        self._accessing = set(self.accesses)
        self.containers = {a for user in self.accesses for a in irb.ancestors(user)}
        self._verdicts: dict[ir.Operation, bool] = {}

    def private_to(self, loop: ir.Operation) -> bool:
        if loop not in self._verdicts:
            self._verdicts[loop] = self._private_to(loop)
        return self._verdicts[loop]

    def _private_to(self, loop: ir.Operation) -> bool:
        # scf.for only: the regions of other loops do not run as one body.
        if (loop.name != "scf.for" or loop not in self.containers
                or any(a.name not in _ACCESSES for a in self.accesses)):
            return False
        body = loop.regions[0].blocks[0]
        return self._scan(body.operations, self._nothing()) is not None and self._dead_after(loop)

    def _nothing(self) -> np.ndarray:
        return np.zeros(self.size, dtype=bool)

    def _dead_after(self, op: ir.Operation) -> bool:
        """Whether, on every path on from `op`, each element of the buffer is
        written before it is read (or never read again)."""
        covered = self._nothing()
        while True:
            following = list(op.block.operations)
            index = next(i for i, o in enumerate(following) if o.operation == op)
            covered = self._scan(following[index + 1:], covered)
            if covered is None:
                return False
            if covered.all():
                return True
            parent = op.parent.operation
            if parent.name == "func.func":
                return True
            if parent.name == "scf.for":
                # Out of the loop after this iteration or after more: those
                # cover at least what a whole iteration from its start does.
                whole = self._scan(parent.regions[0].blocks[0].operations, self._nothing())
                if whole is None:
                    return False
                covered &= whole
            elif parent.name not in ("scf.if", "ascend.core"):  # a core region runs once
                return False
            op = parent

    def _scan(self, ops, covered: np.ndarray,
              firsts: frozenset[ir.Operation] = frozenset()) -> np.ndarray | None:
        """Coverage after `ops` (on the first iteration of the loops in `firsts`),
        or None if a read finds an element unwritten."""
        for child in ops:
            op = child.operation
            if op in self._accessing:
                covered = self._access(op, covered)
            elif op in self.containers:
                covered = self._nested(op, covered, firsts)
            if covered is None:
                return None
        return covered

    def _nested(self, op: ir.Operation, covered: np.ndarray,
                firsts: frozenset[ir.Operation]) -> np.ndarray | None:
        if self.first_iterations and op.name == "scf.for" and runs_at_least_once(op):
            # The first iteration, then any later one (which starts with at
            # least what the first wrote).
            body = op.regions[0].blocks[0].operations
            first = self._scan(body, covered.copy(), firsts | {op})
            if first is None or self._scan(body, first.copy(), firsts) is None:
                return None
            return first
        taken = decided_on_first(op.operands[0], firsts) \
            if op.name == "scf.if" and firsts else None
        after = []
        for number, region in enumerate(op.regions):
            if taken is not None and number != (0 if taken else 1):
                continue
            for block in region.blocks:
                result = self._scan(block.operations, covered.copy(), firsts)
                if result is None:
                    return None
                after.append(result)
        if taken is not None:
            return after[0] if after else covered
        # Both branches of an if write what both write; a loop may not run.
        if op.name == "scf.if" and len(after) == 2:
            return after[0] & after[1]
        return covered

    def _access(self, op: ir.Operation, covered: np.ndarray) -> np.ndarray | None:
        reads, writes = _ACCESSES[op.name](op)
        for value, select in reads:
            if value in self.values:
                whole = self.elements[value]
                part = None if whole is None else select(whole)
                if not covered[np.arange(self.size) if part is None else part].all():
                    return None
        for value, select in writes:
            whole = self.elements.get(value) if value in self.values else None
            part = None if whole is None else select(whole)
            if part is not None:
                covered[part] = True
        return covered


@dataclass
class Buffer:
    alloc: ir.Operation
    space: str
    nbytes: int
    start: int
    end: int
    offset: int | None = None

    def live_with(self, other: Buffer) -> bool:
        return self.start <= other.end and other.start <= self.end

    def describe(self) -> str:
        return (f"{self.alloc.results[0].type} ({format_bytes(self.nbytes)}) at "
                f"{describe_location(self.alloc.location)}")


def live_range(alloc: ir.Operation, order: ProgramOrder,
               privacy: Privacy | None = None) -> tuple[int, int]:
    """First and last position at which the buffer of `alloc` is in use.

    A use in a loop that does not contain the alloc extends the range over
    the loop. With `privacy`, loops the buffer is iteration-private to are
    not extended over (its value does not survive into the next iteration),
    except the loops multi-buffering unrolled, whose slots must stay apart."""
    inside = set(irb.ancestors(alloc))
    _, users = views_and_users(alloc)
    start = end = order.first[alloc]
    if users:
        start = min(order.first[u] for u in users)
    for user in users:
        lo, hi = order.first[user], order.last[user]
        for outer in irb.ancestors(user):
            if outer in inside:
                break
            if outer.name not in LOOPS:
                continue
            if (privacy is not None and SLOTS_ATTR not in outer.attributes
                    and privacy.private_to(outer)):
                continue
            lo, hi = min(lo, order.first[outer]), max(hi, order.last[outer])
        start, end = min(start, lo), max(end, hi)
    return start, end


def place(buffers: list[Buffer], alignment: int) -> None:
    """First fit, largest first, around every placed buffer live at the same time."""
    placed = [b for b in buffers if b.offset is not None]
    for buffer in sorted((b for b in buffers if b.offset is None),
                         key=lambda b: (-b.nbytes, b.start)):
        busy = sorted((p.offset, p.offset + p.nbytes) for p in placed if p.live_with(buffer))
        cursor = 0
        for lo, hi in busy:
            if align_up(cursor, alignment) + buffer.nbytes <= lo:
                break
            cursor = max(cursor, hi)
        buffer.offset = align_up(cursor, alignment)
        placed.append(buffer)


@register_pass
@dataclass(frozen=True)
class AscendPlanMemoryPass(Pass):
    """Gives every on-chip memref.alloc a static, aligned byte offset
    (`ascend.offset`), reusing bytes between buffers whose lifetimes do not
    overlap; reports a memory that does not fit, naming its buffers."""

    argument = "tile-ascend-plan-memory"
    anchor = "func.func"
    summary = "Place every on-chip buffer at a static aligned offset with lifetime-based reuse"

    target: str = target_option(AscendTarget)

    def run(self, op: ir.Operation) -> None:
        profile = target_of(AscendTarget, self.target).profile
        allocs = on_chip_allocs(op)
        if not allocs:
            return
        order = ProgramOrder(op)
        by_space: dict[str, list[ir.Operation]] = {}
        for alloc in allocs:
            by_space.setdefault(self._space(alloc, profile), []).append(alloc)
        plans, failed = [], False
        for space, group in by_space.items():
            # Whole-loop lifetimes first: a buffer that keeps its bytes for the
            # whole loop lets the next iteration's loads overlap this one's
            # stores. Only when that does not fit, reuse bytes within an
            # iteration too (the sync then orders the pipes around the reuse).
            for privacy in (False, True):
                buffers = [self._buffer(a, order, profile, privacy) for a in group]
                for buffer in buffers:
                    if UB_RING in buffer.alloc.attributes:
                        buffer.start, buffer.end = _ring_life(buffer.alloc, order, op)
                place(buffers, profile.alignment[space])
                if _peak(buffers) <= ascend_attr.usable_bytes(profile, space, op):
                    break
            else:
                failed = True
                self._report_overflow(op, space, buffers, profile)
            plans.extend(buffers)
        if failed:
            raise PassFailure("on-chip memory overflow")
        i64 = ir.IntegerType.get_signless(64, op.context)
        for buffer in plans:
            buffer.alloc.attributes[ascend_attr.OFFSET] = ir.IntegerAttr.get(i64, buffer.offset)
        _guard_rings(op, plans)

    @staticmethod
    def _space(alloc: ir.Operation, profile: Profile) -> str:
        type_ = ir.MemRefType(alloc.results[0].type)
        space = on_chip_space(type_)
        if not type_.has_static_shape or len(alloc.operands):
            raise emit_error(alloc, f"on-chip buffers need a static shape, not {type_}")
        if space not in profile.capacity:
            raise emit_error(alloc, f"the {profile.name} profile has no {space} memory")
        return space

    @staticmethod
    def _buffer(alloc: ir.Operation, order: ProgramOrder, profile: Profile,
                privacy: bool) -> Buffer:
        type_ = ir.MemRefType(alloc.results[0].type)
        space = on_chip_space(type_)
        start, end = live_range(alloc, order, Privacy(alloc) if privacy else None)
        buffer = Buffer(alloc, space, buffer_bytes(type_), start, end)
        if ascend_attr.OFFSET in alloc.attributes:
            offset = ascend_attr.integer(alloc, ascend_attr.OFFSET)
            alignment = profile.alignment[space]
            if offset < 0 or offset % alignment:
                raise emit_error(alloc, f"{ascend_attr.OFFSET} {offset} is not a multiple of the "
                                        f"{alignment}-byte alignment of {space}")
            buffer.offset = offset
        return buffer

    @staticmethod
    def _report_overflow(func: ir.Operation, space: str, buffers: list[Buffer],
                         profile: Profile) -> None:
        total = sum(b.nbytes for b in buffers)
        tiles = ", ".join(b.describe() for b in sorted(buffers, key=lambda b: b.start))
        func.location.emit_error(
            f"{space} overflow: {format_bytes(_peak(buffers))} needed, "
            f"{format_bytes(ascend_attr.usable_bytes(profile, space, func))} available "
            f"({len(buffers)} buffers, {format_bytes(total)} in all): {tiles}"
        )


def _ring_life(alloc: ir.Operation, order: ProgramOrder,
               func: ir.Operation) -> tuple[int, int]:
    """A UB ring is live over the whole of the `ascend.core` regions that use
    it (the AIC writes it while its AIVs run any part of their program), and
    no longer: the kernels of a function run one after the other, each
    after an `ascend.sync_all` that every core reaches with its pipes
    drained (`SyncAllImpl` starts with `PipeBarrier<PIPE_ALL>`: asc-devkit
    impl/basic_api/dav_3510/kernel_operator_sync_impl.h), and the AIVs
    wait for the "ready" flag of every handoff (set on the FIX pipe after
    the fixpipe's write) before they get there, so no write to the ring is
    in flight once the kernel ended. Fused MoE's two kernels, each with its
    own rings, fit the 950's UB so (192 KiB of 247.75, where rings kept for
    the whole function needed 256)."""
    _, users = views_and_users(alloc)
    cores = [core for user in users for core in irb.ancestors(user) if core.name == "ascend.core"]
    if not cores:
        return order.first[func], order.last[func]
    return min(order.first[c] for c in cores), max(order.last[c] for c in cores)


def _guard_rings(func: ir.Operation, plans: list[Buffer]) -> None:
    """The flags of each UB ring get the ring's bytes."""
    spans = {ir.IntegerAttr(b.alloc.attributes[UB_RING]).value: [b.offset, b.offset + b.nbytes]
             for b in plans if UB_RING in b.alloc.attributes}
    if not spans:
        return
    for flag in irb.collect(func, {"ascend.cross_core_set_flag", "ascend.cross_core_wait_flag"}):
        if UB_RING in flag.attributes:
            bounds = [bound for ring in ring_numbers(flag) for bound in spans[ring]]
            flag.attributes[ascend_attr.GUARDS] = ir.DenseI64ArrayAttr.get(bounds, func.context)
            del flag.attributes[UB_RING]


def _peak(buffers: list[Buffer]) -> int:
    return max(b.offset + b.nbytes for b in buffers)
