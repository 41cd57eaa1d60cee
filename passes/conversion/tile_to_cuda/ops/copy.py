"""The cuda lowering of tile.copy: cp.async where it can, element copies elsewhere.

The out-of-bounds rules are those of the cpu: a read past the end of the
source (or before its start) gives the pad value, a write past the end of
the destination is dropped, and a copy that covers only part of an
on-chip destination first fills the whole tile with the pad.

- global -> shared, same element type, zero pad: each thread issues 16-byte
  `nvgpu.device_async_copy` (cp.async.cg) chunks of a row, with the number
  of source elements clamped at the tensor's edge so the rest of the chunk
  is zero-filled by the hardware (into the chunk the tile's swizzle
  gives); the copy commits one group and waits for it. Whether the
  global rows are 16-byte aligned is known only at run time, so the
  chunks run under that check and the element copy is the fallback.
- register tiles: each thread moves the slots it holds, at the coordinates
  its layout gives (bounds-checked on the memory side).
- otherwise element e of the copy's extent is moved by thread e % threads,
  bounds-checked on both sides, converted between element types.

Before:

    tile.copy %A[%i, %k], %a[%c0, %c0] : memref<?x?xf16>, memref<128x32xf16, #tile.scope<shared>>

After (schematically):

    scf.if %rows_16_byte_aligned {
      %n = <elements of this chunk inside A: 0..8>
      %t = nvgpu.device_async_copy %A[%r, %col], %a[%rr, %cc], 8, %n {bypassL1} : ...
      ...
      %g = nvgpu.device_async_create_group %t, ...
      nvgpu.device_async_wait %g {numGroups = 0 : i32}
    } else {
      scf.for %e = %tid to %c4096 step %c128 { <bounds-checked load, store> }
    }
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, gpu, memref, nvgpu, scf

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.conversion.tile_semantics import copy_dims, may_pad_rest
from tilec.passes.conversion.tile_to_cuda.analysis.layouts import (
    Tile,
    delinearize,
    for_each_element,
    is_workgroup,
    kernel_threads,
    register_owner,
    thread_id,
    tile_of,
)
from tilec.passes.conversion.tile_to_cuda.ops.fill import fill
from tilec.targets import CudaTarget

ASYNC_BYTES = 16
# On a tile.copy made by the software pipeline: its cp.async chunks are
# committed and waited for by the pipeline, not by the copy.
NO_WAIT = "tile.cuda_no_wait"


@dataclass(frozen=True)
class _Side:
    """One operand: the tile, its offsets, and which copy dimension each of
    its dimensions follows."""

    tile: Tile
    offsets: list[ir.Value]
    copy_dims: list[int]

    def positions(self, coords: list[ir.Value]) -> list[ir.Value]:
        return [irb.add(o, coords[d]) for o, d in zip(self.offsets, self.copy_dims, strict=True)]

    def extent(self, dim: int) -> ir.Value:
        size = self.tile.shape[dim]
        if ir.ShapedType.is_dynamic_size(size):
            return memref.dim(self.tile.value, irb.index(dim))
        return irb.index(size)

    def inside(self, positions: list[ir.Value], sizes: list[int],
               dims: list[int] | None = None) -> ir.Value | None:
        """Whether `positions` lie in the buffer (None: statically, or in
        registers); an index before 0 wraps around and fails `ult` too."""
        if self.tile.in_registers:
            return None
        check = None
        for dim in range(len(positions)) if dims is None else dims:
            if irb.statically_inside(self.tile.value, dim, self.offsets[dim],
                                     sizes[self.copy_dims[dim]]):
                continue
            ok = arith.cmpi(arith.CmpIPredicate.ult, positions[dim], self.extent(dim))
            check = ok if check is None else arith.andi(check, ok)
        return check


@dataclass(frozen=True)
class TileCopy:
    src: _Side
    dst: _Side
    sizes: list[int]
    pad_operand: ir.Value | None
    """The pad; None: zero."""

    @property
    def pad(self) -> ir.Value:
        return self.pad_operand if self.pad_operand is not None else irb.zero(self.src.tile.element)

    def move(self, coords: list[ir.Value], slot: int | None) -> None:
        """Copies the element at copy coordinates `coords` (slot `slot` of
        the register operands)."""
        src, dst = self.src, self.dst
        positions = src.positions(coords)
        inside = src.inside(positions, self.sizes)
        if inside is None:
            value = src.tile.load(positions, slot)
        else:
            branch = scf.IfOp(inside, [src.tile.element], has_else=True)
            with ir.InsertionPoint(branch.then_block):
                scf.YieldOp([src.tile.load(positions, slot)])
            with ir.InsertionPoint(branch.else_block):
                scf.YieldOp([self.pad])
            value = branch.results[0]
        value = irb.convert(value, dst.tile.element)
        positions = dst.positions(coords)
        inside = dst.inside(positions, self.sizes)
        if inside is None:
            dst.tile.store(value, positions, slot)
            return
        branch = scf.IfOp(inside)
        with ir.InsertionPoint(branch.then_block):
            dst.tile.store(value, positions, slot)
            scf.YieldOp([])

    def by_registers(self, owner_side: _Side, threads: int) -> None:
        """Each thread moves the slots of the register operand it holds."""
        rank = len(self.sizes)

        def body(coords: list[ir.Value], slot: int | None) -> None:
            copy_coords = [irb.index(0)] * rank
            for value, dim in zip(coords, owner_side.copy_dims, strict=True):
                copy_coords[dim] = value
            self.move(copy_coords, slot)

        for_each_element(owner_side.tile.shape, threads, owner_side.tile.layout, body)

    def by_elements(self, threads: int) -> None:
        for_each_element(self.sizes, threads, None, self.move)

    def async_lanes(self, threads: int) -> int | None:
        """Elements per cp.async chunk when this copy can use cp.async, else None."""
        src, dst = self.src, self.dst
        if src.tile.in_registers or dst.tile.in_registers or not is_workgroup(dst.tile.value.type):
            return None
        if src.tile.element != dst.tile.element or is_workgroup(src.tile.value.type):
            return None
        if self.pad_operand is not None and not is_zero_pad(self.pad_operand):
            return None
        if not _identity_layout(src.tile.value.type):
            return None
        bits = irb.bit_width(src.tile.element)
        if bits not in (8, 16, 32):
            return None
        lanes = ASYNC_BYTES * 8 // bits
        last = len(self.sizes) - 1
        if src.copy_dims[-1:] != [last] or dst.copy_dims[-1:] != [last]:
            return None
        dst_offset = irb.constant_int(dst.offsets[-1])
        if self.sizes[last] % lanes or dst.tile.shape[-1] % lanes or dst_offset is None:
            return None
        if dst_offset % lanes or math.prod(self.sizes) // lanes % threads:
            return None
        if not all(
            irb.statically_inside(dst.tile.value, d, dst.offsets[d], self.sizes[dst.copy_dims[d]])
            for d in range(len(dst.offsets))
        ):
            return None
        return lanes

    def aligned(self, lanes: int) -> ir.Value:
        """Run-time check that every chunk's source is 16-byte aligned."""
        src = self.src
        last = len(src.offsets) - 1
        column = src.offsets[last]
        base = memref.extract_aligned_pointer_as_index(src.tile.value)
        checks = [
            arith.cmpi(arith.CmpIPredicate.eq,
                       arith.remui(base, irb.index(ASYNC_BYTES)), irb.index(0)),
            arith.cmpi(arith.CmpIPredicate.eq, arith.remsi(column, irb.index(lanes)),
                       irb.index(0)),
            arith.cmpi(arith.CmpIPredicate.sge, column, irb.index(0)),
        ]
        if src.tile.shape[last] == ir.ShapedType.get_dynamic_size() or src.tile.shape[last] % lanes:
            checks.append(arith.cmpi(arith.CmpIPredicate.eq,
                                     arith.remui(src.extent(last), irb.index(lanes)),
                                     irb.index(0)))
        result = checks[0]
        for check in checks[1:]:
            result = arith.andi(result, check)
        return result

    def by_async_chunks(self, lanes: int, threads: int, wait: bool = True) -> None:
        """16-byte cp.async chunks, zero-filled past the source's edge; with
        `wait` they form one group waited for at once (else the caller
        commits and waits: a software pipeline)."""
        src, dst = self.src, self.dst
        last = len(self.sizes) - 1
        chunk_shape = [*self.sizes[:-1], self.sizes[-1] // lanes]
        per_thread = math.prod(chunk_shape) // threads
        tid = thread_id()
        tokens = []
        for r in range(per_thread):
            coords = delinearize(arith.addi(irb.index(r * threads), tid), chunk_shape)
            coords[last] = arith.muli(coords[last], irb.index(lanes))
            positions = src.positions(coords)
            src_last = len(positions) - 1
            rows_ok = src.inside(positions, self.sizes, list(range(src_last)))
            count = irb.clamped_count(src.extent(src_last), positions[src_last], lanes)
            if rows_ok is not None:
                count = arith.select(rows_ok, count, irb.index(0))
            # An empty chunk reads nothing; its address is kept inside anyway.
            some = arith.cmpi(arith.CmpIPredicate.sgt, count, irb.index(0))
            safe = [arith.select(some, p, irb.index(0)) for p in positions]
            tokens.append(
                nvgpu.device_async_copy(
                    dst.tile.value, dst.tile.physical(dst.positions(coords)), src.tile.value, safe,
                    ir.IntegerAttr.get(ir.IndexType.get(), lanes),
                    src_elements=count, bypass_l1=ir.UnitAttr.get(),
                )
            )
        if wait:
            group = nvgpu.device_async_create_group(tokens)
            nvgpu.device_async_wait(group, num_groups=0)


def _identity_layout(type_: ir.Type) -> bool:
    memref_type = ir.MemRefType(type_)
    return memref_type.affine_map == ir.AffineMap.get_identity(memref_type.rank)


def is_zero_pad(value: ir.Value) -> bool:
    owner = value.owner
    if not isinstance(owner, ir.Operation | ir.OpView) or owner.name != "arith.constant":
        return False
    attr = owner.attributes["value"]
    if isinstance(attr, ir.FloatAttr):
        # -0.0 is not what the hardware's zero fill writes.
        return str(attr).startswith("0.")
    return isinstance(attr, ir.IntegerAttr) and ir.IntegerAttr(attr).value == 0


@register_lowering
class CopyByThreads(TileOpLowering[None, CudaTarget]):
    """tile.copy spread over the block's threads (cp.async into shared memory)."""

    target = "cuda"
    op_names = ("tile.copy",)
    name = "cuda-copy-by-threads"
    phase = Phase.COPIES

    def lower(self, op: ir.Operation, plan: None, target: CudaTarget) -> None:
        threads = kernel_threads(op)
        with ir.InsertionPoint(op), op.location:
            copy = copy_of(op)
            src_tile, dst_tile = copy.src.tile, copy.dst.tile
            if _fills_part(dst_tile, copy.sizes) and may_pad_rest(op, dst_tile.value):
                fill(dst_tile, irb.convert(copy.pad, dst_tile.element), threads)
                gpu.barrier()
            owner = register_owner(src_tile, dst_tile)
            lanes = copy.async_lanes(threads)
            if owner is not None:
                copy.by_registers(copy.src if src_tile.layout == owner else copy.dst, threads)
            elif lanes is None:
                copy.by_elements(threads)
            else:
                branch = scf.IfOp(copy.aligned(lanes), has_else=True)
                with ir.InsertionPoint(branch.then_block):
                    copy.by_async_chunks(lanes, threads, wait=NO_WAIT not in op.attributes)
                    scf.YieldOp([])
                with ir.InsertionPoint(branch.else_block):
                    copy.by_elements(threads)
                    scf.YieldOp([])
        op.erase()


def copy_of(op: ir.Operation) -> TileCopy:
    """tile.copy `op` (its tiles lowered) as a `TileCopy`; builds no IR."""
    operands = list(op.operands)
    # The operand counts of the tile op: a register operand's new type has
    # another rank than the tile it stands for.
    _, src_rank, _, dst_rank, _ = ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"])
    src_tile = tile_of(operands[0])
    dst_tile = tile_of(operands[1 + src_rank])
    sizes = _logical_sizes(op, src_tile, dst_tile)
    src = _Side(src_tile, operands[1 : 1 + src_rank], copy_dims(sizes, len(src_tile.shape)))
    dst_offsets = operands[2 + src_rank : 2 + src_rank + dst_rank]
    dst = _Side(dst_tile, dst_offsets, copy_dims(sizes, dst_rank))
    pad_operands = operands[2 + src_rank + dst_rank :]
    return TileCopy(src, dst, sizes, pad_operands[0] if pad_operands else None)


def _logical_sizes(op: ir.Operation, src: Tile, dst: Tile) -> list[int]:
    """The copy's extent (as `copy_sizes`, from the tiles' logical shapes)."""
    if "sizes" in op.attributes:
        return list(ir.DenseI64ArrayAttr(op.attributes["sizes"]))
    src_on_chip = src.in_registers or is_workgroup(src.value.type)
    dst_on_chip = dst.in_registers or is_workgroup(dst.value.type)
    if dst_on_chip or not src_on_chip:
        return list(dst.shape)
    return list(src.shape)


def _fills_part(dst: Tile, sizes: list[int]) -> bool:
    on_chip = dst.in_registers or is_workgroup(dst.value.type)
    return on_chip and math.prod(sizes) < math.prod(dst.shape)
