"""TileLang's examples/blocksparse_gemm/example_blocksparse_gemm.py (factory form): block-sparse
GEMM. A boolean BlockMask[M // block_M, N // block_N, K // block_K] says which (row tile,
column tile, K tile) products exist; the K loop skips the others with a Python `if` on the
loaded mask element. Uses T.use_swizzle(panel_size=10, enable=...). The autotuner is left
out.

The mask has one entry per whole tile (`M // block_M`): a partial edge tile reads the mask
past its end, which gives False (out-of-bounds reads of global tensors read 0), so partial
tiles are skipped, as in the reference, which covers whole tiles only."""

import numpy as np
import pytest

import tilec
import tilec.language as T


@tilec.jit(out_idx=[-1])
def blocksparse_matmul(M, N, K, block_M, block_N, block_K, num_stages, thread_num,
                       enable_rasteration, dtype=T.float16, accum_dtype=T.float32):
    block_mask_shape = (M // block_M, N // block_N, K // block_K)

    @T.prim_func
    def block_sparse_matmul(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        BlockMask: T.Tensor(block_mask_shape, "bool"),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=thread_num) as (
            bx,
            by,
        ):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            C_shared = T.alloc_shared((block_M, block_N), dtype)

            T.use_swizzle(panel_size=10, enable=enable_rasteration)
            T.clear(C_local)

            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                if BlockMask[by, bx, k]:
                    T.copy(A[by * block_M, k * block_K], A_shared)
                    T.copy(B[k * block_K, bx * block_N], B_shared)
                    T.gemm(A_shared, B_shared, C_local)

            T.copy(C_local, C_shared)
            T.copy(C_shared, C[by * block_M, bx * block_N])

    return block_sparse_matmul


def ref_program(A, B, BlockMask, block_M, block_N, block_K):
    M, K = A.shape
    N = B.shape[1]
    ref_c = np.zeros((M, N), np.float32)
    for i in range(M // block_M):
        for j in range(N // block_N):
            for k in range(K // block_K):
                if BlockMask[i, j, k]:
                    a = A[i * block_M : (i + 1) * block_M, k * block_K : (k + 1) * block_K]
                    b = B[k * block_K : (k + 1) * block_K, j * block_N : (j + 1) * block_N]
                    ref_c[i * block_M : (i + 1) * block_M, j * block_N : (j + 1) * block_N] += (
                        a.astype(np.float32) @ b.astype(np.float32)
                    )
    return ref_c


@pytest.mark.parametrize(
    ("M", "N", "K", "block_M", "block_N", "block_K"),
    [(200, 136, 100, 64, 64, 32), (256, 256, 256, 128, 128, 32)],  # ragged, aligned
)
def test_blocksparse_gemm(M, N, K, block_M, block_N, block_K):
    rng = np.random.default_rng(20)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    mask = rng.random((M // block_M, N // block_N, K // block_K)) > 0.5  # sparsity 0.5

    kernel = blocksparse_matmul(M, N, K, block_M, block_N, block_K, 2, 128, True)
    c = kernel(a, b, mask)

    ref_c = ref_program(a, b, mask, block_M, block_N, block_K)
    np.testing.assert_allclose(c.astype(np.float32), ref_c, rtol=1e-2, atol=1e-2)
