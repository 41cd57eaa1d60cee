"""tile-cpu-forward-copies: let a gemm read a tile instead of its copy.

A kernel often copies a whole tile into another of the same type only to
hand the copy to a gemm: flash attention's `T.copy(scores, probs)` before
`T.gemm(probs, V, acc)` (on a GPU the copy changes the register layout or
the element type; with f32 on both sides the cpu has nothing to change).
On the cpu the copy is a 16 KiB memcpy per key tile, about a twentieth of
the attention's time (measured). When the copy's destination is read only
by one later op in the same block, as an operand that op only reads (A or B
of a `tile.gemm`, the source of a `tile.copy`), and nothing between the
copy and that op uses the source or the destination, the reader reads the
source instead: it still holds what was copied. The copy and the then unused
destination tile are erased.

Only whole-tile copies qualify: both operands `tile.alloc` results of the
same type, all offsets zero, no `sizes` beyond the tile's shape. Every use
of either tile must be by an op of the kernel body or nested in one (no
view of it), so that "uses" are seen wherever they are.

Before:

    tile.copy %scores[%c0, %c0], %probs[%c0, %c0] : !f, !f
    tile.copy %V[%b, %k, %c0], %v[%c0, %c0] : memref<...>, !s
    tile.gemm %probs, %v, %acc : !f, !s, !f

After:

    tile.copy %V[%b, %k, %c0], %v[%c0, %c0] : memref<...>, !s
    tile.gemm %scores, %v, %acc : !f, !s, !f
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.registry import Pass, register_pass

# Operand positions each op only reads (its ODS `MemRead` without `MemWrite`).
_READ_ONLY = {"tile.gemm": (0, 1), "tile.copy": (0,)}


def _whole_tile_copy(copy: ir.Operation) -> tuple[ir.Value, ir.Value] | None:
    """(src, dst) of a copy of one whole tile into another of its type (a pad
    value would only matter for reads past the end of src, which has none)."""
    segments = list(ir.DenseI32ArrayAttr(copy.attributes["operandSegmentSizes"]))
    src_at, dst_at = 0, 1 + segments[1]
    src, dst = copy.operands[src_at], copy.operands[dst_at]
    if src.type != dst.type or not all(_is_alloc(v) for v in (src, dst)):
        return None
    offsets = [*copy.operands[1:dst_at], *copy.operands[dst_at + 1:dst_at + 1 + segments[3]]]
    if any(irb.constant_int(v) != 0 for v in offsets):
        return None
    if "sizes" in copy.attributes:
        sizes = list(ir.DenseI64ArrayAttr(copy.attributes["sizes"]))
        if sizes != list(ir.MemRefType(dst.type).shape):
            return None
    return src, dst


def _is_alloc(value: ir.Value) -> bool:
    owner = value.owner
    return not isinstance(owner, ir.Block) and owner.operation.name == "tile.alloc"


# Ops that access a tile in place; any other user (a view, a call) could reach
# its memory where this pass does not look.
_DIRECT_USERS = ("tile.", "memref.load", "memref.store")


def _top_level(op: ir.Operation, block: ir.Block) -> ir.Operation | None:
    """The ancestor of `op` (or `op`) directly in `block`; None when `op` is
    not nested in `block`, so it never runs between two of its ops."""
    while True:
        if op.block == block:
            return op
        parent = op.parent
        if parent is None:
            return None
        op = parent.operation


def _forward(copy: ir.Operation) -> None:
    pair = _whole_tile_copy(copy)
    if pair is None:
        return
    src, dst = pair
    users = [irb.use_owner(use) for value in (src, dst) for use in value.uses]
    if not all(user.name.startswith(_DIRECT_USERS) for user in users):
        return
    readers = [irb.use_owner(use) for use in dst.uses if irb.use_owner(use) != copy]
    if len(readers) != 1:
        return
    reader = readers[0]
    block = copy.block
    order = {op.operation: i for i, op in enumerate(block.operations)}
    positions = [i for i, value in enumerate(reader.operands) if value == dst]
    if (reader.block != block or order[reader] < order[copy]
            or not set(positions) <= set(_READ_ONLY.get(reader.name, ()))
            or src in list(reader.operands)):
        return
    for use in src.uses:
        owner = _top_level(irb.use_owner(use), block)
        if owner is not None and order[copy] < order[owner] < order[reader]:
            return
    for i in positions:
        reader.operands[i] = src
    alloc = dst.owner.operation
    copy.erase()
    alloc.erase()


@register_pass
@dataclass(frozen=True)
class CpuForwardCopiesPass(Pass):
    """Reads a tile in place of its whole-tile copy when only one later op reads the copy."""

    argument = "tile-cpu-forward-copies"
    anchor = "func.func"
    summary = "Forward whole-tile copies into the one op that reads them (cpu)"

    def run(self, op: ir.Operation) -> None:
        for copy in irb.collect(op, "tile.copy"):
            _forward(copy)
