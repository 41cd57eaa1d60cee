"""Scalar atomic adds at the points of a T.Parallel region, on ascend: one atomic DMA.

`T.atomic_add(C[r + i, c + j], x[i, j])` at every point of a region adds into a distinct
element per point, so the vector lowering of the region (`vector_parallel.py`) writes it as
one UB -> GM `ascend.copy ... atomic_add` of the whole region (SetAtomicAdd<T>(), DataCopyPad,
SetAtomicNone() in AscendC), which drops what falls past the tensor's edge. Adds that several
points make into one element (a histogram, a row sum) stay per-element DMAs on the S pipe.
Checked against numpy on ragged shapes, on both profiles, race-free (the simulator also fails
on any write outside a GM tensor)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tilec
import tilec.language as T

PROFILES = ["910b", "950"]


def split_k_gemm(M: int, N: int, K: int, split_k: int = 2, block_M: int = 64,
                 block_N: int = 64, block_K: int = 32):
    """TileLang's split-K GEMM: each K range's block adds its tile into the f32 C with one
    T.atomic_add per element of a T.Parallel."""
    split = K // split_k

    @T.prim_func
    def splitk(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
               C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), split_k) as (bx, by, bz):
            a = T.alloc_shared((block_M, block_K), "float16")
            b = T.alloc_shared((block_K, block_N), "float16")
            c = T.alloc_shared((block_M, block_N), "float32")
            acc = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(acc)
            for ko in T.serial(T.ceildiv(split, block_K)):
                T.copy(A[by * block_M, bz * split + ko * block_K], a)
                T.copy(B[bz * split + ko * block_K, bx * block_N], b)
                T.gemm(a, b, acc)
            T.copy(acc, c)
            for i, j in T.Parallel(block_M, block_N):
                T.atomic_add(C[by * block_M + i, bx * block_N + j], c[i, j])

    return splitk


def scaled_adds(n: int, m: int, block: int = 16):
    """Adds 2 x + 1 of each tile into Y at the tile's place, per element: a computed addend."""

    @T.prim_func
    def scaled(X: T.Tensor((n, m), "float32"), Y: T.Tensor((n, m), "float32")):
        with T.Kernel(T.ceildiv(n, block)) as bx:
            x = T.alloc_fragment((block, m), "float32")
            T.copy(X[bx * block, 0], x)
            for i, j in T.Parallel(block, m):
                T.atomic_add(Y[bx * block + i, j], x[i, j] * 2.0 + 1.0)

    return scaled


def row_sums(n: int, m: int, block: int = 16):
    """Adds every element of a row into one element of S: many points, one element."""

    @T.prim_func
    def sums(X: T.Tensor((n, m), "float32"), S: T.Tensor((n,), "float32")):
        with T.Kernel(T.ceildiv(n, block)) as bx:
            x = T.alloc_fragment((block, m), "float32")
            T.copy(X[bx * block, 0], x)
            for i, j in T.Parallel(block, m):
                T.atomic_add(S[bx * block + i], x[i, j])

    return sums


def _compiled(kernel, profile: str) -> tilec.CompiledKernel:
    return tilec.compile(kernel, target="ascend", profile=profile)


def _atomic_sizes(compiled: tilec.CompiledKernel) -> list[str]:
    """The sizes of every atomic copy of the ascend IR."""
    return re.findall(r"sizes \[([\d, ]+)\] atomic_add", compiled.ir("ascend"))


@pytest.mark.parametrize("profile", PROFILES)
def test_a_split_k_gemm_adds_each_tile_with_one_atomic_dma(profile):
    M, N, K = 100, 70, 128  # ragged in M and N: the edge tiles' DMAs drop what lies outside
    kernel = _compiled(split_k_gemm(M, N, K), profile)
    # one DMA of the tile (or of each AIV's half of it), not one per element
    assert _atomic_sizes(kernel) in (["64, 64"], ["32, 64"])
    rng = np.random.default_rng(3)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = rng.standard_normal((M, N)).astype(np.float32)  # added into, not overwritten
    expected = c + a.astype(np.float32) @ b.astype(np.float32)
    kernel(a, b, c)
    np.testing.assert_allclose(c, expected, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("profile", PROFILES)
def test_a_computed_addend_is_one_atomic_dma_of_the_region(profile):
    n, m = 37, 24
    kernel = _compiled(scaled_adds(n, m), profile)
    assert _atomic_sizes(kernel) == ["16, 24"]
    rng = np.random.default_rng(4)
    x = rng.standard_normal((n, m)).astype(np.float32)
    y = rng.standard_normal((n, m)).astype(np.float32)
    expected = y + 2 * x + 1
    kernel(x, y)
    np.testing.assert_allclose(y, expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("profile", PROFILES)
def test_adds_of_many_points_into_one_element_stay_per_element(profile):
    n, m = 20, 8
    kernel = _compiled(row_sums(n, m), profile)
    assert set(_atomic_sizes(kernel)) == {"1"}
    rng = np.random.default_rng(5)
    x = rng.standard_normal((n, m)).astype(np.float32)
    s = np.ones(n, np.float32)
    kernel(x, s)
    np.testing.assert_allclose(s, 1 + x.sum(axis=1), rtol=1e-5, atol=1e-5)
