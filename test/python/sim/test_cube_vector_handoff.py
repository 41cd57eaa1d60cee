"""A mix kernel: the AIC computes A x B into a GM workspace, both AIVs finish relu(ws + bias)."""

from __future__ import annotations

import numpy as np
import pytest
from sim_helpers import location, position, race_pairs, read_input, without_lines

from tilec.sim import simulate

NAME = "handoff.mlir"


def run(text: str, m: int, **options):
    rng = np.random.default_rng(m)
    a = rng.standard_normal((m, 32)).astype(np.float16)
    b = rng.standard_normal((32, 64)).astype(np.float16)
    bias = rng.standard_normal(64).astype(np.float32)
    workspace = np.zeros((m, 64), np.float32)
    result = simulate(text, [a, b, bias, workspace, np.zeros((m, 64), np.float32)],
                      block_dim=-(-m // 64), source_name=NAME, **options)
    expected = np.maximum(a.astype(np.float32) @ b.astype(np.float32) + bias, 0)
    return result, expected


@pytest.mark.parametrize("m", [64, 150, 256])
def test_numerics_match_numpy_and_no_race(m: int) -> None:
    result, expected = run(read_input("cube-vector-handoff.mlir"), m)
    assert result.ok, "\n".join(d.render() for d in result.diagnostics)
    np.testing.assert_allclose(result["out"], expected, rtol=1e-5, atol=1e-5)
    assert result.core_count == 3 * -(-m // 64)
    assert result.cube_utilization > 0 and result.vector_utilization > 0


def test_without_the_cross_core_wait_the_workspace_is_raced() -> None:
    text = without_lines(read_input("cube-vector-handoff.mlir"),
                         "ascend.cross_core_wait_flag 0, mte2")
    result, expected = run(text, 64)
    assert race_pairs(result) == {frozenset((location(NAME, text, "ascend.fixpipe"),
                                             location(NAME, text, "ascend.copy %ws[")))}
    messages = "\n".join(race.message for race in result.races)
    assert "on FIX of block 0 aic" in messages
    assert "on MTE2 of block 0 aiv0" in messages and "argument %ws, bytes [" in messages
    # The vector cores read the workspace before the cube wrote it.
    assert not np.allclose(result["out"], expected)


def test_without_the_cross_core_set_the_vector_cores_deadlock() -> None:
    text = without_lines(read_input("cube-vector-handoff.mlir"),
                         "ascend.cross_core_set_flag mode 2, fix, 0")
    result, _ = run(text, 128)
    assert not result.races
    [deadlock] = result.deadlocks
    assert position(deadlock) == location(NAME, text, "ascend.cross_core_wait_flag 0, mte2")
    assert deadlock.message == (
        "deadlock: ascend.cross_core_wait_flag 0, mte2 on MTE2 of block 0 aiv0 (and on 3 more "
        "cores) waits for cross-core flag 0, which is never set")
