"""Part of tile-ascend-place-tiles: copies through a unit-dim view of a cube
tile use the tile itself.

The DSL views a tile in the rank of a global region when the tile's dims
are not the region's trailing ones (`T.copy(K[b, k0:k1, h, :], K_shared)`
copies into `K_shared` seen as 1 x N x 1 x D: a collapse to one dim, unless
the tile has one, and an expand). A cube tile becomes a fractal buffer (Nz in L1), which has no
row-major elements for such a view to show, so the cube lowerings read
only 2-D tiles. A view that only adds unit dims often says nothing a `tile.copy`
does not say itself: the copy's extent drops its first unit dims to match
the ranks of its sides, so where the dims it keeps are the view's dims of
the tile, the copy moves to the tile, with its extent (the view's shape
when it has none) and the view's offsets at those dims. Other views (a
reshape that regroups elements, a (1, 64) tile seen as 1 x 64 x 1, where
the copy would keep the 64 x 1) stay, for the lowerings to handle or
reject.

Before:

    %flat = memref.collapse_shape %t [[0, 1]] : memref<64x64xf16, #tile.scope<shared>> into ...
    %v = memref.expand_shape %flat [[0, 1, 2, 3]] output_shape [1, 64, 1, 64] : ...
    tile.copy %K[%b, %k, %h, %c0], %v[%c0, %c0, %c0, %c0] sizes [1, 25, 1, 64] : ...

After:

    tile.copy %K[%b, %k, %h, %c0], %t[%c0, %c0] sizes [1, 25, 1, 64] : ...
"""

from __future__ import annotations

from mlir import ir

from tilec.dialects import tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_semantics import copy_dims


def _non_unit(shape: list[int]) -> list[int]:
    return [d for d in shape if d != 1]


def _is_global(value: ir.Value) -> bool:
    return tile.scope_of(ir.MemRefType(value.type)) is tile.Scope.global_


def _tile_offsets(view: ir.Value, offsets: list[ir.Value], sizes: list[int],
                  tile_shape: list[int]) -> list[ir.Value] | None:
    """The offsets into the tile of a copy of extent `sizes` at `offsets`
    into `view`, or None when the copy would not move the same elements on
    the tile: tile.copy matches the tile's dims to the extent's dims left
    once its first unit dims are dropped, which must be the view's dims of
    the tile's sizes (a dim the copy drops is a unit dim of the view)."""
    view_shape = ir.MemRefType(view.type).shape
    kept = copy_dims(sizes, len(tile_shape))
    if [view_shape[d] for d in kept] != list(tile_shape):
        return None
    dropped = [d for d in range(len(view_shape)) if d not in kept]
    if any(irb.constant_int(offsets[d]) != 0 for d in dropped):
        return None
    return [offsets[d] for d in kept]


def _rebuild(copy: ir.Operation, view: ir.Value, base: ir.Value) -> bool:
    """`copy` (between global memory and `view`) on `base` instead; whether it was."""
    typed = copy.opview
    src, dst = typed.src, typed.dst
    src_offsets, dst_offsets = list(typed.src_offsets), list(typed.dst_offsets)
    on_src = src == view
    if not _is_global(dst if on_src else src):
        return False
    sizes = (list(ir.DenseI64ArrayAttr(copy.attributes["sizes"])) if "sizes" in copy.attributes
             else ir.MemRefType(view.type).shape)
    offsets = _tile_offsets(view, src_offsets if on_src else dst_offsets, sizes,
                            ir.MemRefType(base.type).shape)
    if offsets is None:
        return False
    with ir.InsertionPoint(copy), copy.location:
        if on_src:
            new = tile.copy(base, offsets, dst, dst_offsets, sizes=sizes, pad=typed.pad)
        else:
            new = tile.copy(src, src_offsets, base, offsets, sizes=sizes, pad=typed.pad)
    for name in copy.attributes:
        if name not in new.operation.attributes:
            new.operation.attributes[name] = copy.attributes[name]
    copy.erase()
    return True


def _flat_views(base: ir.Value) -> list[ir.Value]:
    """`base` seen as one dim: itself when it has one, else its full collapses."""
    if len(ir.MemRefType(base.type).shape) == 1:
        return [base]
    found = []
    for use in base.uses:
        collapse = irb.use_owner(use)
        if collapse.name == "memref.collapse_shape" and use.operand_number == 0 \
                and len(ir.MemRefType(collapse.results[0].type).shape) == 1:
            found.append(collapse.results[0])
    return found


def drop_unit_dim_views(base: ir.Value) -> None:
    """Moves the copies through unit-dim views of tile `base` onto `base`
    (see the module docstring), erasing the views left without uses."""
    shape = ir.MemRefType(base.type).shape
    for flat in _flat_views(base):
        for use in list(flat.uses):
            expand = irb.use_owner(use)
            if expand.name != "memref.expand_shape" or use.operand_number != 0:
                continue
            view = expand.results[0]
            if _non_unit(ir.MemRefType(view.type).shape) != _non_unit(shape):
                continue
            for copy_use in list(view.uses):
                copy = irb.use_owner(copy_use)
                if copy.name == "tile.copy":
                    _rebuild(copy, view, base)
            if not list(view.uses):
                expand.erase()
        if flat != base and not list(flat.uses):
            flat.owner.operation.erase()
