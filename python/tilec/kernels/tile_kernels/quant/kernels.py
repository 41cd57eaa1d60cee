"""TileKernels' casts as tilec kernels, bit for bit the arithmetic of
`tile_kernels.torch.cast`: per scaling block, amax = max |float32(x)| clamped to at
least the format's floor (1e-4 for e4m3, 6 * 2^-126 for e2m1); sf = amax / max (448 or
6), optionally rounded up to a power of two by its bits (`(bits + 0x7FFFFF) &
0x7F800000`); the quantizing factor is max / amax (1 / sf when rounded, 1 / sf of a
given sf). e4m3 data is e4m3(clamp(float32(x) * factor, +-448)); e2m1 data is the
nearest e2m1 (ties to even, saturating at 6) of float32(x) * factor, two a byte, the
even column in the low nibble. Positions past the tensor's edges count as zeros,
which never raise an amax.

Float32 scale tensors are written through a flat view of their storage and its two
strides, so one build writes row-major and TMA-aligned column-major scales alike;
packed UE8M0 scales (the rounded scale's exponent byte) through a byte view of theirs.
"""

from __future__ import annotations

from typing import Literal

import tilec.language as T

E4M3_MAX = 448.0
E2M1_MAX = 6.0
AMAX_FLOOR = 1e-4
E2M1_AMAX_FLOOR = E2M1_MAX * 2.0**-126

# "cast": compute scales and quantize; "sf_only": only the scales; "precomputed":
# quantize with the scales given in SF.
Mode = Literal["cast", "sf_only", "precomputed"]
Format = Literal["e4m3", "e2m1"]

# e2m1 magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6 (codes 0..7): |v| rounds up past each
# midpoint; at a midpoint it goes to the even code, so up past 0.75, 1.75 and 3.5 only.
_E2M1_STEPS = ((0.25, False), (0.75, True), (1.25, False), (1.75, True), (2.5, False),
               (3.5, True), (5.0, False))


def format_max(fmt: Format) -> float:
    return E2M1_MAX if fmt == "e2m1" else E4M3_MAX


def format_floor(fmt: Format) -> float:
    return E2M1_AMAX_FLOOR if fmt == "e2m1" else AMAX_FLOOR


def scale_and_factor(amax, round_sf: bool, floor: float = AMAX_FLOOR,
                     max_value: float = E4M3_MAX):
    """The stored scale of a block and the factor that quantizes it; `floor` is the least
    amax (upstream's `sf_clamp_min` where a cast takes one)."""
    clamped = T.max(amax, floor)
    sf = clamped / max_value
    if round_sf:
        bits = T.reinterpret(sf, "int32")
        rounded = T.reinterpret((bits + 0x7FFFFF) & 0x7F800000, "float32")
        return rounded, 1.0 / rounded
    return sf, max_value / clamped


def quantize(value, factor):
    return T.cast(T.clamp(value * factor, -E4M3_MAX, E4M3_MAX), "float8_e4m3")


def e2m1_code(value):
    """The e2m1 bits (sign << 3 | magnitude code) of a float32 value: round to nearest,
    ties to even, saturating at 6; the sign is value's sign bit, -0 included."""
    magnitude = T.abs(value)
    code = T.if_then_else(magnitude > 0.25, 1, 0)
    for step, inclusive in _E2M1_STEPS[1:]:
        above = magnitude >= step if inclusive else magnitude > step
        code = code + T.if_then_else(above, 1, 0)
    return code | ((T.reinterpret(value, "int32") >> 28) & 8)


def e2m1_pair(low, high):
    """Two e2m1 values in one byte, the first in the low nibble."""
    return T.cast(e2m1_code(low) | (e2m1_code(high) << 4), "int8")


def e2m1_value(byte, high):
    """The float32 value of the e2m1 nibble of `byte` (an int8) picked by `high`."""
    code = (T.cast(byte, "int32") >> T.if_then_else(high, 4, 0)) & 15
    exponent = (code >> 1) & 3
    mantissa = T.cast(code & 1, "float32")
    magnitude = T.if_then_else(exponent == 0, mantissa * 0.5,
                               (1.0 + mantissa * 0.5) * T.cast(1 << T.max(exponent - 1, 0),
                                                               "float32"))
    return T.if_then_else(code >= 8, -magnitude, magnitude)


