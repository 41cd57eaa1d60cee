"""TileKernels' fused per-channel e4m3 casts as tilec kernels (one scale per column and
128 or 32 tokens), in `kernels`' arithmetic: the rows may be gathered from another
tensor first, the input may itself be e4m3 with per-token scales (dequantized to
float32(x) * sf before the cast) or SwiGLU's [gate | up] (activated first), and the
output may be written transposed."""

from __future__ import annotations

import tilec.language as T

from .kernels import quantize, scale_and_factor
from .swiglu_kernels import exp_f32


@T.macro
def _cast_columns(x, amax, factor, y, Y, SF, bx, by, N, rows: int, block_N: int,
                  transpose: bool, round_sf: bool) -> None:
    """The e4m3 cast of the float32 tile x (rows, block_N) at block (bx, by): one scale
    per column of the N columns, stored in SF, and the data in Y (transposed or not)."""
    T.reduce_absmax(x, amax, dim=0)
    for j in T.Parallel(block_N):
        sf, inverse = scale_and_factor(amax[j], round_sf)
        factor[j] = inverse
        if bx * block_N + j < N:
            SF[by, bx * block_N + j] = sf
    if transpose:
        for j, i in T.Parallel(block_N, rows):
            y[j, i] = quantize(x[i, j], factor[j])
        T.copy(y, Y[bx * block_N, by * rows])
    else:
        for i, j in T.Parallel(rows, block_N):
            y[i, j] = quantize(x[i, j], factor[j])
        T.copy(y, Y[by * rows, bx * block_N])


def per_channel_cast_fused(in_dtype: str, num_per_tokens: int, num_per_channels: int,
                           with_sf: bool, expand: bool, transpose: bool, round_sf: bool,
                           block_N: int = 64) -> T.PrimFunc:
    """Row r of the cast input is X[PosToToken[r]] (zeros where that is < 0) when
    `expand`, else X[r]; times XSF[row, column // num_per_channels] when `with_sf`.
    -> Y (R, N) (or its transpose (N, R)) and SF (ceil(R / num_per_tokens), N)."""
    M, N, R = T.symbolic("M"), T.symbolic("N"), T.symbolic("R")
    K, Q, MS = T.symbolic("K"), T.symbolic("Q"), T.symbolic("MS")
    rows = num_per_tokens

    @T.prim_func
    def per_channel_cast_fused(
        X: T.Tensor((M, N), in_dtype),
        XSF: T.Tensor((MS, K), "float32"),
        PosToToken: T.Tensor((Q,), "int32"),
        Y: T.Tensor((N, R) if transpose else (R, N), "float8_e4m3"),
        SF: T.Tensor((T.ceildiv(R, rows), N), "float32"),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(R, rows), threads=128) as (bx, by):
            x = T.alloc_fragment((rows, block_N), "float32")
            amax = T.alloc_fragment((block_N,), "float32")
            factor = T.alloc_fragment((block_N,), "float32")
            y = T.alloc_fragment((block_N, rows) if transpose else (rows, block_N),
                                 "float8_e4m3")
            for i, j in T.Parallel(rows, block_N):
                row = by * rows + i
                column = bx * block_N + j
                source = T.min(row, R - 1)
                if expand:
                    source = PosToToken[source]
                valid = (row < R) & (column < N) & (source >= 0)
                at = T.max(T.min(source, M - 1), 0)
                value = T.cast(X[at, T.min(column, N - 1)], "float32")
                if with_sf:
                    value = value * XSF[at, T.min(column, N - 1) // num_per_channels]
                x[i, j] = T.if_then_else(valid, value, 0.0)
            _cast_columns(x, amax, factor, y, Y, SF, bx, by, N, rows, block_N, transpose,
                          round_sf)

    return per_channel_cast_fused


def swiglu_forward_and_per_channel_cast(num_per_tokens: int, clamp: bool, transpose: bool,
                                        round_sf: bool, exact: bool = True,
                                        block_N: int = 64) -> T.PrimFunc:
    """X (M, 2H) bfloat16 = [left | right] -> the per-channel cast of
    bfloat16(left / (1 + e^-left) * right) (left clamped to <= C, right to +-C when
    `clamp`): Y (M, H) or its transpose (H, M), SF (ceil(M / num_per_tokens), H)."""
    M, H, X2 = T.symbolic("M"), T.symbolic("H"), T.symbolic("X2")
    rows = num_per_tokens

    @T.prim_func
    def swiglu_forward_and_per_channel_cast(
        X: T.Tensor((M, X2), "bfloat16"),
        Y: T.Tensor((H, M) if transpose else (M, H), "float8_e4m3"),
        SF: T.Tensor((T.ceildiv(M, rows), H), "float32"),
        C: T.float32,
    ):
        with T.Kernel(T.ceildiv(H, block_N), T.ceildiv(M, rows), threads=128) as (bx, by):
            x = T.alloc_fragment((rows, block_N), "float32")
            amax = T.alloc_fragment((block_N,), "float32")
            factor = T.alloc_fragment((block_N,), "float32")
            y = T.alloc_fragment((block_N, rows) if transpose else (rows, block_N),
                                 "float8_e4m3")
            for i, j in T.Parallel(rows, block_N):
                row = T.min(by * rows + i, M - 1)
                column = T.min(bx * block_N + j, H - 1)
                left = T.cast(X[row, column], "float32")
                right = T.cast(X[row, column + H], "float32")
                if clamp:
                    left = T.min(left, C)
                    right = T.min(T.max(right, -C), C)
                act = T.cast(T.cast(left / (1.0 + exp_f32(-left, exact)) * right, "bfloat16"),
                             "float32")
                inside = (by * rows + i < M) & (bx * block_N + j < H)
                x[i, j] = T.if_then_else(inside, act, 0.0)
            _cast_columns(x, amax, factor, y, Y, SF, bx, by, H, rows, block_N, transpose,
                          round_sf)

    return swiglu_forward_and_per_channel_cast
