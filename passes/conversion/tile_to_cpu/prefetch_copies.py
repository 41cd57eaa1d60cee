"""tile-cpu-prefetch-copies: start the next stage's loads of a pipelined loop early.

`tile.pipelined ... num_stages = n` (n >= 2) asks the target to overlap the
copies of later iterations with the compute of the current one. A cpu has
no asynchronous copy engine, but it has software prefetch: while the
current iteration computes (a `tile.gemm` on the tiles it just copied), the
cache lines the next iteration's copies from global memory will read are
already on their way. Without it those copies stall on every miss: a
GEMM's tiles are a few hundred rows of a large matrix, each row a short
stream that the hardware prefetchers do not pick up in time (measured: a
third of a 2048^3 f32 GEMM's time was spent in its copies).

For each `tile.copy` from a global buffer (no memory space) into a tile,
directly in the body of such a loop, the pass clones the index arithmetic of
its source offsets for the next iteration (`iv + step`; a cloned division
is made safe by tile-cpu-guard-division later in the pipeline) and
prefetches every cache line of that source region, guarded by
`iv + step < upper`. The prefetches are spread over the loop nest that
follows the copies, so that they do not all wait for memory at once: it runs
after the tile.gemm lowering, and the nest is the first loop after the
copies that holds a loop carrying values (the GEMM's micro-tile loops around
its k loop), descended while the loops have static trip counts and carry
nothing; each iteration of the innermost one prefetches an even share of
the rows. Without such a nest, all rows are prefetched after the copies.
Copies of the same rows at adjacent columns (a gemm's B written into its
panels by one copy per panel) are prefetched as one region, each line once.
Rows past the end of the buffer are skipped and columns are clamped into
it, so no prefetched address lies outside the buffer. The lines go to L2
(locality 2: x86 `prefetcht1`): a block's tiles together are larger than
L1, and the copy reads them once. A copy whose offsets are not index
arithmetic of the induction variable (an offset loaded from an index table)
is not prefetched.

Before:

    tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 {
      %o = arith.muli %k, %c32 : index
      tile.copy %A[%i, %o], %a[%c0, %c0] : memref<?x?xf32>, memref<8x32xf32, #tile.scope<shared>>
      scf.for %r = %c0 to %c4 step %c1 { <a micro-tile: a k loop carrying accumulators> }
    }

After (schematically):

    tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 {
      %o = arith.muli %k, %c32 : index
      tile.copy %A[%i, %o], %a[%c0, %c0] : ...
      %next = arith.addi %k, %c1 : index
      %more = arith.cmpi slt, %next, %n : index
      %o1 = arith.muli %next, %c32 : index
      scf.for %r = %c0 to %c4 step %c1 {
        scf.if %more {
          scf.for %row = 2 * %r to 2 * %r + 2 step %c1 {   // 8 rows over 4 iterations
            scf.if (%i + %row < dim(A, 0)) {
              memref.prefetch %A[%i + %row, min(%o1 + 0, dim(A, 1) - 1)], read, locality<2>, data
              ... one per 64-byte line of the row, and its last element
            }
          }
        }
        <the micro-tile>
      }
    }
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, memref, scf

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_semantics import copy_dims, copy_sizes
from tilec.passes.registry import Pass, register_pass

# x86 cache lines are 64 bytes (Intel SDM vol. 3A 12.1, AMD APM vol. 2 7.1).
LINE_BYTES = 64
# Into L2 (`prefetcht1`), not L1: LLVM's prefetch locality 2.
LOCALITY = 2


def _global_source_copies(body: ir.Block) -> list[ir.Operation]:
    """The copies in `body` that read a global buffer into a tile."""
    found = []
    for op in body.operations:
        if op.name != "tile.copy":
            continue
        src = ir.MemRefType(op.operands[0].type)
        dst = ir.MemRefType(op.operands[1 + src.rank].type)
        if src.memory_space is None and dst.memory_space is not None and src.rank > 0:
            found.append(op.operation)
    return found


class _NextIteration:
    """Clones the index arithmetic of one loop body for the next iteration."""

    def __init__(self, body: ir.Block, iv: ir.Value, next_iv: ir.Value):
        self.body = body
        self.mapped: dict[ir.Value, ir.Value] = {iv: next_iv}

    def value(self, value: ir.Value) -> ir.Value | None:
        """`value` in the next iteration, None if it is not pure index
        arithmetic of the loop's induction variable."""
        if value in self.mapped:
            return self.mapped[value]
        owner = value.owner
        if not isinstance(owner, ir.Operation | ir.OpView) or owner.operation.block != self.body:
            return value  # defined outside the loop: the same in every iteration
        op = owner.operation
        if op.name.split(".")[0] != "arith" or len(op.results) != 1:
            return None
        operands = [self.value(operand) for operand in op.operands]
        if any(operand is None for operand in operands):
            return None
        clone = op.clone()
        for position, operand in enumerate(operands):
            clone.operands[position] = operand
        self.mapped[value] = clone.results[0]
        return clone.results[0]


