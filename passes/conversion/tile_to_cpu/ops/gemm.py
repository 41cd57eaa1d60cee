"""The cpu lowering of tile.gemm: register-tiled vector code.

C is cut into micro-tiles of `micro_rows` rows by `MICRO_VECTORS` vectors
of columns. A micro-tile lives in registers for the whole k loop (its
vectors are the loop-carried values of an `scf.for`), and each k step does
one broadcast of A per row and one load of B per vector column, feeding
`rows x MICRO_VECTORS` `vector.fma`s. With AVX2's 16 registers, 6x2
vectors of 8 f32 keep 12 accumulators, 2 B vectors and one broadcast live.
Edge micro-tiles (M or N not a multiple of the micro-tile) get their own
straight-line code with fewer rows or narrower vectors, so any static shape
works without masks. With AVX-512's 32 registers the k loop of a 6x2 tile
of 16-lane vectors runs at ~95 % of the FMA rate of a register-only loop,
and 8x2, 12x2, 6x4 and 8x3 tiles the same (measured on the development
host, an AMD EPYC), so the tile there is 8x2 because 8 rows divide the
power-of-two tiles kernels use (128 = 21 x 6 + 2 leaves a 2-row edge
micro-tile, which loads B's vectors for the fmas of 2 rows). What a k step loads and
computes is a `KStep`: the f32/i32 fma step here, `vdpbf16ps` on bf16 pairs
in gemm_bf16_dot.py, both around the same micro-tiles.

B is first packed into panels (`[N / panel, K, panel]`, a panel being the
micro-tile's width): the k loop then reads one contiguous panel instead of
one line per row of B, whose power-of-two row stride would map every row
of a panel to a few L1 sets and evict it. Packing also converts B to the
accumulation type (f16/bf16/f8 -> f32, i8 -> i32) and undoes `transpose_b`,
once per gemm instead of once per use; the transpose moves square blocks of
one register's lanes with shuffles (element by element it was an eighth of
flash attention's time, its Q K^T packing K^T every key tile; measured).
Where B is a tile that one copy fills for this gemm alone, that copy writes
the panels instead (gemm_packed_copy.py): B is then moved once per k step,
not twice. A is read in place (a transposed A too: the micro-tile's rows are then
contiguous); an A of another element type is converted into a scratch tile
first.

Before:

    tile.gemm %a, %b, %c : memref<64x32xf32, ...>, memref<32x64xf32, ...>, memref<64x64xf32, ...>

After (one micro-tile, schematically):

    %acc = scf.for %k = %c0 to %c32 step %c1 iter_args(%c00 = ..., ...) -> (vector<8xf32>, ...) {
      %b0 = vector.load %panels[%p, %k, %c0] : memref<4x32x16xf32, ...>, vector<8xf32>
      %a0 = memref.load %a[%i, %k] : memref<64x32xf32, ...>
      %s0 = vector.broadcast %a0 : f32 to vector<8xf32>
      %n00 = vector.fma %s0, %b0, %c00 : vector<8xf32>
      ...
    }
    vector.store %acc#0, %c[%i, %j] : memref<64x64xf32, ...>, vector<8xf32>
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from mlir import ir
from mlir.dialects import arith, memref, scf, vector

from tilec.dialects import tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.conversion.tile_to_cpu.ops.gemm_packed_copy import copy_into_panels, filling_copy
from tilec.targets import CpuTarget

MICRO_VECTORS = 2


def micro_rows(target: CpuTarget) -> int:
    """Rows of a micro-tile: 6 x MICRO_VECTORS accumulators fit AVX2's 16
    vector registers (YMM0-15) with B's vectors and A's broadcast, 8 x
    MICRO_VECTORS AVX-512's 32 (ZMM0-31; Intel SDM vol. 1, 15.1 "Overview")."""
    return 8 if target.vector_bytes >= 64 else 6


@dataclass(frozen=True)
class Gemm:
    """The operands of one gemm after packing, and its static sizes."""

    a: ir.Value
    panels: ir.Value
    c: ir.Value
    transpose_a: bool
    compute: ir.Type
    m: int
    n: int
    k: int
    clear: bool


def _accumulation_type(c_element: ir.Type) -> ir.Type:
    if irb.is_float(c_element):
        return c_element if irb.bit_width(c_element) >= 32 else ir.F32Type.get()
    return c_element


def scratch(op: ir.Operation, shape: list[int], element: ir.Type) -> ir.Value:
    with irb.scratch_insertion_point(op):
        return tile.alloc(tile.memref_type(shape, element, "local"))


def _converted(op: ir.Operation, src: ir.Value, element: ir.Type) -> ir.Value:
    """`src` converted to `element` in a scratch tile of the same shape."""
    shape = ir.MemRefType(src.type).shape
    dst = scratch(op, shape, element)
    with irb.loop_nest(shape) as (i, j):
        memref.store(irb.convert(memref.load(src, [i, j]), element), dst, [i, j])
    return dst


