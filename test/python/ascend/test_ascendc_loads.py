"""The 8-bit and 32-bit transposing loads the AscendC emitter issues give the L0 tiles
the simulator's `load_l0a`/`load_l0b` give (32-bit: out of the Zz tile at the end).

A numpy model of LoadDataWithTranspose for 8-bit elements, as the vendor
documents it (LoadData2dTransposeParams, arch 2201): repeat i takes the 32x32
square of two consecutive 512-byte fractals at square `start + i * srcStride`,
transposes it, and writes its two 16x32 halves as fractals at `first` and
`first + dstFracGap + 1`, `first` advancing by `dstGap + 1` fractals per repeat.
Applied to an Nz tile, the emitter's calls must produce the simulator's Zn (L0B)
or Zz (L0A) layout of the same matrix, ragged tile shapes included.
"""

from __future__ import annotations

import numpy as np
import pytest

from tilec.backends.ascend.ascendc import (
    TransposedLoad,
    transposed_8bit_loads,
    transposed_32bit_loads,
)
from tilec.diagnostics import CompileError
from tilec.sim import layout

SQUARE, FRACTAL = 32 * 32, 16 * 32


def _apply(calls: list[TransposedLoad], nz: np.ndarray, dst_shape: tuple[int, ...]) -> np.ndarray:
    source = nz.reshape(-1)
    out = np.full(int(np.prod(dst_shape)), -1, dtype=nz.dtype)
    for call in calls:
        for i in range(call.repeats):
            square_start = (call.start + i * call.src_stride) * SQUARE
            square = source[square_start:square_start + SQUARE].reshape(32, 32).T
            first = call.dst_fractal + i * (call.dst_gap + 1)
            for half in (0, 1):
                fractal = first + half * (call.dst_frac_gap + 1)
                out[fractal * FRACTAL:(fractal + 1) * FRACTAL] = square[16 * half:16 * half + 16] \
                    .reshape(-1)
    return out.reshape(dst_shape)


def _matrix(rows: int, cols: int) -> np.ndarray:
    return np.random.default_rng(rows * cols).integers(-128, 127, (rows, cols), dtype=np.int8)


@pytest.mark.parametrize(("K", "N"), [(32, 32), (64, 96), (96, 32), (128, 160)])
def test_l0b_from_b(K, N):
    B = _matrix(K, N)
    nz = layout.nd_to_nz(B, 32)  # (N/32, K/16, 16, 32)
    expected = layout.nd_to_zn(B, 32)  # (K/32, N/16, 16, 32)
    calls = transposed_8bit_loads("l0b", list(nz.shape[:2]), list(expected.shape[:2]))
    np.testing.assert_array_equal(_apply(calls, nz, expected.shape), expected)


@pytest.mark.parametrize(("M", "K"), [(32, 32), (64, 96), (96, 32), (160, 64)])
def test_l0a_from_the_transpose_of_a(M, K):
    A = _matrix(M, K)
    nz = layout.nd_to_nz(np.ascontiguousarray(A.T), 32)  # L1 holds A^T: (M/32, K/16, 16, 32)
    expected = layout.nd_to_zz(A, 32)  # (M/16, K/32, 16, 32)
    calls = transposed_8bit_loads("l0a", list(nz.shape[:2]), list(expected.shape[:2]))
    np.testing.assert_array_equal(_apply(calls, nz, expected.shape), expected)


def test_a_larger_l1_tile_keeps_its_stride():
    """L1 holds 96 rows of K where L0B takes the first 64: squares stride over all 96."""
    B = _matrix(96, 64)
    nz = layout.nd_to_nz(B, 32)
    expected = layout.nd_to_zn(B[:64], 32)
    calls = transposed_8bit_loads("l0b", list(nz.shape[:2]), list(expected.shape[:2]))
    np.testing.assert_array_equal(_apply(calls, nz, expected.shape), expected)


def test_half_squares_are_an_error():
    """An L1 tile of 3 fractal rows (48 of K) has no whole 32x32 squares."""
    with pytest.raises(CompileError, match="32x32 squares of 8-bit elements"):
        transposed_8bit_loads("l0b", [1, 3], [2, 2])


# -- 32-bit squares out of a Zz tile ------------------------------------------------------

SQUARE32, FRACTAL32 = 16 * 16, 16 * 8


def _apply_32bit(calls: list[TransposedLoad], zz: np.ndarray,
                 dst_shape: tuple[int, ...]) -> np.ndarray:
    """LoadDataWithTranspose of f32 (arch 2201), as documented: repeat i joins the two 16x8
    fractals of square `start + i * srcStride` side by side into a 16x16 square, transposes
    it and writes its first 8 columns as the fractal at `first`, its last 8 as the one at
    `first + dstFracGap + 1`; `first` advances by `dstGap + 1` fractals per repeat."""
    source = zz.reshape(-1)
    out = np.full(int(np.prod(dst_shape)), -1, dtype=zz.dtype)
    for call in calls:
        for i in range(call.repeats):
            at = (call.start + i * call.src_stride) * SQUARE32
            left = source[at:at + FRACTAL32].reshape(16, 8)
            right = source[at + FRACTAL32:at + SQUARE32].reshape(16, 8)
            square = np.hstack([left, right]).T
            first = call.dst_fractal + i * (call.dst_gap + 1)
            for half in (0, 1):
                fractal = first + half * (call.dst_frac_gap + 1)
                out[fractal * FRACTAL32:(fractal + 1) * FRACTAL32] = \
                    square[:, 8 * half:8 * half + 8].reshape(-1)
    return out.reshape(dst_shape)


