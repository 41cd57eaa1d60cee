"""The cuda lowerings of tile.gemm: tensor cores (ldmatrix + mma.sync) or FMA loops.

`cuda-gemm-mma-sync` (f16 or bf16 operands with an f32 accumulator, i8 with
an i32 one; shapes as `mma_warps` says): the warps form a grid over C; per
k-step (16, or 32 for i8) each warp fetches its A fragments (m16 x k-step)
and B fragments (k-step x n8, two per `ldmatrix.x4` when it can) from
shared memory and issues one mma.sync per (m16, n8) tile (`nvgpu.mma.sync`
m16n8k16 for f16 and m16n8k32 for i8; `nvvm.mma.sync` on the fragments'
32-bit registers for bf16, which nvgpu cannot type) into accumulators that
stay in SSA values for the whole gemm. Every fragment row is one 16-byte
ldmatrix row whatever the element type, so one addressing serves all. The accumulators
come from and go back to C at the coordinates of the mma layout: C's
registers when tile-cuda-infer-layouts gave C that layout, else C in shared
memory.
Transposed operands use `ldmatrix` with `.trans` where the stored layout
needs it (A stored K x M, B stored K x N) for 16-bit elements; 8-bit ones
stored that way are gathered with byte loads in the mma's register layout
(`byte_fragments.py`: `.trans` cannot move 8-bit elements). Each lane's
addresses go through the operand's swizzle (`Tile.physical`), the one its
writers used.

`cuda-gemm-fma` (every other gemm): each thread computes the C elements it
holds (registers) or is dealt (memory), walking K with scalar
multiply-adds in the accumulation type (f32 for 16-bit floats, i32 for i8).

Before:

    tile.gemm %a, %b, %c : memref<128x32xf16, #tile.scope<shared>>,
        memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>

After (per k-step and warp tile, schematically):

    %a0 = nvgpu.ldmatrix %a[%row, %k] {numTiles = 4 : i32, transpose = false} : ... -> ...
    %b0 = nvgpu.ldmatrix %b[%k, %col] {numTiles = 4 : i32, transpose = true} : ... -> ...
    %d = nvgpu.mma.sync(%a0, %b01, %c00) {mmaShape = [16, 8, 16]} : (...) -> vector<2x2xf32>
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm, math, nvgpu, nvvm, scf, vector

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.conversion.tile_to_cuda.analysis.gemm_shape import GemmShape, gemm_shape
from tilec.passes.conversion.tile_to_cuda.analysis.layouts import (
    WARP,
    Layout,
    Tile,
    for_each_element,
    is_workgroup,
    kernel_threads,
    mma_k,
    mma_warps,
    thread_id,
    tile_of,
)
from tilec.passes.conversion.tile_to_cuda.ops.byte_fragments import KMajorBytes
from tilec.targets import CudaTarget


def _shape(op: ir.Operation) -> tuple[GemmShape, Tile, Tile, Tile]:
    a, b, c = (tile_of(v) for v in list(op.operands)[:3])
    return gemm_shape(op, a.shape, c.shape, a.element, c.element), a, b, c


def _accumulation_type(element: ir.Type) -> ir.Type:
    if irb.is_float(element):
        return element if irb.bit_width(element) >= 32 else ir.F32Type.get()
    return element


def _mma_layout(op: ir.Operation) -> Layout | None:
    """The mma layout this gemm uses, None when it cannot use mma.sync."""
    shape, a, b, c = _shape(op)
    warps = mma_warps(shape, kernel_threads(op))
    if warps is None or not (is_workgroup(a.value.type) and is_workgroup(b.value.type)):
        return None
    layout = Layout("mma", c.shape, kernel_threads(op), *warps)
    if c.in_registers and c.layout != layout:
        return None
    return layout


@register_lowering
class GemmMmaSync(TileOpLowering[Layout, CudaTarget]):
    """f16/bf16 -> f32 and i8 -> i32 gemms on the tensor cores (ldmatrix + mma.sync)."""

    target = "cuda"
    op_names = ("tile.gemm",)
    name = "cuda-gemm-mma-sync"
    phase = Phase.GEMMS

    def applies(self, op: ir.Operation, target: CudaTarget) -> str | None:
        if _mma_layout(op) is None:
            return ("needs f16/bf16 operands with an f32 accumulator or i8 with an i32 one, "
                    "in shared memory, and mma-sized tiles")
        return None

    def infer(self, op: ir.Operation, target: CudaTarget) -> Layout:
        layout = _mma_layout(op)
        assert layout is not None
        return layout

    def lower(self, op: ir.Operation, plan: Layout, target: CudaTarget) -> None:
        shape, a, b, c = _shape(op)
        with ir.InsertionPoint(op), op.location:
            _MmaGemm(shape, plan, a, b, c, "clear_accum" in op.attributes).emit()
        op.erase()


class _MmaGemm:
    def __init__(self, shape: GemmShape, layout: Layout, a: Tile, b: Tile, c: Tile, clear: bool):
        self.shape, self.layout, self.a, self.b, self.c, self.clear = (
            shape, layout, a, b, c, clear
        )
        self.tiles_m, self.tiles_n = layout.mma_tiles()
        step = mma_k(shape)
        assert step is not None
        # K of one instruction; elements per 16-byte row; per 32-bit register.
        self.step, self.chunk, self.width = step, step // 2, 32 // irb.bit_width(a.element)
        tid = thread_id()
        # Only an accumulator in memory is indexed by coordinates (registers by slot).
        self.c_coords = None if c.in_registers else layout.thread_coords(tid)
        self.lane = arith.remui(tid, irb.index(WARP))
        warp = arith.divui(tid, irb.index(WARP))
        self.row0 = arith.muli(
            arith.divui(warp, irb.index(layout.warps_n)), irb.index(shape.m // layout.warps_m)
        )
        self.col0 = arith.muli(
            arith.remui(warp, irb.index(layout.warps_n)), irb.index(shape.n // layout.warps_n)
        )
        # 8-bit operands stored K-major: gathered byte by byte (byte_fragments.py).
        bytes_ = self.width == 4
        self.a_bytes = KMajorBytes(a, self.lane) if bytes_ and shape.transpose_a else None
        self.b_bytes = KMajorBytes(b, self.lane) if bytes_ and not shape.transpose_b else None

    def _lane_term(self, divisor: int, modulus: int, scale: int) -> ir.Value:
        """`(lane / divisor) % modulus * scale`."""
        value = arith.divui(self.lane, irb.index(divisor)) if divisor > 1 else self.lane
        return arith.muli(arith.remui(value, irb.index(modulus)), irb.index(scale))

    def _a_fragment(self, mi: int, k0: int) -> ir.Value:
        f16x = ir.VectorType.get([4, self.width], self.a.element)
        m0 = arith.addi(self.row0, irb.index(mi * 16))
        if self.a_bytes is not None:
            # a0..a3: rows g, g + 8 of k 4t.., then of k 16 + 4t...
            gather = self.a_bytes
            return gather.fragment([
                gather.register(k0 + 16 * (r // 2), gather.column(m0, 8 * (r % 2)))
                for r in range(4)
            ])
        if not self.shape.transpose_a:
            # Matrices (m 0-7, k 0-7), (m 8-15, k 0-7), (m 0-7, k 8-15), (m 8-15, k 8-15)
            # for f16; k in 16-element halves for i8.
            row = arith.addi(m0, self._lane_term(1, 16, 1))
            col = arith.addi(irb.index(k0), self._lane_term(16, 2, self.chunk))
            return nvgpu.ldmatrix(f16x, self.a.value, self.a.physical([row, col]), False, 4)
        # Stored K x M: the same matrices, transposed on the way in.
        row = arith.addi(
            irb.index(k0), arith.addi(self._lane_term(16, 2, 8), self._lane_term(1, 8, 1))
        )
        col = arith.addi(m0, self._lane_term(8, 2, 8))
        return nvgpu.ldmatrix(f16x, self.a.value, self.a.physical([row, col]), True, 4)

    def _b_fragments(self, ni: int, k0: int, count: int) -> list[ir.Value]:
        """B fragments (vector<2x2xf16>) of n8 tiles ni .. ni + count - 1."""
        tiles = 2 * count
        f16x = ir.VectorType.get([tiles, self.width], self.b.element)
        n0 = arith.addi(self.col0, irb.index(ni * 8))
        if self.b_bytes is not None:
            # b0, b1 of n-tile ni + i: column 8i + g, k 4t.. and 16 + 4t...
            gather = self.b_bytes
            return [
                gather.fragment([gather.register(k0 + 16 * r, gather.column(n0, 8 * i))
                                 for r in range(2)])
                for i in range(count)
            ]
        if not self.shape.transpose_b:
            # Stored K x N: lane l fetches row k0 + l % 16 of n-tile l / 16.
            row = arith.addi(irb.index(k0), self._lane_term(1, 16, 1))
            col = arith.addi(n0, self._lane_term(16, 2, 8) if count == 2 else irb.index(0))
            loaded = nvgpu.ldmatrix(f16x, self.b.value, self.b.physical([row, col]), True, tiles)
        else:
            # Stored N x K: lane l fetches row n0 + l % 8 (+8 for n-tile l / 16), k half l / 8 % 2.
            row_term = self._lane_term(1, 8, 1)
            if count == 2:
                row_term = arith.addi(row_term, self._lane_term(16, 2, 8))
            row = arith.addi(n0, row_term)
            col = arith.addi(irb.index(k0), self._lane_term(8, 2, self.chunk))
            loaded = nvgpu.ldmatrix(f16x, self.b.value, self.b.physical([row, col]), False, tiles)
        if count == 1:
            return [loaded]
        half = ir.VectorType.get([2, self.width], self.b.element)
        fragments = []
        for i in range(count):
            fragment = irb.zero(half)
            for j in range(2):
                row = vector.extract(loaded, [], [2 * i + j])
                fragment = vector.insert(row, fragment, [], [j])
            fragments.append(fragment)
        return fragments

    def _load_accumulator(self, mi: int, ni: int) -> ir.Value:
        acc_type = ir.VectorType.get([2, 2], self.c.element)
        if self.clear:
            return irb.zero(acc_type)
        values = []
        for reg in range(4):
            slot = self.layout.mma_slot(mi, ni, reg)
            values.append(self.c.load(self._c_coords(slot), slot))
        return vector.from_elements(acc_type, values)

    def _store_accumulator(self, mi: int, ni: int, acc: ir.Value) -> None:
        for reg in range(4):
            slot = self.layout.mma_slot(mi, ni, reg)
            value = vector.extract(acc, [], [reg // 2, reg % 2])
            self.c.store(value, self._c_coords(slot), slot)

    def _c_coords(self, slot: int) -> list[ir.Value]:
        return [] if self.c_coords is None else self.c_coords(slot)

    def _mma(self, a: ir.Value, b: ir.Value, acc: ir.Value) -> ir.Value:
        """One m16n8k16 mma.sync: nvgpu's for f16; for bf16, which nvgpu cannot
        type, nvvm's on the fragments' 32-bit registers (DESIGN.md §3)."""
        if self.shape.ab_element != "bf16":
            return nvgpu.mma_sync(acc.type, a, b, acc, [16, 8, self.step])
        f32 = ir.F32Type.get()

        def registers(fragment: ir.Value) -> list[ir.Value]:
            rows = ir.VectorType(fragment.type).shape[0]
            word = ir.VectorType.get([1], ir.IntegerType.get_signless(32))
            return [
                vector.extract(vector.bitcast(word, vector.extract(fragment, [], [r])), [], [0])
                for r in range(rows)
            ]

        result = nvvm.mma_sync(
            ir.Type.parse("!llvm.struct<(f32, f32, f32, f32)>"),
            ir.Attribute.parse("#nvvm.shape<m = 16, n = 8, k = 16>"),
            ir.Attribute.parse("#nvvm.mma_layout<row>"),
            ir.Attribute.parse("#nvvm.mma_layout<col>"),
            registers(a), registers(b),
            [vector.extract(acc, [], [r // 2, r % 2]) for r in range(4)],
            multiplicand_a_ptx_type=ir.Attribute.parse("#nvvm.mma_type<bf16>"),
            multiplicand_b_ptx_type=ir.Attribute.parse("#nvvm.mma_type<bf16>"),
        )
        values = [llvm.extractvalue(f32, result, [r]) for r in range(4)]
        return vector.from_elements(acc.type, values)

    def emit(self) -> None:
        acc = {
            (mi, ni): self._load_accumulator(mi, ni)
            for mi in range(self.tiles_m)
            for ni in range(self.tiles_n)
        }
        pair = 2 if self.tiles_n % 2 == 0 else 1
        for k0 in range(0, self.shape.k, self.step):
            a = [self._a_fragment(mi, k0) for mi in range(self.tiles_m)]
            b = []
            for ni in range(0, self.tiles_n, pair):
                b.extend(self._b_fragments(ni, k0, pair))
            for mi in range(self.tiles_m):
                for ni in range(self.tiles_n):
                    acc[mi, ni] = self._mma(a[mi], b[ni], acc[mi, ni])
        for (mi, ni), value in acc.items():
            self._store_accumulator(mi, ni, value)


@register_lowering
class GemmFma(TileOpLowering[None, CudaTarget]):
    """Any other gemm: per-thread multiply-add loops over K."""

    target = "cuda"
    op_names = ("tile.gemm",)
    name = "cuda-gemm-fma"
    phase = Phase.GEMMS

    def applies(self, op: ir.Operation, target: CudaTarget) -> str | None:
        if _mma_layout(op) is not None:
            return "mma.sync applies"
        _, a, b, _ = _shape(op)
        if a.in_registers or b.in_registers:
            return "its A and B operands must be in shared memory"
        return None

    def lower(self, op: ir.Operation, plan: None, target: CudaTarget) -> None:
        shape, a, b, c = _shape(op)
        acc_type = _accumulation_type(c.element)
        clear = "clear_accum" in op.attributes
        is_float = irb.is_float(acc_type)

        def body(coords: list[ir.Value], slot: int | None) -> None:
            m, n = coords
            start = irb.zero(acc_type) if clear else irb.convert(c.load(coords, slot), acc_type)
            loop = scf.ForOp(irb.index(0), irb.index(shape.k), irb.index(1), [start])
            with ir.InsertionPoint(loop.body):
                k = loop.induction_variable
                x = a.load([k, m] if shape.transpose_a else [m, k], None)
                y = b.load([n, k] if shape.transpose_b else [k, n], None)
                x, y = irb.convert(x, acc_type), irb.convert(y, acc_type)
                total = loop.inner_iter_args[0]
                total = math.fma(x, y, total) if is_float else arith.addi(total, arith.muli(x, y))
                scf.YieldOp([total])
            c.store(irb.convert(loop.results[0], c.element), coords, slot)

        with ir.InsertionPoint(op), op.location:
            for_each_element(c.shape, kernel_threads(op), c.layout, body)
        op.erase()
