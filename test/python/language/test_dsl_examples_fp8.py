"""examples/fp8_gemm.py, DeepGEMM's block-scaled float8_e4m3 GEMM, compiled for cpu and
checked against a float64 numpy reference on the same fp8 inputs: ragged M, N and K (K not
a multiple of the 128-wide scale group), column tiles narrower and wider than a scale
block, bfloat16 and float32 outputs. The inputs' scale groups differ in magnitude by up to
2**8, so a scale of the wrong row, column block or K block, or a promotion that does not
start each K block from zero, fails the float32 tolerance."""

import pytest
from example_kernels import example


@pytest.mark.parametrize(
    ("shape", "out_dtype", "tiles", "tolerance"),
    [
        ((128, 128, 256), "float32", {}, 1e-5),
        ((100, 200, 300), "float32", {"block_N": 64}, 1e-5),
        ((37, 300, 130), "float32", {"block_M": 32, "block_N": 256}, 1e-5),
        ((70, 150, 200), "bfloat16", {}, 5e-3),
        ((90, 129, 257), "float32", {"dynamic_M": True}, 1e-5),
    ],
)
def test_fp8_gemm(shape, out_dtype, tiles, tolerance):
    assert example("fp8_gemm").check(*shape, out_dtype=out_dtype, **tiles) <= tolerance
