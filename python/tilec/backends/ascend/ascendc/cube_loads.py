"""Which LoadDataWithTranspose calls turn an Nz L1 tile of 8-bit elements into the
transposed L0 tile (a pure plan, checked against a model of the instruction)."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from tilec.diagnostics import error


@dataclass(frozen=True)
class TransposedLoad:
    """One LoadDataWithTranspose of 8-bit fractals (arch 2201 units): `repeats` 32x32
    squares, each two Nz fractals one above the other in L1, transposed into two
    fractals of L0 `dst_frac_gap` fractals apart; squares `src_stride` apart in L1,
    their first fractals `dst_gap + 1` apart in L0."""

    dst_fractal: int
    start: int
    repeats: int
    src_stride: int
    dst_gap: int
    dst_frac_gap: int


def transposed_8bit_loads(target: str, src_grid: list[int], dst_grid: list[int],
                          location: ir.Location | None = None) -> list[TransposedLoad]:
    """The loads that turn an Nz L1 tile of 8-bit elements (`src_grid`: column blocks
    of 32 x row blocks of 16) into the transposed L0 tile: L0B's Zn (`dst_grid`: K/32 x
    N/16) from B, or L0A's Zz (M/16 x K/32) from the transpose of A that L1 holds.
    Square (c, t) covers L1 rows 32t.. and columns 32c..; its transpose is the two L0
    fractals of rows 32c.. and 32c + 16.., columns 32t.."""
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
    half = row_blocks // 2  # squares per column block of L1
    if target == "l0b":  # one call per K step of 32: across N, two fractals per square
        return [TransposedLoad(t * inner, t, squares_across, half, 1, 0)
                for t in range(squares_down)]
    # L0A: one call per pair of M fractals, down K; the pair lies k1 fractals apart
    return [TransposedLoad(2 * c * inner, c * half, squares_down, 1, 0, inner - 1)
            for c in range(squares_across)]
