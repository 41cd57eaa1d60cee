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


def _scale(amax, use_ue8m0: bool):
    sf = T.max(amax, AMAX_FLOOR) / FP8_MAX
    return ceil_to_ue8m0(sf) if use_ue8m0 else sf


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
            amax = T.alloc_fragment((block_M,), "float32")
            inverse = T.alloc_fragment((block_M,), "float32")
            y = T.alloc_fragment((block_M, gran_k), "float8_e4m3")
            T.copy(X[by * block_M, bx * gran_k], x)
            T.reduce_absmax(x, amax, dim=1)
            for i in T.Parallel(block_M):
                sf = _scale(amax[i], use_ue8m0)
                inverse[i] = 1.0 / sf
                if by * block_M + i < M:
                    SF[by * block_M + i, bx] = sf
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


def pack_ue8m0(block: int = 32) -> T.PrimFunc:
    """SF (M, G) float32 powers of two -> (M, G / 4) int32: the exponent bytes of four
    consecutive groups in one word, the first group in the low byte (DeepGEMM's
    `pack_ue8m0_to_int`, SM100's scale format)."""
    M, W = T.symbolic("M"), T.symbolic("W")

    @T.prim_func
    def pack_ue8m0_to_int(SF: T.Tensor((M, 4 * W), "float32"), Packed: T.Tensor((M, W), "int32")):
        with T.Kernel(T.ceildiv(W, block), T.ceildiv(M, block), threads=128) as (bx, by):
            for i, j in T.Parallel(block, block):
                row, word = by * block + i, bx * block + j
                if row < M and word < W:
                    packed = 0
                    for t in range(4):
                        bits = T.reinterpret(SF[row, 4 * word + t], "int32")
                        packed = packed | (((bits >> 23) & 0xFF) << (8 * t))
                    Packed[row, word] = packed

    return pack_ue8m0_to_int
