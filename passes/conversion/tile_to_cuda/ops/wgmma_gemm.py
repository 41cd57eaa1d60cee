"""The sm_90a lowering of tile.gemm: warpgroup MMA (`wgmma.mma_async`) from shared memory.

`cuda-gemm-wgmma` applies where `wgmma_plan.wgmma_grid` says (f16, bf16,
e4m3 or e5m2 operands, an f32 accumulator, whole warpgroups) and A and B
are stored as wgmma reads them (`tile.cuda_wgmma_swizzle`, chosen by
tile-cuda-infer-layouts); there it supersedes mma.sync and the FMA loops.
Each warpgroup builds one 64-bit matrix descriptor per (m64 tile, k-step)
of A and (n tile, k-step) of B from the tiles' shared memory addresses
(start address, leading and stride byte offsets, swizzle mode: PTX ISA
9.7.15.5.1.2.2) and issues one `nvvm.wgmma.mma_async` per (m64, n) tile and
k-step into accumulators kept as SSA structs for the whole gemm, then
commits the group and waits for it. K-major operands are `row` (A) / `col`
(B); MN-major ones (16-bit types only) the transposed layouts.

The shared tiles were written through the generic proxy (copies), which
wgmma does not see without `fence.proxy.async`: every thread fences its
writes, then the block synchronizes, before the first wgmma; `wgmma.fence`
orders the accumulator registers the threads wrote before it.

Before:

    tile.gemm %a, %b, %c : memref<64x64xf16, #tile.scope<shared>>,
        memref<64x128xf16, #tile.scope<shared>>, memref<64x128xf32, #tile.scope<fragment>>

After (schematically, per k-step):

    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    gpu.barrier
    nvvm.wgmma.fence.aligned
    %d = nvvm.wgmma.mma_async %descA, %descB, %acc, #nvvm.shape<m = 64, n = 128, k = 16>, ...
    nvvm.wgmma.commit.group.sync.aligned
    nvvm.wgmma.wait.group.sync.aligned 0
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, gpu, llvm, memref, nvvm

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.conversion.tile_to_cuda.analysis.gemm_shape import GemmShape, gemm_shape
from tilec.passes.conversion.tile_to_cuda.analysis.layouts import (
    PLACEMENT,
    Layout,
    Tile,
    gemm_wgmma,
    is_workgroup,
    kernel_threads,
    thread_id,
    tile_of,
)
from tilec.passes.conversion.tile_to_cuda.analysis.wgmma_plan import (
    SWIZZLE_MODES,
    WARPGROUP,
    WGMMA_KINDS,
    PanelSwizzle,
    WgmmaGrid,
    panel_bytes,
    wgmma_grid,
)
from tilec.targets import CudaTarget

_ROW_GROUP_BYTES = 8  # a descriptor's stride byte offset spans 8 rows of a panel


def _shape(op: ir.Operation) -> tuple[GemmShape, Tile, Tile, Tile]:
    a, b, c = (tile_of(v) for v in list(op.operands)[:3])
    return gemm_shape(op, a.shape, c.shape, a.element, c.element), a, b, c


def _lowered_grid(op: ir.Operation) -> WgmmaGrid | None:
    """The grid of a gemm whose tiles are already shared memory views."""
    shape, a, b, c = _shape(op)
    bits = irb.bit_width(a.element)
    for tile in (a, b):
        if not is_workgroup(tile.value.type) or not isinstance(tile.swizzle, PanelSwizzle):
            return None
        if tile.swizzle.panel != panel_bytes(tile.shape, bits):
            return None
    grid = wgmma_grid(shape, kernel_threads(op), a.shape, b.shape, bits)
    if grid is None or (c.in_registers and c.layout.text != grid.text):
        return None
    return grid


def _grid(op: ir.Operation, target: CudaTarget) -> WgmmaGrid | None:
    """The warpgroup grid of `op`, before or after the alloc lowering."""
    if not target.has_wgmma:
        return None
    owner = op.operands[0].owner
    if isinstance(owner, ir.Operation | ir.OpView) and owner.name == "tile.alloc":
        grid = gemm_wgmma(op, True)
        c = op.operands[2].owner
        if grid is None or not isinstance(c, ir.Operation | ir.OpView):
            return None
        placement = c.attributes.get(PLACEMENT, None) if c.name == "tile.alloc" else None
        if placement is not None and ir.StringAttr(placement).value not in ("shared", grid.text):
            return None
        return grid
    return _lowered_grid(op)


@register_lowering
class GemmWgmma(TileOpLowering[WgmmaGrid, CudaTarget]):
    """f16/bf16/fp8 -> f32 gemms on sm_90a's warpgroup tensor cores."""

    target = "cuda"
    op_names = ("tile.gemm",)
    name = "cuda-gemm-wgmma"
    phase = Phase.GEMMS
    supersedes = ("cuda-gemm-mma-sync", "cuda-gemm-fma")

    def applies(self, op: ir.Operation, target: CudaTarget) -> str | None:
        if _grid(op, target) is None:
            return ("needs sm_90a, f16/bf16/fp8 operands in shared tiles that only copies and "
                    "gemms touch, an f32 accumulator, whole warpgroups and wgmma-sized tiles")
        return None

    def infer(self, op: ir.Operation, target: CudaTarget) -> WgmmaGrid:
        grid = _grid(op, target)
        assert grid is not None
        return grid

    def lower(self, op: ir.Operation, plan: WgmmaGrid, target: CudaTarget) -> None:
        shape, a, b, c = _shape(op)
        layout = Layout("wgmma", c.shape, kernel_threads(op), plan.wg_m, plan.wg_n)
        with ir.InsertionPoint(op), op.location:
            _WgmmaGemm(shape, plan, layout, a, b, c, "clear_accum" in op.attributes).emit()
        op.erase()


