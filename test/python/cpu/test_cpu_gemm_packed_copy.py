"""A gemm's B panels written by the copy that fills B (gemm_packed_copy.py),
and 8-row micro-tiles on AVX-512: a pipelined DSL GEMM computes what numpy
does on shapes that are not multiples of its blocks, with panels of which the
last is narrower, B of a narrower type, and a B tile the kernel also reads."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import tilec
import tilec.language as T

RNG = np.random.default_rng(0)


def _gemm(block_m: int, block_n: int, block_k: int, dtype: str = "float32",
          store_b: bool = False):
    """The benchmark's GEMM; with `store_b` it also copies each B tile out to D
    (the tile is then read by something other than the gemm)."""
    M, N, K = T.symbolic("M"), T.symbolic("N"), T.symbolic("K")

    @T.prim_func
    def gemm(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), "float32"),
        D: T.Tensor((K, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_n), T.ceildiv(M, block_m), threads=128) as (bx, by):
            A_s = T.alloc_shared((block_m, block_k), dtype)
            B_s = T.alloc_shared((block_k, block_n), dtype)
            C_f = T.alloc_fragment((block_m, block_n), "float32")
            T.clear(C_f)
            for k in T.Pipelined(T.ceildiv(K, block_k), num_stages=2):
                T.copy(A[by * block_m, k * block_k], A_s)
                T.copy(B[k * block_k, bx * block_n], B_s)
                T.gemm(A_s, B_s, C_f)
                if store_b:
                    T.copy(B_s, D[k * block_k, bx * block_n])
            T.copy(C_f, C[by * block_m, bx * block_n])

    return gemm


def _after_gemm_stage(kernel) -> str:
    stage = next(s for s in kernel.stages() if s.startswith("convert-tile-to-cpu{ops=tile.gemm"))
    return kernel.ir(stage)


def _run(kernel, m: int, n: int, k: int, dtype=np.float32) -> tuple[np.ndarray, np.ndarray]:
    a = RNG.standard_normal((m, k)).astype(dtype)
    b = RNG.standard_normal((k, n)).astype(dtype)
    c = np.full((m, n), np.nan, np.float32)
    d = np.zeros((k, n), dtype)
    kernel(a, b, c, d)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4,
                               atol=1e-3)
    return b, d


@pytest.mark.parametrize("target,panel,rows", [("cpu:avx2", 16, 6), ("cpu:avx512", 32, 8)])
def test_b_copy_writes_the_panels_and_micro_tile_rows(target, panel, rows):
    kernel = tilec.compile(_gemm(16, 40, 8), target=target)
    ir = _after_gemm_stage(kernel)
    widths = [panel] * (40 // panel) + [40 % panel]
    for width in widths:
        assert f"sizes [1, 8, {width}]" in ir
    panels = f"memref<{len(widths)}x8x{panel}xf32, #tile.scope<local>>"
    assert sum("tile.copy" in line and panels in line for line in ir.splitlines()) == len(widths)
    assert "memref<8x40xf32, #tile.scope<shared>>" not in ir  # B's tile is gone
    lanes = panel // 2
    assert f"-> ({', '.join([f'vector<{lanes}xf32>'] * 2 * rows)})" in ir
    assert f"-> ({', '.join([f'vector<{lanes}xf32>'] * 2 * (rows + 1))})" not in ir
    _run(kernel, 37, 93, 29)


@functools.cache
def _kernel(block: tuple[int, int, int], target: str):
    return tilec.compile(_gemm(*block), target=target)


@pytest.mark.parametrize("target", ["cpu:avx2", "cpu:avx512"])
@pytest.mark.parametrize("block", [(32, 64, 16), (8, 8, 4)])  # 8 columns: part of one panel
@pytest.mark.parametrize("m,n,k", [(128, 128, 64), (1, 1, 1), (70, 45, 19), (9, 200, 50)])
def test_ragged_shapes(target, block, m, n, k):
    _run(_kernel(block, target), m, n, k)


def test_f16_b_is_converted_by_the_copy():
    kernel = tilec.compile(_gemm(16, 48, 16, "float16"), target="cpu:avx512")
    assert "sizes [1, 16, 16]" in _after_gemm_stage(kernel)  # 48 = 32 + 16
    _run(kernel, 33, 50, 41, np.float16)


def test_b_tile_read_by_another_op_is_packed_from_the_tile():
    kernel = tilec.compile(_gemm(16, 32, 8, store_b=True), target="cpu:avx512")
    assert "memref<8x32xf32, #tile.scope<shared>>" in _after_gemm_stage(kernel)
    b, d = _run(kernel, 20, 64, 24)
    np.testing.assert_array_equal(d, b)
