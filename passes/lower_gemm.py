"""tile-lower-gemm: tile.gemm to register-tiled vector code (cpu).

C is cut into micro-tiles of `MICRO_ROWS` rows by `MICRO_VECTORS` vectors
of columns. A micro-tile lives in registers for the whole k loop (its
vectors are the loop-carried values of an `scf.for`), and each k step does
one broadcast of A per row and one load of B per vector column, feeding
`MICRO_ROWS x MICRO_VECTORS` `vector.fma`s. With AVX2's 16 registers, 6x2
vectors of 8 f32 keep 12 accumulators, 2 B vectors and one broadcast live.
Edge micro-tiles (M or N not a multiple of the micro-tile) get their own
straight-line code with fewer rows or narrower vectors, so any static shape
works without masks.

B is first packed into panels (`[N / panel, K, panel]`, a panel being the
micro-tile's width): the k loop then reads one contiguous panel instead of
one line per row of B, whose power-of-two row stride would map every row
of a panel to a few L1 sets and evict it. Packing also converts B to the
accumulation type (f16/bf16 -> f32, i8 -> i32) and undoes `transpose_b`,
once per gemm instead of once per use. A is read in place (a transposed A
too: the micro-tile's rows are then contiguous); an A of another element
type is converted into a scratch tile first.

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

from mlir import ir
from mlir.dialects import arith, memref, scf, vector

from tilec.dialects import tile
from tilec.passes import _cpu_ir as cpu
from tilec.passes.registry import Pass, emit_error, register_pass

MICRO_ROWS = 6
MICRO_VECTORS = 2


@dataclass(frozen=True)
class _Gemm:
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
    if cpu.is_float(c_element):
        return c_element if cpu.bit_width(c_element) >= 32 else ir.F32Type.get()
    return c_element


def _static_shape(op: ir.Operation, value: ir.Value, name: str) -> list[int]:
    shape = ir.MemRefType(value.type).shape
    if any(ir.ShapedType.is_dynamic_size(d) for d in shape):
        raise emit_error(op, f"expected a static shape for gemm operand {name} on cpu")
    return shape


def _scratch(op: ir.Operation, shape: list[int], element: ir.Type) -> ir.Value:
    with cpu.scratch_insertion_point(op):
        return tile.alloc(tile.memref_type(shape, element, "local"))


def _converted(op: ir.Operation, src: ir.Value, element: ir.Type) -> ir.Value:
    """`src` converted to `element` in a scratch tile of the same shape."""
    shape = ir.MemRefType(src.type).shape
    dst = _scratch(op, shape, element)
    with cpu.loop_nest(shape) as (i, j):
        memref.store(cpu.convert(memref.load(src, [i, j]), element), dst, [i, j])
    return dst


def _panels(
    op: ir.Operation, b: ir.Value, transpose: bool, element: ir.Type, k: int, n: int, panel: int
) -> ir.Value:
    """B as `[ceil(N / panel), K, panel]` of `element`: panel p, row k holds
    op(B)[k, p * panel : (p + 1) * panel] (the last panel only its first
    N % panel lanes)."""
    count = -(-n // panel)
    panels = _scratch(op, [count, k, panel], element)

    def copy(p: ir.Value, width: int) -> None:
        start = arith.muli(p, cpu.index(panel))
        if transpose:
            with cpu.loop_nest([k, width]) as (kk, lane):
                value = memref.load(b, [cpu.add(start, lane), kk])
                memref.store(cpu.convert(value, element), panels, [p, kk, lane])
            return
        source = ir.VectorType.get([width], ir.MemRefType(b.type).element_type)
        with cpu.loop(0, k) as kk:
            row = cpu.convert(vector.load(source, b, [kk, start]), element)
            vector.store(row, panels, [p, kk, cpu.index(0)])

    if n // panel:
        with cpu.loop(0, n // panel) as p:
            copy(p, panel)
    if n % panel:
        copy(cpu.index(n // panel), n % panel)
    return panels


def _widths(columns: int, lanes: int) -> list[int]:
    return [lanes] * (columns // lanes) + ([columns % lanes] if columns % lanes else [])


def _micro_tile(
    g: _Gemm, i0: ir.Value, rows: int, p: ir.Value, j0: ir.Value, widths: list[int]
) -> None:
    """C[i0:i0+rows, j0:j0+sum(widths)] (+)= A-rows * panel p, in registers."""
    offsets = [sum(widths[:v]) for v in range(len(widths))]
    types = [ir.VectorType.get([w], g.compute) for w in widths]
    c_element = ir.MemRefType(g.c.type).element_type
    row_index = [cpu.add(i0, r) for r in range(rows)]
    col_index = [cpu.add(j0, off) for off in offsets]
    initial = []
    for r in range(rows):
        for v, type_ in enumerate(types):
            if g.clear:
                initial.append(cpu.zero(type_))
            else:
                c_type = cpu.with_element(type_, c_element)
                loaded = vector.load(c_type, g.c, [row_index[r], col_index[v]])
                initial.append(cpu.convert(loaded, g.compute))
    k_loop = scf.ForOp(cpu.index(0), cpu.index(g.k), cpu.index(1), initial)
    with ir.InsertionPoint(k_loop.body):
        k = k_loop.induction_variable
        accumulators = list(k_loop.inner_iter_args)
        b_rows = [
            vector.load(t, g.panels, [p, k, cpu.index(offsets[v])]) for v, t in enumerate(types)
        ]
        updated = []
        for r in range(rows):
            a_value = memref.load(g.a, [k, row_index[r]] if g.transpose_a else [row_index[r], k])
            for v, width in enumerate(widths):
                broadcast = cpu.splat(a_value, width)
                accumulator = accumulators[r * len(widths) + v]
                if cpu.is_float(g.compute):
                    updated.append(vector.fma(broadcast, b_rows[v], accumulator))
                else:
                    updated.append(arith.addi(accumulator, arith.muli(broadcast, b_rows[v])))
        scf.YieldOp(updated)
    for r in range(rows):
        for v in range(len(widths)):
            result = cpu.convert(k_loop.results[r * len(widths) + v], c_element)
            vector.store(result, g.c, [row_index[r], col_index[v]])


def _rows(g: _Gemm, p: ir.Value, j0: ir.Value, widths: list[int]) -> None:
    full = g.m // MICRO_ROWS * MICRO_ROWS
    if full:
        with cpu.loop(0, full, MICRO_ROWS) as i0:
            _micro_tile(g, i0, MICRO_ROWS, p, j0, widths)
    if g.m > full:
        _micro_tile(g, cpu.index(full), g.m - full, p, j0, widths)


def lower_gemm(op: ir.Operation) -> None:
    a, b, c = op.operands
    transpose_a = "transpose_a" in op.attributes
    a_shape = _static_shape(op, a, "A")
    _static_shape(op, b, "B")
    m, n = _static_shape(op, c, "C")
    k = a_shape[0] if transpose_a else a_shape[1]
    compute = _accumulation_type(ir.MemRefType(c.type).element_type)
    for value in (a, b):
        element = ir.MemRefType(value.type).element_type
        if cpu.is_float(element) and cpu.bit_width(element) < 16:
            raise emit_error(op, "8-bit float gemm operands are not supported on cpu")
    lanes = cpu.lanes(compute)
    panel = lanes * MICRO_VECTORS
    with ir.InsertionPoint(op), op.location:
        if ir.MemRefType(a.type).element_type != compute:
            a = _converted(op, a, compute)
        panels = _panels(op, b, "transpose_b" in op.attributes, compute, k, n, panel)
        g = _Gemm(a, panels, c, transpose_a, compute, m, n, k, "clear_accum" in op.attributes)
        if n // panel:
            with cpu.loop(0, n // panel) as p:
                _rows(g, p, arith.muli(p, cpu.index(panel)), [lanes] * MICRO_VECTORS)
        if n % panel:
            _rows(
                g, cpu.index(n // panel), cpu.index(n // panel * panel), _widths(n % panel, lanes)
            )
    op.erase()


@register_pass
@dataclass(frozen=True)
class LowerGemmPass(Pass):
    """Lowers every tile.gemm to register-tiled vector.fma loops."""

    argument = "tile-lower-gemm"
    anchor = "func.func"
    summary = "Lower tile.gemm to register-tiled vector code (cpu)"

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            for gemm in cpu.collect(op, "tile.gemm"):
                lower_gemm(gemm)
