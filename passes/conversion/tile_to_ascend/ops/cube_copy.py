"""The ascend lowerings of tile.copy, tile.fill and tile.clear on cube tiles.

Each path of the cube has its instruction:

- global -> L1: `ascend.copy_nd2nz` (row-major to Nz; reads past the tensor's
  edge and the fractal padding are zero, so ragged tiles need nothing else),
  also of a region smaller than the tile (see below), and of rows into the
  tile at a row offset (`dst_row`: a paged KV cache gathered row by row,
  each row one DMA that writes only its rows),
  or to the layout the gemm lowering chose for a 32-bit operand it must
  transpose (`buffers.l1_layout`: `{zz}` on the 910b, `{transpose}`, the
  Nz of the region's transpose, on the 950);
- L0C -> global: `ascend.fixpipe` (Nz to row-major, the cast to the
  tensor's element type, writes past the edge dropped, and the ReLU of an
  epilogue that `tile-ascend-place-tiles` folded into the copy);
- L0C -> L1 (where the profile's fixpipe reaches L1): `ascend.fixpipe` into
  the Nz layout, for a gemm that multiplies the result of another;
- L0C -> UB, on the AIC of a mix kernel (the 950's direct handoff that
  `tile-ascend-split-cores` marks `ascend.dual_dst`): `ascend.fixpipe` with
  `dual_dst` into the ring slot both AIVs' UBs hold, half of the rows each;
- L1 -> L0A / L0B (tiles in the expert scopes): `ascend.load_l0a` / `load_l0b`.

A global tensor of higher rank is cut to the matrix the tile sees (the
unit dimensions of the copy dropped) by a `memref.subview`. A clear of an
L0C accumulator is not an instruction: the next mmad overwrites instead of
adding (see `cube_gemm.cleared_since`), so the clear is erased here.

A copy from global memory of fewer rows or columns than the L1 tile (the
25 keys of a KV split in a 64-row tile) fills the tile's leading corner,
and the `ascend.copy_nd2nz` zeros the rest of the tile. tile.copy itself
writes only the region, so the zeros are legal only where nothing else is
written: the rest of a tile is undefined until written, and every copy into
this tile must move the same extent (an error otherwise). The gemm that
consumes the tile then multiplies zeros, not stale rows that a zero weight
could turn into NaN.

Every other cube copy moves whole tiles.

These lowerings apply only when an operand is in l1, l0a, l0b or l0c; the
vector lowerings take every other copy and fill.

Before:

    tile.copy %A[%i, %k], %a[%c0, %c0] : memref<100x70xf16>, memref<64x32xf16, #tile.scope<l1>>
    tile.copy %acc[%c0, %c0], %C[%i, %j] : memref<64x64xf32, #tile.scope<l0c>>, memref<100x130xf16>

After:

    ascend.copy_nd2nz %A[%i, %k], %a1 sizes [64, 32]
        : memref<100x70xf16>, memref<2x4x16x16xf16, ...>
    ascend.fixpipe %acc4, %C[%i, %j] sizes [64, 64]
        : memref<4x4x16x16xf32, ...>, memref<100x130xf16>
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import memref

from tilec.dialects import ascend
from tilec.passes.canonicalize_ops import is_zero_constant
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.conversion.tile_to_ascend.analysis.handoff_rings import DUAL_DST
from tilec.passes.conversion.tile_to_ascend.ops import buffers
from tilec.passes.conversion.tile_to_ascend.ops.buffers import L1_TRANSPOSED, L1_ZZ, l1_layout
from tilec.passes.conversion.tile_to_ascend.ops.cube_gemm import (
    cleared_since,
    fractal_view,
    is_clear,
    matrix_shape,
)
from tilec.passes.conversion.tile_to_ascend.place_tiles import MIXED, RELU, copy_operands
from tilec.passes.registry import emit_error
from tilec.targets.ascend import AscendTarget

_CUBE = frozenset({"l1", "l0a", "l0b", "l0c"})
_NOT_CUBE = "no operand is in l1, l0a, l0b or l0c"
# What the fixpipe can store from each accumulator type.
_FIXPIPE_CASTS = {"f32": ("f16", "bf16", "f32"), "i32": ("i32", "f16")}


def space(value: ir.Value) -> str:
    return str(buffers.memory_space(ir.MemRefType(value.type)))


@dataclass(frozen=True)
class CopyPlan:
    path: tuple[str, str]
    src: ir.Value
    src_offsets: list[ir.Value]
    dst: ir.Value
    dst_offsets: list[ir.Value]
    sizes: list[int]
    """The copied extent as the tile sees it (rank 2)."""


def _extent(op: ir.Operation, src: ir.Value, dst: ir.Value) -> list[int]:
    """`sizes` of the copy (the tile.copy rule when it is absent)."""
    if "sizes" in op.attributes:
        return list(op.attributes["sizes"])
    on_chip = dst if not buffers.is_global(dst) else src
    return list(ir.MemRefType(on_chip.type).shape)


def _tile_extent(sizes: list[int], rank: int) -> list[int]:
    """What an operand of rank `rank` sees of `sizes`: its first unit dims dropped."""
    drop = len(sizes) - rank
    kept = []
    for size in sizes:
        if drop and size == 1:
            drop -= 1
        else:
            kept.append(size)
    return kept


def global_matrix(
    gm: ir.Value, offsets: list[ir.Value], sizes: list[int]
) -> tuple[ir.Value, list[ir.Value]]:
    """The 2-D matrix of global tensor `gm` that a copy of extent `sizes` at
    `offsets` runs over, and the offsets into it: the tensor itself when it is
    2-D, else the rank-reducing view at the dropped (unit) dims' offsets,
    whole along the two it keeps (so reads past their edges stay zero)."""
    type_ = ir.MemRefType(gm.type)
    if type_.rank == 1 and _is_identity(type_):  # a flat tensor: the 1 x N matrix
        length = type_.shape[0]
        result = ir.MemRefType.get([1, length], type_.element_type,
                                   memory_space=type_.memory_space)
        dynamic = [memref.dim(gm, irb.index(0))] if length == ir.ShapedType.get_dynamic_size() \
            else []
        matrix = memref.expand_shape(result, gm, [[0, 1]], dynamic, [1, length])
        return matrix, [irb.index(0), offsets[0]]
    if type_.rank == 2:
        return gm, offsets
    drop = set()
    for d, size in enumerate(sizes):
        if len(drop) < type_.rank - 2 and size == 1:
            drop.add(d)
    keep = [d for d in range(type_.rank) if d not in drop]
    dynamic = ir.ShapedType.get_dynamic_size()
    view_offsets = [offsets[d] if d in drop else 0 for d in range(type_.rank)]
    view_sizes = [
        1 if d in drop
        else memref.dim(gm, irb.index(d)) if type_.shape[d] == dynamic else type_.shape[d]
        for d in range(type_.rank)
    ]
    strides, _ = type_.get_strides_and_offset()
    layout = ir.StridedLayoutAttr.get(dynamic, [strides[d] for d in keep])
    result = ir.MemRefType.get(
        [type_.shape[d] for d in keep], type_.element_type, layout, type_.memory_space
    )
    matrix = memref.subview(gm, view_offsets, view_sizes, [1] * type_.rank, result_type=result)
    return matrix, [offsets[d] for d in keep]


def _is_identity(type_: ir.MemRefType) -> bool:
    return isinstance(type_.layout, ir.AffineMapAttr) and \
        type_.get_strides_and_offset() == ([1] * type_.rank, 0)


def _zero_offsets(offsets: list[ir.Value]) -> bool:
    return all(irb.constant_int(o) == 0 for o in offsets)


_VIEWS = frozenset({"memref.reinterpret_cast", "memref.subview"})
_L1_WRITERS = frozenset({"ascend.fixpipe", "ascend.copy"})
"""Lowered ops other than copy_nd2nz that write an L1 tile they take after their source."""


def _writers(tile: ir.Value) -> Iterator[ir.Operation]:
    """The ops that may write `tile`, directly or through a view of it: the
    tile.copy ops into it and the ascend ops that already replaced some."""
    for use in tile.uses:
        user = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        if user.name in _VIEWS:
            yield from _writers(user.results[0])
        elif ((user.name == "tile.copy" and copy_operands(user)[2][0] == tile)
              or user.name == "ascend.copy_nd2nz"
              or (user.name in _L1_WRITERS and use.operand_number != 0)):
            yield user


def _check_rest_unwritten(op: ir.Operation, tile: ir.Value, extent: list[int]) -> None:
    """Raises unless every write of `tile` is a copy from GM of extent
    `extent`: then the part of the tile outside the region is never written,
    undefined, and the zeros of the nd2nz are one of its values."""
    for writer in _writers(tile):
        if writer == op:
            continue
        other = None  # the extent of a copy from GM, None for any other write
        if writer.name == "tile.copy":
            (src,), _, (dst,), _, _ = copy_operands(writer)
            if buffers.is_global(src):
                other = _tile_extent(_extent(writer, src, dst), 2)
        elif writer.name == "ascend.copy_nd2nz":
            other = list(ir.DenseI64ArrayAttr(writer.attributes["sizes"]))
        if other != extent:
            moved = "x".join(map(str, other)) if other else "another path"
            raise emit_error(op, f"a copy of {'x'.join(map(str, extent))} elements into a "
                                 f"{'x'.join(map(str, matrix_shape(tile, op)))} L1 tile that "
                                 f"another op writes ({moved}, at {writer.location}): the copy "
                                 f"zeros the rest of the tile, which tile.copy leaves as it was")


@register_lowering
class CopyOnCube(TileOpLowering[CopyPlan, AscendTarget]):
    """tile.copy on the cube's data paths: nd2nz into L1, fixpipe out of L0C,
    L0A/L0B loads from L1."""

    target = "ascend"
    op_names = ("tile.copy",)
    name = "ascend-cube-copy"
    phase = Phase.COPIES

    def applies(self, op: ir.Operation, target: AscendTarget) -> str | None:
        src, _, dst, _, _ = copy_operands(op)
        if not {space(src[0]), space(dst[0])} & _CUBE:
            return _NOT_CUBE
        return None

    def infer(self, op: ir.Operation, target: AscendTarget) -> CopyPlan:
        (src,), src_offsets, (dst,), dst_offsets, pad = copy_operands(op)
        path = (space(src), space(dst))
        profile = target.profile
        if "ub" in path and not (path == ("l0c", "ub") and DUAL_DST in op.attributes):
            raise emit_error(op, f"a copy {path[0]} -> {path[1]} between the cube and a vector "
                                 f"core: the kernel {MIXED}")
        sizes = _extent(op, src, dst)
        extent = _tile_extent(sizes, 2)
        tile = dst if path[0] == "gm" else src
        shape = list(matrix_shape(tile, op))
        smaller = len(extent) == 2 and all(e <= t for e, t in zip(extent, shape, strict=True))
        if extent != shape and not (path == ("gm", "l1") and smaller):
            raise emit_error(op, f"a copy of {'x'.join(map(str, extent))} elements into or out "
                                 f"of a {'x'.join(map(str, shape))} {space(tile)} "
                                 f"tile: cube copies move whole tiles (only one from GM into "
                                 f"L1 may move a smaller region)")
        if extent != shape and (path[0] != "gm" or _zero_offsets(dst_offsets)):
            _check_rest_unwritten(op, dst, extent)
        if pad and not is_zero_constant(pad[0]):
            raise emit_error(op, "copies into L1 pad with zero only")
        src_type, dst_type = ir.MemRefType(src.type), ir.MemRefType(dst.type)
        if path == ("gm", "l1"):
            if not _zero_offsets(dst_offsets) and (
                    irb.constant_int(dst_offsets[-1]) != 0 or l1_layout(dst) is not None):
                raise emit_error(op, "a copy into L1 starts at the tile's first element or at "
                                     "one of its rows (the whole width, in the Nz layout)")
            if src_type.element_type != dst_type.element_type:
                raise emit_error(op, f"a copy into L1 does not convert: {src_type.element_type} "
                                     f"-> {dst_type.element_type}")
        elif path[0] == "l0c":
            if path[1] not in profile.fixpipe_destinations:
                raise emit_error(op, f"the fixpipe of the {profile.name} profile cannot write "
                                     f"{path[1]}")
            acc, out = str(src_type.element_type), str(dst_type.element_type)
            if out not in _FIXPIPE_CASTS.get(acc, ()):
                raise emit_error(op, f"the fixpipe cannot store an {acc} accumulator as {out} "
                                     f"(it stores {', '.join(_FIXPIPE_CASTS.get(acc, ()))})")
            if not _zero_offsets(src_offsets):
                raise emit_error(op, "a copy out of L0C starts at the tile's first element")
            if cleared_since(op, src) is not None:
                raise emit_error(op, "the accumulator is copied out while it may still hold "
                                     "the zeros of its tile.clear (no tile.gemm wrote it since)")
        elif path in (("l1", "l0a"), ("l1", "l0b")):
            if not (_zero_offsets(src_offsets) and _zero_offsets(dst_offsets)):
                raise emit_error(op, "a copy from L1 to L0A or L0B moves whole tiles")
        else:
            raise emit_error(op, f"{path[0]} -> {path[1]} is not a data path of the cube")
        return CopyPlan(path, src, src_offsets, dst, dst_offsets, extent)

    def lower(self, op: ir.Operation, plan: CopyPlan, target: AscendTarget) -> None:
        with ir.InsertionPoint(op), op.location:
            if plan.path == ("gm", "l1"):
                matrix, offsets = global_matrix(plan.src, plan.src_offsets, _extent(
                    op, plan.src, plan.dst))
                layout = l1_layout(plan.dst)
                row = None if _zero_offsets(plan.dst_offsets) else plan.dst_offsets[0]
                ascend.copy_nd2nz(matrix, offsets, fractal_view(plan.dst), plan.sizes,
                                  dst_row=row,
                                  transpose=True if layout == L1_TRANSPOSED else None,
                                  zz=True if layout == L1_ZZ else None)
            elif plan.path[0] == "l0c":
                acc = fractal_view(plan.src)
                relu = True if RELU in op.attributes else None
                if plan.path[1] == "gm":
                    matrix, offsets = global_matrix(plan.dst, plan.dst_offsets, _extent(
                        op, plan.src, plan.dst))
                elif plan.path[1] == "ub":
                    matrix, offsets = plan.dst, plan.dst_offsets
                else:
                    matrix, offsets = fractal_view(plan.dst), plan.dst_offsets
                dual = True if DUAL_DST in op.attributes else None
                ascend.fixpipe(acc, matrix, offsets, plan.sizes, relu=relu, dual_dst=dual)
            else:
                load = ascend.load_l0a if plan.path[1] == "l0a" else ascend.load_l0b
                load(fractal_view(plan.src), fractal_view(plan.dst), plan.sizes)
        op.erase()


@register_lowering
class ClearOfAccumulator(TileOpLowering[None, AscendTarget]):
    """tile.clear (or a zero tile.fill) of an L0C accumulator: the next mmad's
    `init`, so the op itself is erased."""

    target = "ascend"
    op_names = ("tile.fill", "tile.clear")
    name = "ascend-cube-fill"
    phase = Phase.FILLS

    def applies(self, op: ir.Operation, target: AscendTarget) -> str | None:
        if space(op.operands[0]) not in _CUBE:
            return _NOT_CUBE
        return None

    def infer(self, op: ir.Operation, target: AscendTarget) -> None:
        where = space(op.operands[0])
        if where != "l0c":
            raise emit_error(op, f"a fill of an {where} tile is not supported: the cube "
                                 f"fills only its L0C accumulator, with zero")
        if not is_clear(op, op.operands[0]):
            raise emit_error(op, "an L0C accumulator can only be filled with zero (it becomes "
                                 "the init of the next ascend.mmad)")

    def lower(self, op: ir.Operation, plan: None, target: AscendTarget) -> None:
        op.erase()