@dataclass(frozen=True)
class _Region:
    """The next iteration's source region of one copy: `rows` rows (its
    outer dimensions, row-major) of the innermost dimension's `columns`."""

    src: ir.Value
    offsets: list[ir.Value]
    extent: list[int]
    columns: list[ir.Value]
    nonempty: ir.Value

    @property
    def rows(self) -> int:
        return math.prod(self.extent[:-1])


@dataclass(frozen=True)
class _Piece:
    """One copy's source region in the next iteration: its rows (`offsets`
    and `extent` of the outer dimensions) and its columns, `width` from
    `base + start` (`start` a constant, so that the pieces of a row that
    copies split, such as a gemm's B panels, join into one region)."""

    src: ir.Value
    offsets: list[ir.Value]
    extent: list[int]
    base: ir.Value
    start: int
    width: int

    def same_rows(self, other: _Piece) -> bool:
        return (self.src == other.src and self.base == other.base
                and self.extent == other.extent and self.offsets == other.offsets)


def _split(offset: ir.Value) -> tuple[ir.Value, int]:
    """`offset` as (base, constant): `x + c` gives (x, c), anything else (offset, 0)."""
    owner = offset.owner
    if isinstance(owner, ir.Operation | ir.OpView) and owner.name == "arith.addi":
        x, y = owner.operands
        for base, constant in ((x, y), (y, x)):
            if irb.constant_int(constant) is not None:
                return base, irb.constant_int(constant)
    return offset, 0


def _joined(pieces: list[_Piece]) -> list[_Piece]:
    """The pieces, those of the same rows whose columns touch or overlap
    joined into one (the lines of a row are then prefetched once each)."""
    joined: list[_Piece] = []
    for piece in sorted(pieces, key=lambda p: p.start):
        into = next((j for j, done in enumerate(joined) if done.same_rows(piece)
                     and piece.start <= done.start + done.width), None)
        if into is None:
            joined.append(piece)
            continue
        done = joined[into]
        end = max(done.start + done.width, piece.start + piece.width)
        joined[into] = _Piece(done.src, done.offsets, done.extent, done.base, done.start,
                              end - done.start)
    return joined


