"""tilelang-ascend's expert element-wise add with the author's double buffering
(examples/elementwise/elementwise_add_pipeline.py: two UB slots per tile, MTE2 -> V,
V -> MTE3 and MTE3 -> MTE2 flags per slot, and copies that start at a point of the
tensor, `T.copy(A[r, c], a_ub[s, :, :])`, spanning the slot) on cpu and both NPU
profiles against numpy; a deleted wait is a race at the author's lines."""

from __future__ import annotations

import numpy as np
import pytest
from tla_expert_ports import line_of, load

import tilec
import tilec.language as T
from tilec.language import DSLError
from tilec.sim import SimError

NAME = "elementwise_add_pipeline"


def _run(port, M=256, N=256):
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((M, N)).astype(np.float32) for _ in range(2))
    np.testing.assert_array_equal(port.vec_add_pipeline(M, N, 128, 128, 32)(a, b), a + b)


@pytest.mark.parametrize("profile", ["cpu", "910b", "950"])
def test_the_authors_pipeline_matches_numpy(profile, monkeypatch, tmp_path):
    port, _ = load(NAME, profile, monkeypatch, tmp_path)
    _run(port)


def test_a_deleted_wait_is_a_race_at_the_authors_lines(monkeypatch, tmp_path):
    """Without the V core's wait for the loads, the add reads a slot the MTE2 is still
    filling, and the next load's flag is set again while the first is still set."""
    port, path = load(NAME, "910b", monkeypatch, tmp_path,
                      ((r'T\.wait_flag\("mte2", "v", cur\)', 0, ""),))
    with pytest.raises(SimError) as caught:
        _run(port)
    found = caught.value.diagnostics
    add = line_of(path, r"for \(i, j\) in T\.Parallel")
    race = next(d for d in found if d.message.startswith("race (read-after-write)"))
    assert race.line == add and "written by ascend.copy gm -> ub on MTE2" in race.message
    again = line_of(path, r'T\.set_flag\("mte2", "v", nxt\)')
    assert any(d.line == again and "sets flag mte2 -> v, 0 that is already set" in d.message
               for d in found)


def test_a_copy_from_a_point_spans_the_other_side():
    """`T.copy(A[r, c], t[s, :, :])`: A's region is where the copy starts, its extent the
    slot's (2 x 4); the same from a point of a tile into a region of a tensor."""

    @T.prim_func
    def main(A: T.Tensor((4, 8), "float32"), C: T.Tensor((4, 8), "float32")):
        with T.Kernel(1) as _:
            t = T.alloc_shared((2, 2, 4), "float32")
            T.copy(A[2, 4], t[1, :, :])
            T.copy(t[1, 0, 0], C[0:2, 0:4])

    a = np.arange(32, dtype=np.float32).reshape(4, 8)
    c = np.zeros_like(a)
    tilec.compile(main, target="cpu")(a, c)
    expected = np.zeros_like(a)
    expected[0:2, 0:4] = a[2:4, 4:8]
    np.testing.assert_array_equal(c, expected)


def test_a_point_start_of_too_few_dims_is_located():
    @T.prim_func
    def main(A: T.Tensor((64,), "float32")):
        with T.Kernel(1) as _:
            t = T.alloc_shared((2, 4, 8), "float32")
            T.copy(A[0], t[:, :, :])  # start

    with pytest.raises(DSLError, match=r"T.copy: the copy starts at a point of 'A', which has "
                                       r"1 dims, but the other side spans 3 dims") as caught:
        main.ir()
    assert caught.value.loc.file == __file__
