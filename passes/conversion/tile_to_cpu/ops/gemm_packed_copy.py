"""A gemm's B panels written by the copy that fills B, not packed from it.

The cpu gemm reads B from panels (`[N / panel, K, panel]`, see gemm.py).
In the usual GEMM kernel B is a tile that one `T.copy` fills from global
memory right before the gemm and nothing else reads: then the copy, split
into one copy per panel, can write the panels directly. Each k step of the
kernel then moves B once (global -> panels) instead of twice (global ->
tile -> panels); the copies keep their masked edges and the prefetch of
tile-cpu-prefetch-copies, which runs on them after the gemm stage and
prefetches their rows as one region. The copy lowering reads each row of
B once for all of them (copy.py's row groups). In a 96x128x128-tiled f32
GEMM at 2048^3 the copy of B and the packing took 7.0 % and 3.7 % of the
kernel's samples, the panel copies that replace both 7.5 % (perf, on the
shared 2-core development host).

Only a whole-tile copy qualifies (it writes every element of B, so the
panels hold what B would have), of the element type of B (its conversion
to the accumulation type is then the packing's), in the gemm's block and
before it, with B used by nothing but the two.

Before:

    tile.copy %B[%k, %j], %b[%c0, %c0] : memref<?x?xf32>, memref<64x64xf32, #tile.scope<shared>>
    tile.gemm %a, %b, %c : ...

After (panels of 32 columns; the gemm then reads %p):

    %p = tile.alloc : memref<2x64x32xf32, #tile.scope<local>>
    tile.copy %B[%k, %j], %p[%c0, %c0, %c0] sizes [1, 64, 32] : ...
    %j1 = arith.addi %j, %c32 : index
    tile.copy %B[%k, %j1], %p[%c1, %c0, %c0] sizes [1, 64, 32] : ...
"""

from __future__ import annotations

from mlir import ir

from tilec.dialects import tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_semantics import copy_dims, copy_sizes
from tilec.passes.widen_bools import BOOL_DST, BOOL_SRC


def filling_copy(gemm: ir.Operation, b: ir.Value) -> ir.Operation | None:
    """The copy that fills all of tile `b` for `gemm` alone, if it can write
    the panels instead (see the module docstring)."""
    owner = b.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "tile.alloc":
        return None
    users = [irb.use_owner(use) for use in b.uses]
    copies = [user for user in users if user.name == "tile.copy"]
    if len(users) != 2 or len(copies) != 1 or gemm not in users:
        return None
    copy = copies[0]
    if copy.block != gemm.block or not copy.is_before_in_block(gemm):
        return None
    if BOOL_SRC in copy.attributes or BOOL_DST in copy.attributes:
        return None
    src_type = ir.MemRefType(copy.operands[0].type)
    dst_at = 1 + src_type.rank
    if copy.operands[dst_at] != b or src_type.element_type != ir.MemRefType(b.type).element_type:
        return None
    dst_offsets = copy.operands[dst_at + 1 : dst_at + 3]
    if any(irb.constant_int(offset) != 0 for offset in dst_offsets):
        return None
    sizes = copy_sizes(copy, src_type, ir.MemRefType(b.type))
    whole = sizes[-2:] == list(ir.MemRefType(b.type).shape) and all(s == 1 for s in sizes[:-2])
    return copy if whole and copy_dims(sizes, 2) == [len(sizes) - 2, len(sizes) - 1] else None


def copy_into_panels(copy: ir.Operation, panels: ir.Value) -> None:
    """Replaces `copy` (a `filling_copy`) by one copy per panel of `panels`
    (`[count, K, panel]`), each of its columns of the copied region."""
    src = copy.operands[0]
    src_type = ir.MemRefType(src.type)
    b_type = ir.MemRefType(copy.operands[1 + src_type.rank].type)
    sizes = copy_sizes(copy, src_type, b_type)
    offsets = list(copy.operands[1 : 1 + src_type.rank])
    pad_at = 1 + src_type.rank + 1 + b_type.rank
    pad = copy.operands[pad_at] if len(copy.operands) > pad_at else None
    count, _, panel = ir.MemRefType(panels.type).shape
    n = sizes[-1]
    # The extent gets a unit dimension for the panel index (dropped for src).
    lead = [1] * max(0, 3 - len(sizes))
    with ir.InsertionPoint(copy), copy.location:
        for p in range(count):
            width = min(panel, n - p * panel)
            columns = [*offsets[:-1], irb.add(offsets[-1], p * panel)]
            at = [irb.index(p), irb.index(0), irb.index(0)]
            extent = [*lead, *sizes[:-1], width]
            tile.copy(src, columns, panels, at, sizes=extent, pad=pad)
    copy.erase()
