"""Per-thread (SIMT) code: a kernel body that uses the thread index, run once per thread.

A tile kernel is written for a block as a whole, but TileLang also lets a
kernel take `tx = T.get_thread_binding()` and write what each thread does
(`acc[0] += A_shared[tx, k]`). tilec gives such a body the meaning CUDA
gives it, in tile IR that every target can run: when the kernel is closed,
its body becomes loops over the threads (`scf.for` marked `tile.threads`),
each running the per-thread code once per thread index:

- tiles in `local` scope (`T.alloc_local`, `T.alloc_var`) are per thread,
  every other tile per block;
- a barrier (`T.sync_threads`) ends one loop over the threads and starts the
  next, so every thread's writes before it are seen by every thread after it
  (loop fission); a barrier in a loop or `if` whose bounds or condition do
  not depend on the thread index moves the loops over the threads into it;
- a tile op that does not depend on the thread index (`T.copy` of a whole
  tile, `T.gemm`) is run once by the block, between the loops, as TileLang's
  tile ops are run by all threads together; one that does (it reads a local
  tile or the thread index) is run by each thread, and so is an atomic add
  of a scalar, which is each thread's own in TileLang;
- a loop or `if` that holds both per-thread code and such a tile op of the
  block gets the loops over the threads inside it, as at a barrier: in each
  iteration the threads' writes before the tile op are all done when it runs,
  its writes are seen by the per-thread code after it, and the next
  iteration's writes come after this one's reads (TileLang's thread
  synchronization inserts those barriers); its bounds or condition must not
  depend on the thread index;
- what computes no per-thread value and has no effect (index arithmetic on
  the block index) is computed once, before the loops;
- a per-thread value or local tile that lives across a barrier is kept per
  thread: a value in a `(threads,)` local tile, a tile as a `(threads, ...)`
  one of which each thread sees its row.

A barrier that only some threads reach (inside a loop or `if` on the thread
index) is an error at its line, as it is undefined in CUDA, except TileLang's
named barrier of the first `count` threads (`T.sync_threads(id, count)`) inside
`if tx < count:`: that `if` gets its own loops over threads 0 .. count - 1,
split at its barriers as the block's are.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from mlir import ir
from mlir.dialects import arith, memref, scf

from tilec.dialects import tile

from .errors import DSLError, SourceLoc

# `tile.arrive_count` on a tile.barrier: the threads of a named barrier of part of the
# block (semantic.sync_threads records it), reached as `if tx < count:`.
ARRIVE_COUNT = "arrive_count"

# The attribute that marks a loop over the threads of a block.
THREAD_LOOP = "tile.threads"
# The attribute that names the warp shuffle whose exchange a barrier is part of.
EXCHANGE = "tile.exchange"
# Ops that compute a value from their operands alone, which may run once for all threads.
_PURE_DIALECTS = ("arith.", "math.", "index.")
_PURE_OPS = frozenset({"memref.dim", "affine.apply"})
# Loops and branches a barrier may be in, when all threads take them alike.
_LOOPS = frozenset({"scf.for", "tile.pipelined"})


def _op(op: ir.Operation | ir.OpView) -> ir.Operation:
    """The operation itself, for an op view (what uses and owners give) too."""
    return op.operation


def _nested(op: ir.Operation) -> Iterator[ir.Operation]:
    """The ops inside `op`'s regions, outer before inner."""
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                yield child.operation
                yield from _nested(child.operation)


def _body(block: ir.Block) -> list[ir.Operation]:
    """The ops of `block` before its terminator."""
    return [op.operation for op in block.operations][:-1]


def _is_tile_op(op: ir.Operation) -> bool:
    """A tile op, which the threads of a block run together; an atomic add of a scalar is
    each thread's own (TileLang's AtomicAdd call), not one of them."""
    if op.name == "tile.atomic_add":
        return isinstance(op.operands[0].type, ir.MemRefType)
    return op.name.startswith("tile.") and op.name not in ("tile.alloc", "tile.yield")


def _is_local_alloc(op: ir.Operation) -> bool:
    return (
        op.name == "tile.alloc"
        and tile.scope_of(ir.MemRefType(op.results[0].type)) == tile.Scope.local
    )


