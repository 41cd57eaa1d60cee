"""The example kernels (examples/*.py) compiled for cpu and checked against numpy,
on shapes that are and are not multiples of their tiles."""

import pytest
from example_kernels import example


@pytest.mark.parametrize(
    ("shape", "variant", "tolerance"),
    [
        ((128, 128, 64), {}, 1e-5),
        ((100, 72, 50), {}, 1e-5),
        ((70, 130, 40), {"in_dtype": "float16"}, 1e-3),
        ((70, 130, 40), {"in_dtype": "bfloat16"}, 1e-3),
        ((70, 130, 40), {"in_dtype": "float16", "out_dtype": "float16"}, 2e-3),
        ((65, 33, 47), {"trans_A": True}, 1e-5),
        ((65, 33, 47), {"trans_B": True}, 1e-5),
        ((65, 33, 47), {"trans_A": True, "trans_B": True, "relu": True}, 1e-5),
        ((90, 64, 64), {"dynamic_M": True, "relu": True}, 1e-5),
    ],
)
def test_gemm(shape, variant, tolerance):
    assert example("gemm").check(*shape, **variant) <= tolerance


@pytest.mark.parametrize(
    ("shape", "dtype", "dynamic_M", "tolerance"),
    [
        ((32, 256), "float32", False, 1e-6),
        ((37, 300), "float32", True, 1e-6),
        ((20, 130), "float16", False, 1e-3),
    ],
)
def test_softmax(shape, dtype, dynamic_M, tolerance):
    assert example("softmax").check(*shape, dtype, dynamic_M) <= tolerance


@pytest.mark.parametrize(("dtype", "tolerance"), [("float32", 1e-6), ("float16", 1e-3)])
def test_softmax_of_masked_rows(dtype, tolerance):
    """Rows whose first tile is all -inf get numpy's finite softmax, all -inf rows
    numpy's NaN (the running max is -inf until a row sees a finite entry)."""
    assert example("softmax").check(37, 300, dtype, masked=True) <= tolerance


@pytest.mark.parametrize(
    ("shape", "dtype", "dynamic_M", "tolerance"),
    [
        ((32, 256), "float32", False, 1e-6),
        ((45, 200), "float32", True, 1e-6),
        ((20, 130), "float16", False, 1e-3),
    ],
)
def test_rmsnorm(shape, dtype, dynamic_M, tolerance):
    assert example("rmsnorm").check(*shape, dtype, dynamic_M) <= tolerance


@pytest.mark.parametrize(
    ("shape", "causal", "dtype", "dynamic_seq", "tolerance"),
    [
        ((1, 2, 128, 32), False, "float32", False, 1e-5),
        ((1, 2, 128, 32), True, "float32", False, 1e-5),
        ((2, 1, 100, 32), True, "float32", True, 1e-5),
        ((1, 1, 70, 16), False, "float16", False, 2e-3),
    ],
)
def test_flash_attention(shape, causal, dtype, dynamic_seq, tolerance):
    error = example("flash_attention").check(
        *shape, causal=causal, dtype=dtype, dynamic_seq=dynamic_seq
    )
    assert error <= tolerance


@pytest.mark.parametrize(
    ("shape", "dtype", "dynamic", "tolerance"),
    [
        ((32, 4, 256, 128), "float32", False, 1e-5),
        ((50, 5, 300, 72), "float32", True, 1e-5),
        ((20, 3, 40, 70), "float16", False, 1e-2),
    ],
)
def test_topk_gather(shape, dtype, dynamic, tolerance):
    gather_error, sum_error = example("topk_gather").check(*shape, dtype, dynamic)
    assert gather_error == 0.0
    assert sum_error <= tolerance
