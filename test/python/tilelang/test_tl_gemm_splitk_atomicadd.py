"""TileLang's examples/gemm_splitk/example_tilelang_gemm_splitk_vectorize_atomicadd.py
(factory form, plain `@tilelang.jit`, C passed in): split-K GEMM. The third grid dim
splits K into split_k ranges of K // split_k; each block accumulates its range
(`T.Pipelined(..., num_stages=0)`) and adds its whole tile into the float32 C with one
tile-level T.atomic_add(C[by * block_M, bx * block_N], C_shared) (the vectorized form).
B is declared (K, N), the shape later revisions of the example fixed the annotation to.

Like the original, a K range is read in whole block_K tiles, so K // split_k must be a
multiple of block_K (a partial tile would read into the next range); the ragged case is
in M and N."""

import numpy as np
import pytest

import tilec
import tilec.language as T


@tilec.jit
def matmul(M, N, K, block_M, block_N, block_K, split_k, dtype=T.float16, accum_dtype=T.float32,
           out_dtype=T.float32):
    splitK = K // split_k

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), out_dtype),
    ):
        with T.Kernel(
            T.ceildiv(N, block_N), T.ceildiv(M, block_M), split_k, threads=128
        ) as (bx, by, bz):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_shared = T.alloc_shared((block_M, block_N), out_dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)

            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(splitK, block_K), num_stages=0):
                T.copy(A[by * block_M, bz * splitK + ko * block_K], A_shared)
                T.copy(B[bz * splitK + ko * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)

            T.copy(C_local, C_shared)

            T.atomic_add(C[by * block_M, bx * block_N], C_shared)

    return main


@pytest.mark.parametrize(("M", "N", "K"), [(200, 100, 256), (256, 256, 512)])  # ragged, aligned
def test_gemm_splitk_vectorize_atomicadd(M, N, K):
    rng = np.random.default_rng(19)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float32)

    kernel = matmul(M, N, K, 128, 128, 32, split_k=4)
    kernel(a, b, c)

    ref_c = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c, ref_c, rtol=1e-2, atol=1e-2)