def _transposed_block(rows: list[ir.Value]) -> list[ir.Value]:
    """The transpose of a square block given as its rows (vectors as long as
    there are rows): log2(n) rounds of two-input shuffles, each swapping the
    off-diagonal h x h sub-blocks of every 2h x 2h block (h = n/2, ..., 1),
    which x86 does with one permute per vector (vpermt2ps, vshuff32x4)
    instead of n^2 scalar moves."""
    n = len(rows)
    rows = list(rows)
    h = n // 2
    while h:
        low = [c if not c & h else n + c - h for c in range(n)]
        high = [c + h if not c & h else n + c for c in range(n)]
        for i in (i for i in range(n) if not i & h):
            rows[i], rows[i + h] = (
                vector.shuffle(rows[i], rows[i + h], low),
                vector.shuffle(rows[i], rows[i + h], high),
            )
        h //= 2
    return rows


def _transposed_panel(
    b: ir.Value, panels: ir.Value, p: ir.Value, start: ir.Value, element: ir.Type,
    k: int, width: int, lanes: int,
) -> None:
    """Panel p of op(B) = B^T (B is N x K): panel row kk, lane l holds
    B[start + l, kk]. Whole lanes x lanes blocks are read as rows of B and
    transposed in registers; the rest (K or the width not a multiple of
    `lanes`) moves element by element."""
    source = ir.VectorType.get([lanes], ir.MemRefType(b.type).element_type)
    blocks, k_full = width // lanes, k // lanes * lanes
    if blocks and k_full:
        with irb.loop(0, k_full, lanes) as kk:
            for block in range(blocks):
                first = irb.add(start, block * lanes)
                rows = [irb.convert(vector.load(source, b, [irb.add(first, r), kk]), element)
                        for r in range(lanes)]
                for r, column in enumerate(_transposed_block(rows)):
                    vector.store(column, panels, [p, irb.add(kk, r), irb.index(block * lanes)])

    def scalar(k_from: int, k_to: int, lane_from: int, lane_to: int) -> None:
        if k_to <= k_from or lane_to <= lane_from:
            return
        with irb.loop(k_from, k_to) as kk, irb.loop(lane_from, lane_to) as lane:
            value = memref.load(b, [irb.add(start, lane), kk])
            memref.store(irb.convert(value, element), panels, [p, kk, lane])

    covered = blocks * lanes if k_full else 0
    scalar(0, k_full, covered, width)
    scalar(k_full, k, 0, width)


