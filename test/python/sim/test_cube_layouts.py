"""Fractal layouts: the spec's index formulas, and GEMMs whose numbers depend on them.

The GEMM kernels here cover every C0 (16 for f16, 8 for f32, 32 for i8) and
the transposing loads, with M, N, K that are not multiples of the fractal
so that padding matters.
"""

from __future__ import annotations

import numpy as np
import pytest

from tilec.sim import SimError, layout, simulate

_C0 = {"f16": 16, "f32": 8, "i8": 32, "f8E4M3FN": 32}
_NUMPY = {"f16": np.float16, "f32": np.float32, "i8": np.int8}


@pytest.mark.parametrize("c0", [8, 16, 32])
def test_layouts_follow_the_spec_formulas(c0: int) -> None:
    rows, cols = 48, 4 * c0
    matrix = np.arange(rows * cols).reshape(rows, cols)
    nz, zz, zn = (layout.nd_to_nz(matrix, c0), layout.nd_to_zz(matrix, c0),
                  layout.nd_to_zn(matrix.T.copy(), c0))
    for r, c in [(0, 0), (17, c0 + 3), (rows - 1, cols - 1), (31, 2 * c0 - 1)]:
        assert nz[c // c0, r // 16, r % 16, c % c0] == matrix[r, c]
        assert zz[r // 16, c // c0, r % 16, c % c0] == matrix[r, c]
        # Zn of the K x N matrix matrix.T: (k, n) at [k/C0, n/16, n%16, k%C0].
        k, n = c, r
        assert zn[k // c0, n // 16, n % 16, k % c0] == matrix[r, c]
    np.testing.assert_array_equal(layout.nz_to_nd(nz), matrix)
    np.testing.assert_array_equal(layout.zz_to_nd(zz), matrix)
    np.testing.assert_array_equal(layout.zn_to_nd(zn), matrix.T)


def _blocks(x: int, per: int) -> int:
    return -(-x // per)


def _nz(rows: int, cols: int, c0: int) -> str:
    return f"{_blocks(cols, c0)}x{_blocks(rows, 16)}x16x{c0}"


def _one_gemm(gm: tuple[str, str, str], buffers: tuple[str, str, str, str, str],
              copies: tuple[tuple[tuple[int, int], str], tuple[tuple[int, int], str]],
              loads: tuple[str, str], mnk: tuple[int, int, int], out: tuple[int, int]) -> str:
    """An AIC kernel of one tile gemm: GM -> L1 copies of `copies` (sizes and
    attributes), L1 -> L0 loads with `loads`' attributes, the mmad and the
    fixpipe of `out` rows and columns into C."""
    (ga, gb, gc), (l1a, l1b, l0a, l0b, l0c) = gm, buffers
    ((a_rows, a_cols), copy_a), ((b_rows, b_cols), copy_b) = copies
    (load_a, load_b), (m, n, k) = loads, mnk
    return f"""
func.func @gemm(%a: {ga}, %b: {gb}, %c: {gc})
    attributes {{ascend.kernel = #ascend.core<aic>}} {{
  %c0 = arith.constant 0 : index
  %l1a = memref.alloc() : {l1a}
  %l1b = memref.alloc() : {l1b}
  %l0a = memref.alloc() : {l0a}
  %l0b = memref.alloc() : {l0b}
  %l0c = memref.alloc() : {l0c}
  ascend.copy_nd2nz %a[%c0, %c0], %l1a sizes [{a_rows}, {a_cols}]{copy_a} : {ga}, {l1a}
  ascend.copy_nd2nz %b[%c0, %c0], %l1b sizes [{b_rows}, {b_cols}]{copy_b} : {gb}, {l1b}
  ascend.set_flag mte2 -> mte1, 0
  ascend.wait_flag mte2 -> mte1, 0
  ascend.load_l0a %l1a, %l0a{load_a} sizes [{m}, {k}] : {l1a}, {l0a}
  ascend.load_l0b %l1b, %l0b{load_b} sizes [{k}, {n}] : {l1b}, {l0b}
  ascend.set_flag mte1 -> m, 0
  ascend.wait_flag mte1 -> m, 0
  ascend.mmad %l0a, %l0b, %l0c sizes [{m}, {n}, {k}] {{init}} : {l0a}, {l0b}, {l0c}
  ascend.set_flag m -> fix, 0
  ascend.wait_flag m -> fix, 0
  ascend.fixpipe %l0c, %c[%c0, %c0] sizes [{out[0]}, {out[1]}] : {l0c}, {gc}
  return
}}
"""


def gemm_kernel(dtype: str, m: int, n: int, k: int, ta: bool, tb: bool) -> str:
    """One tile C = op(A) op(B) with A stored K x M when `ta`, B stored N x K when `tb`."""
    c0 = _C0[dtype]
    acc = "i32" if dtype == "i8" else "f32"
    a_shape = (k, m) if ta else (m, k)
    b_shape = (n, k) if tb else (k, n)
    l1a = f"memref<{_nz(*a_shape, c0)}x{dtype}, #ascend.mem<l1>>"
    l1b = f"memref<{_nz(*b_shape, c0)}x{dtype}, #ascend.mem<l1>>"
    l0a = f"memref<{_blocks(m, 16)}x{_blocks(k, c0)}x16x{c0}x{dtype}, #ascend.mem<l0a>>"
    l0b = f"memref<{_blocks(k, c0)}x{_blocks(n, 16)}x16x{c0}x{dtype}, #ascend.mem<l0b>>"
    l0c = f"memref<{_blocks(n, 16)}x{_blocks(m, 16)}x16x16x{acc}, #ascend.mem<l0c>>"
    gm_a = f"memref<{a_shape[0]}x{a_shape[1]}x{dtype}, #ascend.mem<gm>>"
    gm_b = f"memref<{b_shape[0]}x{b_shape[1]}x{dtype}, #ascend.mem<gm>>"
    gm_c = f"memref<{m}x{n}x{acc}, #ascend.mem<gm>>"
    t_a = " {transpose}" if ta else ""
    t_b = " {transpose}" if tb else ""
    return _one_gemm((gm_a, gm_b, gm_c), (l1a, l1b, l0a, l0b, l0c),
                     ((a_shape, ""), (b_shape, "")), (t_a, t_b), (m, n, k), (m, n))


@pytest.mark.parametrize("dtype", ["f16", "f32", "i8"])
@pytest.mark.parametrize(("ta", "tb"), [(False, False), (True, False), (False, True)])
def test_gemm_reads_fractals(dtype: str, ta: bool, tb: bool) -> None:
    m, n, k = 40, 24, 2 * _C0[dtype] + (16 if dtype != "i8" else 0)
    rng = np.random.default_rng(7)
    if dtype == "i8":
        a = rng.integers(-100, 100, (m, k)).astype(np.int8)
        b = rng.integers(-100, 100, (k, n)).astype(np.int8)
        expected = a.astype(np.int64) @ b.astype(np.int64)
        out = np.zeros((m, n), np.int32)
    else:
        a = rng.standard_normal((m, k)).astype(_NUMPY[dtype])
        b = rng.standard_normal((k, n)).astype(_NUMPY[dtype])
        expected = a.astype(np.float64) @ b.astype(np.float64)
        out = np.zeros((m, n), np.float32)
    stored_a = a.T.copy() if ta else a
    stored_b = b.T.copy() if tb else b
    result = simulate(gemm_kernel(dtype, m, n, k, ta, tb), [stored_a, stored_b, out])
    assert result.ok, "\n".join(d.render() for d in result.diagnostics)
    if dtype == "i8":
        np.testing.assert_array_equal(result["c"], expected)
    else:
        np.testing.assert_allclose(result["c"], expected, rtol=1e-5, atol=1e-4)


def test_fp8_needs_the_950_cube() -> None:
    text = gemm_kernel("f8E4M3FN", 16, 16, 32, False, False)
    a = np.ones((16, 32), np.float32)
    b = np.ones((32, 16), np.float32)
    result = simulate(text, [a, b, np.zeros((16, 16), np.float32)], profile="950")
    np.testing.assert_array_equal(result["c"], np.full((16, 16), 32.0))
    with pytest.raises(SimError, match="the cube of the 910b profile has no f8E4M3FN mode"):
        simulate(text, [a, b, np.zeros((16, 16), np.float32)], profile="910b")


def _zz(rows: int, cols: int, c0: int) -> str:
    return f"{_blocks(rows, 16)}x{_blocks(cols, c0)}x16x{c0}"


def transposing_f32_gemm(m: int, n: int, k: int, ta: bool, tb: bool, l1: str,
                         gm: tuple[int, int, int]) -> str:
    """One f32 tile C = op(A) op(B) of m x n x k (whole 16 x 16 squares) over GM matrices of
    `gm` = (M, N, K) (smaller: the copies read zeros past their edges), where each operand
    that needs transposing (A with `ta`, B without `tb`) is in L1 in layout `l1`: "zz"
    (the 910b's) or "dn" (the 950's Nz of the transpose)."""
    gm_m, gm_n, gm_k = gm
    a_tile, b_tile = ((k, m) if ta else (m, k)), ((n, k) if tb else (k, n))
    a_gm, b_gm = ((gm_k, gm_m) if ta else (gm_m, gm_k)), ((gm_n, gm_k) if tb else (gm_k, gm_n))
    a_l1, copy_a, load_a = _nz(*a_tile, 8), "", " {transpose}" if ta else ""
    b_l1, copy_b, load_b = _nz(*b_tile, 8), "", " {transpose}" if tb else ""
    if ta:
        a_l1, copy_a, load_a = ((_zz(k, m, 8), " {zz}", " {transpose, zz}") if l1 == "zz"
                                else (_nz(m, k, 8), " {transpose}", ""))
    if not tb:
        b_l1, copy_b, load_b = ((_zz(k, n, 8), " {zz}", " {zz}") if l1 == "zz"
                                else (_nz(n, k, 8), " {transpose}", " {transpose}"))
    l1a, l1b = (f"memref<{s}xf32, #ascend.mem<l1>>" for s in (a_l1, b_l1))
    l0a = f"memref<{_blocks(m, 16)}x{_blocks(k, 8)}x16x8xf32, #ascend.mem<l0a>>"
    l0b = f"memref<{_blocks(k, 8)}x{_blocks(n, 16)}x16x8xf32, #ascend.mem<l0b>>"
    l0c = f"memref<{_blocks(n, 16)}x{_blocks(m, 16)}x16x16xf32, #ascend.mem<l0c>>"
    ga, gb = (f"memref<{r}x{c}xf32, #ascend.mem<gm>>" for r, c in (a_gm, b_gm))
    gc = f"memref<{gm_m}x{gm_n}xf32, #ascend.mem<gm>>"
    return _one_gemm((ga, gb, gc), (l1a, l1b, l0a, l0b, l0c),
                     ((a_tile, copy_a), (b_tile, copy_b)), (load_a, load_b), (m, n, k),
                     (gm_m, gm_n))


@pytest.mark.parametrize("l1", ["zz", "dn"])
@pytest.mark.parametrize(("ta", "tb"), [(False, False), (True, False), (True, True)])
def test_f32_operands_in_the_transposing_l1_layouts(l1: str, ta: bool, tb: bool) -> None:
    """The f32 L1 layouts that serve a transposing load (Zz, the Nz of the transpose)
    give the product numpy gives, GM matrices smaller than the tiles (40 x 24 x 27 under
    48 x 32 x 32) included."""
    m, n, k = 48, 32, 32
    gm_m, gm_n, gm_k = 40, 24, 27
    rng = np.random.default_rng(11)
    a = rng.standard_normal((gm_m, gm_k)).astype(np.float32)
    b = rng.standard_normal((gm_k, gm_n)).astype(np.float32)
    out = np.zeros((gm_m, gm_n), np.float32)
    text = transposing_f32_gemm(m, n, k, ta, tb, l1, (gm_m, gm_n, gm_k))
    result = simulate(text, [a.T.copy() if ta else a, b.T.copy() if tb else b, out])
    assert result.ok, "\n".join(d.render() for d in result.diagnostics)
    np.testing.assert_allclose(result["c"], a.astype(np.float64) @ b, rtol=1e-5, atol=1e-4)


def test_a_zz_copy_costs_one_dma_start_per_16_rows() -> None:
    """The Zz copy is one Nd2Nz per 16-row block (as the AscendC emitter issues it): its
    start-ups add up where the Nz copy of the same tile pays one."""
    def mte2_busy(l1: str) -> int:
        text = transposing_f32_gemm(64, 32, 64, False, False, l1, (64, 32, 64))
        a, b = np.ones((64, 64), np.float32), np.ones((64, 32), np.float32)
        result = simulate(text, [a, b, np.zeros((64, 32), np.float32)])
        np.testing.assert_allclose(result["c"], np.full((64, 32), 64.0))
        return result.pipe_busy["MTE2"]

    assert mte2_busy("zz") > mte2_busy("dn")
