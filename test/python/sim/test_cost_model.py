"""The GM transfer cost: HBM for lines L2 does not hold, L2 for the rest, and the
burst-efficiency penalty for rows that are not whole 512-byte bursts."""

from __future__ import annotations

import math

import numpy as np

from tilec.sim import get_profile, simulate

P = get_profile("910b")
GM1 = "memref<1024xf32, #ascend.mem<gm>>"
GM2 = "memref<8x128xf32, #ascend.mem<gm>>"
UB1 = "memref<256xf32, #ascend.mem<ub>>"
UB2 = "memref<8x64xf32, #ascend.mem<ub>>"


def mte2_busy(copies: list[str]) -> int:
    """MTE2 busy cycles (barriers not counted) of a kernel that runs `copies` (GM -> UB)
    one after the other."""
    # each copy rewrites %u or %v: a barrier orders it after the one before (same pipe)
    body = "\n  ascend.pipe_barrier mte2\n".join(f"  {copy}" for copy in copies)
    text = f"""
func.func @loads(%x: {GM1}, %y: {GM2}) attributes {{ascend.kernel = #ascend.core<aiv>}} {{
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %u = memref.alloc() : {UB1}
  %v = memref.alloc() : {UB2}
{body}
  return
}}
"""
    result = simulate(text, [np.zeros(1024, np.float32), np.zeros((8, 128), np.float32)])
    assert result.ok
    return result.pipe_busy["MTE2"]


FIRST = f"ascend.copy %x[%c0], %u[%c0] sizes [256] : {GM1}, {UB1}"
SHIFTED = f"ascend.copy %x[%c8], %u[%c0] sizes [256] : {GM1}, {UB1}"
ROWS = f"ascend.copy %y[%c0, %c0], %v[%c0, %c0] sizes [8, 64] : {GM2}, {UB2}"


def cold(nbytes: float) -> int:
    return P.startup_cycles["mte2"] + math.ceil(nbytes / P.hbm_bytes_per_cycle)


def test_first_read_comes_from_hbm_and_the_second_from_l2() -> None:
    assert mte2_busy([FIRST]) == cold(1024)
    assert mte2_busy([FIRST, FIRST]) == cold(1024) + P.startup_cycles["mte2"] + math.ceil(
        1024 / P.l2_read_bytes_per_cycle)


def test_a_read_off_the_burst_boundary_is_slower_and_partly_cached() -> None:
    """Shifted by 32 bytes, 1 KiB spans three 512-byte lines, two of them cached."""
    nbytes = 1024 / P.dma_unaligned_efficiency
    shifted = P.startup_cycles["mte2"] + math.ceil(
        nbytes / 3 / P.hbm_bytes_per_cycle + nbytes * 2 / 3 / P.l2_read_bytes_per_cycle)
    assert mte2_busy([FIRST, SHIFTED]) == cold(1024) + shifted


def test_rows_shorter_than_a_burst_are_slower() -> None:
    """8 rows of 256 bytes (a 8x64 tile of an 8x128 f32 matrix)."""
    assert mte2_busy([ROWS]) == cold(8 * 256 / P.dma_unaligned_efficiency)
