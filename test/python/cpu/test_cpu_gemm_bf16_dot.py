"""bf16 tile.gemm on AVX512-BF16 (`vdpbf16ps` micro-tiles, gemm_bf16_dot.py):
the lowering is chosen where it applies, falls back to the f32 path where
it does not, and both agree with numpy on tiles with an odd K, a transposed
A and shapes that are not tile multiples."""

from __future__ import annotations

import cpu_tile_ir as tile_ir
import ml_dtypes
import numpy as np
import pytest

import tilec
from tilec.targets.cpu import host_flags

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        not {"avx512_bf16", "avx512f"} <= host_flags(), reason="the host has no AVX512-BF16"
    ),
]

RNG = np.random.default_rng(0)
DOT = "x86vector.avx512.dot"
SHAPES = [(64, 64, 32), (37, 45, 19), (5, 96, 48), (100, 33, 70)]


def _gemm_stage(kernel: tilec.CompiledKernel) -> str:
    return kernel.ir(next(s for s in kernel.stages() if "ops=tile.gemm" in s))


def _check(kernel, m, n, k, transpose_a=False, transpose_b=False, out=np.float32):
    a = RNG.standard_normal((k, m) if transpose_a else (m, k)).astype(ml_dtypes.bfloat16)
    b = RNG.standard_normal((n, k) if transpose_b else (k, n)).astype(ml_dtypes.bfloat16)
    c = np.full((m, n), np.nan, out)
    kernel(a, b, c)
    ref = (a.T if transpose_a else a).astype(np.float64) @ (b.T if transpose_b else b).astype(
        np.float64
    )
    tolerance = 1e-4 if out == np.float32 else 2e-2
    np.testing.assert_allclose(c.astype(np.float64), ref, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize(
    "tiles,transpose_a",
    [((32, 32, 16), False), ((24, 64, 15), False), ((32, 32, 16), True), ((7, 96, 9), True)],
    ids=["even-k", "odd-k", "transposed-a", "odd-k-transposed-a"],
)
def test_bf16_dot_micro_tiles(tiles, transpose_a):
    kernel = tilec.compile(tile_ir.gemm(*tiles, ab="bf16", transpose_a=transpose_a), target="cpu")
    assert DOT in _gemm_stage(kernel)
    for shape in SHAPES:
        _check(kernel, *shape, transpose_a=transpose_a)


def test_bf16_dot_to_an_f16_output():
    kernel = tilec.compile(tile_ir.gemm(32, 64, 16, ab="bf16", c="f16"), target="cpu")
    assert DOT in _gemm_stage(kernel)
    _check(kernel, 45, 70, 37, out=np.float16)


@pytest.mark.parametrize(
    "tiles,transpose_b", [((32, 48, 16), False), ((32, 32, 16), True)], ids=["n-48", "transposed-b"]
)
def test_other_bf16_gemms_take_the_f32_path(tiles, transpose_b):
    kernel = tilec.compile(tile_ir.gemm(*tiles, ab="bf16", transpose_b=transpose_b), target="cpu")
    assert DOT not in _gemm_stage(kernel)
    _check(kernel, 37, 45, 19, transpose_b=transpose_b)


def test_avx2_target_takes_the_f32_path():
    kernel = tilec.compile(tile_ir.gemm(32, 32, 16, ab="bf16"), target="cpu:avx2")
    assert DOT not in _gemm_stage(kernel)
    _check(kernel, 37, 45, 19)
