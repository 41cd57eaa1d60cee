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

Operands whose element type is not the accumulation type (f16/bf16 -> f32,
i8 -> i32) are first converted into a scratch tile, once per gemm instead
of once per use; a transposed B is packed K x N the same way so its rows
load as vectors. A transposed A needs no packing: the micro-tile's rows
are then contiguous in memory.

Before:

    tile.gemm %a, %b, %c : memref<64x32xf32, ...>, memref<32x64xf32, ...>, memref<64x64xf32, ...>

After (one micro-tile, schematically):

    %acc = scf.for %k = %c0 to %c32 step %c1 iter_args(%c00 = ..., ...) -> (vector<8xf32>, ...) {
      %b0 = vector.load %b[%k, %j] : memref<32x64xf32, ...>, vector<8xf32>
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
    b: ir.Value
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


def _packed(op: ir.Operation, src: ir.Value, element: ir.Type, transpose: bool) -> ir.Value:
    """`src` converted to `element` (and transposed) in a scratch tile."""
    rows, cols = ir.MemRefType(src.type).shape
    shape = [cols, rows] if transpose else [rows, cols]
    dst = _scratch(op, shape, element)
    with cpu.loop_nest(shape) as (i, j):
        value = memref.load(src, [j, i] if transpose else [i, j])
        memref.store(cpu.convert(value, element), dst, [i, j])
    return dst


def _widths(columns: int, lanes: int) -> list[int]:
    return [lanes] * (columns // lanes) + ([columns % lanes] if columns % lanes else [])


def _micro_tile(g: _Gemm, i0: ir.Value, rows: int, j0: ir.Value, widths: list[int]) -> None:
    """C[i0:i0+rows, j0:j0+sum(widths)] (+)= A-rows * B-columns, in registers."""
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
                loaded = vector.load(
                    cpu.with_element(type_, c_element), g.c, [row_index[r], col_index[v]]
                )
                initial.append(cpu.convert(loaded, g.compute))
    k_loop = scf.ForOp(cpu.index(0), cpu.index(g.k), cpu.index(1), initial)
    with ir.InsertionPoint(k_loop.body):
        k = k_loop.induction_variable
        accumulators = list(k_loop.inner_iter_args)
        b_rows = [vector.load(t, g.b, [k, col_index[v]]) for v, t in enumerate(types)]
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


def _rows(g: _Gemm, j0: ir.Value, widths: list[int]) -> None:
    full = g.m // MICRO_ROWS * MICRO_ROWS
    if full:
        with cpu.loop(0, full, MICRO_ROWS) as i0:
            _micro_tile(g, i0, MICRO_ROWS, j0, widths)
    if g.m > full:
        _micro_tile(g, cpu.index(full), g.m - full, j0, widths)


def lower_gemm(op: ir.Operation) -> None:
    a, b, c = op.operands
    transpose_a = "transpose_a" in op.attributes
    transpose_b = "transpose_b" in op.attributes
    a_shape = _static_shape(op, a, "A")
    _static_shape(op, b, "B")
    m, n = _static_shape(op, c, "C")
    k = a_shape[0] if transpose_a else a_shape[1]
    c_type = ir.MemRefType(c.type)
    compute = _accumulation_type(c_type.element_type)
    if any(
        cpu.bit_width(ir.MemRefType(v.type).element_type) < 16
        and cpu.is_float(ir.MemRefType(v.type).element_type)
        for v in (a, b)
    ):
        raise emit_error(op, "8-bit float gemm operands are not supported on cpu")
    with ir.InsertionPoint(op), op.location:
        if ir.MemRefType(a.type).element_type != compute:
            a = _packed(op, a, compute, transpose=False)
        if ir.MemRefType(b.type).element_type != compute or transpose_b:
            b = _packed(op, b, compute, transpose=transpose_b)
        g = _Gemm(a, b, c, transpose_a, compute, m, n, k, "clear_accum" in op.attributes)
        lanes = cpu.lanes(compute)
        panel = lanes * MICRO_VECTORS
        full = n // panel * panel
        if full:
            with cpu.loop(0, full, panel) as j0:
                _rows(g, j0, [lanes] * MICRO_VECTORS)
        if n > full:
            _rows(g, cpu.index(full), _widths(n - full, lanes))
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
