"""The double-buffered vector add: numerics, races, deadlocks and cycles."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from sim_helpers import location, position, race_pairs, read_input, without_lines

from tilec.sim import get_profile, simulate

NAME = "vadd.mlir"


def run(text: str, n: int, block_dim: int, **options):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    result = simulate(text, {"x": x, "y": y, "z": np.zeros(n, np.float32), "n": n},
                      block_dim=block_dim, source_name=NAME, **options)
    return result, x + y


@pytest.mark.parametrize(("n", "block_dim"), [(512, 1), (1000, 1), (4096, 4), (3000, 8)])
def test_numerics_match_numpy_and_no_race(n: int, block_dim: int) -> None:
    result, expected = run(read_input("vadd-double-buffer.mlir"), n, block_dim)
    assert result.ok, "\n".join(d.render() for d in result.diagnostics)
    np.testing.assert_array_equal(result["z"], expected)


def test_removing_one_flag_is_a_race_at_the_copies_and_the_add() -> None:
    text = without_lines(read_input("vadd-double-buffer.mlir"),
                         "ascend.set_flag mte2 -> v, 0", "ascend.wait_flag mte2 -> v, 0")
    result, _ = run(text, 512, 1)
    assert not result.deadlocks and not result.errors
    add = location(NAME, text, "ascend.vbin add %z0, %x0, %y0")
    # The add reads x0 and y0 with nothing ordering it after their loads.
    assert race_pairs(result) == {
        frozenset((add, location(NAME, text, "ascend.copy %x[%off0], %x0"))),
        frozenset((add, location(NAME, text, "ascend.copy %y[%off0], %y0"))),
    }
    for race in result.races:
        assert "no flag, barrier or cross-core sync orders them" in race.message
        assert "on V of block 0 aiv0" in race.message
        assert "on MTE2 of block 0 aiv0" in race.message
    x0_bytes = "ub of block 0 aiv0, bytes [0, 1024) (memref<2x256xf32, #ascend.mem<ub>>"
    assert any(x0_bytes in race.message for race in result.races)


def test_wait_without_set_is_a_deadlock_at_that_wait() -> None:
    text = read_input("vadd-double-buffer.mlir").replace(
        "  ascend.set_flag mte3 -> v, 1\n",
        "  ascend.set_flag mte3 -> v, 1\n  ascend.wait_flag mte3 -> v, 2\n", 1)
    result, _ = run(text, 512, 1)
    assert not result.races
    assert len(result.deadlocks) == 1
    deadlock = result.deadlocks[0]
    wait = location(NAME, text, "ascend.wait_flag mte3 -> v, 2")
    assert position(deadlock) == wait
    assert deadlock.message.startswith(
        "deadlock: ascend.wait_flag mte3 -> v, 2 on V of block 0 aiv0 waits for flag "
        "mte3 -> v, 2, which is never set")
    states = [n.message for n in deadlock.notes]
    assert any(m.startswith("block 0 aiv0 V: blocked at ascend.wait_flag mte3 -> v, 2 since "
                            "cycle 0") for m in states)
    for pipe in ("MTE2", "MTE3"):
        assert any(m.startswith(f"block 0 aiv0 {pipe}: ") for m in states)
    assert "block 0 aiv0: S finished issuing" in states


def test_missing_initial_set_is_reported_as_a_cycle_of_waits() -> None:
    text = read_input("vadd-double-buffer.mlir")
    lines = text.split("\n")
    first_set = next(i for i, line in enumerate(lines)
                     if line.strip() == "ascend.set_flag v -> mte2, 1")
    del lines[first_set]
    text = "\n".join(lines)
    result, _ = run(text, 512, 1)
    assert len(result.deadlocks) == 1
    deadlock = result.deadlocks[0]
    assert position(deadlock) == location(
        NAME, text, "ascend.wait_flag v -> mte2, 1")
    assert "which is set only after ascend.wait_flag mte2 -> v, 1 on V of block 0 aiv0" \
        in deadlock.message


def test_setting_a_set_flag_is_an_error() -> None:
    text = read_input("vadd-double-buffer.mlir").replace(
        "  ascend.set_flag v -> mte2, 1\n",
        "  ascend.set_flag v -> mte2, 1\n  ascend.set_flag v -> mte2, 1\n", 1)
    result, _ = run(text, 512, 1)
    assert len(result.errors) == 1
    error = result.errors[0]
    assert error.message == ("ascend.set_flag v -> mte2, 1 on block 0 aiv0 sets flag "
                             "v -> mte2, 1 that is already set (the hardware may hang)")
    first = location(NAME, text, "ascend.set_flag v -> mte2, 1")
    second = location(NAME, text, "ascend.set_flag v -> mte2, 1", 2)
    assert position(error) == second
    assert position(error.notes[0]) == first


@pytest.mark.parametrize("profile", [
    get_profile("910b"),
    dataclasses.replace(get_profile("910b"), hbm_bytes_per_cycle=16,
                        l2_write_bytes_per_cycle=64,
                        startup_cycles={**get_profile("910b").startup_cycles,
                                        "mte2": 100, "v": 10, "mte3": 50}),
])
def test_cycles_match_the_hand_calculation(profile) -> None:
    """One pair of 256-element chunks on one core (n = 512). MTE2 loads x0,
    y0, x1, y1 back to back (each 1 KiB, first touch: HBM); V adds chunk 0
    when x0, y0 are in and chunk 1 when x1, y1 are; MTE3 stores chunk 1 after
    its add. Total = 4 loads + 1 add + 1 store."""
    result, _ = run(read_input("vadd-double-buffer.mlir"), 512, 1, profile=profile)
    chunk = 256 * 4
    load = profile.startup_cycles["mte2"] + math.ceil(chunk / profile.hbm_bytes_per_cycle)
    add = profile.startup_cycles["v"] + chunk // profile.vector_bytes_per_repeat
    store = profile.startup_cycles["mte3"] + math.ceil(chunk / profile.l2_write_bytes_per_cycle)
    assert result.cycles == 4 * load + add + store
    assert result.pipe_busy["MTE2"] == 4 * load
    assert result.pipe_busy["V"] == 2 * add
    assert result.pipe_busy["MTE3"] == 2 * store
    assert result.bandwidth["gm->ub"].bytes == 4 * chunk
    assert result.bandwidth["ub->gm"].bytes == 2 * chunk
    assert result.vector_utilization == pytest.approx(2 * add / result.cycles)
