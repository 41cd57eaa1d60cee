"""tile-cuda-drop-unit-dim-views: copies through a unit-dim view of a tile use the tile.

The DSL views a tile in the rank of a global region when the tile's dims
are not the region's trailing ones: `T.copy(K[b, k0:k1, h, :], K_shared)`
copies into `K_shared` seen as 1 x N x 1 x D (a collapse to one dim and an
expand). On cuda a shared tile is stored swizzled (for ldmatrix, or in the
panels wgmma's descriptors read) only when every access goes through the
tile itself (tile-cuda-infer-layouts), so such a view kept the operands of
attention's gemms unswizzled and off wgmma on sm_90a. Where the copy's
extent, its first unit dims dropped, is the tile's shape, the copy moves to
the tile (the rule is tile-ascend-place-tiles', whose helper this pass
applies to the operands of gemms), when every copy through the views
covers the whole tile; other views stay.

Before:

    %flat = memref.collapse_shape %t [[0, 1]] : memref<64x64xf16, #tile.scope<shared>> into ...
    %v = memref.expand_shape %flat [[0, 1, 2, 3]] output_shape [1, 64, 1, 64] : ...
    tile.copy %K[%b, %k, %h, %c0], %v[%c0, %c0, %c0, %c0] sizes [1, 64, 1, 64] : ...

After:

    tile.copy %K[%b, %k, %h, %c0], %t[%c0, %c0] sizes [1, 64, 1, 64] : ...
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_to_ascend.analysis.unit_dim_views import drop_unit_dim_views
from tilec.passes.conversion.tile_to_cuda.analysis.layouts import VIEWS, on_chip_scope
from tilec.passes.registry import Pass, register_pass


@register_pass
@dataclass(frozen=True)
class CudaDropUnitDimViewsPass(Pass):
    """Moves copies through unit-dim views of on-chip tiles onto the tiles."""

    argument = "tile-cuda-drop-unit-dim-views"
    anchor = "func.func"
    summary = "Move copies through unit-dim views of on-chip tiles onto the tiles"

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            for gemm in irb.collect(op, "tile.gemm"):
                for operand in list(gemm.operands)[:2]:
                    if on_chip_scope(ir.MemRefType(operand.type)) is not None and all(
                            _covers(copy, operand) for copy in _view_copies(operand)):
                        drop_unit_dim_views(operand)


def _view_copies(tile: ir.Value) -> list[ir.Operation]:
    """The tile.copy ops that reach `tile` through views of it."""
    found = []
    for use in tile.uses:
        user = irb.use_owner(use)
        if user.name in VIEWS and use.operand_number == 0:
            found += [irb.use_owner(u) for u in user.results[0].uses
                      if irb.use_owner(u).name == "tile.copy"]
            found += _view_copies(user.results[0])
    return found


def _covers(copy: ir.Operation, tile: ir.Value) -> bool:
    """Whether `copy` writes or reads all of `tile`: its extent, unit dims dropped, is
    the tile's shape (a copy of part of it keeps its view, and the lowering it had)."""
    if "sizes" not in copy.attributes:
        return True
    sizes = [d for d in ir.DenseI64ArrayAttr(copy.attributes["sizes"]) if d != 1]
    return sizes == [d for d in ir.MemRefType(tile.type).shape if d != 1]
