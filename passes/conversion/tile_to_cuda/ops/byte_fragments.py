"""mma.sync m16n8k32 fragments of an 8-bit operand stored K-major, by plain shared loads.

A register of an 8-bit mma operand holds 4 consecutive k of one row of A
(column of B): a_i / b_i = k 4t .. 4t + 3 (+16 for the second half) at row
(column) g, with g = lane / 4, t = lane % 4. When the operand is stored with
K along its rows (A as K x M, `transpose_A`; B as K x N, not transposed),
those 4 bytes lie in 4 different rows, and `ldmatrix .trans` moves 16-bit
elements only: each register is gathered with 4 `ld.shared.u8` and packed.
That keeps the global -> shared copies plain `cp.async` chunks (a
transposing copy would go through registers and lose the asynchronous
pipeline), at 4 loads per register where ldmatrix needs one per 4 rows.

Bank conflicts: one load reads 8 consecutive bytes (one per g: two words)
of 4 rows, one per t. The rows of a register are 4t + j; with every lane
reading j = s at step s, rows 4t + s fall on only 2 distinct XOR-swizzle
phases (rows 8 apart share one), a 2-way conflict. So lanes with t >= 2
read row 4t + (s + 1) % 4 at step s: the 4 rows of one step hit 4 distinct
groups of 4 banks under the operand's swizzle (`Swizzle`, every row width
it makes), one wavefront per load. Their bytes land one place early, and
one rotate per register (by 8 bits, selected per lane) puts them back.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, vector

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_to_cuda.analysis.layouts import Tile


def _i32() -> ir.Type:
    return ir.IntegerType.get_signless(32)


def _constant(value: int) -> ir.Value:
    return arith.constant(_i32(), value)


class KMajorBytes:
    """Registers of an 8-bit operand stored K x L (rows along K) for one lane."""

    def __init__(self, tile: Tile, lane: ir.Value):
        self.tile = tile
        self.g = arith.divui(lane, irb.index(4))
        t = arith.remui(lane, irb.index(4))
        late = arith.divui(t, irb.index(2))  # 1 for t >= 2: rows one step later
        first = arith.muli(t, irb.index(4))
        # Row offset (from k0) that step s reads: 4t + (s + late) % 4.
        self.rows = [
            arith.addi(first, arith.remui(arith.addi(late, irb.index(s)), irb.index(4)))
            for s in range(4)
        ]
        self.rotate = arith.cmpi(arith.CmpIPredicate.ne, late, irb.index(0))

    def register(self, k0: int, col: ir.Value) -> ir.Value:
        """The i32 holding k0 + 4t .. k0 + 4t + 3 of column `col`, k0 + 4t in byte 0."""
        packed = None
        for s, row in enumerate(self.rows):
            byte = self.tile.load([arith.addi(irb.index(k0), row), col], None)
            word = arith.extui(_i32(), byte)
            if s:
                word = arith.shli(word, _constant(8 * s))
            packed = word if packed is None else arith.ori(packed, word)
        assert packed is not None
        rotated = arith.ori(arith.shli(packed, _constant(8)), arith.shrui(packed, _constant(24)))
        return arith.select(self.rotate, rotated, packed)

    def fragment(self, registers: list[ir.Value]) -> ir.Value:
        """`registers` as the vector<N x 4 x i8> mma operand (register r in row r)."""
        rows = ir.VectorType.get([len(registers), 4], self.tile.element)
        row = ir.VectorType.get([4], self.tile.element)
        fragment = irb.zero(rows)
        for r, register in enumerate(registers):
            word = vector.from_elements(ir.VectorType.get([1], _i32()), [register])
            fragment = vector.insert(vector.bitcast(row, word), fragment, [], [r])
        return fragment

    def column(self, start: ir.Value, offset: int) -> ir.Value:
        """Column start + offset + g: the row (of A) or column (of B) lane g holds."""
        return arith.addi(arith.addi(start, irb.index(offset)), self.g)
