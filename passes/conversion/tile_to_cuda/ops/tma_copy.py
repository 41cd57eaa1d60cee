"""TMA (`cp.async.bulk.tensor`) loads of wgmma operand tiles on sm_90a.

A copy of a whole global tensor box into a shared tile that wgmma reads
(a `PanelSwizzle`d tile: panels 128, 64 or 32 bytes wide) is what the
Tensor Memory Accelerator writes with the matching swizzle mode: one box
per panel (and per 256 rows, the largest box dimension), each box `panel`
bytes wide, the hardware XOR-ing 16-byte chunks with the shared address
bits 7.. exactly as the panels are stored. Out-of-bounds parts of a box
(also before the tensor's start) read zeros, the cpu's edge semantics.

The tensor map of each box shape is made on the host by the driver
(`cuTensorMapEncodeTiled`, from the call's array: its address, dims and
strides) and reaches the kernel as an `!llvm.ptr` to a device copy of it:
in the host function it is a `builtin.unrealized_conversion_cast` of the
tensor to `!llvm.ptr` marked `tile.cuda_tma` (the element type, the box
innermost first, the swizzle), which outlining makes a kernel argument and
the launch plan records. A device copy and not a `__grid_constant__`
parameter: a `gpu.func` argument is a pointer-sized value (the 128-byte map
by value would need a byval parameter the NVVM lowering does not emit),
and the PTX ISA allows the map in global memory.

The rule (`tma_plan`): the source is an entry parameter (not a view) with
the identity layout and rank <= 5, the copy covers the whole destination
at offset 0 with zero padding, the tile's last two dimensions are the
source's last two, the element has 8, 16 or 32 bits, and a static row of
the source is a multiple of 16 bytes. Everything else keeps cp.async.
What only the call knows -- the base address and a dynamic row being
multiples of 16 bytes, dims non-zero -- is checked in the kernel
(`usable`) exactly as the driver checks it before encoding: when it fails
the driver passes no map and the kernel copies by threads instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, llvm, memref, nvvm, scf

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.conversion.tile_to_cuda.analysis.layouts import guarded, is_workgroup, thread_id
from tilec.passes.conversion.tile_to_cuda.analysis.mbarriers import (
    Mbarriers,
    i32_constant,
    shared_pointer,
)
from tilec.passes.conversion.tile_to_cuda.analysis.wgmma_plan import PanelSwizzle
from tilec.passes.conversion.tile_to_cuda.ops.copy import (
    CopyByThreads,
    TileCopy,
    copy_of,
    is_zero_pad,
)
from tilec.passes.conversion.tile_to_cuda.ops.pipeline import src_rank
from tilec.targets import CudaTarget

TMA_DESCRIPTOR = "tile.cuda_tma"
# On the thread-copy fallback of a TMA copy: never a TMA copy itself.
NO_TMA = "tile.cuda_no_tma"
TMA_ALIGNMENT = 16
MAX_BOX = 256
MAX_RANK = 5


@dataclass(frozen=True)
class Box:
    """One TMA box of a tile: where it lands (bytes from the tile's start)
    and its first (row, column) in the tile."""

    offset: int
    row: int
    col: int


@dataclass(frozen=True)
class TmaPlan:
    """How one tile.copy is made of TMA boxes."""

    copy: TileCopy
    panel: int
    box: tuple[int, ...]
    """The box dims innermost first (panel width, rows, then 1s), rank of the source."""
    boxes: tuple[Box, ...]

    @property
    def bytes(self) -> int:
        """What the boxes write (zero-filled parts included): the tx count."""
        tile = self.copy.dst.tile
        return tile.shape[0] * tile.shape[1] * irb.bit_width(tile.element) // 8

    @property
    def source(self) -> ir.Value:
        return self.copy.src.tile.value


def _entry_parameter(value: ir.Value) -> bool:
    owner = value.owner
    return isinstance(owner, ir.Block) and owner.owner.operation.name == "func.func"


def tma_plan(op: ir.Operation) -> TmaPlan | None:
    """The TMA boxes of tile.copy `op` (its tiles lowered), None when the
    rule of the module docstring says cp.async."""
    if NO_TMA in op.attributes:
        return None
    copy = copy_of(op)
    src, dst = copy.src.tile, copy.dst.tile
    if src.in_registers or dst.in_registers or not is_workgroup(dst.value.type):
        return None
    if not isinstance(dst.swizzle, PanelSwizzle) or is_workgroup(src.value.type):
        return None
    src_type = ir.MemRefType(src.value.type)
    if not _entry_parameter(src.value) or src_type.affine_map != ir.AffineMap.get_identity(
        src_type.rank
    ):
        return None
    if src.element != dst.element or irb.bit_width(src.element) not in (8, 16, 32):
        return None
    if copy.pad_operand is not None and not is_zero_pad(copy.pad_operand):
        return None
    rank = len(copy.sizes)
    if len(src.shape) != rank or not 2 <= rank <= MAX_RANK or len(dst.shape) != 2:
        return None
    if copy.src.copy_dims != list(range(rank)) or copy.dst.copy_dims != [rank - 2, rank - 1]:
        return None
    if list(copy.sizes) != [1] * (rank - 2) + list(dst.shape):
        return None
    if any(irb.constant_int(o) != 0 for o in copy.dst.offsets):
        return None
    element_bytes = irb.bit_width(src.element) // 8
    if any(size == 0 for size in src.shape):
        return None
    last = src.shape[-1]
    if not ir.ShapedType.is_dynamic_size(last) and last * element_bytes % TMA_ALIGNMENT:
        return None
    rows, cols = dst.shape
    swizzle = dst.swizzle
    chunk = min(rows, MAX_BOX)
    if rows % chunk or cols % swizzle.width:
        return None
    boxes = tuple(
        Box(p * rows * swizzle.panel + r * swizzle.panel, r, p * swizzle.width)
        for p in range(cols // swizzle.width)
        for r in range(0, rows, chunk)
    )
    box = (swizzle.width, chunk, *[1] * (rank - 2))
    return TmaPlan(copy, swizzle.panel, box, boxes)


def host_descriptor(plan: TmaPlan, kernel: ir.Operation, required: bool = False) -> ir.Value:
    """The `!llvm.ptr` to the source's tensor map for the plan's box, made
    in front of the tile.kernel (the driver fills it in before the launch;
    `required`: the kernel has no thread copies in its place, so a map the
    driver cannot encode is an error at launch)."""
    fields = {
        "element": ir.StringAttr.get(str(plan.copy.src.tile.element)),
        "box": ir.DenseI64ArrayAttr.get(list(plan.box)),
        "swizzle": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), plan.panel),
    }
    if required:
        fields["required"] = ir.UnitAttr.get()
    spec = ir.DictAttr.get(fields)
    with ir.InsertionPoint(kernel), kernel.location:
        cast = ir.Operation.create(
            "builtin.unrealized_conversion_cast", results=[llvm.PointerType.get()],
            operands=[plan.source], attributes={TMA_DESCRIPTOR: spec},
        )
    return cast.results[0]


def usable(plan: TmaPlan) -> ir.Value | None:
    """In the kernel: whether the driver could encode the tensor map (base
    and rows 16-byte aligned, dims non-zero); None when it always can."""
    src = plan.copy.src
    element_bytes = irb.bit_width(src.tile.element) // 8
    base = memref.extract_aligned_pointer_as_index(src.tile.value)
    ok = arith.cmpi(arith.CmpIPredicate.eq, arith.remui(base, irb.index(TMA_ALIGNMENT)),
                    irb.index(0))
    for dim, size in enumerate(src.tile.shape):
        if not ir.ShapedType.is_dynamic_size(size):
            continue
        extent = src.extent(dim)
        ok = arith.andi(ok, arith.cmpi(arith.CmpIPredicate.ugt, extent, irb.index(0)))
        if dim == len(src.tile.shape) - 1:
            row = arith.muli(extent, irb.index(element_bytes))
            ok = arith.andi(ok, arith.cmpi(arith.CmpIPredicate.eq,
                                           arith.remui(row, irb.index(TMA_ALIGNMENT)),
                                           irb.index(0)))
    return ok


def issue(plan: TmaPlan, descriptor: ir.Value, tile: ir.Value, offsets: list[ir.Value],
          barrier: ir.Value) -> None:
    """The plan's boxes of the source at `offsets` into shared `tile`,
    completing their bytes on `barrier` (one thread issues them)."""
    i32 = ir.IntegerType.get_signless(32)
    base = memref.extract_aligned_pointer_as_index(tile)
    # Box coordinates go innermost first.
    outer = [arith.index_cast(i32, o) for o in reversed(offsets[:-2])]
    for box in plan.boxes:
        destination = shared_pointer(arith.addi(base, irb.index(box.offset)), 7)
        col = arith.index_cast(i32, arith.addi(offsets[-1], irb.index(box.col)))
        row = arith.index_cast(i32, arith.addi(offsets[-2], irb.index(box.row)))
        nvvm.cp_async_bulk_tensor_shared_cluster_global(
            destination, descriptor, [col, row, *outer], barrier, [],
        )


def thread_copy(op: ir.Operation, offsets: list[ir.Value] | None = None,
                tile: ir.Value | None = None) -> ir.Operation:
    """A clone of tile.copy `op` (source `offsets`, destination `tile` when
    given) that is copied by threads: the fallback where TMA cannot be used."""
    clone = op.clone()
    if offsets is not None:
        for i, value in enumerate(offsets):
            clone.operands[1 + i] = value
    if tile is not None:
        clone.operands[1 + src_rank(op)] = tile
    clone.attributes[NO_TMA] = ir.UnitAttr.get()
    return clone


@register_lowering
class CopyByTma(TileOpLowering[TmaPlan, CudaTarget]):
    """A wgmma operand tile loaded from a global tensor by TMA, completing on one mbarrier."""

    target = "cuda"
    op_names = ("tile.copy",)
    name = "cuda-copy-tma"
    phase = Phase.COPIES
    supersedes = ("cuda-copy-by-threads",)

    def applies(self, op: ir.Operation, target: CudaTarget) -> str | None:
        if not target.has_wgmma:
            return "TMA needs sm_90a"
        if tma_plan(op) is None:
            return "not a whole box of an entry parameter into a wgmma operand tile"
        return None

    def infer(self, op: ir.Operation, target: CudaTarget) -> TmaPlan:
        plan = tma_plan(op)
        assert plan is not None
        return plan

    def lower(self, op: ir.Operation, plan: TmaPlan, target: CudaTarget) -> None:
        kernel = irb.enclosing(op, {"tile.kernel"})
        descriptor = host_descriptor(plan, kernel)
        with ir.InsertionPoint(op), op.location:
            barriers = Mbarriers(op, 1)
            barriers.init()
            branch = scf.IfOp(usable(plan), has_else=True)
            with ir.InsertionPoint(branch.then_block):
                first = arith.cmpi(arith.CmpIPredicate.eq, thread_id(), irb.index(0))
                with guarded(first):
                    barriers.arrive_expect_tx(0, i32_constant(plan.bytes))
                    issue(plan, descriptor, plan.copy.dst.tile.value, list(plan.copy.src.offsets),
                          barriers.address(0))
                barriers.wait(0, i32_constant(0))
                scf.YieldOp([])
            with ir.InsertionPoint(branch.else_block):
                fallback = thread_copy(op)
                scf.YieldOp([])
            barriers.invalidate()
        CopyByThreads().lower(fallback, None, target)
        op.erase()
