"""DeepGEMM's FP8 casts (`deep_gemm.utils.math`) as tilec kernels, bit for bit the
arithmetic of its torch definitions: per group, amax = max |x| (at least 1e-4),
sf = amax / 448 (optionally rounded up to a power of two, UE8M0), and
x_fp8 = float8_e4m3fn(float32(x) * (1 / sf)), rounded to nearest even.
Rows and columns past the tensor's edge count as zeros, as upstream pads them.
"""

from __future__ import annotations

import tilec.language as T

FP8_MAX = 448.0
AMAX_FLOOR = 1e-4


def ceil_to_ue8m0(sf):
    """The smallest power of two not below |sf| (exponent clamped to [1, 254]), from its
    bits, as DeepGEMM's `ceil_to_ue8m0`."""
    bits = T.reinterpret(T.abs(sf), "int32")
    exponent = ((bits >> 23) & 0xFF) + T.cast((bits & 0x7FFFFF) != 0, "int32")
    return T.reinterpret(T.clamp(exponent, 1, 254) << 23, "float32")


def _scale(amax, use_ue8m0: bool, max_value: float = FP8_MAX):
    sf = T.max(amax, AMAX_FLOOR) / max_value
    return ceil_to_ue8m0(sf) if use_ue8m0 else sf


@T.macro
def _row_scales(X, SF, x, inverse, bx, by, use_ue8m0: bool, max_value: float):
    """Loads the block's (rows, gran_k) tile of X into `x`, stores each row's scale in SF
    (rows past X's end are not stored) and its reciprocal in `inverse`."""
    block_M, gran_k = x.shape
    amax = T.alloc_fragment((block_M,), "float32")
    T.copy(X[by * block_M, bx * gran_k], x)
    T.reduce_absmax(x, amax, dim=1)
    for i in T.Parallel(block_M):
        sf = _scale(amax[i], use_ue8m0, max_value)
        inverse[i] = 1.0 / sf
        if by * block_M + i < X.shape[0]:
            SF[by * block_M + i, bx] = sf


def per_token_cast(in_dtype: str, use_ue8m0: bool, gran_k: int = 128,
                   block_M: int = 32) -> T.PrimFunc:
    """X (M, N) -> X_fp8 (M, N) and SF (M, ceil(N / gran_k)): one scale per row and
    gran_k columns."""
    M, N = T.symbolic("M"), T.symbolic("N")

    @T.prim_func
    def per_token_cast_to_fp8(
        X: T.Tensor((M, N), in_dtype),
        Y: T.Tensor((M, N), "float8_e4m3"),
        SF: T.Tensor((M, T.ceildiv(N, gran_k)), "float32"),
    ):
        with T.Kernel(T.ceildiv(N, gran_k), T.ceildiv(M, block_M), threads=128) as (bx, by):
            x = T.alloc_fragment((block_M, gran_k), in_dtype)
            inverse = T.alloc_fragment((block_M,), "float32")
            y = T.alloc_fragment((block_M, gran_k), "float8_e4m3")
            _row_scales(X, SF, x, inverse, bx, by, use_ue8m0, FP8_MAX)
            for i, j in T.Parallel(block_M, gran_k):
                y[i, j] = T.cast(T.cast(x[i, j], "float32") * inverse[i], "float8_e4m3")
            T.copy(y, Y[by * block_M, bx * gran_k])

    return per_token_cast_to_fp8


def per_block_cast(in_dtype: str, use_ue8m0: bool, gran_k: int = 128) -> T.PrimFunc:
    """X (M, N) -> X_fp8 (M, N) and SF (ceil(M / gran_k), ceil(N / gran_k)): one scale
    per gran_k x gran_k block."""
    M, N = T.symbolic("M"), T.symbolic("N")

    @T.prim_func
    def per_block_cast_to_fp8(
        X: T.Tensor((M, N), in_dtype),
        Y: T.Tensor((M, N), "float8_e4m3"),
        SF: T.Tensor((T.ceildiv(M, gran_k), T.ceildiv(N, gran_k)), "float32"),
    ):
        with T.Kernel(T.ceildiv(N, gran_k), T.ceildiv(M, gran_k), threads=128) as (bx, by):
            x = T.alloc_fragment((gran_k, gran_k), in_dtype)
            row_amax = T.alloc_fragment((gran_k,), "float32")
            amax = T.alloc_fragment((1,), "float32")
            y = T.alloc_fragment((gran_k, gran_k), "float8_e4m3")
            T.copy(X[by * gran_k, bx * gran_k], x)
            T.reduce_absmax(x, row_amax, dim=1)
            T.reduce_max(row_amax, amax, dim=0)
            sf = _scale(amax[0], use_ue8m0)
            inverse = 1.0 / sf
            SF[by, bx] = sf
            for i, j in T.Parallel(gran_k, gran_k):
                y[i, j] = T.cast(T.cast(x[i, j], "float32") * inverse, "float8_e4m3")
            T.copy(y, Y[by * gran_k, bx * gran_k])

    return per_block_cast_to_fp8


