"""GEMMs whose accumulator is cleared where the cube cannot tell statically which mmad
writes it first, on both profiles in the simulator, against numpy.

- 2x accumulation (TileLang's gemm_fp8_2xAcc, DeepGEMM): each K tile's product goes into
  `C_local`, the vector cores add it onto `C_accum`, and `C_local` is cleared after the
  gemm, every iteration or every `interval`; the mmad after a clear overwrites (`init`).
- block-sparse GEMM: the gemm runs under `if mask[...]` in the K loop, so the first one
  to run (if any) is known at run time only; the accumulator lives in UB, zeroed by a
  vector fill, and each product is added onto it (a mask row of all False gives zeros).
"""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as T

PROFILES = ("910b", "950")
RNG = np.random.default_rng(28)


def two_level_gemm(M, N, K, interval, block=32):
    """C = A @ Bᵀ, promoted from C_local into C_accum after every `interval` K tiles."""

    @T.prim_func
    def kernel(A: T.Tensor((M, K), "float16"), B: T.Tensor((N, K), "float16"),
               C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block), T.ceildiv(M, block), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block, block), "float16")
            B_shared = T.alloc_shared((block, block), "float16")
            C_local = T.alloc_fragment((block, block), "float32")
            C_accum = T.alloc_fragment((block, block), "float32")
            T.clear(C_local)
            T.clear(C_accum)
            for k in T.Pipelined(T.ceildiv(K, block), num_stages=2):
                T.copy(A[by * block, k * block], A_shared)
                T.copy(B[bx * block, k * block], B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_B=True)
                if (k + 1) % interval == 0:
                    for i, j in T.Parallel(block, block):
                        C_accum[i, j] += C_local[i, j]
                    T.clear(C_local)
            T.copy(C_accum, C[by * block, bx * block])

    return kernel


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("interval", [1, 2])
def test_clear_after_the_gemm(profile, interval):
    M, N, K = 40, 70, 128  # ragged M and N; 4 K tiles, a whole number of intervals
    a = RNG.standard_normal((M, K)).astype(np.float16)
    b = RNG.standard_normal((N, K)).astype(np.float16)
    c = np.zeros((M, N), np.float32)
    kernel = tilec.compile(two_level_gemm(M, N, K, interval), target="ascend", profile=profile)
    kernel(a, b, c)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32).T,
                               rtol=1e-3, atol=1e-3)


def block_sparse_gemm(M, N, K, block=32):
    @T.prim_func
    def kernel(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
               mask: T.Tensor((T.ceildiv(M, block), T.ceildiv(N, block), T.ceildiv(K, block)),
                              "int8"),
               C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block), T.ceildiv(M, block), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block, block), "float16")
            B_shared = T.alloc_shared((block, block), "float16")
            C_local = T.alloc_fragment((block, block), "float32")
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block), num_stages=2):
                if mask[by, bx, k]:
                    T.copy(A[by * block, k * block], A_shared)
                    T.copy(B[k * block, bx * block], B_shared)
                    T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block, bx * block])

    return kernel


@pytest.mark.parametrize("profile", PROFILES)
def test_gemm_under_a_mask_after_the_clear(profile):
    M, N, K = 50, 64, 96
    a = RNG.standard_normal((M, K)).astype(np.float16)
    b = RNG.standard_normal((K, N)).astype(np.float16)
    mask = np.array([[[1, 0, 1], [0, 0, 0]],     # the second tile: no gemm runs
                     [[0, 0, 1], [0, 1, 1]]], np.int8)  # the first gemm is not k = 0's
    c = np.full((M, N), np.nan, np.float32)
    tilec.compile(block_sparse_gemm(M, N, K), target="ascend", profile=profile)(a, b, mask, c)
    expected = np.zeros((M, N), np.float32)
    for i in range(2):
        for j in range(2):
            for k in range(3):
                if mask[i, j, k]:
                    rows, cols, inner = (slice(32 * i, 32 * i + 32), slice(32 * j, 32 * j + 32),
                                         slice(32 * k, 32 * k + 32))
                    expected[rows, cols] += a[rows, inner].astype(np.float32) @ \
                        b[inner, cols].astype(np.float32)
    np.testing.assert_allclose(c, expected, rtol=1e-3, atol=1e-3)
