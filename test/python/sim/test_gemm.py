"""GEMM on the cube path: ND->NZ loads, fractal L0 operands, mmad, NZ->ND fixpipe."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from sim_helpers import location, position, race_pairs, read_input, without_lines

from tilec.sim import get_profile, simulate

NAME = "gemm.mlir"


def operands(m: int, n: int, k: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((m, k)).astype(np.float16),
            rng.standard_normal((k, n)).astype(np.float16))


def reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a.astype(np.float32) @ b.astype(np.float32)


def run_tile(text: str, **options):
    a, b = operands(64, 48, 32)
    result = simulate(text, [a, b, np.zeros((64, 48), np.float32)], source_name=NAME, **options)
    return result, reference(a, b)


def test_tile_numerics_match_numpy_and_no_race() -> None:
    result, expected = run_tile(read_input("gemm-tile.mlir"))
    assert result.ok, "\n".join(d.render() for d in result.diagnostics)
    np.testing.assert_allclose(result["c"], expected, rtol=1e-6, atol=1e-5)
    assert result.macs == 64 * 48 * 32


def test_removing_the_mmad_to_fixpipe_flag_is_a_race_on_l0c() -> None:
    text = without_lines(read_input("gemm-tile.mlir"),
                         "ascend.set_flag m -> fix, 0", "ascend.wait_flag m -> fix, 0")
    result, _ = run_tile(text)
    assert not result.deadlocks
    assert race_pairs(result) == {frozenset((location(NAME, text, "ascend.mmad"),
                                             location(NAME, text, "ascend.fixpipe")))}
    message = result.races[0].message
    assert "l0c of block 0 aic, bytes [0, " in message
    assert "on M of block 0 aic" in message and "on FIX of block 0 aic" in message


def test_removing_the_load_to_mmad_flag_is_a_race_on_l0a_and_l0b() -> None:
    text = without_lines(read_input("gemm-tile.mlir"),
                         "ascend.set_flag mte1 -> m, 0", "ascend.wait_flag mte1 -> m, 0")
    result, _ = run_tile(text)
    mmad = location(NAME, text, "ascend.mmad")
    assert race_pairs(result) == {
        frozenset((mmad, location(NAME, text, "ascend.load_l0a"))),
        frozenset((mmad, location(NAME, text, "ascend.load_l0b"))),
    }


def test_wait_without_set_is_a_deadlock() -> None:
    text = read_input("gemm-tile.mlir").replace(
        "  ascend.wait_flag mte1 -> m, 0\n",
        "  ascend.wait_flag mte1 -> m, 0\n  ascend.wait_flag fix -> m, 5\n", 1)
    result, _ = run_tile(text)
    assert not result.races
    [deadlock] = result.deadlocks
    assert position(deadlock) == location(NAME, text, "ascend.wait_flag fix -> m, 5")
    assert deadlock.message == ("deadlock: ascend.wait_flag fix -> m, 5 on M of block 0 aic "
                                "waits for flag fix -> m, 5, which is never set")
    states = "\n".join(n.message for n in deadlock.notes)
    assert "block 0 aic M: blocked at ascend.wait_flag fix -> m, 5" in states
    assert "block 0 aic FIX: blocked at ascend.wait_flag m -> fix, 0" in states


def test_tile_cycles_match_the_hand_calculation() -> None:
    """Every step waits for the previous one: MTE2 loads A then B (first touch,
    HBM), MTE1 loads L0A then L0B, M runs one mmad, FIX drains L0C to GM."""
    p = get_profile("910b")
    result, _ = run_tile(read_input("gemm-tile.mlir"), profile=p)
    start = p.startup_cycles
    a_bytes, b_bytes, c_bytes = 64 * 32 * 2, 32 * 48 * 2, 64 * 48 * 4
    mte2 = 2 * start["mte2"] + math.ceil(a_bytes / p.hbm_bytes_per_cycle) + math.ceil(
        b_bytes / p.hbm_bytes_per_cycle)
    mte1 = (2 * start["mte1"] + math.ceil(a_bytes / p.bandwidth["l1->l0a"])
            + math.ceil(b_bytes / p.bandwidth["l1->l0b"]))
    cube = start["m"] + math.ceil(64 * 48 * 32 / p.cube_macs_per_cycle["f16"])
    fix = start["fix"] + math.ceil(c_bytes / p.l2_write_bytes_per_cycle)
    assert result.cycles == mte2 + mte1 + cube + fix == 631
    assert result.pipe_busy == {"S": 0, "V": 0, "M": cube, "MTE1": mte1, "MTE2": mte2,
                                "MTE3": 0, "FIX": fix}
    assert result.cube_utilization == pytest.approx(cube / result.cycles)


@pytest.mark.parametrize(("m", "n", "k", "block_dim"),
                         [(128, 128, 128, 1), (200, 300, 256, 4), (256, 256, 256, 4)])
def test_double_buffered_gemm_over_the_grid(m: int, n: int, k: int, block_dim: int) -> None:
    a, b = operands(m, n, k)
    result = simulate(read_input("gemm-double-buffer.mlir"),
                      [a, b, np.zeros((m, n), np.float32), m, n, k], block_dim=block_dim)
    assert result.ok, "\n".join(d.render() for d in result.diagnostics)
    np.testing.assert_allclose(result["c"], reference(a, b), rtol=1e-5, atol=1e-4)


def test_second_read_of_the_same_tile_hits_l2() -> None:
    """Two blocks reading the same B tile: the later read is served by L2."""
    a, b = operands(256, 128, 128)
    one = simulate(read_input("gemm-double-buffer.mlir"),
                   [a[:128], b, np.zeros((128, 128), np.float32), 128, 128, 128])
    two = simulate(read_input("gemm-double-buffer.mlir"),
                   [a, b, np.zeros((256, 128), np.float32), 256, 128, 128], block_dim=2)
    busy_one, busy_two = one.pipe_busy["MTE2"], two.pipe_busy["MTE2"]
    assert busy_one < busy_two < 2 * busy_one


@pytest.mark.slow
def test_gemm_1024_cubed_over_the_whole_grid_is_fast() -> None:
    m = n = k = 1024
    a, b = operands(m, n, k)
    start = time.perf_counter()
    result = simulate(read_input("gemm-double-buffer.mlir"),
                      [a, b, np.zeros((m, n), np.float32), m, n, k], block_dim=24)
    elapsed = time.perf_counter() - start
    print(f"\n1024^3 GEMM on 24 cores: simulated in {elapsed:.2f} s, {result.cycles} cycles, "
          f"cube utilization {100 * result.cube_utilization:.1f}%")
    assert result.ok
    np.testing.assert_allclose(result["c"], reference(a, b), rtol=1e-4, atol=1e-3)
    assert elapsed < 60