def _f32(rows: int, cols: int) -> np.ndarray:
    return np.random.default_rng(rows * cols).standard_normal((rows, cols)).astype(np.float32)


@pytest.mark.parametrize(("K", "N"), [(16, 16), (32, 64), (64, 32), (48, 80)])
def test_l0b_from_a_zz_b(K, N):
    B = _f32(K, N)
    zz = layout.nd_to_zz(B, 8)  # (K/16, N/8, 16, 8)
    expected = layout.nd_to_zn(B, 8)  # (K/8, N/16, 16, 8)
    calls = transposed_32bit_loads("l0b", list(zz.shape[:2]), zz.shape[1],
                                   list(expected.shape[:2]), expected.shape[1])
    np.testing.assert_array_equal(_apply_32bit(calls, zz, expected.shape), expected)


@pytest.mark.parametrize(("M", "K"), [(16, 16), (64, 32), (32, 64), (80, 48)])
def test_l0a_from_a_zz_transpose_of_a(M, K):
    A = _f32(M, K)
    zz = layout.nd_to_zz(np.ascontiguousarray(A.T), 8)  # L1 holds Aᵀ: (K/16, M/8, 16, 8)
    expected = layout.nd_to_zz(A, 8)  # (M/16, K/8, 16, 8)
    calls = transposed_32bit_loads("l0a", list(zz.shape[:2]), zz.shape[1],
                                   list(expected.shape[:2]), expected.shape[1])
    np.testing.assert_array_equal(_apply_32bit(calls, zz, expected.shape), expected)


def test_a_k_step_of_a_zz_tile_writes_a_prefix_of_l0a():
    """K = 64 in L1, a K step of 32 into an L0A buffer 64 deep: the M blocks of the step
    lie a whole L0A row (8 fractals) apart, and the rest of each row stays as it was."""
    A = _f32(32, 64)
    zz = layout.nd_to_zz(np.ascontiguousarray(A.T[:32]), 8)  # the first 32 of K
    calls = transposed_32bit_loads("l0a", list(zz.shape[:2]), zz.shape[1], [2, 4], 8)
    out = _apply_32bit(calls, zz, (2, 8, 16, 8))
    np.testing.assert_array_equal(out[:, :4], layout.nd_to_zz(A[:, :32], 8))
    assert (out[:, 4:] == -1).all()


def test_odd_column_blocks_are_an_error():
    """A Zz tile 8 columns wide (one fractal) has no square of two fractals side by side."""
    with pytest.raises(CompileError, match="16x16 squares of 32-bit elements"):
        transposed_32bit_loads("l0b", [2, 1], 1, [4, 1], 1)


@pytest.mark.parametrize(("K", "N"), [(24, 40), (40, 24), (8, 8), (50, 70)])
def test_a_ragged_b_padded_to_whole_squares_gives_its_zn(K, N):
    """A ragged f32 B in a Zz tile padded with zeros to whole 16x16 squares (rows and
    columns to multiples of 16): the loads fill an L0B of the padded K, whose leading
    ceil(K/8) fractal rows are the Zn of B itself (the layout a lowering that pads such
    tiles would hand the emitter)."""
    B = _f32(K, N)
    rows, cols, k1 = -(-K // 16) * 16, -(-N // 16) * 16, -(-K // 8)
    zz = layout.nd_to_zz(layout.fit(B, rows, cols), 8)
    shape = (rows // 8, cols // 16, 16, 8)
    calls = transposed_32bit_loads("l0b", list(zz.shape[:2]), zz.shape[1], list(shape[:2]),
                                   shape[1])
    out = _apply_32bit(calls, zz, shape)
    np.testing.assert_array_equal(out[:k1], layout.nd_to_zn(layout.fit(B, k1 * 8, cols), 8))
    assert (out[k1:] == 0).all()  # the padding rows of K hold zeros


@pytest.mark.parametrize(("M", "K"), [(24, 40), (40, 24), (8, 8), (50, 70)])
def test_a_ragged_transpose_of_a_padded_to_whole_squares_gives_the_zz_of_a(M, K):
    """Aᵀ (K x M, f32) in a Zz tile padded with zeros to whole 16x16 squares: the loads
    fill an L0A of M and K both to multiples of 16, which is the Zz of A padded with
    zeros. Its row pitch is the padded K, so the mmad that reads it runs over the padded
    K too (the lowering pairs such an A with a Zz B, whose padding is zero as well)."""
    A = _f32(M, K)
    rows, cols = -(-K // 16) * 16, -(-M // 16) * 16
    zz = layout.nd_to_zz(layout.fit(np.ascontiguousarray(A.T), rows, cols), 8)
    shape = (cols // 16, rows // 8, 16, 8)
    calls = transposed_32bit_loads("l0a", list(zz.shape[:2]), zz.shape[1], list(shape[:2]),
                                   shape[1])
    out = _apply_32bit(calls, zz, shape)
    np.testing.assert_array_equal(out, layout.nd_to_zz(layout.fit(A, cols, rows), 8))