def _panels(
    op: ir.Operation, b: ir.Value, transpose: bool, element: ir.Type, k: int, n: int, panel: int,
    lanes: int,
) -> ir.Value:
    """B as `[ceil(N / panel), K, panel]` of `element`: panel p, row k holds
    op(B)[k, p * panel : (p + 1) * panel] (the last panel only its first
    N % panel lanes)."""
    count = -(-n // panel)
    panels = scratch(op, [count, k, panel], element)

    def copy(p: ir.Value, width: int) -> None:
        start = arith.muli(p, irb.index(panel))
        if transpose:
            _transposed_panel(b, panels, p, start, element, k, width, lanes)
            return
        source = ir.VectorType.get([width], ir.MemRefType(b.type).element_type)
        with irb.loop(0, k) as kk:
            row = irb.convert(vector.load(source, b, [kk, start]), element)
            vector.store(row, panels, [p, kk, irb.index(0)])

    if n // panel:
        with irb.loop(0, n // panel) as p:
            copy(p, panel)
    if n % panel:
        copy(irb.index(n // panel), n % panel)
    return panels


class _FmaStep:
    """One k step of a micro-tile with f32/i32 vectors: a broadcast of A per
    row times a panel row of B, `vector.fma` (or integer multiply-add)."""

    def __init__(self, g: Gemm):
        self.g = g
        self.trips = g.k

    def b_vector(self, p: ir.Value, k: ir.Value, offset: int, width: int) -> ir.Value:
        return vector.load(
            ir.VectorType.get([width], self.g.compute), self.g.panels, [p, k, irb.index(offset)]
        )

    def a_scalar(self, row: ir.Value, k: ir.Value) -> ir.Value:
        return memref.load(self.g.a, [k, row] if self.g.transpose_a else [row, k])

    def update(self, accumulator: ir.Value, a: ir.Value, b: ir.Value, width: int) -> ir.Value:
        broadcast = irb.splat(a, width)
        if irb.is_float(self.g.compute):
            return vector.fma(broadcast, b, accumulator)
        return arith.addi(accumulator, arith.muli(broadcast, b))


class KStep(Protocol):
    """What a micro-tile's k loop does per step: `trips` steps, each loading
    a panel row of B per vector and one value of A per row, and updating
    every accumulator (the f32 fma step here, `vdpbf16ps` in gemm_bf16_dot)."""

    trips: int

    def b_vector(self, p: ir.Value, k: ir.Value, offset: int, width: int) -> ir.Value: ...

    def a_scalar(self, row: ir.Value, k: ir.Value) -> ir.Value: ...

    def update(self, accumulator: ir.Value, a: ir.Value, b: ir.Value, width: int) -> ir.Value: ...


def micro_tile(
    g: Gemm, step: KStep, i0: ir.Value, rows: int, p: ir.Value, j0: ir.Value, widths: list[int]
) -> None:
    """C[i0:i0+rows, j0:j0+sum(widths)] (+)= A-rows * panel p, in registers:
    the accumulators are loop-carried through `step.trips` k steps of `step`."""
    offsets = [sum(widths[:v]) for v in range(len(widths))]
    types = [ir.VectorType.get([w], g.compute) for w in widths]
    c_element = ir.MemRefType(g.c.type).element_type
    row_index = [irb.add(i0, r) for r in range(rows)]
    col_index = [irb.add(j0, off) for off in offsets]
    initial = []
    for r in range(rows):
        for v, type_ in enumerate(types):
            if g.clear:
                initial.append(irb.zero(type_))
            else:
                c_type = irb.with_element(type_, c_element)
                loaded = vector.load(c_type, g.c, [row_index[r], col_index[v]])
                initial.append(irb.convert(loaded, g.compute))
    k_loop = scf.ForOp(irb.index(0), irb.index(step.trips), irb.index(1), initial)
    with ir.InsertionPoint(k_loop.body):
        k = k_loop.induction_variable
        accumulators = list(k_loop.inner_iter_args)
        b_rows = [step.b_vector(p, k, offsets[v], w) for v, w in enumerate(widths)]
        updated = []
        for r in range(rows):
            a_value = step.a_scalar(row_index[r], k)
            for v, width in enumerate(widths):
                accumulator = accumulators[r * len(widths) + v]
                updated.append(step.update(accumulator, a_value, b_rows[v], width))
        scf.YieldOp(updated)
    for r in range(rows):
        for v in range(len(widths)):
            result = irb.convert(k_loop.results[r * len(widths) + v], c_element)
            vector.store(result, g.c, [row_index[r], col_index[v]])


def row_micro_tiles(
    g: Gemm, step: KStep, p: ir.Value, j0: ir.Value, widths: list[int], rows: int
) -> None:
    """The micro-tiles of all rows of C against panel p, `rows` rows each."""
    irb.for_each_chunk(
        g.m, rows, lambda i0, count: micro_tile(g, step, i0, count, p, j0, widths)
    )


@dataclass(frozen=True)
class _Layout:
    """How one gemm is cut: the accumulation type, vector lanes and the
    width of a B panel (one micro-tile's columns)."""

    compute: ir.Type
    lanes: int
    m: int
    n: int
    k: int

    @property
    def panel(self) -> int:
        return self.lanes * MICRO_VECTORS


@register_lowering
class GemmToVectorFma(TileOpLowering[_Layout, CpuTarget]):
    """tile.gemm on static tiles as register-tiled `vector.fma` micro-tiles."""

    target = "cpu"
    op_names = ("tile.gemm",)
    name = "cpu-gemm-vector-fma"
    phase = Phase.GEMMS

    def applies(self, op: ir.Operation, target: CpuTarget) -> str | None:
        for value in op.operands:
            memref = ir.MemRefType(value.type)
            if not memref.has_static_shape:
                return "needs static shapes for A, B and C"
        return None

    def infer(self, op: ir.Operation, target: CpuTarget) -> _Layout:
        a, _, c = op.operands
        a_shape = ir.MemRefType(a.type).shape
        m, n = ir.MemRefType(c.type).shape
        k = a_shape[0] if "transpose_a" in op.attributes else a_shape[1]
        compute = _accumulation_type(ir.MemRefType(c.type).element_type)
        return _Layout(compute, irb.lanes(target.vector_bytes, compute), m, n, k)

    def lower(self, op: ir.Operation, plan: _Layout, target: CpuTarget) -> None:
        a, b, c = op.operands
        lanes, panel, n = plan.lanes, plan.panel, plan.n
        with ir.InsertionPoint(op), op.location:
            if ir.MemRefType(a.type).element_type != plan.compute:
                a = _converted(op, a, plan.compute)
            transpose_b = "transpose_b" in op.attributes
            copy = None if transpose_b else filling_copy(op, b)
            if copy is None:
                panels = _panels(op, b, transpose_b, plan.compute, plan.k, n, panel, lanes)
            else:
                panels = scratch(op, [-(-n // panel), plan.k, panel], plan.compute)
                copy_into_panels(copy, panels)
            g = Gemm(
                a,
                panels,
                c,
                "transpose_a" in op.attributes,
                plan.compute,
                plan.m,
                n,
                plan.k,
                "clear_accum" in op.attributes,
            )

            def columns(p: ir.Value | int, width: int) -> None:
                # p counts panels; a whole panel is MICRO_VECTORS vectors, the
                # last (narrower) one its full vectors and a tail.
                p_index = irb.index(p) if isinstance(p, int) else p
                j0 = arith.muli(p_index, irb.index(panel))
                widths = [lanes] * (width // lanes) + ([width % lanes] if width % lanes else [])
                row_micro_tiles(g, _FmaStep(g), p_index, j0, widths, micro_rows(target))

            if n // panel:
                with irb.loop(0, n // panel) as p:
                    columns(p, panel)
            if n % panel:
                columns(n // panel, n % panel)
        op.erase()
        if copy is not None:
            b.owner.operation.erase()  # B's tile: the copy writes the panels instead
