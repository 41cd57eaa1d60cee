"""tilelang-ascend's online softmax (examples/softmax/example_online_softmax.py: `as (cid,
vid)`, each AIV on half of a block of rows in T.alloc_ub tiles, a first pass of running
max and sum over column blocks read with `pad_value=-inf`, a second of exp and divide,
`T.tile.cast` to f32 and back for half dtypes, `T.func_attr({"enable_auto_sync": True})`)
on cpu and both NPU profiles against numpy, with the example's ragged shape (34 x 130 in
32 x 32 blocks) and dtypes. Then `T.func_attr`'s meaning where it changes something: a
T.Scope program without flags of its author (tilelang-ascend's README vec_add), which
tilec synchronizes only when asked."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from tla_expert_ports import compiled, load

import tilec
import tilec.language as T
from tilec.sim.diagnostics import SimError

DTYPES = {"float": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}
TOLERANCE = {"float": 1e-5, "float16": 1e-2, "bfloat16": 2e-2}


def _softmax(a: np.ndarray) -> np.ndarray:
    x = a.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("profile", ["cpu", "910b", "950"])
@pytest.mark.parametrize(("M", "N", "block_M", "block_N", "dtype"), [
    (34, 130, 32, 32, "float"),
    (34, 130, 32, 32, "float16"),
    (34, 130, 32, 32, "bfloat16"),
    (64, 200, 32, 64, "float"),
])
def test_online_softmax_matches_numpy(profile, M, N, block_M, block_N, dtype, monkeypatch,
                                      tmp_path):
    port, _ = load("online_softmax", profile, monkeypatch, tmp_path)
    # a row of large negatives: the -inf padding of its ragged last block must not win
    a = np.random.default_rng(0).standard_normal((M, N)) * 3
    a[1] -= 50
    a = a.astype(DTYPES[dtype])
    func = port.online_softmax(M, N, block_M, block_N, dtype=dtype)
    b = func(a)
    np.testing.assert_allclose(b.astype(np.float32), _softmax(a), rtol=TOLERANCE[dtype],
                               atol=TOLERANCE[dtype])
    if profile == "cpu":
        return
    kernel = compiled(func)
    report = kernel.report()
    assert report.core_kind == "aiv" and not report.races and report.pipe_all_barriers == 0
    source = kernel.source()
    assert "__global__ __aicore__ void main_(GM_ADDR A, GM_ADDR B)" in source
    assert "Exp(" in source and "ReduceMax(" in source
    if dtype == "float16":  # the example's CAST_MODE_HIGH2LOW back to half
        assert "RoundMode::CAST_RINT" in source


def _vec_add(auto_sync: bool, M: int = 64, N: int = 64, block_M: int = 32, block_N: int = 64):
    """tilelang-ascend's README example of T.func_attr: a T.Scope("V") program per AIV
    whose author wrote no flags."""
    m_num, n_num, VEC_NUM = M // block_M, N // block_N, 2

    @T.prim_func
    def main(A: T.Tensor((M, N), "float"), B: T.Tensor((M, N), "float"),
             C: T.Tensor((M, N), "float")):
        T.func_attr({"enable_auto_sync": auto_sync})
        with T.Kernel(m_num * n_num, is_npu=True) as (cid, vid):
            bx = cid // n_num
            by = cid % n_num
            a_ub = T.alloc_ub((block_M // VEC_NUM, block_N), "float")
            b_ub = T.alloc_ub((block_M // VEC_NUM, block_N), "float")
            c_ub = T.alloc_ub((block_M // VEC_NUM, block_N), "float")
            with T.Scope("V"):
                T.copy(A[bx * block_M + vid * block_M // VEC_NUM, by * block_N], a_ub)
                T.copy(B[bx * block_M + vid * block_M // VEC_NUM, by * block_N], b_ub)
                T.tile.add(c_ub, a_ub, b_ub)
                T.copy(c_ub, C[bx * block_M + vid * block_M // VEC_NUM, by * block_N])

    return main


@pytest.mark.parametrize("profile", ["910b", "950"])
def test_func_attr_enable_auto_sync_synchronizes_a_scoped_kernel(profile):
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal((64, 64)).astype(np.float32) for _ in range(2))
    kernel = tilec.compile(_vec_add(True), target=f"ascend:{profile}", out_idx=[2])
    np.testing.assert_allclose(kernel(a, b), a + b, rtol=1e-6)
    assert kernel.report().sync_counts["set_flag"] > 0
    # without it the author's (absent) flags are kept: the add reads what MTE2 still loads
    with pytest.raises(SimError, match="race"):
        tilec.compile(_vec_add(False), target=f"ascend:{profile}", out_idx=[2])(a, b)


def test_func_attr_takes_tilelang_ascends_attribute_only():
    @T.prim_func
    def main(A: T.Tensor((8,), "float")):
        T.func_attr({"tir.noalias": True})
        with T.Kernel(1, is_npu=True) as (_cid, _vid):
            a = T.alloc_ub((8,), "float")
            T.copy(A, a)

    with pytest.raises(T.DSLError, match=r"T.func_attr: unknown attribute 'tir.noalias'; "
                                          r"tilec takes 'enable_auto_sync'") as caught:
        tilec.compile(main, target="ascend:910b")
    lines = Path(__file__).read_text().splitlines()
    assert lines[caught.value.loc.line - 1].strip() == 'T.func_attr({"tir.noalias": True})'
