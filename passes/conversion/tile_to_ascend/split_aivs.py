"""tile-ascend-split-aivs: the two AIVs of an AI core share the vector work of
each block of a vector-only kernel launched with `threads=2`, by rows.

tilelang-ascend's developer mode writes `T.Kernel(n, is_npu=True, threads=2)
as cid` with tiles of the whole block (`T.alloc_shared((block_M, block_N))`)
and means each block to run on an AI core's two vector cores, each on half of
its rows: a block's tiles need only half of each AIV's UB (its gelu·mul at
128 x 128 f32 blocks needs 256 KiB whole, more than the 910b's UB). The DSL
marks such a kernel (`ascend.aiv_split`); a mix kernel's AIVs split their
work already (`tile-ascend-split-cores`, through the tiles handed over), so
this pass takes the kernels that need the vector cores only.

It splits the tiles `row_halves` finds for the most rows M of a UB tile: the
tiles of M rows used row by row (and those that take their first rows), as
in a mix kernel. Each block becomes two blocks of the grid, next to each
other (the first grid dim doubles: blocks 2b and 2b + 1 are block b's halves,
as an AI core's two AIVs would take them), and half s holds rows
[s M/2, (s+1) M/2) of each split tile: its tile.parallel regions run on M/2
rows and its copies to and from global memory move those rows. A kernel is
left whole (one AIV per block, as with `threads=1`) when splitting would not
keep its meaning: M odd, a global write other than from a split tile's rows
(both halves would make it: an atomic add twice), or a copy of part of the
rows of a split tile.

Before (`T.Kernel(4, is_npu=True, threads=2) as cid`, tiles of 64 rows):

    tile.kernel blocks(%cid) in (%c4) threads = 128 {
      %a = tile.alloc : memref<64x64xf32, #tile.scope<ub>>
      tile.copy %A[%r, %c0], %a[%c0, %c0] ...
      tile.parallel (%i, %j) in (64, 64) { ... %a[%i, %j] ... }
      tile.copy %a[%c0, %c0], %B[%r, %c0] ...
    } {ascend.aiv_split = 2}

After:

    tile.kernel blocks(%b) in (%c8) threads = 128 {
      %a = tile.alloc : memref<32x64xf32, #tile.scope<ub>>
      %s = arith.remui %b, %c2 : index
      %h = arith.muli %s, %c32 : index
      %cid = arith.divui %b, %c2 : index
      tile.copy %A[%r + %h, %c0], %a[%c0, %c0] ...
      tile.parallel (%i, %j) in (32, 64) { ... %a[%i, %j] ... (%i + %h elsewhere) }
      tile.copy %a[%c0, %c0], %B[%r + %h, %c0] ...
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_to_ascend.analysis import row_halves
from tilec.passes.conversion.tile_to_ascend.analysis.core_sides import VIEWS
from tilec.passes.conversion.tile_to_ascend.place_tiles import (
    CUBE_SPACES,
    copy_operands,
    scope_name,
)
from tilec.passes.conversion.tile_to_ascend.split_scopes import scopes_of
from tilec.passes.registry import Pass, register_pass
from tilec.targets.ascend import attributes as ascend_attr

_HALVES = 2
"""The AIVs of an AI core (tilelang-ascend's `threads` allows 1 or 2)."""


def _ub_tiles(body: ir.Block) -> list[ir.Value]:
    return [op.results[0] for op in body.operations
            if op.operation.name == "tile.alloc" and scope_name(op.results[0]) == "ub"]


def _rows(body: ir.Block) -> int | None:
    """The rows M the AIVs split by: the most any UB tile of the block has."""
    rows = max((ir.MemRefType(t.type).shape[0] for t in _ub_tiles(body)
                if ir.MemRefType(t.type).shape), default=0)
    return rows if rows >= _HALVES and rows % _HALVES == 0 else None


def _global(value: ir.Value) -> bool:
    return isinstance(value.type, ir.MemRefType) and scope_name(value) == "global"


def _keeps_global_writes(kernel: ir.Operation, split: dict[ir.Value, int]) -> bool:
    """Whether every write of global memory in `kernel` moves the rows of a split
    tile (a copy out of one, or a store in a tile.parallel over one, which
    `row_halves.halve` gives each half its rows of)."""
    halved = set()
    for region in irb.collect(kernel, "tile.parallel"):
        accesses = [row_halves.tile_operand(op, n)
                    for op in irb.pre_order(region) for n in range(len(op.operands))]
        if any(access is not None and access[0] in split for access in accesses):
            halved.add(region)
    for op in irb.pre_order(kernel):
        if op.name == "tile.copy":
            src, _, dst, _, _ = copy_operands(op)
            if _global(dst[0]) and src[0] not in split:
                return False
        elif op.name == "memref.store":
            if _global(op.operands[1]) and irb.enclosing(op, {"tile.parallel"}) not in halved:
                return False
        elif op.name not in ("memref.load", *VIEWS) and any(_global(x) for x in op.operands):
            return False  # an atomic add, or an op whose writes are not known here
    return True


def _needs_cube(kernel: ir.Operation) -> bool:
    return any(scope_name(a.results[0]) in CUBE_SPACES
               for a in irb.collect(kernel, "tile.alloc"))


def _split(kernel: ir.Operation) -> None:
    body = kernel.regions[0].blocks[0]
    rows = _rows(body)
    if rows is None:
        return
    split = row_halves.row_tiles(body, [], {rows})
    if not split or not _keeps_global_writes(kernel, split) \
            or not row_halves.copies_whole_rows(split):
        return
    block = body.arguments[0]
    with ir.InsertionPoint(kernel), kernel.location:
        size = kernel.operands[0]
        static = irb.constant_int(size)
        kernel.operands[0] = irb.index(_HALVES * static) if static is not None \
            else arith.muli(size, irb.index(_HALVES))
    with ir.InsertionPoint.at_block_begin(body), kernel.location:
        halves = irb.index(_HALVES)
        half = arith.remui(block, halves)
        user_block = arith.divui(block, halves)
    for use in list(block.uses):
        owner = irb.use_owner(use)
        if owner != half.owner and owner != user_block.owner:
            owner.operands[use.operand_number] = user_block
    row_halves.halve(body, split, sub_block=half)


@register_pass
@dataclass(frozen=True)
class AscendSplitAivsPass(Pass):
    """Splits the vector work of each block of a `threads=2` vector-only kernel
    between the two AIVs of an AI core, by rows."""

    argument = "tile-ascend-split-aivs"
    anchor = "func.func"
    summary = "Split the vector tiles of threads=2 vector-only kernels between the two AIVs"

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            for kernel in irb.collect(op, "tile.kernel"):
                if ascend_attr.AIV_SPLIT not in kernel.attributes:
                    continue
                del kernel.attributes[ascend_attr.AIV_SPLIT]
                if not _needs_cube(kernel) and not scopes_of(kernel):
                    _split(kernel)
