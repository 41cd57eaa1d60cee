"""The T.tile calls of a row loop as one op over the rows.

tilelang-ascend's kernels apply a scalar per row with one vector call per row
(`for h in range(M): T.tile.sub(acc[h, :], acc[h, :], m[h])`): AscendC has no
row-broadcasting call. Traced one by one, they would be M tile.parallel ops on
constant rows, which no target can split by rows (the ascend target gives each
AIV half of the rows of a tile handed from the cube). Each row only reads that
row (and scalars of other tiles), so the calls of one line on rows h0, h0 + 1,
..., with nothing but constants and loads of other tiles between them, are one
tile.parallel over the rows: `ascend_tile` asks `row_call` what a call is and,
while the run goes on, `RowRun.extend` replaces the op by one more row's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass

from mlir import ir

from . import builder, semantic
from .builder import OpenRegion
from .loops import Parallel
from .source import site
from .values import Buffer, BufferRegion, Element, Scalar, Var


@dataclass(frozen=True)
class RowCall:
    """A T.tile op on row `row` of whole-row regions (`T.tile.sub(acc[h, :], acc[h, :],
    m[h])`): its operands by kind, ("tile", buffer) for a row of a tile, ("row", buffer,
    rest of the indices) for a scalar read from the row's element of another tile, or
    ("value", x) for a scalar that is the same on every row."""

    key: tuple[object, ...]
    row: int
    dst: Buffer
    operands: tuple[tuple[object, ...], ...]
    compute: Callable[..., object]
    reads_dst: bool
    loads: tuple[ir.Operation, ...]
    """The loads of its scalars read from tiles, which the fused op reads itself."""


def _whole_row(x: object) -> tuple[Buffer, int] | None:
    """(buffer, h) for `buffer[h, :, ...]` with a constant h."""
    if not isinstance(x, BufferRegion) or x.buffer.ndim < 2 or x.sliced[0]:
        return None
    row = builder.constant_int(x.offsets[0])
    whole = all(x.sliced[a] and builder.constant_int(x.offsets[a]) == 0
                and x.extents[a] in (None, x.buffer.shape[a]) for a in range(1, x.buffer.ndim))
    return (x.buffer, row) if row is not None and whole else None


def row_call(what: str, dst_arg: object, sources: Sequence[tuple[str, object]],
             compute: Callable[..., object], reads_dst: bool) -> RowCall | None:
    """The call as a RowCall, or None when it is not on one row of its tiles."""
    target = _whole_row(dst_arg)
    if target is None:
        return None
    dst, row = target
    operands: list[tuple[object, ...]] = []
    loads: list[ir.Operation] = []
    for _, x in sources:
        if isinstance(x, Element):
            offsets = [builder.constant_int(i) for i in x.region.offsets]
            buffer = x.region.buffer
            if buffer is dst or buffer.scope == "global" or None in offsets or offsets[0] != row:
                return None
            operands.append(("row", buffer, tuple(offsets[1:])))
            loads.append(x.load)
        elif isinstance(x, BufferRegion):
            found = _whole_row(x)
            if found is None or found[1] != row or found[0].shape[1:] != dst.shape[1:]:
                return None
            operands.append(("tile", found[0]))
        elif isinstance(x, int | float | Scalar) and not isinstance(x, Var):
            operands.append(("value", x))
        else:
            return None
    key = (what, site(), dst.value, reads_dst, tuple(
        (kind[0], kind[1].value if isinstance(kind[1], Buffer | Scalar) else kind[1], *kind[2:])
        for kind in operands))
    return RowCall(key, row, dst, tuple(operands), compute, reads_dst, tuple(loads))


@dataclass
class RowRun:
    """The T.tile calls on rows first..call.row that the tile.parallel `op` does."""

    region: OpenRegion
    call: RowCall
    first: int
    op: ir.Operation
    loads: list[ir.Operation]
    """The loads of the rows' scalars, which the op reads from inside once fused."""

    @staticmethod
    def start(call: RowCall, region: OpenRegion) -> RowRun:
        """The run of `call`, whose tile.parallel was just traced at the end of `region`."""
        block = region.block
        last = block.operations[len(block.operations) - 1].operation
        return RowRun(region, call, call.row, last, list(call.loads))

    def continued_by(self, call: RowCall, region: OpenRegion) -> bool:
        if region is not self.region or call.key != self.call.key \
                or call.row != self.call.row + 1:
            return False
        ops = [op.operation for op in self.region.block.operations]
        after = ops[ops.index(self.op) + 1:] if self.op in ops else None
        return after is not None and all(_between_rows(op, call.dst) for op in after)

    def extend(self, call: RowCall) -> None:
        self.op.erase()
        rows, tail = call.row - self.first + 1, call.dst.shape[1:]
        for point in Parallel(rows, *tail):
            i, *rest = point
            row = semantic.binary("+", i, self.first) if self.first else i
            values = []
            for kind in call.operands:
                if kind[0] == "tile":
                    values.append(semantic.subscript(kind[1], (row, *rest)))
                elif kind[0] == "row":
                    values.append(semantic.subscript(kind[1], (row, *kind[2])))
                else:
                    values.append(kind[1])
            if call.reads_dst:
                values.append(semantic.subscript(call.dst, (row, *rest)))
            semantic.store(call.dst, (row, *rest), call.compute(*values))
        block = self.region.block
        self.op = block.operations[len(block.operations) - 1].operation
        self.call = call
        loads = [*self.loads, *call.loads]
        self.loads = [load for load in loads if list(load.result.uses)]
        for load in loads:
            if load not in self.loads:
                load.erase()


def _between_rows(op: ir.Operation, dst: Buffer) -> bool:
    """Whether `op`, traced between two row calls, keeps them one op: constants, and loads
    of tiles other than the rows' destination."""
    if op.name == "arith.constant":
        return True
    return op.name == "memref.load" and op.operands[0] != dst.value


RUN: ContextVar[RowRun | None] = ContextVar("tilec_tile_row_run", default=None)
"""The run the last T.tile call traced (None: it was not on one row)."""
