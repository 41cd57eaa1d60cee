"""TileKernels' FP8 (e4m3) casts as tilec kernels, bit for bit the arithmetic of
`tile_kernels.torch.cast`: per scaling block, amax = max |float32(x)| clamped to at
least 1e-4; sf = amax / 448, optionally rounded up to a power of two by its bits
(`(bits + 0x7FFFFF) & 0x7F800000`); the quantizing factor is 448 / amax (1 / sf when
rounded, 1 / sf of a given sf); x_fp8 = e4m3(clamp(float32(x) * factor, +-448)).
Positions past the tensor's edges count as zeros, which never raise an amax.

Scale tensors are written through a flat view of their storage and its two strides,
so one build writes row-major and TMA-aligned column-major scales alike.
"""

from __future__ import annotations

from typing import Literal

import tilec.language as T

E4M3_MAX = 448.0
AMAX_FLOOR = 1e-4

# "cast": compute scales and quantize; "sf_only": only the scales; "precomputed":
# quantize with the scales given in SF.
Mode = Literal["cast", "sf_only", "precomputed"]


def scale_and_factor(amax, round_sf: bool, floor: float = AMAX_FLOOR):
    """The stored scale of a block and the factor that quantizes it; `floor` is the least
    amax (upstream's `sf_clamp_min` where a cast takes one)."""
    clamped = T.max(amax, floor)
    sf = clamped / E4M3_MAX
    if round_sf:
        bits = T.reinterpret(sf, "int32")
        rounded = T.reinterpret((bits + 0x7FFFFF) & 0x7F800000, "float32")
        return rounded, 1.0 / rounded
    return sf, E4M3_MAX / clamped


def quantize(value, factor):
    return T.cast(T.clamp(value * factor, -E4M3_MAX, E4M3_MAX), "float8_e4m3")


def per_token_cast(in_dtype: str, num_per_channels: int, round_sf: bool, mode: Mode,
                   block_M: int) -> T.PrimFunc:
    """X (M, N) with row stride `row_stride`, through its storage -> Y (M, N) and
    SF (M, ceil(N / num_per_channels)): one scale per row and num_per_channels columns."""
    M, N, L, S = T.symbolic("M"), T.symbolic("N"), T.symbolic("L"), T.symbolic("S")
    width = num_per_channels

    @T.prim_func
    def per_token_cast(
        X: T.Tensor((L,), in_dtype),
        Y: T.Tensor((M, N), "float8_e4m3"),
        SF: T.Tensor((S,), "float32"),
        row_stride: T.int64,
        sf_row_stride: T.int64,
        sf_column_stride: T.int64,
    ):
        with T.Kernel(T.ceildiv(N, width), T.ceildiv(M, block_M), threads=128) as (bx, by):
            x = T.alloc_fragment((block_M, width), "float32")
            amax = T.alloc_fragment((block_M,), "float32")
            factor = T.alloc_fragment((block_M,), "float32")
            y = T.alloc_fragment((block_M, width), "float8_e4m3")
            for i, j in T.Parallel(block_M, width):
                column = bx * width + j
                value = X[T.min(by * block_M + i, M - 1) * row_stride + T.min(column, N - 1)]
                x[i, j] = T.if_then_else(column < N, T.cast(value, "float32"), 0.0)
            if mode != "precomputed":
                T.reduce_absmax(x, amax, dim=1)
            for i in T.Parallel(block_M):
                at = T.min(by * block_M + i, M - 1) * sf_row_stride + bx * sf_column_stride
                if mode == "precomputed":
                    factor[i] = 1.0 / SF[at]
                else:
                    sf, inverse = scale_and_factor(amax[i], round_sf)
                    factor[i] = inverse
                    if by * block_M + i < M:
                        SF[at] = sf
            if mode != "sf_only":
                for i, j in T.Parallel(block_M, width):
                    y[i, j] = quantize(x[i, j], factor[i])
                T.copy(y, Y[by * block_M, bx * width])

    return per_token_cast