def _region(piece: _Piece) -> _Region:
    """The piece's region, with the column of each line of its rows clamped
    into the buffer: one per line from the first column, and the last one."""
    src, width = piece.src, piece.width
    type_ = ir.MemRefType(src.type)
    last = type_.rank - 1
    step = max(1, LINE_BYTES * 8 // irb.bit_width(type_.element_type))
    first = irb.add(piece.base, piece.start)
    width_here = memref.dim(src, irb.index(last))
    limit = arith.subi(width_here, irb.index(1))
    columns = [
        arith.maxsi(arith.minsi(irb.add(first, start), limit), irb.index(0))
        for start in sorted({*range(0, width, step), width - 1})
    ]
    nonempty = arith.cmpi(arith.CmpIPredicate.sgt, width_here, irb.index(0))
    return _Region(src, [*piece.offsets, first], [*piece.extent, width], columns, nonempty)


def _prefetch_rows(region: _Region, first: ir.Value, end: ir.Value) -> None:
    """Prefetches rows `[first, end)` of `region`, skipping rows outside the
    buffer (their position in some outer dimension is past its end or
    negative) and every row of a buffer with empty rows."""
    with irb.loop(first, end) as row:
        # The row's index in each outer dimension, the innermost first.
        indices, rest = [], row
        for dim in reversed(range(1, len(region.extent) - 1)):
            size = irb.index(region.extent[dim])
            indices.insert(0, arith.remui(rest, size))
            rest = arith.divui(rest, size)
        indices = [rest, *indices][: len(region.extent) - 1]
        positions = [irb.add(o, i) for o, i in zip(region.offsets, indices, strict=False)]
        inside = region.nonempty
        for dim, position in enumerate(positions):
            extent = memref.dim(region.src, irb.index(dim))
            inside = arith.andi(inside, arith.cmpi(arith.CmpIPredicate.ult, position, extent))
        guard = scf.IfOp(inside)
        with ir.InsertionPoint(guard.then_block):
            for column in region.columns:
                memref.prefetch(region.src, [*positions, column], False, LOCALITY, True)
            scf.YieldOp([])


def _static_trips(loop: ir.Operation) -> int | None:
    lower, upper, step = (irb.constant_int(v) for v in loop.operands[:3])
    if lower is None or upper is None or step is None or len(loop.results):
        return None
    return max(0, -(-(upper - lower) // step))


def _computes(loop: ir.Operation) -> bool:
    """Whether `loop` holds a loop that carries values (an accumulation)."""
    return any(len(inner.results) for inner in irb.collect(loop, "scf.for"))


def _spread_nest(after: ir.Operation) -> list[ir.Operation]:
    """The loops to spread the prefetches over: the first `scf.for` after
    `after` in its block that computes (holds a loop carrying values, such
    as a lowered GEMM's k loop) and, inside it, each first nested loop that
    still does, as long as their trip counts are static and they carry no
    values themselves: the prefetches then run once per micro-tile, not in
    the k loop where they would cost the most, nor in a short packing loop."""
    nest: list[ir.Operation] = []
    candidates = [op for op in after.block.operations if after.is_before_in_block(op.operation)]
    while True:
        loop = next(
            (op.operation for op in candidates if op.name == "scf.for" and _computes(op)), None
        )
        if loop is None or not _static_trips(loop):
            return nest
        nest.append(loop)
        candidates = list(loop.regions[0].blocks[0].operations)


def _slot(nest: list[ir.Operation]) -> ir.Value:
    """The iteration of `nest`, linearized (built in the innermost body)."""
    slot: ir.Value | None = None
    for loop in nest:
        lower, _, step = loop.operands[:3]
        iv = loop.regions[0].blocks[0].arguments[0]
        number = arith.divui(arith.subi(iv, lower), step)
        if slot is not None:
            number = arith.addi(arith.muli(slot, irb.index(_static_trips(loop))), number)
        slot = number
    assert slot is not None
    return slot


def _prefetch_next(loop: ir.Operation) -> None:
    body = loop.regions[0].blocks[0]
    copies = _global_source_copies(body)
    if not copies:
        return
    upper, step = loop.operands[1:3]
    iv = body.arguments[0]
    nest = _spread_nest(copies[-1])
    with ir.InsertionPoint.after(copies[-1]), loop.location:
        next_iv = arith.addi(iv, step)
        more = arith.cmpi(arith.CmpIPredicate.slt, next_iv, upper)
        next_iteration = _NextIteration(body, iv, next_iv)
        pieces = []
        for copy in copies:
            src = copy.operands[0]
            src_type = ir.MemRefType(src.type)
            dst_type = ir.MemRefType(copy.operands[1 + src_type.rank].type)
            offsets = [next_iteration.value(o) for o in copy.operands[1 : 1 + src_type.rank]]
            if any(offset is None for offset in offsets):
                continue
            sizes = copy_sizes(copy, src_type, dst_type)
            extent = [sizes[d] for d in copy_dims(sizes, src_type.rank)]
            pieces.append(_Piece(src, offsets[:-1], extent[:-1], *_split(offsets[-1]), extent[-1]))
        regions = [_region(piece) for piece in _joined(pieces)]
        if not regions:
            return
        if not nest:
            _prefetch_slot(regions, more, irb.index(0), 1)
            return
    slots = math.prod(_static_trips(n) or 1 for n in nest)
    with ir.InsertionPoint.at_block_begin(nest[-1].regions[0].blocks[0]), loop.location:
        _prefetch_slot(regions, more, _slot(nest), slots)


def _prefetch_slot(regions: list[_Region], more: ir.Value, slot: ir.Value, slots: int) -> None:
    """Prefetches the rows of each region that fall to `slot` of `slots`
    (an even share), if there is a next iteration (`more`)."""
    guard = scf.IfOp(more)
    with ir.InsertionPoint(guard.then_block):
        for region in regions:
            per_slot = -(-region.rows // slots)
            first = arith.muli(slot, irb.index(per_slot))
            end = arith.minsi(arith.addi(first, irb.index(per_slot)), irb.index(region.rows))
            _prefetch_rows(region, first, end)
        scf.YieldOp([])


@register_pass
@dataclass(frozen=True)
class CpuPrefetchCopiesPass(Pass):
    """Prefetches the global source of the next iteration's copies in pipelined loops."""

    argument = "tile-cpu-prefetch-copies"
    anchor = "func.func"
    summary = "Prefetch the next stage's global reads of tile.pipelined loops (cpu)"

    def run(self, op: ir.Operation) -> None:
        for loop in irb.collect(op, "tile.pipelined"):
            if ir.IntegerAttr(loop.attributes["num_stages"]).value >= 2:
                _prefetch_next(loop)
