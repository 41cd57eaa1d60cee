"""Which LoadDataWithTranspose calls turn an Nz L1 tile of 8-bit elements, or a Zz L1
tile of 32-bit ones, into the transposed L0 tile (pure plans, checked against a model
of the instruction)."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from tilec.diagnostics import error


@dataclass(frozen=True)
class TransposedLoad:
    """One LoadDataWithTranspose (arch 2201 units): `repeats` squares of two fractals (8-bit:
    32x32, two Nz fractals one above the other in L1; 32-bit: 16x16, two Zz fractals side
    by side, see `Cube.square_loads`), each transposed into two
    fractals of L0 `dst_frac_gap` fractals apart; squares `src_stride` apart in L1,
    their first fractals `dst_gap + 1` apart in L0."""

    dst_fractal: int
    start: int
    repeats: int
    src_stride: int
    dst_gap: int
    dst_frac_gap: int


def transposed_8bit_loads(target: str, src_grid: list[int], dst_grid: list[int],
                          location: ir.Location | None = None,
                          block_stride: int | None = None) -> list[TransposedLoad]:
    """The loads that turn an Nz L1 tile of 8-bit elements (`src_grid`: column blocks
    of 32 x row blocks of 16, column blocks `block_stride` fractals apart: by default
    the tile's own height, more for a view of a taller tile) into the transposed L0
    tile: L0B's Zn (`dst_grid`: K/32 x N/16) from B, or L0A's Zz (M/16 x K/32) from the
    transpose of A that L1 holds. Square (c, t) covers L1 rows 32t.. and columns 32c..;
    its transpose is the two L0 fractals of rows 32c.. and 32c + 16.., columns 32t.."""
    col_blocks, row_blocks = src_grid
    outer, inner = dst_grid  # (k1, n1) for L0B, (m1, k1) for L0A
    squares_down, squares_across = (outer, inner // 2) if target == "l0b" else (inner,
                                                                                outer // 2)
    if row_blocks % 2 or row_blocks < 2 * squares_down or col_blocks < squares_across or \
            (inner if target == "l0b" else outer) % 2:
        raise error(f"LoadDataWithTranspose moves 32x32 squares of 8-bit elements: an L1 "
                    f"tile of {row_blocks} x {col_blocks} fractals does not give the "
                    f"{dst_grid[0]} x {dst_grid[1]} fractals of {target.upper()} in whole "
                    "squares", location)
    if block_stride is not None and block_stride % 2:
        raise error(f"LoadDataWithTranspose moves 32x32 squares of 8-bit elements: L1 column "
                    f"blocks {block_stride} fractals apart do not hold whole squares", location)
    half = (row_blocks if block_stride is None else block_stride) // 2  # squares per block
    if target == "l0b":  # one call per K step of 32: across N, two fractals per square
        return [TransposedLoad(t * inner, t, squares_across, half, 1, 0)
                for t in range(squares_down)]
    # L0A: one call per pair of M fractals, down K; the pair lies k1 fractals apart
    return [TransposedLoad(2 * c * inner, c * half, squares_down, 1, 0, inner - 1)
            for c in range(squares_across)]


def transposed_32bit_loads(target: str, src_grid: list[int], src_row: int,
                           dst_grid: list[int], dst_row: int,
                           location: ir.Location | None = None) -> list[TransposedLoad]:
    """The loads that turn a Zz L1 tile of 32-bit elements (`src_grid`: row blocks of 16 x
    column blocks of 8, `src_row` fractals from one row block to the next) into the
    transposed L0 tile: L0B's Zn (`dst_grid`: K/8 x N/16) from B (K x N), or L0A's Zz
    (M/16 x K/8) from Aᵀ (K x M); `dst_row` fractals from one L0 row to the next.

    Two fractals side by side, L1 rows 16r.. and columns 16j.., are a 16 x 16 square
    (square r * src_row / 2 + j); its transpose splits into the fractal of its first 8
    columns and the one of its last 8: K fractals 2r and 2r + 1 of N block j in L0B, of
    M block j in L0A. One call per row block, its repeats across the squares of the row."""
    rows, cols = src_grid
    across, down = (dst_grid[1], dst_grid[0]) if target == "l0b" else dst_grid
    if cols % 2 or src_row < cols or src_row % 2 or across != cols // 2 or \
            down != 2 * rows or dst_row < dst_grid[1]:
        raise error(f"LoadDataWithTranspose moves 16x16 squares of 32-bit elements: a Zz L1 "
                    f"tile of {rows} x {cols} fractals does not give the {dst_grid[0]} x "
                    f"{dst_grid[1]} fractals of {target.upper()} in whole squares", location)
    squares = src_row // 2
    if target == "l0b":  # square (r, j) -> Zn fractals (2r, j) and (2r + 1, j)
        return [TransposedLoad(2 * r * dst_row, r * squares, across, 1, 0, dst_row - 1)
                for r in range(rows)]
    # square (r, j) -> Zz fractals (j, 2r) and (j, 2r + 1), M blocks `dst_row` apart
    return [TransposedLoad(2 * r, r * squares, across, 1, dst_row - 1, 0) for r in range(rows)]
