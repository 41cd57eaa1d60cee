"""TileLang's examples/dynamic_shape/example_dynamic.py (`matmul_dynamic_mnk`, plain
`@tilelang.jit`, C passed in): a GEMM whose M, N and K are `T.dynamic` dims, with the
transposes chosen by Python flags (plain Python `if` on them around the copies) and passed
positionally to T.gemm. One kernel object serves every shape."""

import numpy as np
import pytest

import tilec
import tilec.language as T


@tilec.jit
def matmul_dynamic_mnk(block_M, block_N, block_K, trans_A, trans_B, in_dtype, out_dtype,
                       accum_dtype, num_stages, threads):
    M = T.dynamic("m")
    N = T.dynamic("n")
    K = T.dynamic("k")

    A_shape = (K, M) if trans_A else (M, K)
    B_shape = (N, K) if trans_B else (K, N)

    A_shared_shape = (block_K, block_M) if trans_A else (block_M, block_K)
    B_shared_shape = (block_N, block_K) if trans_B else (block_K, block_N)

    @T.prim_func
    def dynamic_matmul(
        A: T.Tensor(A_shape, in_dtype),
        B: T.Tensor(B_shape, in_dtype),
        C: T.Tensor((M, N), out_dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared(A_shared_shape, in_dtype)
            B_shared = T.alloc_shared(B_shared_shape, in_dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                if trans_A:
                    T.copy(A[k * block_K, by * block_M], A_shared)
                else:
                    T.copy(A[by * block_M, k * block_K], A_shared)
                if trans_B:
                    T.copy(B[bx * block_N, k * block_K], B_shared)
                else:
                    T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local, trans_A, trans_B)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return dynamic_matmul


@pytest.mark.parametrize(("trans_A", "trans_B"), [(False, False), (True, True)])
@pytest.mark.parametrize(("M", "N", "K"), [(200, 136, 72), (256, 128, 64)])  # ragged, aligned
def test_dynamic_matmul(M, N, K, trans_A, trans_B):
    rng = np.random.default_rng(28)
    a = rng.random((K, M) if trans_A else (M, K)).astype(np.float16)
    b = rng.random((N, K) if trans_B else (K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float16)

    kernel = matmul_dynamic_mnk(
        128, 128, 32, trans_A, trans_B, "float16", "float16", "float32", 3, 128
    )
    kernel(a, b, c)

    ref_c = (a.T if trans_A else a).astype(np.float32) @ (b.T if trans_B else b).astype(np.float32)
    np.testing.assert_allclose(c.astype(np.float32), ref_c, rtol=1e-2, atol=1e-2)
