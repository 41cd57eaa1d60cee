"""TileLang's examples/elementwise/example_elementwise_add.py (factory form): C = A + B with
both inputs staged in shared memory, the sum built in a fragment and written back through a
shared tile."""

import numpy as np
import pytest

import tilec
import tilec.language as T


@tilec.jit(out_idx=[-1])
def elementwise_add(M, N, block_M, block_N, in_dtype, out_dtype, threads):
    @T.prim_func
    def elem_add(
        A: T.Tensor((M, N), in_dtype),
        B: T.Tensor((M, N), in_dtype),
        C: T.Tensor((M, N), out_dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_N), in_dtype)
            B_shared = T.alloc_shared((block_M, block_N), in_dtype)
            C_local = T.alloc_fragment((block_M, block_N), out_dtype)
            C_shared = T.alloc_shared((block_M, block_N), out_dtype)

            T.copy(A[by * block_M, bx * block_N], A_shared)
            T.copy(B[by * block_M, bx * block_N], B_shared)
            for local_y, local_x in T.Parallel(block_M, block_N):
                C_local[local_y, local_x] = A_shared[local_y, local_x] + B_shared[local_y, local_x]
            T.copy(C_local, C_shared)
            T.copy(C_shared, C[by * block_M, bx * block_N])

    return elem_add


@pytest.mark.parametrize(("M", "N"), [(70, 45), (64, 96)])  # ragged, aligned
def test_elementwise_add(M, N):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((M, N)).astype(np.float32)
    b = rng.standard_normal((M, N)).astype(np.float32)

    kernel = elementwise_add(
        M, N, block_M=32, block_N=32, threads=128, in_dtype=T.float32, out_dtype=T.float32
    )
    out = kernel(a, b)

    np.testing.assert_allclose(out, a + b, rtol=1e-6, atol=1e-6)
