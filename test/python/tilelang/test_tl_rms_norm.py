"""TileLang's examples/norm/rms_norm.py (factory form): RMSNorm of each row, B = A * rsqrt(mean(A^2)
+ eps), in two variants: `rms_norm` holds blk_m whole rows in a fragment; `rms_norm_splitk`
walks the row in blk_k chunks twice (sum of squares, then scaling, the second pass in reverse).
Both use TileLang's `T.float` alias of float32."""

import numpy as np
import pytest

import tilec
import tilec.language as T


def rms_norm_splitk(M, N, blk_m, blk_k):
    dtype = T.float

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, blk_m), threads=128) as bx:
            A_shared = T.alloc_shared((blk_m, blk_k), dtype)
            A_local = T.alloc_fragment((blk_m, blk_k), dtype)
            A_powsum = T.alloc_fragment((blk_m,), dtype)

            num_k_step = T.ceildiv(N, blk_k)
            T.clear(A_local)
            for k in range(num_k_step):
                T.copy(A[bx * blk_m, k * blk_k], A_shared)
                for i, j in T.Parallel(blk_m, blk_k):
                    A_local[i, j] += A_shared[i, j] * A_shared[i, j]
            T.reduce_sum(A_local, A_powsum, dim=1)
            for i in T.Parallel(blk_m):
                A_powsum[i] = T.rsqrt(A_powsum[i] / N + 1e-12)

            for k in range(num_k_step):
                # the second pass goes backwards through the row
                T.copy(A[bx * blk_m, (num_k_step - 1 - k) * blk_k], A_shared)
                for i, j in T.Parallel(blk_m, blk_k):
                    A_shared[i, j] *= A_powsum[i]
                T.copy(A_shared, B[bx * blk_m, (num_k_step - 1 - k) * blk_k])

    return main


@tilec.jit(out_idx=[-1])
def rms_norm(M, N, blk_m):
    dtype = T.float

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, blk_m), threads=128) as bx:
            A_shared = T.alloc_shared((blk_m, N), dtype)
            A_pow_local = T.alloc_fragment((blk_m, N), dtype)
            A_local = T.alloc_fragment((blk_m, N), dtype)
            A_powsum = T.alloc_fragment((blk_m,), dtype)

            T.copy(A[bx * blk_m : (bx + 1) * blk_m, :], A_shared)
            T.copy(A_shared, A_local)
            for i, j in T.Parallel(blk_m, N):
                A_pow_local[i, j] = A_local[i, j] * A_local[i, j]
            T.reduce_sum(A_pow_local, A_powsum, dim=1)
            for i in T.Parallel(blk_m):
                A_powsum[i] = T.rsqrt(A_powsum[i] / N + 1e-12)
            for i, j in T.Parallel(blk_m, N):
                A_local[i, j] *= A_powsum[i]
            T.copy(A_local, B[bx * blk_m : (bx + 1) * blk_m, :])

    return main


def ref_program(x):
    return x / np.sqrt((x.astype(np.float64) ** 2).mean(-1, keepdims=True) + 1e-12)


# M ragged against blk_m = 4 (and, for the split-K form, N against blk_k = 64), then aligned.
SHAPES = [(37, 200), (32, 256)]


@pytest.mark.parametrize(("M", "N"), SHAPES)
def test_rms_norm(M, N):
    x = np.random.default_rng(2).standard_normal((M, N)).astype(np.float32)
    out = rms_norm(M, N, blk_m=4)(x)
    np.testing.assert_allclose(out, ref_program(x), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("M", "N"), SHAPES)
def test_rms_norm_splitk(M, N):
    x = np.random.default_rng(3).standard_normal((M, N)).astype(np.float32)
    out = np.zeros_like(x)
    tilec.compile(rms_norm_splitk(M, N, blk_m=4, blk_k=64))(x, out)
    np.testing.assert_allclose(out, ref_program(x), rtol=1e-5, atol=1e-5)
