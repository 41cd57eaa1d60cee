"""tile.gemm end to end on the cpu: f32, f16 and bf16 inputs with f32
accumulation, transposes, on shapes that are and are not tile multiples."""

from __future__ import annotations

import cpu_tile_ir as tile_ir
import ml_dtypes
import numpy as np
import pytest

import tilec

pytestmark = pytest.mark.e2e

RNG = np.random.default_rng(0)


def _inputs(m, n, k, dtype, transpose_a=False, transpose_b=False):
    a = RNG.standard_normal((k, m) if transpose_a else (m, k)).astype(dtype)
    b = RNG.standard_normal((n, k) if transpose_b else (k, n)).astype(dtype)
    ref = (a.T if transpose_a else a).astype(np.float64) @ (b.T if transpose_b else b).astype(
        np.float64
    )
    return a, b, ref


@pytest.fixture(scope="module")
def gemm_f32():
    return tilec.compile(tile_ir.gemm(32, 32, 16))


@pytest.mark.parametrize(
    "m,n,k", [(64, 64, 32), (1, 1, 1), (37, 45, 19), (100, 33, 70), (5, 96, 48)]
)
def test_f32_any_shape(gemm_f32, m, n, k):
    a, b, ref = _inputs(m, n, k, np.float32)
    c = np.full((m, n), np.nan, np.float32)
    gemm_f32(a, b, c)
    np.testing.assert_allclose(c, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("transpose_a,transpose_b", [(True, False), (False, True), (True, True)])
def test_f16_inputs_accumulate_in_f32_with_transposes(transpose_a, transpose_b):
    kernel = tilec.compile(
        tile_ir.gemm(16, 24, 8, ab="f16", transpose_a=transpose_a, transpose_b=transpose_b)
    )
    m, n, k = 33, 50, 41
    a, b, ref = _inputs(m, n, k, np.float16, transpose_a, transpose_b)
    c = np.zeros((m, n), np.float32)
    kernel(a, b, c)
    # f16 products of f16 inputs are exact in f32: only the sum order differs.
    np.testing.assert_allclose(c, ref, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("target", ["cpu:avx2", "cpu:avx512"])
@pytest.mark.parametrize("bm,bn,bk", [(32, 40, 48), (16, 64, 64), (8, 20, 13)])
def test_f32_transposed_b_packed_by_register_transposes(target, bm, bn, bk):
    # Whole lanes x lanes blocks of B^T are transposed with shuffles, the lanes
    # and K rows past them element by element (bn = 20 or bk = 13 leave both).
    kernel = tilec.compile(tile_ir.gemm(bm, bn, bk, transpose_b=True), target=target)
    m, n, k = 2 * bm + 3, 2 * bn + 5, 3 * bk - 2
    a, b, ref = _inputs(m, n, k, np.float32, transpose_b=True)
    c = np.zeros((m, n), np.float32)
    kernel(a, b, c)
    np.testing.assert_allclose(c, ref, rtol=1e-4, atol=1e-4)


def test_bf16_inputs_and_f16_output():
    kernel = tilec.compile(tile_ir.gemm(16, 16, 16, ab="bf16", c="f16"))
    m, n, k = 20, 17, 30
    a, b, ref = _inputs(m, n, k, ml_dtypes.bfloat16)
    c = np.zeros((m, n), np.float16)
    kernel(a, b, c)
    np.testing.assert_allclose(c.astype(np.float32), ref, rtol=2e-2, atol=2e-2)


def test_accumulation_across_k_steps_is_not_cleared(gemm_f32):
    # k = 3 steps of 16: a clear per step would leave only the last step.
    a = np.ones((32, 48), np.float32)
    b = np.ones((48, 32), np.float32)
    c = np.zeros((32, 32), np.float32)
    gemm_f32(a, b, c)
    assert np.all(c == 48.0)


def test_int8_inputs_accumulate_in_int32():
    kernel = tilec.compile(tile_ir.gemm(12, 16, 8, ab="i8", c="i32", acc="i32"))
    m, n, k = 25, 19, 37
    a = RNG.integers(-128, 128, (m, k)).astype(np.int8)
    b = RNG.integers(-128, 128, (k, n)).astype(np.int8)
    c = np.zeros((m, n), np.int32)
    kernel(a, b, c)
    np.testing.assert_array_equal(c, a.astype(np.int32) @ b.astype(np.int32))
