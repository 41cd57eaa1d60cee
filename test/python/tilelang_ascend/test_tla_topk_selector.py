"""tilelang-ascend's top-k selector (examples/topk_selector/example_topk_selector.py: `as
(cid, vid)`, one row per AIV, the row gathered block by block into one UB tile with
scalar stores, T.tile.topk, T.tile.gather_mask "P1010" for the indices, T.tile.cast with
CAST_ROUND to int32) on cpu and both NPU profiles against numpy: a top-k of 32 out of 256
and one of 20 out of 200 read in blocks of 5 (neither a whole number of 32-byte blocks).
With an odd number of rows the example's own `% B` makes the last AIV select row 0 again,
and both write it: the simulator reports that race at the example's store."""

from __future__ import annotations

import re

import numpy as np
import pytest
from tla_expert_ports import compiled, line_of, load

from tilec.sim.diagnostics import SimError


def _distinct_rows(B: int, N: int) -> np.ndarray:
    """Scores without ties, so the top-k indices are one set."""
    return np.random.default_rng(0).permutation(B * N).reshape(B, N).astype(np.float32)


@pytest.mark.parametrize("profile", ["cpu", "910b", "950"])
@pytest.mark.parametrize(("B", "N", "top_k"), [(8, 256, 32), (6, 200, 20)])
def test_topk_selector_matches_numpy(profile, B, N, top_k, monkeypatch, tmp_path):
    port, _ = load("topk_selector", profile, monkeypatch, tmp_path)
    x = _distinct_rows(B, N)
    func = port.simple_topk_selector(B, N, top_k, top_k // 4)  # the example's block_N
    indices = func(x)
    assert indices.dtype == np.int32
    expected = np.argsort(-x, axis=1)[:, :top_k]
    np.testing.assert_array_equal(np.sort(indices, axis=1), np.sort(expected, axis=1))
    if profile == "cpu":
        return
    kernel = compiled(func)
    assert kernel.report().core_kind == "aiv"
    source = kernel.source()
    assert "__global__ __aicore__ void main_(GM_ADDR x, GM_ADDR indices)" in source
    # the float indices picked out of the (value, index) pairs, cast to int32 at the end
    assert re.search(rf"Cast\(t\d+, t\d+, RoundMode::CAST_TRUNC, {top_k}\);", source)


def test_an_odd_number_of_rows_is_the_examples_race(monkeypatch, tmp_path):
    port, path = load("topk_selector", "910b", monkeypatch, tmp_path)
    func = port.simple_topk_selector(5, 64, 8, 2)
    with pytest.raises(SimError, match=r"race \(write-after-write\): ascend.copy ub -> gm on "
                                       r"MTE3 of block 5 aiv1 writes argument %indices, bytes "
                                       r"\[0, 32\) written by ascend.copy ub -> gm on MTE3 of "
                                       r"block 0 aiv0") as caught:
        func(_distinct_rows(5, 64))
    assert caught.value.diagnostics[0].line == line_of(path, r"T.copy\(output_index, indices")
