"""`//` and `%` in a kernel are Python's (numpy's) floor division and its remainder, on
every integer and float dtype, on cpu: checked against numpy on values that make the
signs differ, on INT_MIN / -1, on run-time zero divisors (integers: both give 0, as
numpy and tile-cpu-guard-division define; floats: `x % 0` is NaN and `x // 0` is x / 0)
and on infinities and signed zeros."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilec
import tilec.language as T

RNG = np.random.default_rng(5)


def divmod_kernel(dtype: str):
    @T.prim_func
    def divmod_(
        A: T.Tensor((16,), dtype),
        B: T.Tensor((16,), dtype),
        Q: T.Tensor((16,), dtype),
        R: T.Tensor((16,), dtype),
    ):
        with T.Kernel(1, threads=1):
            for i in T.Parallel(16):
                Q[i] = A[i] // B[i]
                R[i] = A[i] % B[i]

    return tilec.compile(divmod_)


def run(dtype: str, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    q, r = np.full_like(a, 7), np.full_like(a, 7)
    divmod_kernel(dtype)(a, b, q, r)
    return q, r


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8", "uint32"])
def test_integer_floor_division_and_remainder(dtype):
    np_dtype = np.dtype(dtype)
    info = np.iinfo(np_dtype)
    a = RNG.integers(info.min, info.max, 16, dtype=np_dtype, endpoint=True)
    b = RNG.integers(-5 if info.min < 0 else 0, 6, 16).astype(np_dtype)
    a[:4] = [7, 0, info.max, info.min]
    b[:4] = 0  # run-time zero divisors
    if info.min < 0:
        a[4:8], b[4:8] = [info.min, -7, 7, -7], [-1, 3, -3, -3]
    q, r = run(dtype, a, b)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(q, np.floor_divide(a, b))
        np.testing.assert_array_equal(r, np.mod(a, b))
    np.testing.assert_array_equal(r[:4], 0)  # x % 0 is 0, like x // 0


FLOATS = {
    "float16": np.float16,
    "bfloat16": ml_dtypes.bfloat16,
    "float32": np.float32,
    "float64": np.float64,
}


@pytest.mark.parametrize("dtype", list(FLOATS))
def test_float_floor_division_and_remainder(dtype):
    inf = np.inf
    a = np.array([7, -7, 7, -7, 0, -0.0, 5.5, -5.5, 1, inf, 3, 3, 100, -1, 2, 6.25])
    b = np.array([3, 3, -3, -3, 3, 3, 2, 2, 0, 2, inf, -inf, 3, inf, -0.0, 0.5])
    a, b = a.astype(FLOATS[dtype]), b.astype(FLOATS[dtype])
    q, r = run(dtype, a, b)
    wide_a, wide_b = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(all="ignore"):
        expected_q = np.floor_divide(wide_a, wide_b).astype(a.dtype)
        expected_r = np.mod(wide_a, wide_b).astype(a.dtype)
    np.testing.assert_array_equal(q.astype(np.float64), expected_q.astype(np.float64))
    np.testing.assert_array_equal(r.astype(np.float64), expected_r.astype(np.float64))
    # The sign of a zero remainder is the divisor's, as in Python and numpy.
    np.testing.assert_array_equal(np.signbit(r.astype(np.float64)), np.signbit(expected_r))
    assert np.isnan(r[8].astype(np.float64)) and np.isinf(q[8].astype(np.float64))


def test_python_operators_on_a_symbolic_float_match_python():
    """`x % 2.0` and `x // 2.0` with a Python float on one side, as Python computes them."""

    @T.prim_func
    def k(A: T.Tensor((8,), "float32"), B: T.Tensor((8,), "float32")):
        with T.Kernel(1, threads=1):
            for i in T.Parallel(8):
                B[i] = A[i] % 2.5 + (-A[i]) // 2.0 * 100.0

    a = np.array([-6, -5, -1.5, 0, 1, 2.5, 4.75, 9], np.float32)
    b = np.zeros(8, np.float32)
    tilec.compile(k)(a, b)
    expected = [x % 2.5 + (-x) // 2.0 * 100.0 for x in a.tolist()]
    np.testing.assert_allclose(b, expected, rtol=1e-6)
