"""DeepGEMM's GEMMs as tilec kernels: `D = C + A @ B.T` in BF16, and in FP8 with
fine-grained scales. M, N and K are symbolic, so one build serves every shape.

The operands' majors are DeepGEMM's: A is K-major (stored (M, K)) or MN-major
(stored (K, M)), B K-major ((N, K)) or MN-major ((K, N)); the kernel takes the
storage as it is and T.gemm transposes. `epilogue` says what is added: nothing,
a separate C, or D itself (C is D: DeepGEMM's in-place accumulation).
"""

from __future__ import annotations

from typing import Literal

import tilec.language as T

Epilogue = Literal["none", "c", "d"]
GROUP = 128  # the FP8 scale group along K (and along N for 128x128 weight scales)


def _operand_shape(mn_major: bool, mn: object, k: object) -> tuple[object, object]:
    return (k, mn) if mn_major else (mn, k)


def bf16_gemm(a_mn_major: bool, b_mn_major: bool, out_dtype: str, epilogue: Epilogue,
              block_M: int = 64, block_N: int = 64, block_K: int = 32) -> T.PrimFunc:
    """D (M, N) = [C +] A @ B.T with bf16 A and B, accumulated in float32."""
    M, N, K = T.symbolic("M"), T.symbolic("N"), T.symbolic("K")
    a_tile = _operand_shape(a_mn_major, block_M, block_K)
    b_tile = (block_K, block_N) if b_mn_major else (block_N, block_K)

    @T.prim_func
    def bf16_gemm_nt(
        A: T.Tensor(_operand_shape(a_mn_major, M, K), "bfloat16"),
        B: T.Tensor(_operand_shape(b_mn_major, N, K), "bfloat16"),
        C: T.Tensor((M, N), out_dtype),
        D: T.Tensor((M, N), out_dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared(a_tile, "bfloat16")
            B_shared = T.alloc_shared(b_tile, "bfloat16")
            acc = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                if a_mn_major:
                    T.copy(A[k * block_K, by * block_M], A_shared)
                else:
                    T.copy(A[by * block_M, k * block_K], A_shared)
                if b_mn_major:
                    T.copy(B[k * block_K, bx * block_N], B_shared)
                else:
                    T.copy(B[bx * block_N, k * block_K], B_shared)
                T.gemm(A_shared, B_shared, acc, transpose_A=a_mn_major,
                       transpose_B=not b_mn_major)
            _store(acc, C, D, epilogue, out_dtype, bx, by, block_M, block_N)

    return bf16_gemm_nt


def _store(acc, C, D, epilogue: Epilogue, out_dtype: str, bx, by, block_M: int,
           block_N: int) -> None:
    """D's tile: the float32 sum, plus C's (or D's own) tile in float32 first."""
    if epilogue != "none":
        addend = T.alloc_fragment((block_M, block_N), out_dtype)
        T.copy((C if epilogue == "c" else D)[by * block_M, bx * block_N], addend)
        for i, j in T.Parallel(block_M, block_N):
            acc[i, j] += T.cast(addend[i, j], "float32")
    T.copy(acc, D[by * block_M, bx * block_N])


ScaleLayout = Literal["row", "mn", "packed"]


def fp8_gemm(b_scale_rows: int, out_dtype: str, epilogue: Epilogue, sfa_layout: ScaleLayout,
             sfb_layout: ScaleLayout, block_M: int = 64, block_N: int = 128) -> T.PrimFunc:
    """D (M, N) = [C +] dequantized A @ B.T, DeepGEMM's recipe: float8_e4m3 A (M, K)
    with a scale per 1 x 128 and B (N, K) with one per `b_scale_rows` x 128 (128:
    128x128 blocks; 1: per row). Each 128-wide K tile's product is scaled and added to a
    float32 total (DeepGEMM's promotion), since every K group has its own scales.

    A scale tensor comes in one of three layouts: "row", float32 (rows, K groups)
    read element by element; "mn", DeepGEMM's MN-major (TMA-aligned) float32 layout,
    passed as its storage (K groups, leading dim) so a block copies its rows' scales
    of a K group as one run; "packed", SM100's UE8M0 exponents, four K groups to an
    int32 (rows, ceil(K groups / 4)), the low byte first. A 128x128 block scale is one
    scalar per block and K group (block_N divides 128)."""
    assert b_scale_rows == 1 or GROUP % block_N == 0, "a block's columns share one scale"
    M, N, K = T.symbolic("M"), T.symbolic("N"), T.symbolic("K")
    k_groups = T.ceildiv(K, GROUP)
    sfb_rows = T.ceildiv(N, GROUP) if b_scale_rows == GROUP else N

    @T.prim_func
    def fp8_gemm_nt(
        A: T.Tensor((M, K), "float8_e4m3"),
        SFA: _scale_tensor(sfa_layout, M, k_groups, "SFA_LD"),
        B: T.Tensor((N, K), "float8_e4m3"),
        SFB: _scale_tensor(sfb_layout, sfb_rows, k_groups, "SFB_LD"),
        C: T.Tensor((M, N), out_dtype),
        D: T.Tensor((M, N), out_dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, GROUP), "float8_e4m3")
            B_shared = T.alloc_shared((block_N, GROUP), "float8_e4m3")
            row_scale = T.alloc_fragment((block_M,), "float32")
            if b_scale_rows == 1:
                column_scale = T.alloc_fragment((block_N,), "float32")
            partial = T.alloc_fragment((block_M, block_N), "float32")
            total = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(total)
            for k in T.Pipelined(k_groups, num_stages=2):
                T.copy(A[by * block_M, k * GROUP], A_shared)
                T.copy(B[bx * block_N, k * GROUP], B_shared)
                _scales(SFA, sfa_layout, k, by * block_M, row_scale, block_M)
                T.gemm(A_shared, B_shared, partial, transpose_B=True, clear_accum=True)
                if b_scale_rows == 1:
                    _scales(SFB, sfb_layout, k, bx * block_N, column_scale, block_N)
                    for i, j in T.Parallel(block_M, block_N):
                        total[i, j] += partial[i, j] * (row_scale[i] * column_scale[j])
                else:
                    scale = _scale(SFB, sfb_layout, bx * block_N // GROUP, k)
                    for i, j in T.Parallel(block_M, block_N):
                        total[i, j] += partial[i, j] * (row_scale[i] * scale)
            _store(total, C, D, epilogue, out_dtype, bx, by, block_M, block_N)

    return fp8_gemm_nt


def _scale_tensor(layout: ScaleLayout, rows: object, groups: object, ld: str) -> object:
    """The parameter type of a scale tensor of `rows` x `groups` scales in `layout`."""
    if layout == "mn":
        return T.Tensor((groups, T.symbolic(ld)), "float32")
    if layout == "packed":
        return T.Tensor((rows, T.ceildiv(groups, 4)), "int32")
    return T.Tensor((rows, groups), "float32")


def _scale(SF, layout: ScaleLayout, row, k):
    """One scale: of `row` and K group `k`."""
    if layout == "mn":
        return SF[k, row]
    if layout == "packed":
        exponent = (SF[row, k // 4] >> T.cast(8 * (k % 4), "int32")) & 0xFF
        return T.reinterpret(exponent << 23, "float32")
    return SF[row, k]


def _scales(SF, layout: ScaleLayout, k, first, out, count: int) -> None:
    """The scales of rows first .. first + count of K group k: one contiguous copy from
    MN-major storage, else one element each."""
    if layout == "mn":
        T.copy(SF[k, first:first + count], out)
    else:
        for i in T.Parallel(count):
            out[i] = _scale(SF, layout, first + i, k)


def _e2m1(code):
    """The value of an FP4 e2m1 code (sign bit 3; magnitudes 0, .5, 1, 1.5, 2, 3, 4, 6):
    e / 2 below 2, else (2 + (e & 1)) * 2^(e >> 1) / 4."""
    e = code & 7
    small = T.cast(e, "float32") * 0.5
    large = T.cast((2 + (e & 1)) << (e >> 1), "float32") * 0.25
    magnitude = T.if_then_else(e < 2, small, large)
    return T.if_then_else((code & 8) != 0, -magnitude, magnitude)


def fp8_fp4_gemm(gran_b: int, out_dtype: str, epilogue: Epilogue, sfa_layout: ScaleLayout,
                 sfb_layout: ScaleLayout, block_M: int = 64, block_N: int = 64) -> T.PrimFunc:
    """D (M, N) = [C +] dequantized A @ B.T with SM100's mixed recipe: A float8_e4m3 (M, K)
    with 1 x 128 scales, B FP4 e2m1 codes two to a byte (N, K / 2) int8 with 1 x `gran_b`
    scales (float32, or UE8M0 packed). B's scales change inside a 128-wide K tile, so B
    is dequantized into a float32 tile (codes times scales) and A's tile converted to
    float32 before the gemm; A's scale multiplies the tile's product as in fp8_gemm."""
    assert GROUP % gran_b == 0 and gran_b % 2 == 0
    M, N, K = T.symbolic("M"), T.symbolic("N"), T.symbolic("K")
    k_groups, sub_groups = T.ceildiv(K, GROUP), GROUP // gran_b

    @T.prim_func
    def fp8_fp4_gemm_nt(
        A: T.Tensor((M, K), "float8_e4m3"),
        SFA: _scale_tensor(sfa_layout, M, k_groups, "SFA_LD"),
        B: T.Tensor((N, T.ceildiv(K, 2)), "int8"),
        SFB: _scale_tensor(sfb_layout, N, T.ceildiv(K, gran_b), "SFB_LD"),
        C: T.Tensor((M, N), out_dtype),
        D: T.Tensor((M, N), out_dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, GROUP), "float8_e4m3")
            B_packed = T.alloc_shared((block_N, GROUP // 2), "int8")
            A_values = T.alloc_shared((block_M, GROUP), "float32")
            B_values = T.alloc_shared((block_N, GROUP), "float32")
            row_scale = T.alloc_fragment((block_M,), "float32")
            column_scales = T.alloc_fragment((block_N, sub_groups), "float32")
            partial = T.alloc_fragment((block_M, block_N), "float32")
            total = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(total)
            for k in T.Pipelined(k_groups, num_stages=2):
                T.copy(A[by * block_M, k * GROUP], A_shared)
                T.copy(B[bx * block_N, k * (GROUP // 2)], B_packed)
                _scales(SFA, sfa_layout, k, by * block_M, row_scale, block_M)
                for j, g in T.Parallel(block_N, sub_groups):
                    column_scales[j, g] = _scale(SFB, sfb_layout, bx * block_N + j,
                                                 k * sub_groups + g)
                for i, kk in T.Parallel(block_M, GROUP):
                    A_values[i, kk] = T.cast(A_shared[i, kk], "float32")
                for j, kk in T.Parallel(block_N, GROUP):
                    byte = T.cast(B_packed[j, kk // 2], "int32")
                    code = (byte >> T.cast(4 * (kk % 2), "int32")) & 0xF
                    B_values[j, kk] = _e2m1(code) * column_scales[j, kk // gran_b]
                T.gemm(A_values, B_values, partial, transpose_B=True, clear_accum=True)
                for i, j in T.Parallel(block_M, block_N):
                    total[i, j] += partial[i, j] * row_scale[i]
            _store(total, C, D, epilogue, out_dtype, bx, by, block_M, block_N)

    return fp8_fp4_gemm_nt
