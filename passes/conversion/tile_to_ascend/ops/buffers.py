"""The ascend lowering of tile.alloc, and the buffer helpers every ascend lowering shares.

A tile becomes a `memref.alloc` at the start of its function: the grid of
`tile.kernel` becomes a loop over the blocks a core runs, and an on-chip
buffer is allocated once per core, not once per block (the memory planner
gives each one a fixed offset later). The memory space stays the tile scope
until the end of `convert-tile-to-ascend`, which retypes every memref once
(`ascend_type`): `#tile.scope<ub>` (and the portable scopes, which only
vector code uses when `tile-ascend-place-tiles` has not run) to
`#ascend.mem<ub>`, the cube scopes to their buffers, global memory to
`#ascend.mem<gm>`. A cube tile gets the fractal shape of its layout: Nz in L1,
or the transposing layout the gemm lowering chose for a 32-bit operand
(`L1_LAYOUT`, `l1_shape`), which the gemm and copy lowerings see it in too.

Vector lowerings need UB temporaries; `Scratch` hands them out. A scratch
buffer lives only while the op that asked for it is lowered, so the next
op's lowering reuses the ones already made (they carry `SCRATCH`).

Before:

    tile.kernel blocks(%bx) in (%n) threads = 128 {
      %t = tile.alloc : memref<16x128xf32, #tile.scope<fragment>>
    }

After (once the kernel and the function are converted):

    %t = memref.alloc() : memref<16x128xf32, #ascend.mem<ub>>
    scf.for %b = %block_idx to %n step %block_num { ... }
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

from mlir import ir
from mlir.dialects import memref

from tilec.dialects import ascend, tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.conversion.tile_to_ascend.place_tiles import (
    FRACTAL_ROWS,
    cube_buffer_type,
    fractal_shape,
)
from tilec.targets.ascend import AscendTarget
from tilec.targets.ascend import attributes as ascend_attr
from tilec.targets.ascend.call_dtypes import cast_problem

CUBE_SCOPES = frozenset({tile.Scope.l1, tile.Scope.l0a, tile.Scope.l0b, tile.Scope.l0c})
CUBE_SPACES = frozenset(
    {ascend.MemSpace.l1, ascend.MemSpace.l0a, ascend.MemSpace.l0b, ascend.MemSpace.l0c}
)
SCRATCH = "tilec.scratch"
"""Marks a UB temporary of a vector lowering; the conversion removes it at the end."""
PADDED = "tilec.padded_rows"
"""Marks the tile.alloc of a tile with padded rows (`padded_rows`); it goes with the alloc."""
IOTA = "tilec.iota"
"""Marks the i32 tile [0, n) of a function (value n), made once; removed at the end too."""

_SPACE_OF_SCOPE = {
    tile.Scope.global_: ascend.MemSpace.gm,
    tile.Scope.l1: ascend.MemSpace.l1,
    tile.Scope.l0a: ascend.MemSpace.l0a,
    tile.Scope.l0b: ascend.MemSpace.l0b,
    tile.Scope.l0c: ascend.MemSpace.l0c,
}


def _space_attr(type_: ir.MemRefType) -> ir.Attribute | None:
    """The `#ascend.mem` space of a memref type, or None when it has another."""
    space = type_.memory_space
    if space is None or tile.is_scope_attr(space):
        return None
    try:
        ascend.mem_space_of(type_)
    except ValueError:
        return None
    return space


L1_LAYOUT = "ascend.l1_layout"
"""Attribute of an L1 tile's `tile.alloc` that the gemm lowering sets when the
tile holds an operand that needs transposing and no load transposes: `zz` or
`transposed`, or a Bᵀ next to such an A whose K is padded to whole squares
(`squares`, see `cube_gemm.choose_l1_layouts`); the alloc, copy and gemm
lowerings all shape the tile's buffer by it."""
L1_ZZ, L1_TRANSPOSED, L1_SQUARES = "zz", "transposed", "squares"


def l1_layout(tile: ir.Value) -> str | None:
    """The layout the gemm lowering chose for L1 tile `tile`, None for Nz."""
    owner = tile.owner
    if isinstance(owner, ir.Operation | ir.OpView) and L1_LAYOUT in owner.attributes:
        return ir.StringAttr(owner.attributes[L1_LAYOUT]).value
    return None