@T.macro
def store_scale(SF, sf, m, k, row_stride, column_stride, packed: bool, last_k):
    """Stores block (m, k)'s scale: float32 at m * row_stride + k * column_stride, or,
    `packed`, its exponent byte at that byte offset of word k // 4 (row_stride and
    column_stride then in bytes), with zeros in the bytes past the row's last block."""
    if packed:
        at = m * row_stride + (k // 4) * column_stride + k % 4
        SF[at] = T.cast(T.reinterpret(sf, "int32") >> 23, "uint8")
        for t in (1, 2, 3):
            if (k == last_k) & (k % 4 + t < 4):
                SF[at + t] = T.cast(0, "uint8")
    else:
        SF[m * row_stride + k * column_stride] = sf


def load_scale(SF, m, k, row_stride, column_stride, packed: bool):
    """Block (m, k)'s float32 scale: SF[m * row_stride + k * column_stride], or, `packed`
    (SF int32 words of four exponent bytes), 2^(byte k % 4 of word k // 4 - 127)."""
    if not packed:
        return SF[m * row_stride + k * column_stride]
    word = SF[m * row_stride + (k // 4) * column_stride]
    return T.reinterpret(((word >> T.cast((k % 4) * 8, "int32")) & 255) << 23, "float32")


def per_token_cast(in_dtype: str, num_per_channels: int, round_sf: bool, mode: Mode,
                   block_M: int, fmt: Format = "e4m3", packed: bool = False) -> T.PrimFunc:
    """X (M, N) with row stride `row_stride`, through its storage -> Y (M, N) (e2m1:
    (M, N / 2) int8) and SF (M, ceil(N / num_per_channels)) through its storage: one
    scale per row and num_per_channels columns."""
    M, NY, L, S = T.symbolic("M"), T.symbolic("NY"), T.symbolic("L"), T.symbolic("S")
    fp4 = fmt == "e2m1"
    N = NY * 2 if fp4 else NY
    width = num_per_channels

    @T.prim_func
    def per_token_cast(
        X: T.Tensor((L,), in_dtype),
        Y: T.Tensor((M, NY), "int8" if fp4 else "float8_e4m3"),
        SF: T.Tensor((S,), "uint8" if packed else "float32"),
        row_stride: T.int64,
        sf_row_stride: T.int64,
        sf_column_stride: T.int64,
    ):
        with T.Kernel(T.ceildiv(N, width), T.ceildiv(M, block_M), threads=128) as (bx, by):
            x = T.alloc_fragment((block_M, width), "float32")
            amax = T.alloc_fragment((block_M,), "float32")
            factor = T.alloc_fragment((block_M,), "float32")
            y = T.alloc_fragment((block_M, width // 2 if fp4 else width),
                                 "int8" if fp4 else "float8_e4m3")
            for i, j in T.Parallel(block_M, width):
                column = bx * width + j
                value = X[T.min(by * block_M + i, M - 1) * row_stride + T.min(column, N - 1)]
                x[i, j] = T.if_then_else(column < N, T.cast(value, "float32"), 0.0)
            if mode != "precomputed":
                T.reduce_absmax(x, amax, dim=1)
            for i in T.Parallel(block_M):
                row = T.min(by * block_M + i, M - 1)
                if mode == "precomputed":
                    factor[i] = 1.0 / SF[row * sf_row_stride + bx * sf_column_stride]
                else:
                    sf, inverse = scale_and_factor(amax[i], round_sf, format_floor(fmt),
                                                   format_max(fmt))
                    factor[i] = inverse
                    if by * block_M + i < M:
                        store_scale(SF, sf, row, bx, sf_row_stride, sf_column_stride, packed,
                                    T.ceildiv(N, width) - 1)
            if mode != "sf_only":
                if fp4:
                    for i, j in T.Parallel(block_M, width // 2):
                        y[i, j] = e2m1_pair(x[i, 2 * j] * factor[i], x[i, 2 * j + 1] * factor[i])
                    T.copy(y, Y[by * block_M, bx * (width // 2)])
                else:
                    for i, j in T.Parallel(block_M, width):
                        y[i, j] = quantize(x[i, j], factor[i])
                    T.copy(y, Y[by * block_M, bx * width])

    return per_token_cast


def per_block_cast(in_dtype: str, block_rows: int, block_columns: int, round_sf: bool,
                   mode: Mode, fmt: Format = "e4m3", packed: bool = False) -> T.PrimFunc:
    """X (M, N) contiguous -> Y (M, N) (e2m1: (M, N / 2) int8) and SF (ceil(M /
    block_rows), ceil(N / block_columns)) through its storage: one scale per
    block_rows x block_columns block."""
    M, N, NY, S = T.symbolic("M"), T.symbolic("N"), T.symbolic("NY"), T.symbolic("S")
    fp4 = fmt == "e2m1"

    @T.prim_func
    def per_block_cast(
        X: T.Tensor((M, N), in_dtype),
        Y: T.Tensor((M, NY), "int8" if fp4 else "float8_e4m3"),
        SF: T.Tensor((S,), "uint8" if packed else "float32"),
        sf_row_stride: T.int64,
        sf_column_stride: T.int64,
    ):
        with T.Kernel(T.ceildiv(N, block_columns), T.ceildiv(M, block_rows),
                      threads=128) as (bx, by):
            x = T.alloc_fragment((block_rows, block_columns), in_dtype)
            row_amax = T.alloc_fragment((block_rows,), "float32")
            amax = T.alloc_fragment((1,), "float32")
            y = T.alloc_fragment((block_rows, block_columns // 2 if fp4 else block_columns),
                                 "int8" if fp4 else "float8_e4m3")
            T.copy(X[by * block_rows, bx * block_columns], x)
            if mode == "precomputed":
                factor = 1.0 / SF[by * sf_row_stride + bx * sf_column_stride]
            else:
                T.reduce_absmax(x, row_amax, dim=1)
                T.reduce_max(row_amax, amax, dim=0)
                sf, factor = scale_and_factor(amax[0], round_sf, format_floor(fmt),
                                              format_max(fmt))
                store_scale(SF, sf, by, bx, sf_row_stride, sf_column_stride, packed,
                            T.ceildiv(N, block_columns) - 1)
            if mode != "sf_only":
                if fp4:
                    for i, j in T.Parallel(block_rows, block_columns // 2):
                        y[i, j] = e2m1_pair(T.cast(x[i, 2 * j], "float32") * factor,
                                            T.cast(x[i, 2 * j + 1], "float32") * factor)
                    T.copy(y, Y[by * block_rows, bx * (block_columns // 2)])
                else:
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


def cast_back(out_dtype: str, block_rows: int, block_columns: int, fp4: bool = False,
              packed: bool = False, block_M: int = 64, block_N: int = 64) -> T.PrimFunc:
    """X (M, N) e4m3 (fp4: (M, N / 2) int8, two e2m1 a byte) contiguous and SF (through
    its storage and strides; packed: int32 words of four UE8M0 bytes) -> Y (M, N) =
    float32(X) * SF[row // block_rows, column // block_columns], in out_dtype."""
    M, N, NX, S = T.symbolic("M"), T.symbolic("N"), T.symbolic("NX"), T.symbolic("S")

    @T.prim_func
    def cast_back(
        X: T.Tensor((M, NX), "int8" if fp4 else "float8_e4m3"),
        SF: T.Tensor((S,), "int32" if packed else "float32"),
        Y: T.Tensor((M, N), out_dtype),
        sf_row_stride: T.int64,
        sf_column_stride: T.int64,
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            y = T.alloc_fragment((block_M, block_N), out_dtype)
            for i, j in T.Parallel(block_M, block_N):
                row = T.min(by * block_M + i, M - 1)
                column = T.min(bx * block_N + j, N - 1)
                if fp4:
                    value = e2m1_value(X[row, column // 2], column % 2 == 1)
                else:
                    value = T.cast(X[row, column], "float32")
                scale = load_scale(SF, row // block_rows, column // block_columns,
                                   sf_row_stride, sf_column_stride, packed)
                y[i, j] = T.cast(value * scale, out_dtype)
            T.copy(y, Y[by * block_M, bx * block_N])

    return cast_back
