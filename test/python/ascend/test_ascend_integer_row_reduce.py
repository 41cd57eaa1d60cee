"""Max and min of i32 rows on the 910b, whose ReduceMax and ReduceMin take f16 and f32 only.

`vector_reduce.py` combines the row's columns one by one with the Max (Min) vector call,
which takes i32 on every profile: exact, where a conversion to f32 would round values above
2^24. Checked against numpy with values near 2^30 that differ in their lowest bit, on a
ragged number of rows, with `clear = False` folding the old result in."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as T


def int_row_reduce(M: int, N: int, kind: str, clear: bool, block_M: int = 16):
    """Out[m] = kind over X[m, :] (and Out[m] itself unless `clear`)."""
    reduce = {"max": T.reduce_max, "min": T.reduce_min}[kind]

    @T.prim_func
    def kernel(X: T.Tensor((M, N), "int32"), Out: T.Tensor((M,), "int32")):
        with T.Kernel(T.ceildiv(M, block_M)) as bx:
            x = T.alloc_fragment((block_M, N), "int32")
            r = T.alloc_fragment((block_M,), "int32")
            T.copy(X[bx * block_M, 0], x)
            if not clear:
                T.copy(Out[bx * block_M], r)
            reduce(x, r, dim=1, clear=clear)
            T.copy(r, Out[bx * block_M])

    return kernel


@pytest.mark.parametrize("profile", ["910b", "950"])
@pytest.mark.parametrize(("kind", "clear"), [("max", True), ("min", False)])
def test_i32_rows_reduce_exactly(profile, kind, clear):
    M, N = 37, 24
    kernel = tilec.compile(int_row_reduce(M, N, kind, clear), target="ascend", profile=profile)
    if profile == "910b":  # no ReduceMax/ReduceMin of i32 there: the columns, combined
        assert "ascend.vreduce" not in kernel.ir("ascend")
    rng = np.random.default_rng(6)
    x = (2**30 + rng.integers(-64, 64, (M, N))).astype(np.int32)  # not exact in f32
    x[::5] *= -1
    out = (2**30 + rng.integers(-64, 64, M)).astype(np.int32)
    reduce = np.max if kind == "max" else np.min
    expected = reduce(x, axis=1) if clear else reduce(np.c_[x, out], axis=1)
    kernel(x, out)
    np.testing.assert_array_equal(out, expected)
