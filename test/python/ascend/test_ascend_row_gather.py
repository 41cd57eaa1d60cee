"""Tiles assembled row by row from global memory (a paged KV cache gathered one row
per DMA), multiplied by the cube.

A `T.copy` into row j of a tile writes that row only: the tile is built from pieces.
On the cube each row is an `ascend.copy_nd2nz` with `dst_row` (a DMA into the Nz tile
at row j); rows past the tensor's end read as zero and rows past the tile's end are
dropped. The same kernels run on cpu, where a copy at an offset used to zero the
whole tile first and so kept only the last row (a silently wrong result on every
target that shared the rule)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tilec
import tilec.language as T

TARGETS = ["cpu", "ascend:910b", "ascend:950"]


def gathered_gemm(rows: int, keys: int, dim: int, flat: bool):
    """S = Q K^T where row j of K is row Idx[j] of a 45-row cache (a flat one: elements
    Idx[j] * dim ...); a -1 index reads past the cache's end (zeros)."""
    pages = 45
    cache = T.Tensor((pages * dim,), "float16") if flat else T.Tensor((pages, dim), "float16")

    @T.prim_func
    def gathered(Q: T.Tensor((rows, dim), "float16"), K: cache,
                 Idx: T.Tensor((keys,), "int32"), S: T.Tensor((rows, keys), "float32")):
        with T.Kernel(1, threads=128) as _:
            q = T.alloc_shared((rows, dim), "float16")
            k = T.alloc_shared((keys, dim), "float16")
            s = T.alloc_fragment((rows, keys), "float32")
            T.copy(Q[0, 0], q)
            for j in T.serial(keys):
                row = T.if_then_else(Idx[j] < 0, pages, Idx[j])
                if flat:
                    T.copy(K[row * dim:row * dim + dim], k[j, :])
                else:
                    T.copy(K[row, 0:dim], k[j, :])
            T.gemm(q, k, s, transpose_B=True, clear_accum=True)
            T.copy(s, S[0, 0])

    return gathered


def _case(rows: int, keys: int, dim: int, pages: int, seed: int):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((rows, dim)).astype(np.float16)
    cache = rng.standard_normal((pages, dim)).astype(np.float16)
    idx = rng.integers(0, pages, keys).astype(np.int32)
    idx[keys // 2] = -1  # past the cache's end: a row of zeros
    gathered = np.where((idx >= 0)[:, None], cache[np.maximum(idx, 0)], 0).astype(np.float32)
    return q, cache, idx, q.astype(np.float32) @ gathered.T


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("rows", "keys", "dim", "flat"), [
    (16, 32, 64, True),
    (32, 20, 96, False),  # a key count that is not a whole fractal
])
def test_rows_gathered_into_a_gemm_operand(target, rows, keys, dim, flat):
    q, cache, idx, ref = _case(rows, keys, dim, 45, seed=rows + keys)
    s = np.zeros((rows, keys), np.float32)
    kernel = tilec.compile(gathered_gemm(rows, keys, dim, flat), target=target)
    kernel(q, cache.reshape(-1) if flat else cache, idx, s)
    np.testing.assert_allclose(s, ref, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("profile", ["910b", "950"])
def test_each_row_is_one_dma_into_the_nz_tile(profile):
    kernel = tilec.compile(gathered_gemm(16, 32, 64, True), target=f"ascend:{profile}")
    lowered = kernel.ir("ascend")
    copies = re.findall(r"ascend\.copy_nd2nz [^\n]*", lowered)
    assert len(copies) == 2  # Q whole; K one row per iteration, at the row
    assert re.search(r", %\w+\[%\w+\] sizes \[1, 64\]", copies[1]), copies
    source = kernel.source()
    assert "Fill(" in source  # the zeroed row of a -1 index, under its run-time guard


def vector_gathered_gemm():
    """C = (2 * K) @ B where row j of K is row Idx[j] of a flat 40-row cache, gathered
    into a fragment (the vector cores' UB on the NPU) and scaled there before the cube
    takes it: each AIV copies the rows of its half."""
    N = T.symbolic("N")

    @T.prim_func
    def row_gather(A: T.Tensor((N,), "float16"), Idx: T.Tensor((16,), "int32"),
                   B: T.Tensor((32, 32), "float16"), C: T.Tensor((16, 32), "float32")):
        with T.Kernel(1, threads=128) as _:
            rows = T.alloc_fragment((16, 32), "float16")
            k = T.alloc_shared((16, 32), "float16")
            b = T.alloc_shared((32, 32), "float16")
            acc = T.alloc_fragment((16, 32), "float32")
            for j in T.serial(16):
                base = Idx[j] * 32
                T.copy(A[base:base + 32], rows[j, :])
            for j, d in T.Parallel(16, 32):
                k[j, d] = rows[j, d] * 2
            T.copy(B, b)
            T.gemm(k, b, acc, clear_accum=True)
            T.copy(acc, C)

    return row_gather


@pytest.mark.parametrize("target", TARGETS)
def test_rows_gathered_by_the_vector_cores(target):
    kernel = tilec.compile(vector_gathered_gemm(), target=target)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((40, 32)).astype(np.float16)
    idx = rng.permutation(40)[:16].astype(np.int32)
    b = rng.standard_normal((32, 32)).astype(np.float16)
    c = np.zeros((16, 32), np.float32)
    kernel(a.reshape(-1), idx, b, c)
    ref = (a[idx].astype(np.float32) * 2) @ b.astype(np.float32)
    np.testing.assert_allclose(c, ref, rtol=1e-3, atol=1e-2)