def per_block_cast(in_dtype: str, block_rows: int, block_columns: int, round_sf: bool,
                   mode: Mode) -> T.PrimFunc:
    """X (M, N) contiguous -> Y (M, N) and SF (ceil(M / block_rows), ceil(N / block_columns)):
    one scale per block_rows x block_columns block."""
    M, N, S = T.symbolic("M"), T.symbolic("N"), T.symbolic("S")

    @T.prim_func
    def per_block_cast(
        X: T.Tensor((M, N), in_dtype),
        Y: T.Tensor((M, N), "float8_e4m3"),
        SF: T.Tensor((S,), "float32"),
        sf_row_stride: T.int64,
        sf_column_stride: T.int64,
    ):
        with T.Kernel(T.ceildiv(N, block_columns), T.ceildiv(M, block_rows),
                      threads=128) as (bx, by):
            x = T.alloc_fragment((block_rows, block_columns), in_dtype)
            row_amax = T.alloc_fragment((block_rows,), "float32")
            amax = T.alloc_fragment((1,), "float32")
            y = T.alloc_fragment((block_rows, block_columns), "float8_e4m3")
            T.copy(X[by * block_rows, bx * block_columns], x)
            at = by * sf_row_stride + bx * sf_column_stride
            if mode == "precomputed":
                factor = 1.0 / SF[at]
            else:
                T.reduce_absmax(x, row_amax, dim=1)
                T.reduce_max(row_amax, amax, dim=0)
                sf, factor = scale_and_factor(amax[0], round_sf)
                SF[at] = sf
            if mode != "sf_only":
                for i, j in T.Parallel(block_rows, block_columns):
                    y[i, j] = quantize(T.cast(x[i, j], "float32"), factor)
                T.copy(y, Y[by * block_rows, bx * block_columns])

    return per_block_cast


def per_channel_cast(in_dtype: str, num_per_tokens: int, round_sf: bool,
                     block_N: int = 64) -> T.PrimFunc:
    """X (M, N) contiguous -> Y (M, N) and SF (ceil(M / num_per_tokens), N): one scale
    per column and num_per_tokens rows."""
    M, N = T.symbolic("M"), T.symbolic("N")

    @T.prim_func
    def per_channel_cast(
        X: T.Tensor((M, N), in_dtype),
        Y: T.Tensor((M, N), "float8_e4m3"),
        SF: T.Tensor((T.ceildiv(M, num_per_tokens), N), "float32"),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, num_per_tokens),
                      threads=128) as (bx, by):
            x = T.alloc_fragment((num_per_tokens, block_N), in_dtype)
            amax = T.alloc_fragment((block_N,), "float32")
            factor = T.alloc_fragment((block_N,), "float32")
            y = T.alloc_fragment((num_per_tokens, block_N), "float8_e4m3")
            T.copy(X[by * num_per_tokens, bx * block_N], x)
            T.reduce_absmax(x, amax, dim=0)
            for j in T.Parallel(block_N):
                sf, inverse = scale_and_factor(amax[j], round_sf)
                factor[j] = inverse
                if bx * block_N + j < N:
                    SF[by, bx * block_N + j] = sf
            for i, j in T.Parallel(num_per_tokens, block_N):
                y[i, j] = quantize(T.cast(x[i, j], "float32"), factor[j])
            T.copy(y, Y[by * num_per_tokens, bx * block_N])

    return per_channel_cast


def cast_back(out_dtype: str, block_rows: int, block_columns: int,
              block_M: int = 64, block_N: int = 64) -> T.PrimFunc:
    """X (M, N) e4m3 contiguous and SF (through its storage and strides) -> Y (M, N) =
    float32(X) * SF[row // block_rows, column // block_columns], in out_dtype."""
    M, N, S = T.symbolic("M"), T.symbolic("N"), T.symbolic("S")

    @T.prim_func
    def cast_back(
        X: T.Tensor((M, N), "float8_e4m3"),
        SF: T.Tensor((S,), "float32"),
        Y: T.Tensor((M, N), out_dtype),
        sf_row_stride: T.int64,
        sf_column_stride: T.int64,
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            x = T.alloc_fragment((block_M, block_N), "float8_e4m3")
            y = T.alloc_fragment((block_M, block_N), out_dtype)
            T.copy(X[by * block_M, bx * block_N], x)
            for i, j in T.Parallel(block_M, block_N):
                row = T.min(by * block_M + i, M - 1)
                column = T.min(bx * block_N + j, N - 1)
                scale = SF[(row // block_rows) * sf_row_stride
                           + (column // block_columns) * sf_column_stride]
                y[i, j] = T.cast(T.cast(x[i, j], "float32") * scale, out_dtype)
            T.copy(y, Y[by * block_M, bx * block_N])

    return cast_back
