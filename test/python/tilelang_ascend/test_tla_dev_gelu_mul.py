"""tilelang-ascend's gelu·mul (GELU of the left half of each row times the right half), in
both forms: examples/developer_mode/gelu_mul_developer.py (`threads=2`, `as cid`,
T.alloc_shared tiles of the whole block) and examples/activation/gelu_mul.py (`as (cid, vid)`,
T.alloc_ub tiles of half a block, one per AIV). Only the imports changed (`import tilec as
tilelang`, numpy arrays for torch's); the `@tilelang.jit(out_idx=[1])` decoration is applied
per target in the test, and pass_configs are left out (tilec synchronizes itself). Each
kernel runs on cpu and in the simulator on the 910b and the 950, against numpy, on the
example's shape and on one that is not a multiple of the tiles (its grid is ceildiv'ed)."""

# ruff: noqa: E501 (the ported kernels keep upstream's lines)

import math

import numpy as np
import pytest

import tilec as tilelang
import tilec.language as T

TARGETS = ("cpu", "ascend:910b", "ascend:950")


def gelu_mul_developer(M, N, block_M, block_N, dtype="float"):
    m_num = T.ceildiv(M, block_M)
    # The `gelu_mul` operator splits the input tensor into two tensors, x1 and x2, based on the last dimension.
    # It performs a GELU operation on x1 and multiplies the result by x2. Therefore, the kernel splitting is only relative to the dimension of x1.
    n_num = T.ceildiv(N // 2, block_N)

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N // 2), dtype)):
        with T.Kernel(m_num * n_num, threads=2, is_npu=True) as (cid):
            bx = cid // n_num
            by = cid % n_num
            a1_ub = T.alloc_shared((block_M, block_N), dtype)
            a2_ub = T.alloc_shared((block_M, block_N), dtype)
            b_ub = T.alloc_shared((block_M, block_N), dtype)
            temp_ub = T.alloc_shared((block_M, block_N), dtype)

            ## [In vector]
            # The left half is cached using a1_ub
            T.copy(A[bx * block_M, by * block_N], a1_ub)
            # The right half is cached using a2_ub
            T.copy(A[bx * block_M, by * block_N + N // 2], a2_ub)
            # Calculation formula:x^2
            T.tile.mul(temp_ub, a1_ub, a1_ub)
            # Calculation formula:x^3
            T.tile.mul(temp_ub, a1_ub, temp_ub)
            # Calculation formula:0.044715 * x^3
            T.tile.mul(temp_ub, temp_ub, 0.044715)
            # Calculation formula:x + 0.044715 * x^3
            T.tile.add(temp_ub, a1_ub, temp_ub)
            # Calculation formula:-sqrt(8/pi)(x + 0.044715 * x^3)
            T.tile.mul(temp_ub, temp_ub, -1.5957691)
            # Calculation formula:exp(-sqrt(8/pi)(x + 0.044715 * x^3))
            T.tile.exp(temp_ub, temp_ub)
            # Calculation formula:1 + exp(-sqrt(8/pi)(x + 0.044715 * x^3))
            T.tile.add(temp_ub, temp_ub, 1.0)
            # Calculation formula:x / (1 + exp(-sqrt(8/pi)(x + 0.044715 * x^3)))
            T.tile.div(temp_ub, a1_ub, temp_ub)
            # Multiply the result of the left half by the right half
            T.tile.mul(b_ub, temp_ub, a2_ub)
            T.copy(b_ub, B[bx * block_M, by * block_N])

    return main


def gelu_mul(M, N, block_M, block_N, dtype="float"):
    m_num = T.ceildiv(M, block_M)
    # The `gelu_mul` operator splits the input tensor into two tensors, x1 and x2, based on the last dimension.
    # It performs a GELU operation on x1 and multiplies the result by x2. Therefore, the kernel splitting is only relative to the dimension of x1.
    n_num = T.ceildiv(N // 2, block_N)

    VEC_NUM = 2

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N // 2), dtype)):
        with T.Kernel(m_num * n_num, is_npu=True) as (cid, vid):
            bx = cid // n_num
            by = cid % n_num
            a1_ub = T.alloc_ub((block_M // VEC_NUM, block_N), dtype)
            a2_ub = T.alloc_ub((block_M // VEC_NUM, block_N), dtype)
            b_ub = T.alloc_ub((block_M // VEC_NUM, block_N), dtype)
            temp_ub = T.alloc_ub((block_M // VEC_NUM, block_N), dtype)

            ## [In vector]
            # The left half is cached using a1_ub
            T.copy(A[bx * block_M + vid * block_M // VEC_NUM, by * block_N], a1_ub)
            # The right half is cached using a2_ub
            T.copy(A[bx * block_M + vid * block_M // VEC_NUM, by * block_N + N // 2], a2_ub)
            # Calculation formula:x^2
            T.tile.mul(temp_ub, a1_ub, a1_ub)
            # Calculation formula:x^3
            T.tile.mul(temp_ub, a1_ub, temp_ub)
            # Calculation formula:0.044715 * x^3
            T.tile.mul(temp_ub, temp_ub, 0.044715)
            # Calculation formula:x + 0.044715 * x^3
            T.tile.add(temp_ub, a1_ub, temp_ub)
            # Calculation formula:-sqrt(8/pi)(x + 0.044715 * x^3)
            T.tile.mul(temp_ub, temp_ub, -1.5957691)
            # Calculation formula:exp(-sqrt(8/pi)(x + 0.044715 * x^3))
            T.tile.exp(temp_ub, temp_ub)
            # Calculation formula:1 + exp(-sqrt(8/pi)(x + 0.044715 * x^3))
            T.tile.add(temp_ub, temp_ub, 1.0)
            # Calculation formula:x / (1 + exp(-sqrt(8/pi)(x + 0.044715 * x^3)))
            T.tile.div(temp_ub, a1_ub, temp_ub)
            # Multiply the result of the left half by the right half
            T.tile.mul(b_ub, temp_ub, a2_ub)
            T.copy(b_ub, B[bx * block_M + vid * block_M // VEC_NUM, by * block_N])

    return main


def reference(a: np.ndarray) -> np.ndarray:
    """torch's `nn.GELU(approximate="tanh")(a1) * a2`."""
    n = a.shape[1] // 2
    x, y = a[:, :n].astype(np.float64), a[:, n:]
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))) * y


CONFIGS = [(256, 256, 64, 64), (200, 180, 64, 64)]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("factory", [gelu_mul_developer, gelu_mul], ids=["developer", "vid"])
@pytest.mark.parametrize("config", CONFIGS, ids=["example", "ragged"])
def test_gelu_mul(factory, config, target):
    M, N, block_M, block_N = config
    a = np.random.default_rng(0).standard_normal((M, N)).astype(np.float32)
    func = tilelang.jit(out_idx=[1], target=target)(factory)(M, N, block_M, block_N)
    b = func(a)
    np.testing.assert_allclose(b, reference(a), rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("target", TARGETS)
def test_gelu_mul_large_tiles(target):
    """The example's 1024 x 1024 config with 128 x 128 blocks: the per-AIV form fits every
    UB; the developer form's four 64 KiB tiles fit the 910b's because its two AIVs share
    each block (test_tla_dev_split_aivs.py)."""
    a = np.random.default_rng(1).standard_normal((1024, 1024)).astype(np.float32)
    for factory in (gelu_mul_developer, gelu_mul):
        b = tilelang.jit(out_idx=[1], target=target)(factory)(1024, 1024, 128, 128)(a)
        np.testing.assert_allclose(b, reference(a), rtol=1e-2, atol=1e-2)
