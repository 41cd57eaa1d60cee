"""T.im2col on cpu against numpy: every (block_M, block_K) tile of the patch matrix of an
NHWC image, for strides, dilations and paddings whose taps fall in the padding, on
shapes where neither N*OH*OW nor KH*KW*C is a multiple of the tile (the ragged last
tiles read 0 past the matrix), with static and symbolic image dims; and its errors."""

from __future__ import annotations

import numpy as np
import pytest
from dsl_helpers import expect_error

import tilec
import tilec.language as T

RNG = np.random.default_rng(11)


def kernel_error(kernel: T.PrimFunc, tag: str, *fragments: str) -> None:
    expect_error(kernel.ir, __file__, tag, *fragments)


def reference(img: np.ndarray, kernel: int, stride: int, dilation: int, pad: int) -> np.ndarray:
    """The (N*OH*OW) x (KH*KW*C) patch matrix, row (n, oh, ow), column (kh, kw, c)."""
    n, h, w, c = img.shape
    out_h = (h + 2 * pad - dilation * (kernel - 1) - 1) // stride + 1
    out_w = (w + 2 * pad - dilation * (kernel - 1) - 1) // stride + 1
    padded = np.pad(img, ((0, 0), (pad, pad), (pad, pad), (0, 0)))
    col = np.zeros((n, out_h, out_w, kernel, kernel, c), img.dtype)
    for kh in range(kernel):
        for kw in range(kernel):
            rows = slice(kh * dilation, kh * dilation + stride * (out_h - 1) + 1, stride)
            cols = slice(kw * dilation, kw * dilation + stride * (out_w - 1) + 1, stride)
            col[:, :, :, kh, kw, :] = padded[:, rows, cols, :]
    return col.reshape(n * out_h * out_w, kernel * kernel * c)


def patch_matrix(shape, kernel, stride, dilation, pad, block_m, block_k, dtype, symbolic):
    n, h, w, c = shape
    out_h = (h + 2 * pad - dilation * (kernel - 1) - 1) // stride + 1
    out_w = (w + 2 * pad - dilation * (kernel - 1) - 1) // stride + 1
    rows, columns = n * out_h * out_w, kernel * kernel * c
    grid_m, grid_k = -(-rows // block_m), -(-columns // block_k)
    dims = T.symbolic("N, H, W") if symbolic else (n, h, w)

    @T.prim_func
    def im2col(
        img: T.Tensor((*dims, c), dtype),
        out: T.Tensor((grid_m * block_m, grid_k * block_k), dtype),
    ):
        with T.Kernel(grid_k, grid_m, threads=128) as (bk, bm):
            col = T.alloc_shared((block_m, block_k), dtype)
            T.fill(col, 7)  # every element is written
            T.im2col(img, col, bm, bk, kernel, stride, dilation, pad)
            T.copy(col, out[bm * block_m, bk * block_k])

    return tilec.compile(im2col), (grid_m * block_m, grid_k * block_k)


CASES = [
    # shape (N, H, W, C), kernel, stride, dilation, pad, block_M, block_K
    ((2, 7, 5, 3), 3, 1, 1, 1, 16, 8),
    ((1, 9, 11, 4), 3, 2, 1, 2, 32, 16),
    ((3, 8, 8, 2), 2, 1, 2, 0, 16, 8),
    ((2, 10, 6, 5), 5, 3, 2, 4, 8, 32),
]


@pytest.mark.parametrize("symbolic", [False, True])
@pytest.mark.parametrize(("shape", "kernel", "stride", "dilation", "pad", "bm", "bk"), CASES)
def test_patch_matrix_tiles_match_numpy(shape, kernel, stride, dilation, pad, bm, bk, symbolic):
    img = RNG.standard_normal(shape).astype(np.float32)
    run, padded_shape = patch_matrix(
        shape, kernel, stride, dilation, pad, bm, bk, "float32", symbolic
    )
    out = np.full(padded_shape, np.nan, np.float32)
    run(img, out)
    expected = np.zeros(padded_shape, np.float32)
    ref = reference(img, kernel, stride, dilation, pad)
    expected[: ref.shape[0], : ref.shape[1]] = ref
    np.testing.assert_array_equal(out, expected)


def test_float16_and_infinite_pixels_stay_out_of_the_padding():
    """Past the matrix the tile is 0 even where the image holds inf, so a GEMM with the
    zero-padded filter stays finite."""
    img = np.full((1, 4, 4, 3), np.inf, np.float16)
    run, padded_shape = patch_matrix((1, 4, 4, 3), 3, 1, 1, 1, 16, 32, "float16", False)
    out = np.full(padded_shape, np.nan, np.float16)
    run(img, out)
    expected = np.zeros(padded_shape, np.float16)
    ref = reference(img, 3, 1, 1, 1)
    expected[: ref.shape[0], : ref.shape[1]] = ref
    np.testing.assert_array_equal(out, expected)
    assert np.isfinite(out[:, 27:]).all()


def test_im2col_errors_point_at_the_call():
    @T.prim_func
    def three_d(img: T.Tensor((2, 8, 8), "float32")):
        with T.Kernel(1):
            col = T.alloc_shared((16, 16), "float32")
            T.im2col(img, col, 0, 0, 3, 1, 1, 1)  # rank

    kernel_error(three_d, "rank", "T.im2col: the image must be a 4-D (N, H, W, C) buffer")

    @T.prim_func
    def dtypes(img: T.Tensor((2, 8, 8, 4), "float32")):
        with T.Kernel(1):
            col = T.alloc_shared((16, 16), "float16")
            T.im2col(img, col, 0, 0, 3, 1, 1, 1)  # dtype

    kernel_error(dtypes, "dtype", "col ('col') is float16 but the image 'img' is float32")

    @T.prim_func
    def stride(img: T.Tensor((2, 8, 8, 4), "float32")):
        with T.Kernel(1):
            col = T.alloc_shared((16, 16), "float32")
            T.im2col(img, col, 0, 0, 3, 0, 1, 1)  # stride

    kernel_error(stride, "stride", "T.im2col: stride must be a Python int of at least 1")
