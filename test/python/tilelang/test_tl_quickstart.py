"""TileLang's examples/quickstart.py in its current eager form: `@tilelang.jit` over a
function that takes the tensors themselves. `M, N, K = T.const("M, N, K")` names the dims,
`A: T.Tensor((M, K), dtype)` annotations in the body bind them, `C = T.empty(...)` is the
output the function returns; `matmul.compile(M=..., ...)` gives a kernel, and calling
`matmul(a, b, ...)` directly compiles for the shapes of `a` and `b`. A float16 GEMM with a
ReLU epilogue."""

import numpy as np
import pytest

import tilec
import tilec.language as T


@tilec.jit
def matmul(A, B, block_M: int, block_N: int, block_K: int):
    M, N, K = T.const("M, N, K")
    dtype = T.float16
    accum_dtype = T.float32
    A: T.Tensor((M, K), dtype)
    B: T.Tensor((K, N), dtype)
    C = T.empty((M, N), dtype)

    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
        A_shared = T.alloc_shared((block_M, block_K), dtype)
        B_shared = T.alloc_shared((block_K, block_N), dtype)
        C_local = T.alloc_fragment((block_M, block_N), accum_dtype)

        T.clear(C_local)

        for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
            T.copy(A[by * block_M, ko * block_K], A_shared)
            T.copy(B[ko * block_K, bx * block_N], B_shared)
            T.gemm(A_shared, B_shared, C_local)

        # ReLU
        for i, j in T.Parallel(block_M, block_N):
            C_local[i, j] = T.max(C_local[i, j], 0)

        T.copy(C_local, C[by * block_M, bx * block_N])

    return C


def ref_program(a, b):
    return np.maximum(a.astype(np.float32) @ b.astype(np.float32), 0)


def inputs(M, N, K):
    rng = np.random.default_rng(30)
    return (
        rng.standard_normal((M, K)).astype(np.float16),
        rng.standard_normal((K, N)).astype(np.float16),
    )


@pytest.mark.parametrize(("M", "N", "K"), [(200, 136, 72), (256, 128, 64)])  # ragged, aligned
def test_quickstart_compile(M, N, K):
    a, b = inputs(M, N, K)
    kernel = matmul.compile(M=M, N=N, K=K, block_M=128, block_N=128, block_K=32)
    c = kernel(a, b)
    np.testing.assert_allclose(c.astype(np.float32), ref_program(a, b), rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize(("M", "N", "K"), [(200, 136, 72), (256, 128, 64)])  # ragged, aligned
def test_quickstart_eager_call(M, N, K):
    a, b = inputs(M, N, K)
    c = matmul(a, b, block_M=128, block_N=128, block_K=32)
    np.testing.assert_allclose(c.astype(np.float32), ref_program(a, b), rtol=1e-2, atol=1e-2)