def _source_loc(op: ir.Operation, fallback: SourceLoc) -> SourceLoc:
    loc = op.location
    if loc.is_a_file():
        return SourceLoc(loc.filename, loc.start_line, loc.start_col)
    return fallback


@dataclass
class _Segment:
    """A run of ops of one block: per thread (`threads`), once for the block (`block`), or
    a loop or branch whose blocks are distributed in turn (`nested`); a `barrier` only
    ends the run before it."""

    kind: str  # "threads", "block", "nested", "subset" or "barrier"
    ops: list[ir.Operation] = field(default_factory=list)
    count: int = 0  # a subset's threads


class _Distribution:
    """Turns one kernel body into loops over its threads (see the module docstring)."""

    def __init__(self, kernel: ir.Operation, thread: ir.Value, threads: int, loc: SourceLoc):
        self.body = kernel.regions[0].blocks[0]
        self.thread = thread
        self.threads = threads
        self.loc = loc
        self.varying: set[ir.Value] = {thread}
        self.varying_ops: set[ir.Operation] = set()
        self.uniform: set[ir.Operation] = set()  # local tiles every thread fills alike
        self.loops: dict[ir.Operation, ir.Value] = {}  # thread loop -> its thread index
        self.barriers: list[ir.Operation] = []

    # -- analysis --------------------------------------------------------------

    def analyse(self) -> None:
        """Marks what depends on the thread. A local tile is per thread, but one that
        every thread fills alike (TileLang's `x = T.alloc_var(...)` holding a count
        read from shared memory, or the flag of a `break`) does not make the code that
        reads it depend on the thread, so a barrier may sit under an `if` on it: the
        local tiles that some store makes differ are found by iterating to a fixed point."""
        ops = _body(self.body)
        self.uniform = {op for op in _nested(self.body.owner) if _is_local_alloc(op)}
        while True:
            self.varying, self.varying_ops = {self.thread}, set()
            for op in ops:
                self.mark(op)
            differing = {alloc for alloc in self.uniform if not self.filled_alike(alloc)}
            if not differing:
                return
            self.uniform -= differing

    def filled_alike(self, alloc: ir.Operation) -> bool:
        """Whether every thread holds the same in the local tile `alloc`: it is only read
        and stored into, with values, indices and under control that do not depend on
        the thread."""
        for use in alloc.results[0].uses:
            user = _op(use.owner)
            if user.name == "memref.load":
                continue
            if user.name != "memref.store" or use.operand_number != 1:
                return False
            if any(value in self.varying for value in user.operands):
                return False
            parent = user.parent
            while parent is not None and parent.name != "tile.kernel":
                if any(value in self.varying for value in parent.operands):
                    return False
                parent = parent.parent
        return True

    def mark(self, op: ir.Operation) -> bool:
        """Whether `op` depends on the thread: it uses the thread index, a local tile that
        is not filled alike or a value that does, here or inside its regions. Marks its
        results too."""
        varying = (_is_local_alloc(op) and op not in self.uniform) or any(
            value in self.varying for value in op.operands
        )
        if varying:
            for region in op.regions:
                for block in region.blocks:
                    self.varying.update(block.arguments)
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    varying |= self.mark(child.operation)
        if varying:
            self.varying.update(op.results)
            self.varying_ops.add(op)
        return varying

    def error(self, op: ir.Operation, message: str) -> DSLError:
        return DSLError(message, _source_loc(op, self.loc))

    def segments(self, block: ir.Block, threads: int
                 ) -> tuple[list[ir.Operation], list[_Segment]]:
        """The ops of `block` computed once before everything else, and its segments;
        `threads` run the block (fewer than the block's inside `if tx < count:`)."""
        hoisted: list[ir.Operation] = []
        available: set[ir.Value] = set()
        segments: list[_Segment] = []

        def current(kind: str) -> _Segment:
            if not segments or segments[-1].kind != kind:
                segments.append(_Segment(kind))
            return segments[-1]

        inside = set(_body(block))
        for op in _body(block):
            varying = op in self.varying_ops
            contents = list(_nested(op))
            if op.name == "tile.alloc" and not varying:
                hoisted.append(op)
            elif op.name == "tile.barrier":
                self.check_count(op, threads)
                self.barriers.append(op)
                segments.append(_Segment("barrier"))
            elif not varying and self.pure(op, inside, available):
                hoisted.append(op)
                available.update(op.results)
            elif not varying and (_is_tile_op(op) or any(map(_is_tile_op, contents))):
                current("block").ops.append(op)
            elif any(nested.name == "tile.barrier" for nested in contents):
                barrier = next(n for n in contents if n.name == "tile.barrier")
                count = self.subset(op, contents)
                if count is not None:
                    segments.append(_Segment("subset", [op], count))
                    continue
                self.check_uniform_control(op, barrier, self.barrier_name(barrier),
                                           "the barrier")
                segments.append(_Segment("nested", [op]))
            elif block_op := next((n for n in contents if self.block_level(n)), None):
                # per-thread code and a tile op of the whole block in one loop or `if`: the
                # loops over the threads go inside it, around the per-thread runs, so each
                # iteration's per-thread writes come before the tile op that reads them (and
                # its writes before the per-thread reads after it), as TileLang's thread
                # synchronization orders them
                self.check_uniform_control(
                    op, block_op, f"the block's '{block_op.name}'", "the tile op")
                segments.append(_Segment("nested", [op]))
            else:
                current("threads").ops.append(op)
        return hoisted, [s for s in segments if s.kind != "barrier"]

    def subset(self, op: ir.Operation, contents: list[ir.Operation]) -> int | None:
        """`count` when `op` is `if tx < count:` (no else, no results) and its barriers are
        named barriers of `count` threads: the first `count` threads run it."""
        if op.name != "scf.if" or op.results or any(
                list(block.operations)[:-1] for block in op.regions[1].blocks):
            return None
        condition = op.operands[0].owner
        if isinstance(condition, ir.Block) or _op(condition).name != "arith.cmpi":
            return None
        compare = _op(condition)
        predicate = ir.IntegerAttr(compare.attributes["predicate"]).value
        if predicate not in (2, 6) or compare.operands[0] != self.thread:  # slt, ult
            return None
        bound = compare.operands[1].owner
        if isinstance(bound, ir.Block) or _op(bound).name != "arith.constant":
            return None
        count = ir.IntegerAttr(_op(bound).attributes["value"]).value
        barriers = [n for n in contents if n.name == "tile.barrier"]
        if all(_arrive_count(b) == count for b in barriers) and 0 < count < self.threads:
            return count
        return None

    def check_count(self, barrier: ir.Operation, threads: int) -> None:
        """A named barrier of part of the block is reached by exactly its threads."""
        count = _arrive_count(barrier)
        if count is not None and count != threads:
            raise self.error(
                barrier,
                f"T.sync_threads(..., {count}): a named barrier of {count} threads is reached "
                f"by {threads} here; put it inside `if tx < {count}:`, which only threads "
                f"0 to {count - 1} take",
            )

    @staticmethod
    def pure(op: ir.Operation, inside: set[ir.Operation], available: set[ir.Value]) -> bool:
        """Whether `op` computes a value from operands that are ready before the block's
        first segment: defined outside the block, or by ops already hoisted."""
        if not (op.name.startswith(_PURE_DIALECTS) or op.name in _PURE_OPS) or op.regions:
            return False
        for value in op.operands:
            owner = value.owner
            if isinstance(owner, ir.Block):
                continue
            if _op(owner) in inside and value not in available:
                return False
        return True

    def block_level(self, op: ir.Operation) -> bool:
        """A tile op that the block's threads run together (it depends on no thread)."""
        return _is_tile_op(op) and op not in self.varying_ops

    @staticmethod
    def barrier_name(barrier: ir.Operation) -> str:
        """What the user wrote: a warp shuffle's exchange names the shuffle
        (`tile.exchange`, see `warps`)."""
        if EXCHANGE in barrier.attributes:
            return ir.StringAttr(barrier.attributes[EXCHANGE]).value
        return "T.sync_threads"

    def check_uniform_control(self, op: ir.Operation, barrier: ir.Operation, name: str,
                              it: str) -> None:
        """`barrier`, an op inside `op` that all threads run together (a barrier, a tile op
        of the block), is reached by all threads alike: `op` is a loop or an `if`
        (without results) whose bounds or condition do not depend on the thread."""
        kinds = {"scf.for": "T.serial loop", "tile.pipelined": "T.Pipelined loop"}
        what = kinds.get(op.name, "`if`" if op.name == "scf.if" else f"'{op.name}'")
        line = _source_loc(op, self.loc).line
        controlled = op.name in _LOOPS or op.name == "scf.if"
        if not controlled or op.results:
            raise self.error(
                barrier,
                f"{name} in per-thread code inside the {what} at line {line}, which "
                f"tilec cannot split at {it}; move {it} out of it",
            )
        if any(value in self.varying for value in op.operands):
            raise self.error(
                barrier,
                f"{name} in per-thread code inside the {what} at line {line}, whose "
                f"{'bounds depend' if op.name in _LOOPS else 'condition depends'} on the "
                f"thread index, so that not all threads reach it alike; move {it} out of it",
            )

    # -- rewriting -------------------------------------------------------------

    def distribute(self, block: ir.Block, bounds: tuple[ir.Value, ir.Value, ir.Value],
                   threads: int) -> None:
        """Rebuilds `block` as its hoisted ops, then its segments in order."""
        hoisted, segments = self.segments(block, threads)
        terminator = list(block.operations)[-1].operation
        for op in hoisted:
            op.move_before(terminator)
        for segment in segments:
            if segment.kind == "threads":
                with ir.InsertionPoint(terminator), segment.ops[0].location:
                    loop = scf.ForOp(*bounds)
                    loop.attributes[THREAD_LOOP] = ir.UnitAttr.get()
                with ir.InsertionPoint(loop.body), segment.ops[0].location:
                    yield_op = scf.YieldOp([])
                self.loops[loop.operation] = loop.induction_variable
                for op in segment.ops:
                    op.move_before(yield_op.operation)
                continue
            for op in segment.ops:
                op.move_before(terminator)
            if segment.kind == "nested":
                (op,) = segment.ops
                for region in op.regions:
                    for nested_block in region.blocks:
                        self.distribute(nested_block, bounds, threads)
            elif segment.kind == "subset":
                # all of threads 0 .. count - 1 take the branch: its loops run just them
                (op,) = segment.ops
                with ir.InsertionPoint(op), op.location:
                    op.operands[0] = arith.constant(ir.IntegerType.get_signless(1), 1)
                    count = arith.constant(ir.IndexType.get(), segment.count)
                self.distribute(op.regions[0].blocks[0], (bounds[0], count, bounds[2]),
                                segment.count)

    def loop_of(self, op: ir.Operation) -> ir.Operation | None:
        """The loop over the threads that `op` is in, if any."""
        parent: ir.Operation | None = _op(op)
        while parent is not None and parent not in self.loops:
            owner = parent.parent
            parent = None if owner is None or owner.name == "tile.kernel" else owner.operation
        return parent

    def index_of(self, loop: ir.Operation | None, at: ir.Operation) -> ir.Value:
        """The thread index where `at` runs: its loop's, or 0 outside the loops (an op run
        once reads what thread 0 computed: the same as any thread)."""
        if loop is not None:
            return self.loops[loop]
        with ir.InsertionPoint(at), at.location:
            return arith.constant(ir.IndexType.get(), 0)

    def thread_indices(self) -> None:
        for use in list(self.thread.uses):
            owner = _op(use.owner)
            loop = self.loop_of(owner)
            assert loop is not None, "what uses the thread index runs per thread"
            owner.operands[use.operand_number] = self.loops[loop]

    def spill_values(self) -> None:
        """Values computed by one loop over the threads and used elsewhere are kept per
        thread, in a `(threads,)` local tile."""
        for loop in list(self.loops):
            for op in _body(loop.regions[0].blocks[0]):
                if op.name == "tile.alloc":
                    continue  # see expand_locals
                for value in op.results:
                    self.spill(value, op, loop)

    def spill(self, value: ir.Value, op: ir.Operation, loop: ir.Operation) -> None:
        outside = []
        for use in list(value.uses):
            user = _op(use.owner)
            where = self.loop_of(user)
            if where is None or where != loop:  # (an Operation cannot be compared with None)
                outside.append((user, use.operand_number))
        if not outside:
            return
        if isinstance(value.type, ir.MemRefType):
            raise self.error(
                op,
                "a view of a per-thread tile is used on both sides of T.sync_threads; take "
                "the view again after the barrier",
            )
        # Targets keep no `index` tiles, so an index is kept as an i64.
        is_index = isinstance(value.type, ir.IndexType)
        kept = ir.IntegerType.get_signless(64) if is_index else value.type
        with ir.InsertionPoint.at_block_begin(self.body), op.location:
            slots = tile.alloc(tile.memref_type([self.threads], kept, tile.Scope.local))
        with ir.InsertionPoint.after(op), op.location:
            stored = arith.index_cast(kept, value) if is_index else value
            memref.store(stored, slots, [self.loops[loop]])
        reloaded: dict[ir.Operation | None, ir.Value] = {}
        for user, position in outside:
            where = self.loop_of(user)
            if where not in reloaded or where is None:
                first = user if where is None else _body(where.regions[0].blocks[0])[0]
                index = self.index_of(where, first)
                with ir.InsertionPoint(first), op.location:
                    loaded = memref.load(slots, [index])
                    reloaded[where] = arith.index_cast(value.type, loaded) if is_index else loaded
            user.operands[position] = reloaded[where]

    def expand_locals(self) -> None:
        """A local tile used by more than one loop over the threads becomes a
        `(threads, ...)` tile, of which each loop's thread sees its row."""
        allocs = [op for op in _nested(self.body.owner) if _is_local_alloc(op)]
        for alloc in allocs:
            result = alloc.results[0]
            loops = {self.loop_of(alloc)} | {self.loop_of(use.owner) for use in result.uses}
            if len(loops) > 1:
                self.expand(alloc, result)

    def expand(self, alloc: ir.Operation, result: ir.Value) -> None:
        tile_type = ir.MemRefType(result.type)
        shape = list(tile_type.shape)
        with ir.InsertionPoint.at_block_begin(self.body), alloc.location:
            rows = tile.alloc(
                ir.MemRefType.get(
                    [self.threads, *shape],
                    tile_type.element_type,
                    memory_space=tile_type.memory_space,
                )
            )
        strides = [1]
        for size in reversed(shape[1:]):
            strides.insert(0, strides[0] * size)
        dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
        row_type = ir.MemRefType.get(
            shape,
            tile_type.element_type,
            ir.StridedLayoutAttr.get(dynamic, strides),
            tile_type.memory_space,
        )
        views: dict[ir.Operation, ir.Value] = {}
        for use in list(result.uses):
            user = _op(use.owner)
            loop = self.loop_of(user)
            assert loop is not None, "what uses a local tile runs per thread"
            if loop not in views:
                first = _body(loop.regions[0].blocks[0])[0]
                with ir.InsertionPoint(first), alloc.location:
                    views[loop] = memref.SubViewOp(
                        row_type,
                        rows,
                        [self.loops[loop]],
                        [],
                        [],
                        [dynamic] + [0] * len(shape),
                        [1, *shape],
                        [1] * (len(shape) + 1),
                    ).result
            user.operands[use.operand_number] = views[loop]
        alloc.erase()

    def run(self) -> None:
        self.analyse()
        with ir.InsertionPoint.at_block_begin(self.body), self.body.owner.location:
            index = ir.IndexType.get()
            bounds = (
                arith.constant(index, 0),
                arith.constant(index, self.threads),
                arith.constant(index, 1),
            )
        self.distribute(self.body, bounds, self.threads)
        for barrier in self.barriers:
            barrier.erase()
        self.thread_indices()
        self.expand_locals()
        self.spill_values()


def _arrive_count(barrier: ir.Operation) -> int | None:
    """The threads of a named barrier of part of the block (`tile.arrive_count`)."""
    name = f"tile.{ARRIVE_COUNT}"
    return ir.IntegerAttr(barrier.attributes[name]).value if name in barrier.attributes else None


def distribute(kernel: ir.Operation, thread: ir.Value, threads: int, loc: SourceLoc) -> None:
    """Runs the per-thread code of `kernel` once per thread (see the module docstring).

    `thread` is the placeholder the trace used for the thread index: an extra
    argument of the kernel's body, which this erases.
    """
    _Distribution(kernel, thread, threads, loc).run()
    body = kernel.regions[0].blocks[0]
    body.erase_argument(ir.BlockArgument(thread).arg_number)
