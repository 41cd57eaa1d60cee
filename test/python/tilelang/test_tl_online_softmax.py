"""TileLang's examples/online_softmax/online_softmax.py (factory form, `@tl.jit(out_idx=[1])`):
row softmax in two sweeps over BN-wide tiles of a row, the first keeping a running
log-sum-exp in base 2, the second writing exp2(x * log2(e) - lse).

The float16 row is scaled in float16 and stored into float32 tiles (`exp_x`) and back
(`y`), which relies on stores converting their value to the tile's dtype.

The host helpers `tl.next_power_of_2` and `tl.cdiv` are written out below. The kernel has no
tile over M (one block per row), and columns past N in the last tile are read as zeros, which
enter the max and the sum: like the original, it is exact only when N is a multiple of BN
(a power of two up to 8192, or a multiple of 8192), so the ragged shape here is in M only.
"""

import numpy as np
import pytest

import tilec as tl
import tilec.language as T


def next_power_of_2(n):
    return 1 << (n - 1).bit_length()


def cdiv(a, b):
    return -(-a // b)


@tl.jit(out_idx=[1])
def softmax_kernel(M, N, dtype=T.float16):
    BN = min(next_power_of_2(N), 8192)
    NN = cdiv(N, BN)

    accum_dtype = T.float32

    scale = 1.44269504  # log2(e)

    @T.prim_func
    def main(
        X: T.Tensor([M, N], dtype),
        Y: T.Tensor([M, N], dtype),
    ):
        with T.Kernel(M, threads=128) as (i_m):
            x = T.alloc_fragment([BN], dtype)
            y = T.alloc_fragment([BN], dtype)
            lse = T.alloc_fragment([1], accum_dtype)
            max_x = T.alloc_fragment([1], dtype)
            exp_x = T.alloc_fragment([BN], accum_dtype)
            sum_exp_x = T.alloc_fragment([1], accum_dtype)
            T.fill(lse, -T.infinity(accum_dtype))

            for i_n in T.Pipelined(0, NN):
                T.copy(X[i_m, i_n * BN : (i_n + 1) * BN], x)

                T.reduce_max(x, max_x, dim=0, clear=True)

                for j in T.Parallel(BN):
                    exp_x[j] = T.exp2(x[j] * scale - max_x[0] * scale)

                T.reduce_sum(exp_x, sum_exp_x, dim=0, clear=True)

                lse[0] = max_x[0] * scale + T.log2(T.exp2(lse[0] - max_x[0] * scale) + sum_exp_x[0])

            for i_n in T.Pipelined(0, NN):
                T.copy(X[i_m, i_n * BN : (i_n + 1) * BN], x)

                for j in T.Parallel(BN):
                    y[j] = T.exp2(x[j] * scale - lse[0])

                T.copy(y, Y[i_m, i_n * BN : (i_n + 1) * BN])

    return main


def ref_program(x):
    x = x.astype(np.float32)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize(("M", "N"), [(37, 256), (32, 16384)])  # M ragged; N two tiles of 8192
def test_online_softmax(M, N):
    x = np.random.default_rng(5).standard_normal((M, N)).astype(np.float16)
    y = softmax_kernel(M, N)(x)
    np.testing.assert_allclose(y.astype(np.float32), ref_program(x), rtol=1e-2, atol=1e-3)
