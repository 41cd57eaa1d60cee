"""The cpu lowering of a bf16 tile.gemm on AVX512-BF16: `vdpbf16ps` micro-tiles.

`vdpbf16ps` (x86vector.avx512.dot) multiplies 32 bf16 pairs and adds each
pair's two products to one of 16 f32 lanes: twice the multiply-adds of an
f32 `vfmadd` per instruction, with no conversion of A or B to f32 (Intel SDM
vol. 2, VDPBF16PS: "Dot Product of BF16 Pairs Accumulated into Packed Single
Precision"). One k step of a micro-tile is then a pair of k: lane j of the
accumulator gets A[i, 2k] * B[2k, j] + A[i, 2k+1] * B[2k+1, j]. So B is
packed pair-interleaved (the VNNI layout: panel p, pair k, lane 2j + t holds
B[2k + t, p * panel + j]), a zero row padding an odd K, and A's pair is one
32-bit load broadcast to every lane (a transposed A or an odd K goes
through a scratch tile first, with a zero column). The micro-tiles are the
f32 path's (`gemm.micro_tile`, 8 x 2 vectors of 16 lanes), fed by this k step.

It applies where the host has AVX512-BF16 and the target uses 64-byte
vectors, to bf16 A and B with f32 accumulation, B not transposed and N a
multiple of the panel width (32); other bf16 gemms take the f32 path.

After (one k step of one row, schematically):

    %pair = vector.load %a[%i, %k2] : memref<64x32xbf16, ...>, vector<2xbf16>
    %bits = vector.extract (vector.bitcast %pair : vector<2xbf16> to vector<1xi32>)[0]
    %as = vector.bitcast (vector.broadcast %bits : i32 to vector<16xi32>) to vector<32xbf16>
    %b0 = vector.load %vnni[%p, %k, %c0] : memref<2x16x64xbf16, ...>, vector<32xbf16>
    %acc1 = x86vector.avx512.dot %acc0, %as, %b0 : vector<32xbf16> -> vector<16xf32>
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, memref, vector

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.conversion.tile_to_cpu.ops import gemm
from tilec.targets import CpuTarget

LANES = 16  # f32 lanes of a zmm register
PANEL = LANES * gemm.MICRO_VECTORS


def _bf16() -> ir.Type:
    return ir.BF16Type.get()


def _vector(width: int, element: ir.Type) -> ir.VectorType:
    return ir.VectorType.get([width], element)


def _pairs_of_a(op: ir.Operation, a: ir.Value, transpose: bool, m: int, k: int) -> ir.Value:
    """A as [m, 2 * ceil(k / 2)] bf16, its pad column zero, when A cannot
    be read in place (transposed or odd k); else A itself."""
    if not transpose and k % 2 == 0:
        return a
    packed = gemm.scratch(op, [m, k + k % 2], _bf16())
    with irb.loop_nest([m, k]) as (i, kk):
        memref.store(memref.load(a, [kk, i] if transpose else [i, kk]), packed, [i, kk])
    if k % 2:
        with irb.loop(0, m) as i:
            memref.store(irb.zero(_bf16()), packed, [i, irb.index(k)])
    return packed


def _vnni_panels(op: ir.Operation, b: ir.Value, k: int, n: int) -> ir.Value:
    """B as [n / PANEL, ceil(k / 2), 2 * PANEL] bf16 in the pair-interleaved
    layout, a zero row after an odd k."""
    pairs = -(-k // 2)
    panels = gemm.scratch(op, [n // PANEL, pairs, 2 * PANEL], _bf16())
    row = _vector(PANEL, _bf16())
    interleave = [lane // 2 + (lane % 2) * PANEL for lane in range(2 * PANEL)]

    def pack(p: ir.Value, kk: ir.Value, second: bool) -> None:
        start = arith.muli(p, irb.index(PANEL))
        first_row = arith.muli(kk, irb.index(2))
        even = vector.load(row, b, [first_row, start])
        odd = vector.load(row, b, [irb.add(first_row, 1), start]) if second else irb.zero(row)
        vector.store(vector.shuffle(even, odd, interleave), panels, [p, kk, irb.index(0)])

    with irb.loop(0, n // PANEL) as p:
        if k // 2:
            with irb.loop(0, k // 2) as kk:
                pack(p, kk, True)
        if k % 2:
            pack(p, irb.index(k // 2), False)
    return panels


class _DotStep:
    """One pair of k of a micro-tile: `vdpbf16ps` of A's broadcast pair and
    a VNNI panel row (see `gemm.micro_tile`)."""

    def __init__(self, g: gemm.Gemm):
        self.g = g
        self.trips = -(-g.k // 2)

    def b_vector(self, p: ir.Value, k: ir.Value, offset: int, width: int) -> ir.Value:
        assert width == LANES
        at = [p, k, irb.index(2 * offset)]
        return vector.load(_vector(2 * LANES, _bf16()), self.g.panels, at)

    def a_scalar(self, row: ir.Value, k: ir.Value) -> ir.Value:
        pair = vector.load(_vector(2, _bf16()), self.g.a, [row, arith.muli(k, irb.index(2))])
        i32 = ir.IntegerType.get_signless(32)
        return vector.extract(vector.bitcast(_vector(1, i32), pair), [], [0])

    def update(self, accumulator: ir.Value, a: ir.Value, b: ir.Value, width: int) -> ir.Value:
        pairs = vector.bitcast(_vector(2 * width, _bf16()), irb.splat(a, width))
        dot = ir.Operation.create(
            "x86vector.avx512.dot", results=[accumulator.type], operands=[accumulator, pairs, b]
        )
        return dot.result


@dataclass(frozen=True)
class _Shape:
    m: int
    n: int
    k: int


@register_lowering
class GemmBf16Dot(TileOpLowering[_Shape, CpuTarget]):
    """bf16 tile.gemm with f32 accumulation as `vdpbf16ps` micro-tiles."""

    target = "cpu"
    op_names = ("tile.gemm",)
    name = "cpu-gemm-avx512-bf16-dot"
    phase = Phase.GEMMS
    supersedes = ("cpu-gemm-vector-fma",)

    def applies(self, op: ir.Operation, target: CpuTarget) -> str | None:
        if not target.bf16_dot:
            return "needs AVX512-BF16 (a cpu:avx512 target on a host that has it)"
        types = [ir.MemRefType(value.type) for value in op.operands]
        if not all(t.has_static_shape for t in types):
            return "needs static shapes for A, B and C"
        a, b, c = (t.element_type for t in types)
        if a != _bf16() or b != _bf16() or not irb.is_float(c) or irb.bit_width(c) > 32:
            return "needs bf16 A and B and a float C of at most 32 bits"
        if "transpose_b" in op.attributes:
            return "needs B not transposed"
        if types[2].shape[1] % PANEL:
            return f"needs N a multiple of {PANEL}"
        return None

    def infer(self, op: ir.Operation, target: CpuTarget) -> _Shape:
        a_shape = ir.MemRefType(op.operands[0].type).shape
        m, n = ir.MemRefType(op.operands[2].type).shape
        k = a_shape[0] if "transpose_a" in op.attributes else a_shape[1]
        return _Shape(m, n, k)

    def lower(self, op: ir.Operation, plan: _Shape, target: CpuTarget) -> None:
        a, b, c = op.operands
        with ir.InsertionPoint(op), op.location:
            a = _pairs_of_a(op, a, "transpose_a" in op.attributes, plan.m, plan.k)
            panels = _vnni_panels(op, b, plan.k, plan.n)
            g = gemm.Gemm(
                a,
                panels,
                c,
                False,
                ir.F32Type.get(),
                plan.m,
                plan.n,
                plan.k,
                "clear_accum" in op.attributes,
            )
            step = _DotStep(g)
            with irb.loop(0, plan.n // PANEL) as p:
                j0 = arith.muli(p, irb.index(PANEL))
                gemm.row_micro_tiles(
                    g, step, p, j0, [LANES] * gemm.MICRO_VECTORS, gemm.micro_rows(target)
                )
        op.erase()
