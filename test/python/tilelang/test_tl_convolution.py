"""TileLang's examples/convolution/example_convolution.py (factory form): 2-D convolution of
NHWC float16 data with an HWCF filter as an implicit GEMM: the (N*OH*OW) x (KH*KW*C)
im2col tile is gathered element by element in T.Parallel (with `and` between the bound
tests and T.if_then_else for the padding), the filter and output are viewed as 2-D
tensors with `T.Tensor(shape, dtype, buffer.data)`. The Hopper `T.c2d_im2col` branch is
not taken (`check_hopper` asks torch about the GPU; here it is False). `convolution_im2col`
is the example as TileLang now writes it, with `T.im2col` in place of the gather."""

import numpy as np
import pytest

import tilec
import tilec.language as T


def check_hopper():
    return False


@tilec.jit(out_idx=[2])
def convolution(N, C, H, W, F, K, S, D, P, block_M, block_N, block_K, num_stages, threads,
                dtype=T.float16, accum_dtype=T.float32):
    KH, KW = K, K
    OH = (H + 2 * P - D * (K - 1) - 1) // S + 1
    OW = (W + 2 * P - D * (K - 1) - 1) // S + 1
    dtype = T.float16
    accum_dtype = T.float32
    is_hopper = check_hopper()

    @T.prim_func
    def main(
        data: T.Tensor((N, H, W, C), dtype),
        kernel: T.Tensor((KH, KW, C, F), dtype),
        out: T.Tensor((N, OH, OW, F), dtype),
    ):
        with T.Kernel(
            T.ceildiv(F, block_N), T.ceildiv(N * OH * OW, block_M), threads=threads
        ) as (bx, by):
            data_shared = T.alloc_shared((block_M, block_K), dtype)
            kernel_shared = T.alloc_shared((block_K, block_N), dtype)
            out_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            out_shared = T.alloc_shared((block_M, block_N), dtype)

            kernel_flat = T.Tensor((KH * KW * C, F), dtype, kernel.data)
            out_flat = T.Tensor((N * OH * OW, F), dtype, out.data)

            T.clear(out_local)
            for k_iter in T.Pipelined(T.ceildiv(KH * KW * C, block_K), num_stages=num_stages):
                if is_hopper:
                    T.c2d_im2col(data, data_shared, by, k_iter, KH, S, D, P)
                else:
                    for i, j in T.Parallel(block_M, block_K):
                        k = k_iter * block_K + j
                        m = by * block_M + i
                        access_h = m % (OH * OW) // OW * S + k // (KW * C) * D - P
                        access_w = m % OW * S + k // C % KW * D - P
                        in_bound = (
                            (access_h >= 0) and (access_w >= 0) and (access_h < H)
                            and (access_w < W)
                        )
                        data_shared[i, j] = T.if_then_else(
                            in_bound, data[m // (OH * OW), access_h, access_w, k % C], 0
                        )
                T.copy(kernel_flat[k_iter * block_K, bx * block_N], kernel_shared)
                T.gemm(data_shared, kernel_shared, out_local)

            T.copy(out_local, out_shared)
            T.copy(out_shared, out_flat[by * block_M, bx * block_N])

    return main


@tilec.jit(out_idx=[2])
def convolution_im2col(N, C, H, W, F, K, S, D, P, block_M, block_N, block_K, num_stages,
                       threads, dtype=T.float16, accum_dtype=T.float32):
    KH, KW = K, K
    OH = (H + 2 * P - D * (K - 1) - 1) // S + 1
    OW = (W + 2 * P - D * (K - 1) - 1) // S + 1

    @T.prim_func
    def main(
        data: T.Tensor((N, H, W, C), dtype),
        kernel: T.Tensor((KH, KW, C, F), dtype),
        out: T.Tensor((N, OH, OW, F), dtype),
    ):
        with T.Kernel(
            T.ceildiv(F, block_N), T.ceildiv(N * OH * OW, block_M), threads=threads
        ) as (bx, by):
            data_shared = T.alloc_shared((block_M, block_K), dtype)
            kernel_shared = T.alloc_shared((block_K, block_N), dtype)
            out_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            out_shared = T.alloc_shared((block_M, block_N), dtype)

            kernel_flat = T.Tensor((KH * KW * C, F), dtype, kernel.data)
            out_flat = T.Tensor((N * OH * OW, F), dtype, out.data)

            T.clear(out_local)
            for k_iter in T.Pipelined(T.ceildiv(KH * KW * C, block_K), num_stages=num_stages):
                T.im2col(data, data_shared, by, k_iter, KH, S, D, P)
                T.copy(kernel_flat[k_iter * block_K, bx * block_N], kernel_shared)
                T.gemm(data_shared, kernel_shared, out_local)

            T.copy(out_local, out_shared)
            T.copy(out_shared, out_flat[by * block_M, bx * block_N])

    return main


def ref_program(data, weight, stride, padding, dilation):
    """NHWC data, HWCF filter, NHWC output, in float32."""
    x = np.pad(data.astype(np.float32), ((0, 0), (padding, padding), (padding, padding), (0, 0)))
    w = weight.astype(np.float32)
    kh, kw = w.shape[:2]
    oh = (x.shape[1] - dilation * (kh - 1) - 1) // stride + 1
    ow = (x.shape[2] - dilation * (kw - 1) - 1) // stride + 1
    out = np.zeros((x.shape[0], oh, ow, w.shape[3]), np.float32)
    for r in range(kh):
        for s in range(kw):
            rows = x[:, r * dilation : r * dilation + stride * (oh - 1) + 1 : stride]
            patch = rows[:, :, s * dilation : s * dilation + stride * (ow - 1) + 1 : stride]
            out += patch @ w[r, s]
    return out


@pytest.mark.parametrize(
    ("N", "C", "H", "W", "F", "K", "S", "D", "P"),
    [
        (2, 12, 11, 9, 40, 3, 1, 1, 1),  # ragged: N*OH*OW = 198, KH*KW*C = 108, F = 40
        (1, 16, 10, 10, 64, 3, 2, 1, 1),  # stride 2
        (2, 32, 8, 8, 128, 1, 1, 1, 0),  # aligned: 1x1 filter, 128 rows, K = 32
    ],
)
@pytest.mark.parametrize("factory", [convolution, convolution_im2col])
def test_convolution(factory, N, C, H, W, F, K, S, D, P):
    rng = np.random.default_rng(16)
    a = rng.standard_normal((N, H, W, C)).astype(np.float16)
    b = rng.standard_normal((K, K, C, F)).astype(np.float16)

    kernel = factory(N, C, H, W, F, K, S, D, P, 64, 128, 32, 3, 256)
    out = kernel(a, b)

    np.testing.assert_allclose(
        out.astype(np.float32), ref_program(a, b, S, P, D), rtol=1e-2, atol=2e-2
    )
