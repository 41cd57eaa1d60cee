"""examples/fp8_gemm.py, DeepGEMM's block-scaled float8_e4m3 GEMM, compiled for cpu and
checked against a float64 numpy reference on the same fp8 inputs: ragged M, N and K (K not
a multiple of the 128-wide scale group), column tiles narrower and wider than a scale
block, bfloat16 and float32 outputs, static dims and symbolic M, N and K (whose scale
tensors have dims `T.ceildiv(K, 128)`). The inputs' scale groups differ in magnitude by
up to 2**8, so a scale of the wrong row, column block or K block, or a promotion that
does not start each K block from zero, fails the float32 tolerance."""

import numpy as np
import pytest
from example_kernels import example

import tilec
import tilec.language as T
from tilec.runtime.signature import ArgumentError


@pytest.mark.parametrize(
    ("shape", "out_dtype", "tiles", "tolerance"),
    [
        ((128, 128, 256), "float32", {}, 1e-5),
        ((100, 200, 300), "float32", {"block_N": 64}, 1e-5),
        ((37, 300, 130), "float32", {"block_M": 32, "block_N": 256}, 1e-5),
        ((70, 150, 200), "bfloat16", {}, 5e-3),
        ((90, 129, 257), "float32", {"dynamic_M": True}, 1e-5),
        ((90, 129, 257), "float32", {"dynamic_M": True, "dynamic_NK": True}, 1e-5),
        ((64, 300, 130), "bfloat16", {"dynamic_NK": True, "block_N": 64}, 5e-3),
    ],
)
def test_fp8_gemm(shape, out_dtype, tiles, tolerance):
    assert example("fp8_gemm").check(*shape, out_dtype=out_dtype, **tiles) <= tolerance


def test_one_kernel_for_every_shape_checks_the_scales_shapes():
    fp8 = example("fp8_gemm")
    kernel = tilec.compile(
        fp8.fp8_gemm(T.symbolic("M"), T.symbolic("N"), T.symbolic("K"), out_dtype="float32")
    )
    rng = np.random.default_rng(1)
    for M, N, K in [(50, 140, 300), (16, 64, 128)]:
        a, b, a_scale, b_scale = fp8.random_inputs(M, N, K, rng)
        c = np.zeros((M, N), np.float32)
        kernel(a, b, a_scale, b_scale, c)
        expected = fp8.reference(a, b, a_scale, b_scale)
        assert np.max(np.abs(c - expected)) / np.max(np.abs(expected)) <= 1e-5
    with pytest.raises(ArgumentError) as info:
        kernel(a, b, a_scale, b_scale[:, :0], c)
    assert str(info.value) == (
        "argument 'B_scale' expects dim 1 to be ceildiv(K, 128) = 1, with K = 128 from "
        "argument 'A', but got 0 (shape (1, 0))"
    )
