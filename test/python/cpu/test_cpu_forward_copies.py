"""tile-cpu-forward-copies end to end: a gemm that reads a whole-tile copy
reads the copied tile, and the kernel computes what numpy does; a copy whose
source changes before the gemm is kept."""

from __future__ import annotations

import numpy as np

import tilec
import tilec.language as T

RNG = np.random.default_rng(0)
STAGE = "tile-cpu-forward-copies"


def _scaled_product(n: int, *, overwrite: bool):
    """C = (2 A) @ B per n x n block of rows, through a copy of the scaled tile;
    with `overwrite` the scaled tile is cleared after the copy."""

    @T.prim_func
    def kernel(
        A: T.Tensor((2 * n, n), "float32"),
        B: T.Tensor((n, n), "float32"),
        C: T.Tensor((2 * n, n), "float32"),
    ):
        with T.Kernel(2, threads=128) as bx:
            a = T.alloc_fragment((n, n), "float32")
            copied = T.alloc_fragment((n, n), "float32")
            b = T.alloc_shared((n, n), "float32")
            c = T.alloc_fragment((n, n), "float32")
            T.copy(A[bx * n, 0], a)
            for i, j in T.Parallel(n, n):
                a[i, j] *= 2.0
            T.copy(a, copied)
            if overwrite:
                T.clear(a)
            T.copy(B, b)
            T.clear(c)
            T.gemm(copied, b, c)
            T.copy(c, C[bx * n, 0])

    return kernel


def _run(kernel, n):
    a = RNG.standard_normal((2 * n, n)).astype(np.float32)
    b = RNG.standard_normal((n, n)).astype(np.float32)
    c = np.zeros((2 * n, n), np.float32)
    kernel(a, b, c)
    np.testing.assert_allclose(c, 2 * a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def test_gemm_reads_the_copied_tile():
    kernel = tilec.compile(_scaled_product(24, overwrite=False), target="cpu")
    before = kernel.ir(kernel.stages()[kernel.stages().index(STAGE) - 1])
    after = kernel.ir(STAGE)
    assert after.count("tile.copy") == before.count("tile.copy") - 1
    assert after.count("tile.alloc") == before.count("tile.alloc") - 1
    _run(kernel, 24)


def test_copy_of_a_tile_written_before_the_gemm_is_kept():
    kernel = tilec.compile(_scaled_product(24, overwrite=True), target="cpu")
    before = kernel.ir(kernel.stages()[kernel.stages().index(STAGE) - 1])
    assert kernel.ir(STAGE).count("tile.copy") == before.count("tile.copy")
    _run(kernel, 24)