def per_channel_cast(in_dtype: str, use_ue8m0: bool, gran_k: int = 128,
                     block_N: int = 64) -> T.PrimFunc:
    """X (M, N), M a multiple of gran_k -> X_fp8 (M, N) and SF (M / gran_k, N): one scale
    per column and gran_k rows."""
    M, N = T.symbolic("M"), T.symbolic("N")

    @T.prim_func
    def per_channel_cast_to_fp8(
        X: T.Tensor((M, N), in_dtype),
        Y: T.Tensor((M, N), "float8_e4m3"),
        SF: T.Tensor((T.ceildiv(M, gran_k), N), "float32"),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, gran_k), threads=128) as (bx, by):
            x = T.alloc_fragment((gran_k, block_N), in_dtype)
            amax = T.alloc_fragment((block_N,), "float32")
            inverse = T.alloc_fragment((block_N,), "float32")
            y = T.alloc_fragment((gran_k, block_N), "float8_e4m3")
            T.copy(X[by * gran_k, bx * block_N], x)
            T.reduce_absmax(x, amax, dim=0)
            for j in T.Parallel(block_N):
                sf = _scale(amax[j], use_ue8m0)
                inverse[j] = 1.0 / sf
                if bx * block_N + j < N:
                    SF[by, bx * block_N + j] = sf
            for i, j in T.Parallel(gran_k, block_N):
                y[i, j] = T.cast(T.cast(x[i, j], "float32") * inverse[j], "float8_e4m3")
            T.copy(y, Y[by * gran_k, bx * block_N])

    return per_channel_cast_to_fp8


def pack_ue8m0(block: int = 32) -> T.PrimFunc:
    """SF (M, G) float32 powers of two -> (M, ceil(G / 4)) int32: the exponent bytes of
    four consecutive groups in one word, the first group in the low byte (DeepGEMM's
    `pack_ue8m0_to_int`, SM100's scale format); groups past G count as 1.0 (exponent
    127), as DeepGEMM pads the FP4 casts' scales."""
    M, G = T.symbolic("M"), T.symbolic("G")

    @T.prim_func
    def pack_ue8m0_to_int(SF: T.Tensor((M, G), "float32"),
                          Packed: T.Tensor((M, T.ceildiv(G, 4)), "int32")):
        with T.Kernel(T.ceildiv(G, 4 * block), T.ceildiv(M, block), threads=128) as (bx, by):
            for i, j in T.Parallel(block, block):
                row, word = by * block + i, bx * block + j
                if row < M and 4 * word < G:
                    packed = 0
                    for t in range(4):
                        column = 4 * word + t
                        bits = T.reinterpret(SF[row, T.min(column, G - 1)], "int32")
                        exponent = T.if_then_else(column < G, (bits >> 23) & 0xFF, 127)
                        packed = packed | (exponent << (8 * t))
                    Packed[row, word] = packed

    return pack_ue8m0_to_int


E2M1_MAX = 6.0
E2M1_BOUNDARIES = (0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0)
"""The midpoints between e2m1's magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6: a magnitude's
code is how many it exceeds (DeepGEMM's `_quantize_to_fp4_e2m1`; a tie goes down)."""


def per_token_cast_fp4(in_dtype: str, use_ue8m0: bool, gran_k: int = 128,
                       block_M: int = 32) -> T.PrimFunc:
    """X (M, N) -> FP4 e2m1 codes packed two to a byte, the even column low (M, N / 2)
    int8, and SF (M, ceil(N / gran_k)): amax / 6 per row and gran_k columns."""
    M, N = T.symbolic("M"), T.symbolic("N")

    @T.prim_func
    def per_token_cast_to_fp4(
        X: T.Tensor((M, N), in_dtype),
        Y: T.Tensor((M, T.ceildiv(N, 2)), "int8"),
        SF: T.Tensor((M, T.ceildiv(N, gran_k)), "float32"),
    ):
        with T.Kernel(T.ceildiv(N, gran_k), T.ceildiv(M, block_M), threads=128) as (bx, by):
            x = T.alloc_fragment((block_M, gran_k), in_dtype)
            inverse = T.alloc_fragment((block_M,), "float32")
            codes = T.alloc_fragment((block_M, gran_k), "int32")
            packed = T.alloc_fragment((block_M, gran_k // 2), "int8")
            _row_scales(X, SF, x, inverse, bx, by, use_ue8m0, E2M1_MAX)
            for i, j in T.Parallel(block_M, gran_k):
                scaled = T.cast(x[i, j], "float32") * inverse[i]
                code = 0
                for boundary in E2M1_BOUNDARIES:
                    code = code + T.cast(T.abs(scaled) > boundary, "int32")
                negative = T.cast((scaled < 0) & (code != 0), "int32")
                codes[i, j] = code | (negative << 3)
            for i, j in T.Parallel(block_M, gran_k // 2):
                packed[i, j] = T.cast(codes[i, 2 * j] | (codes[i, 2 * j + 1] << 4), "int8")
            T.copy(packed, Y[by * block_M, bx * (gran_k // 2)])

    return per_token_cast_to_fp4