def l1_shape(tile: ir.Value) -> list[int]:
    """The 4-D shape of L1 tile `tile` (R x C) in its layout: Nz of R x C, Zz of
    R x C with C up to whole 16 x 16 squares (which its loads move), Nz of R x C
    with C up to whole squares (`squares`), or Nz of the C x R transpose (which
    pads R, not C, to whole fractal rows: a ragged tile holds more or fewer
    elements than its Nz)."""
    type_ = ir.MemRefType(tile.type)
    rows, cols = type_.shape
    layout = l1_layout(tile)
    squares = -(-cols // FRACTAL_ROWS) * FRACTAL_ROWS
    if layout == L1_ZZ:
        return fractal_shape("l0a", rows, squares, type_.element_type)
    if layout == L1_SQUARES:
        return fractal_shape("l1", rows, squares, type_.element_type)
    if layout == L1_TRANSPOSED:
        return fractal_shape("l1", cols, rows, type_.element_type)
    return fractal_shape("l1", rows, cols, type_.element_type)


def memory_space(type_: ir.MemRefType) -> ascend.MemSpace:
    """Where a memref (tile-typed or already ascend-typed) lives on the NPU."""
    if _space_attr(type_) is not None:
        return ascend.mem_space_of(type_)
    if type_.memory_space is None:
        return ascend.MemSpace.gm
    return _SPACE_OF_SCOPE.get(tile.scope_of(type_), ascend.MemSpace.ub)


def is_global(value: ir.Value) -> bool:
    """A GM operand: not on-chip (no memory space, global scope or #ascend.mem<gm>)."""
    return memory_space(ir.MemRefType(value.type)) is ascend.MemSpace.gm


def is_cube(value: ir.Value) -> bool:
    return memory_space(ir.MemRefType(value.type)) in CUBE_SPACES


def ascend_type(type_: ir.Type) -> ir.Type:
    """`type_` with its memory space as the NPU's (other types unchanged)."""
    if not isinstance(type_, ir.MemRefType):
        return type_
    type_ = ir.MemRefType(type_)
    if _space_attr(type_) is not None:
        return type_
    space = ascend.mem_attr(memory_space(type_), type_.context)
    return ir.MemRefType.get(type_.shape, type_.element_type, type_.layout, space)


def ub_type(shape: list[int], element: ir.Type) -> ir.MemRefType:
    """A UB tile type, in the tile scope the conversion retypes at its end."""
    return tile.memref_type(shape, element, tile.Scope.ub)


def entry_block(op: ir.Operation) -> ir.Block:
    """The body of the `ascend.core` region (of a mix kernel) or else of the
    function around `op`: where its buffers are allocated, so each core kind
    allocates only its own."""
    owner = op
    while owner.name != "func.func" and not _is_core_region(owner):
        owner = owner.parent.operation if hasattr(owner.parent, "operation") else owner.parent
    return owner.regions[0].blocks[0]


def _is_core_region(op: ir.Operation) -> bool:
    """An `ascend.core` region, or what stands for one until the conversion
    ends (split_cores.CORE_REGION)."""
    return op.name == "ascend.core" or (
        op.name == "scf.execute_region" and ascend_attr.CORE_REGION in op.attributes)


def function_entry(op: ir.Operation) -> ir.InsertionPoint:
    """The start of `entry_block(op)`."""
    return ir.InsertionPoint.at_block_begin(entry_block(op))


def view(
    buffer: ir.Value,
    offsets: Sequence[ir.Value | int],
    sizes: Sequence[int],
    drop: Sequence[int] = (),
) -> ir.Value:
    """The region of `buffer` at `offsets` of extent `sizes` (unit strides),
    without the unit dimensions `drop`; `buffer` itself when that is all of it."""
    type_ = ir.MemRefType(buffer.type)
    static = [o if isinstance(o, int) else irb.constant_int(o) for o in offsets]
    if list(sizes) == list(type_.shape) and all(o == 0 for o in static) and not drop:
        return buffer
    mixed = [o if s is None else s for o, s in zip(offsets, static, strict=True)]
    strides, base = type_.get_strides_and_offset()
    dynamic = ir.ShapedType.get_dynamic_size()
    if base == dynamic or any(s is None for s in static):
        layout_offset = dynamic
    else:
        layout_offset = base + sum(o * st for o, st in zip(static, strides, strict=True))
    keep = [d for d in range(len(sizes)) if d not in drop]
    shape = [sizes[d] for d in keep]
    kept_strides = [strides[d] for d in keep]
    contiguous = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        contiguous[d] = contiguous[d + 1] * shape[d + 1]
    layout = (
        None
        if layout_offset == 0 and kept_strides == contiguous
        else ir.StridedLayoutAttr.get(layout_offset, kept_strides)
    )
    result = ir.MemRefType.get(shape, type_.element_type, layout, type_.memory_space)
    return memref.subview(buffer, mixed, list(sizes), [1] * len(sizes), result_type=result)


def round_mode(to: ir.Type, src: ir.Type) -> ascend.RoundMode:
    """The rounding of a conversion with `arith`'s meaning: narrower floats to
    the nearest even (truncf), floats to integers toward zero (fptosi)."""
    if not irb.is_float(src):
        return ascend.RoundMode.none
    if not irb.is_float(to):
        return ascend.RoundMode.trunc
    if irb.bit_width(to) > irb.bit_width(src):
        return ascend.RoundMode.none  # a wider float holds every value exactly
    return ascend.RoundMode.rint


def cast(dst: ir.Value, src: ir.Value, scratch: Scratch) -> None:
    """`dst = convert(src)` on UB views of one static shape, rounding as arith does.

    The vendor's Cast converts an fp8 type from and to float only
    (`call_dtypes.cast_problem`): any other conversion of fp8 goes through an
    f32 scratch, which holds every fp8, f16 and bf16 value exactly, so the
    value is still rounded once."""
    to = ir.MemRefType(dst.type).element_type
    source = ir.MemRefType(src.type)
    if cast_problem(str(source.element_type), str(to)) is not None:
        wide = scratch.take(list(source.shape), ir.F32Type.get())
        cast(wide, src, scratch)
        cast(dst, wide, scratch)
        scratch.give_back(wide)
        return
    mode = round_mode(to, source.element_type)
    ascend.vcast(dst, src, round=None if mode is ascend.RoundMode.none else mode)


class Scratch:
    """UB temporaries for one op's lowering, reusing those of earlier lowerings."""

    def __init__(self, op: ir.Operation):
        self._op = op
        self._entry = function_entry(op)
        self._free: dict[str, list[ir.Value]] = defaultdict(list)
        for inner in entry_block(op).operations:
            if SCRATCH in inner.attributes:
                self.give_back(inner.results[0])

    def take(self, shape: list[int], element: ir.Type) -> ir.Value:
        """A UB tile of `shape`, with padded rows where the kernel's tiles of that shape
        have them (`padded_rows`): the view of the real columns of a wider buffer."""
        free = self._free[_scratch_key(shape, element)]
        if free:
            return free.pop()
        wide = padded_shape(shape, element)
        if wide != shape and shape not in self._padded():
            wide = shape
        with self._entry, ir.Location.unknown():
            buffer = memref.alloc(ub_type(wide, element), [], [])
            if wide != shape:
                buffer = view(buffer, [0] * len(shape), shape)
        buffer.owner.attributes[SCRATCH] = ir.UnitAttr.get()
        return buffer

    def _padded(self) -> list[list[int]]:
        """The shapes of the tiles with padded rows in the function."""
        func = self._op
        while func.name != "func.func":
            func = func.parent.operation if hasattr(func.parent, "operation") else func.parent
        return [list(ir.MemRefType(irb.use_owner(use).results[0].type).shape)
                for alloc in irb.collect(func, "tile.alloc") if PADDED in alloc.attributes
                for use in alloc.results[0].uses]

    def give_back(self, buffer: ir.Value) -> None:
        type_ = ir.MemRefType(buffer.type)
        self._free[_scratch_key(list(type_.shape), type_.element_type)].append(buffer)


def _scratch_key(shape: list[int], element: ir.Type) -> str:
    return str(ub_type(shape, element))


BLOCK_BYTES = 32
"""UB's unit: vector calls take operands on 32-byte boundaries, DataCopyPad pads UB rows
to it (asc-devkit docs/zh/api/SIMD-API, DataCopyPad: "blockLen", "dstStride")."""


def padded_columns(columns: int, element: ir.Type) -> int:
    """`columns` up to a whole number of 32-byte blocks of `element`."""
    per_block = BLOCK_BYTES * 8 // irb.bit_width(element)
    return -(-columns // per_block) * per_block


def padded_shape(shape: list[int], element: ir.Type) -> list[int]:
    """The shape of a UB buffer holding a tile of `shape` with rows of whole 32-byte
    blocks (`shape` itself for a single row or rows already whole blocks)."""
    if len(shape) < 2 or math.prod(shape[:-1]) == 1:
        return list(shape)
    return [*shape[:-1], padded_columns(shape[-1], element)]


@register_lowering
class AllocToBuffer(TileOpLowering[None, AscendTarget]):
    """tile.alloc as a memref.alloc at the start of the function."""

    target = "ascend"
    op_names = ("tile.alloc",)
    name = "ascend-alloc-buffer"
    phase = Phase.TILES

    def lower(self, op: ir.Operation, plan: None, target: AscendTarget) -> None:
        tile_ = op.results[0]
        type_ = ir.MemRefType(tile_.type)
        if l1_layout(tile_) is not None:
            # An operand the gemm keeps in a transposing layout: its fractals.
            type_ = ascend.memref_type(l1_shape(tile_), type_.element_type, "l1")
        elif is_cube(tile_):
            # Cube tiles are whole fractals, in the layout their path wants.
            type_ = cube_buffer_type(type_)
        with function_entry(op), op.location:
            new = memref.alloc(type_, [], [])
        if ascend_attr.OFFSET in op.attributes:  # T.annotate_address: planning keeps it
            new.owner.attributes[ascend_attr.OFFSET] = op.attributes[ascend_attr.OFFSET]
        op.results[0].replace_all_uses_with(new)
        op.erase()
