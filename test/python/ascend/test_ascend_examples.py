"""The example kernels (examples/*.py) on the ascend target, both profiles, against the
same numpy references as on cpu, ragged shapes included. Every run is in the simulator
and fails on any race, deadlock or unbalanced flag; flash attention needs cube and vector
cores together (a mix kernel)."""

import pytest
from example_kernels import example

from tilec.targets import AscendTarget

pytestmark = pytest.mark.e2e

PROFILES = [f"ascend:{p}" for p in AscendTarget.variants]


@pytest.mark.parametrize("target", PROFILES)
@pytest.mark.parametrize(
    ("shape", "variant", "tolerance"),
    [
        ((128, 128, 64), {}, 1e-5),
        ((100, 72, 50), {"in_dtype": "float16"}, 1e-3),
        ((70, 130, 40), {"in_dtype": "bfloat16"}, 1e-3),
        ((70, 130, 40), {"in_dtype": "float16", "out_dtype": "float16"}, 2e-3),
        ((65, 33, 47), {"trans_A": True, "trans_B": True}, 1e-5),
        ((65, 33, 47), {"trans_A": True, "relu": True}, 1e-5),
        ((90, 64, 64), {"dynamic_M": True, "trans_B": True}, 1e-5),
    ],
)
def test_gemm(target, shape, variant, tolerance):
    assert example("gemm").check(*shape, target=target, **variant) <= tolerance


@pytest.mark.parametrize("target", PROFILES)
@pytest.mark.parametrize(
    ("shape", "dtype", "dynamic_M", "tolerance"),
    [((32, 256), "float32", False, 1e-6), ((37, 300), "float32", True, 1e-6),
     ((20, 130), "float16", False, 1e-3)],
)
def test_softmax(target, shape, dtype, dynamic_M, tolerance):
    assert example("softmax").check(*shape, dtype, dynamic_M, target=target) <= tolerance


@pytest.mark.parametrize("target", PROFILES)
def test_softmax_of_masked_rows(target):
    """-inf first tiles give numpy's finite softmax, all -inf rows its NaN."""
    assert example("softmax").check(37, 300, target=target, masked=True) <= 1e-6


@pytest.mark.parametrize("target", PROFILES)
@pytest.mark.parametrize(
    ("shape", "dtype", "dynamic_M", "tolerance"),
    [((32, 256), "float32", False, 1e-6), ((45, 200), "float32", True, 1e-6),
     ((20, 130), "float16", False, 1e-3)],
)
def test_rmsnorm(target, shape, dtype, dynamic_M, tolerance):
    assert example("rmsnorm").check(*shape, dtype, dynamic_M, target=target) <= tolerance


@pytest.mark.parametrize("target", PROFILES)
@pytest.mark.parametrize(
    ("shape", "dtype", "dynamic", "tolerance"),
    [((8, 4, 64, 32), "float32", False, 1e-5), ((10, 3, 50, 40), "float32", True, 1e-5),
     ((6, 3, 20, 70), "float16", False, 1e-2)],
)
def test_topk_gather(target, shape, dtype, dynamic, tolerance):
    gather_error, sum_error = example("topk_gather").check(*shape, dtype, dynamic, target=target)
    assert gather_error == 0.0
    assert sum_error <= tolerance


@pytest.mark.parametrize("target", PROFILES)
@pytest.mark.parametrize(
    ("shape", "variant", "tolerance"),
    [
        ((1, 1, 64, 32), {"causal": False}, 1e-5),
        ((2, 1, 100, 32), {"causal": True, "dynamic_seq": True}, 1e-5),
        ((1, 2, 90, 32), {"causal": False, "dtype": "float16"}, 2e-3),
        ((1, 4, 70, 32), {"causal": True, "heads_kv": 2}, 1e-5),
        # the first key tile of the second block is all masked for its later rows
        ((1, 1, 100, 32), {"causal": True, "window": 20}, 1e-5),
    ],
)
def test_flash_attention(target, shape, variant, tolerance):
    """A mix kernel: the AIC runs both gemms of the K/V loop, the AIVs the
    mask and the online softmax (see test_ascend_attention.py)."""
    assert example("flash_attention").check(*shape, target=target, **variant) <= tolerance
