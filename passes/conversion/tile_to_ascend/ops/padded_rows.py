"""Part of convert-tile-to-ascend: UB tiles that are reduced row by row get rows of
whole 32-byte blocks.

AscendC's calls take UB operands on 32-byte boundaries only (asc-devkit
docs/zh/api/SIMD-API/通用说明和约束.md, "通用地址对齐约束": Unified Buffer, 32Byte
对齐), so a reduction along the rows of a tile of 100 f32 (400 bytes), a call
per row, would start its second row off a block. Such a tile is allocated with padded
rows (100 f32 columns in rows of 104) and its ops see it through a view of the
real columns: a copy between GM and UB moves the rows with DataCopyPad, which
pads each UB row to a block (`DataCopyExtParams`: `blockLen` in bytes, the UB
side's stride in blocks; asc-devkit include/basic_api/kernel_struct_data_copy.h),
and vector calls on such views run per row on the real count, so nothing reads
the pad (a reduction neither).

A vector call takes its operands in one layout, so the tiles of that shape
that meet the reduced one (in a `tile.parallel`, or a copy between UB tiles)
are padded with it, and so are the UB temporaries of that shape the lowerings
take (`buffers.Scratch` asks `is_padded`). Tiles that are not reduced so keep
their layout: one count-mode call covers them whole. A group with a DSL view of
one of its tiles stays unpadded (the view's type would have to follow the new
strides, which a `collapse_shape` across the padded rows cannot).

Before:

    %t = tile.alloc : memref<4x100xf32, #tile.scope<fragment>>
    tile.reduce sum %t, %s dim = 1 : memref<4x100xf32, ...>, memref<4xf32, ...>

After:

    %b = tile.alloc {tilec.padded_rows} : memref<4x104xf32, #tile.scope<fragment>>
    %t = memref.subview %b[0, 0] [4, 100] [1, 1]
        : memref<4x104xf32, #tile.scope<fragment>>
        to memref<4x100xf32, strided<[104, 1]>, #tile.scope<fragment>>
    tile.reduce sum %t, %s dim = 1 : memref<4x100xf32, strided<[104, 1]>, ...>, ...
"""

from __future__ import annotations

from mlir import ir

from tilec.dialects import ascend, tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_to_ascend.ops import buffers
from tilec.targets.ascend import attributes as ascend_attr

_VIEWS = frozenset({"memref.subview", "memref.expand_shape", "memref.collapse_shape",
                    "memref.cast", "memref.reinterpret_cast", "memref.view"})


def _wide(type_: ir.MemRefType) -> list[int] | None:
    """The padded shape of a UB tile whose rows are not whole blocks, else None."""
    if buffers.memory_space(type_) is not ascend.MemSpace.ub or not type_.has_static_shape \
            or type_.shape[-1] == 1:
        return None
    wide = buffers.padded_shape(list(type_.shape), type_.element_type)
    return None if wide == list(type_.shape) else wide


def _tile_of(value: ir.Value) -> ir.Operation | None:
    owner = value.owner
    if isinstance(owner, ir.Operation | ir.OpView) and owner.name == "tile.alloc":
        return owner.operation
    return None


def _reduced_by_rows(func: ir.Operation) -> list[ir.Operation]:
    """The tiles a tile.reduce combines along their last dim, row by row."""
    seeds = []
    for op in irb.collect(func, "tile.reduce"):
        source = _tile_of(op.operands[0])
        type_ = ir.MemRefType(op.operands[0].type)
        if source is not None and ir.IntegerAttr(op.attributes["dim"]).value == type_.rank - 1:
            seeds.append(source)
    return seeds


def _neighbours(func: ir.Operation) -> dict[ir.Operation, set[ir.Operation]]:
    """Tiles of one shape that one vector op may take together: those a tile.parallel
    reads or writes, and the two sides of a copy between tiles."""
    meets: dict[ir.Operation, set[ir.Operation]] = {}
    groups = []
    for region in irb.collect(func, "tile.parallel"):
        groups.append({t for inner in irb.every_op(region) if inner.name in
                       ("memref.load", "memref.store")
                       for t in map(_tile_of, inner.operands) if t is not None})
    for copy in irb.collect(func, "tile.copy"):
        groups.append({t for t in map(_tile_of, copy.operands) if t is not None})
    for group in groups:
        for one in group:
            meets.setdefault(one, set()).update(
                other for other in group
                if ir.MemRefType(other.results[0].type).shape
                == ir.MemRefType(one.results[0].type).shape)
    return meets


def _groups(func: ir.Operation) -> list[list[ir.Operation]]:
    """The tiles to pad, group by group: each row-reduced tile whose rows need it and the
    tiles of its shape it meets, transitively; a group with a viewed tile, or one whose
    address the author fixed (T.annotate_address), is left out."""
    meets = _neighbours(func)
    seen: set[ir.Operation] = set()
    groups = []
    for seed in _reduced_by_rows(func):
        if seed in seen or _wide(ir.MemRefType(seed.results[0].type)) is None:
            continue
        group, todo = [], [seed]
        while todo:
            one = todo.pop()
            if one in seen:
                continue
            seen.add(one)
            group.append(one)
            todo.extend(meets.get(one, ()))
        # tiles whose rows are whole blocks already (another element type) need nothing
        group = [t for t in group if _wide(ir.MemRefType(t.results[0].type)) is not None]
        if all(_paddable(t) for t in group):
            groups.append(group)
    return groups


def _paddable(alloc: ir.Operation) -> bool:
    return ascend_attr.OFFSET not in alloc.attributes \
        and not any(irb.use_owner(use).name in _VIEWS for use in alloc.results[0].uses)


def pad_ub_rows(func: ir.Operation) -> None:
    """Gives the tiles of `func` that need them padded rows (see the module's docstring)."""
    for group in _groups(func):
        for alloc in group:
            type_ = ir.MemRefType(alloc.results[0].type)
            with ir.InsertionPoint(alloc), alloc.location:
                wide = _wide(type_)
                base = tile.alloc(ir.MemRefType.get(wide, type_.element_type, None,
                                                    type_.memory_space))
                for attribute in alloc.attributes:
                    base.owner.attributes[attribute.name] = attribute.attr
                base.owner.attributes[buffers.PADDED] = ir.UnitAttr.get()
                real = buffers.view(base, [0] * type_.rank, list(type_.shape))
            alloc.results[0].replace_all_uses_with(real)
            alloc.erase()