def _i64(value: int) -> ir.Value:
    """An i64 constant of the 64-bit pattern `value` (top bit set allowed)."""
    signed = value - (1 << 64) if value >= 1 << 63 else value
    return arith.constant(ir.IntegerType.get_signless(64), signed)


class _WgmmaGemm:
    def __init__(self, shape: GemmShape, grid: WgmmaGrid, layout: Layout, a: Tile, b: Tile,
                 c: Tile, clear: bool):
        self.shape, self.grid, self.layout = shape, grid, layout
        self.a, self.b, self.c, self.clear = a, b, c, clear
        self.tiles_m, self.tiles_n8 = layout.wgmma_tiles()
        self.n_tiles = shape.n // grid.wg_n // grid.n_step
        self.tid = thread_id()
        group = arith.divui(self.tid, irb.index(WARPGROUP))
        self.row0 = arith.muli(arith.divui(group, irb.index(grid.wg_n)),
                               irb.index(shape.m // grid.wg_m))
        self.col0 = arith.muli(arith.remui(group, irb.index(grid.wg_n)),
                               irb.index(shape.n // grid.wg_n))
        self.ptx_type = WGMMA_KINDS[shape.ab_element][1]
        self.acc_type = ir.Type.parse(
            "!llvm.struct<(" + ", ".join(["f32"] * (grid.n_step // 2)) + ")>"
        )

    def _descriptor(self, tile: Tile, k_major: bool, mn0: ir.Value, k0: int) -> ir.Value:
        """The matrix descriptor of `tile` at M/N row `mn0` and K `k0`."""
        swizzle = tile.swizzle
        assert isinstance(swizzle, PanelSwizzle)
        panel_stride = swizzle.rows * swizzle.panel
        if k_major:  # stored [MN][K]: panels along K, advance inside one
            offset = arith.addi(
                arith.muli(mn0, irb.index(swizzle.panel)),
                irb.index(k0 // swizzle.width * panel_stride
                          + k0 % swizzle.width * swizzle.element_bytes),
            )
            leading = 16  # unused by swizzled K-major layouts: 1 when encoded
        else:  # stored [K][MN]: panels along MN, `leading` apart
            offset = arith.addi(
                arith.muli(arith.divui(mn0, irb.index(swizzle.width)), irb.index(panel_stride)),
                irb.index(k0 * swizzle.panel),
            )
            leading = panel_stride
        stride = _ROW_GROUP_BYTES * swizzle.panel
        base = memref.extract_aligned_pointer_as_index(tile.value)
        address = arith.index_cast(ir.IntegerType.get_signless(64), arith.addi(base, offset))
        start = arith.shrui(arith.andi(address, _i64(0x3FFFF)), _i64(4))
        fields = ((leading >> 4) << 16) | ((stride >> 4) << 32)
        fields |= SWIZZLE_MODES[swizzle.panel] << 62
        return arith.ori(start, _i64(fields))

    def _slot(self, mi: int, ni: int, register: int) -> int:
        n8 = ni * (self.grid.n_step // 8) + register // 4
        return self.layout.wgmma_slot(mi, n8, register % 4)

    def _load_accumulator(self, mi: int, ni: int) -> ir.Value:
        f32 = ir.F32Type.get()
        acc = llvm.mlir_undef(self.acc_type)
        for register in range(self.grid.n_step // 2):
            if self.clear:
                value = arith.constant(f32, 0.0)
            else:
                slot = self._slot(mi, ni, register)
                value = self.c.load(self.layout.coords(self.tid, slot), slot)
            acc = llvm.insertvalue(acc, value, [register])
        return acc

    def _store_accumulator(self, mi: int, ni: int, acc: ir.Value) -> None:
        f32 = ir.F32Type.get()
        for register in range(self.grid.n_step // 2):
            slot = self._slot(mi, ni, register)
            value = llvm.extractvalue(f32, acc, [register])
            self.c.store(value, self.layout.coords(self.tid, slot), slot)

    def _mma(self, a: ir.Value, b: ir.Value, acc: ir.Value) -> ir.Value:
        k_major_a, k_major_b = not self.shape.transpose_a, self.shape.transpose_b
        parse = ir.Attribute.parse
        kind = parse(f"#nvvm.wgmma_type<{self.ptx_type}>")
        return nvvm.wgmma_mma_async(
            self.acc_type, acc, a, b,
            parse(f"#nvvm.shape<m = 64, n = {self.grid.n_step}, k = {self.grid.k_step}>"),
            kind, kind, parse("#nvvm.wgmma_type<f32>"),
            parse("#nvvm.wgmma_scale_out<one>"),
            parse("#nvvm.wgmma_scale_in<one>"), parse("#nvvm.wgmma_scale_in<one>"),
            parse(f"#nvvm.mma_layout<{'row' if k_major_a else 'col'}>"),
            parse(f"#nvvm.mma_layout<{'col' if k_major_b else 'row'}>"),
        )

    def emit(self) -> None:
        nvvm.fence_proxy(ir.Attribute.parse("#nvvm.proxy_kind<async.shared>"),
                         space=ir.Attribute.parse("#nvvm.shared_space<cta>"))
        gpu.barrier()
        acc = {
            (mi, ni): self._load_accumulator(mi, ni)
            for mi in range(self.tiles_m)
            for ni in range(self.n_tiles)
        }
        nvvm.wgmma_fence_aligned()
        for k0 in range(0, self.shape.k, self.grid.k_step):
            a = [
                self._descriptor(self.a, not self.shape.transpose_a,
                                 arith.addi(self.row0, irb.index(mi * 64)), k0)
                for mi in range(self.tiles_m)
            ]
            b = [
                self._descriptor(self.b, self.shape.transpose_b,
                                 arith.addi(self.col0, irb.index(ni * self.grid.n_step)), k0)
                for ni in range(self.n_tiles)
            ]
            for mi in range(self.tiles_m):
                for ni in range(self.n_tiles):
                    acc[mi, ni] = self._mma(a[mi], b[ni], acc[mi, ni])
        nvvm.wgmma_commit_group_sync_aligned()
        nvvm.wgmma_wait_group_sync_aligned(0)
        for (mi, ni), value in acc.items():
            self._store_accumulator(mi, ni, value)
