"""tile-cpu-prefetch-copies end to end: pipelined kernels whose next
iteration's global tiles are prefetched compute the same as numpy, on
ragged shapes (rows and columns of the prefetched regions past the end),
copies that drop a batch dimension, and one-dimensional copies."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as T

RNG = np.random.default_rng(0)
PREFETCH_STAGE = "tile-cpu-prefetch-copies"


def _batched_gemm(block_m: int, block_n: int, block_k: int, stages: int):
    Z, M, N, K = T.symbolic("Z"), T.symbolic("M"), T.symbolic("N"), T.symbolic("K")

    @T.prim_func
    def bgemm(
        A: T.Tensor((Z, M, K), "float16"),
        B: T.Tensor((Z, N, K), "float16"),
        C: T.Tensor((Z, M, N), "float32"),
    ):
        with T.Kernel(T.ceildiv(N, block_n), T.ceildiv(M, block_m), Z, threads=128) as (
            bx,
            by,
            bz,
        ):
            A_s = T.alloc_shared((block_m, block_k), "float16")
            B_s = T.alloc_shared((block_n, block_k), "float16")
            C_f = T.alloc_fragment((block_m, block_n), "float32")
            T.clear(C_f)
            for k in T.Pipelined(T.ceildiv(K, block_k), num_stages=stages):
                T.copy(A[bz, by * block_m, k * block_k], A_s)
                T.copy(B[bz, bx * block_n, k * block_k], B_s)
                T.gemm(A_s, B_s, C_f, transpose_B=True)
            T.copy(C_f, C[bz, by * block_m, bx * block_n])

    return bgemm


@pytest.fixture(scope="module")
def bgemm():
    return tilec.compile(_batched_gemm(24, 32, 16, stages=3), target="cpu")


def test_prefetches_go_into_the_gemm_micro_tile_loop(bgemm):
    ir = bgemm.ir(PREFETCH_STAGE)
    assert ir.count("memref.prefetch") >= 2
    before = bgemm.ir(bgemm.stages()[bgemm.stages().index(PREFETCH_STAGE) - 1])
    assert "memref.prefetch" not in before
    # Every prefetch is nested deeper than the copies of the pipelined body.
    body = ir[ir.index("tile.pipelined") :]
    copy_depth = body.index("tile.copy")
    prefetch = body.index("memref.prefetch")
    assert prefetch > copy_depth
    assert body[:prefetch].count("scf.for") > body[:copy_depth].count("scf.for") + 1


@pytest.mark.parametrize(
    "z,m,n,k", [(2, 48, 64, 64), (3, 37, 45, 50), (1, 5, 70, 33), (2, 24, 32, 7)]
)
def test_batched_ragged_gemm_with_prefetch(bgemm, z, m, n, k):
    a = RNG.standard_normal((z, m, k)).astype(np.float16)
    b = RNG.standard_normal((z, n, k)).astype(np.float16)
    c = np.full((z, m, n), np.nan, np.float32)
    bgemm(a, b, c)
    ref = np.einsum("zmk,znk->zmn", a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(c, ref, rtol=1e-3, atol=1e-3)


def _row_sums(block: int):
    R, L = T.symbolic("R"), T.symbolic("L")

    @T.prim_func
    def sums(X: T.Tensor((R, L), "float32"), S: T.Tensor((R,), "float32")):
        with T.Kernel(R, threads=1) as row:
            x = T.alloc_shared((block,), "float32")
            acc = T.alloc_fragment((1,), "float32")
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(L, block), num_stages=2):
                T.copy(X[row, k * block], x)
                for i in T.serial(block):
                    acc[0] += x[i]
            S[row] = acc[0]

    return sums


@pytest.mark.parametrize("rows,length", [(3, 100), (2, 7), (1, 64)])
def test_one_dimensional_copies_with_prefetch(rows, length):
    kernel = tilec.compile(_row_sums(32), target="cpu")
    assert "memref.prefetch" in kernel.ir(PREFETCH_STAGE)
    x = RNG.standard_normal((rows, length)).astype(np.float32)
    s = np.full((rows,), np.nan, np.float32)
    kernel(x, s)
    np.testing.assert_allclose(s, x.sum(axis=1), rtol=1e-5, atol=1e-4)
