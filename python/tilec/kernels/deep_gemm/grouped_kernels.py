"""DeepGEMM's M-grouped GEMMs (MoE experts) as tilec kernels: `D_g = A_g @ B_g.T` for G
groups sharing N and K, in BF16 or in FP8 with SM90's scales.

Layouts, as upstream defines them:
- contiguous: A (M_sum, K) holds the groups one after the other, each padded to the
  M alignment; `layout` (M_sum,) int32 gives each row's group, -1 for padding. A
  block of block_M rows (block_M divides the alignment) belongs to the group of its
  first row; a block of padding is skipped, leaving D as it was.
- psum: `layout` (G,) int32 holds each group's end row; group g starts at the end
  of g - 1 rounded up to the alignment. The rows between a group's end and that
  rounded end are written as zeros (upstream's `ensure_zero_padding`), and so
  are rows past the last group.
- masked: A (G, M_max, K) and D (G, M_max, N); `masked_m` (G,) int32 counts the
  valid rows of each group; blocks past it are skipped, the rows past it in a
  block are not written.
"""

from __future__ import annotations

from typing import Literal

import tilec.language as T

from .gemm_kernels import GROUP

Layout = Literal["contiguous", "psum", "masked"]


def grouped_gemm(layout: Layout, fp8: bool, out_dtype: str, alignment: int,
                 block_M: int = 64, block_N: int = 64, b_mn_major: bool = False) -> T.PrimFunc:
    """The kernel for one layout, bf16 (`fp8=False`) or FP8 with 1x128 scales for A
    and 128x128 scales for each group's B; a bf16 B may be MN-major, stored (G, K, N)
    (the NN form)."""
    assert GROUP % block_N == 0, "a block's columns share one weight scale"
    assert not (fp8 and b_mn_major), "FP8 operands are K-major"
    G, M, N, K = T.symbolic("G"), T.symbolic("M"), T.symbolic("N"), T.symbolic("K")
    in_dtype = "float8_e4m3" if fp8 else "bfloat16"
    block_K = GROUP if fp8 else 32
    k_groups = T.ceildiv(K, GROUP)
    masked = layout == "masked"
    rows_of = (G, M) if masked else (M,)
    layout_shape = (G,) if layout != "contiguous" else (M,)

    @T.macro
    def grouped(A, SFA, B, SFB, Layout, D):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), G if masked else 1,
                      threads=128) as (bx, by, bz):
            A_shared = T.alloc_shared((block_M, block_K), in_dtype)
            B_shared = T.alloc_shared((block_K, block_N) if b_mn_major else (block_N, block_K),
                                      in_dtype)
            row_scale = T.alloc_fragment((block_M,), "float32")
            partial = T.alloc_fragment((block_M, block_N), "float32")
            total = T.alloc_fragment((block_M, block_N), "float32")
            row0 = by * block_M
            # The block's group, and the first row past the group's valid rows: values
            # read from the layout (which both cores of an NPU read for themselves), or
            # for psum variables set by a search of the end offsets.
            if layout == "contiguous":
                group, end = Layout[row0], M
            elif layout == "masked":
                group, end = bz, Layout[bz]
            else:
                group = T.alloc_var("int32")
                end = T.alloc_var("int32")
                group = -1
                end = 0
                for g in T.serial(G):
                    previous = Layout[T.max(g - 1, 0)]
                    start = T.if_then_else(g == 0, 0, T.ceildiv(previous, alignment) * alignment)
                    padded_end = T.ceildiv(Layout[g], alignment) * alignment
                    if row0 >= start and row0 < padded_end:
                        group = g
                        end = Layout[g]
            T.clear(total)
            if group >= 0 and (not masked or row0 < end):
                for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                    if masked:
                        T.copy(A[group, row0:row0 + block_M, k * block_K:(k + 1) * block_K],
                               A_shared)
                    else:
                        T.copy(A[row0:row0 + block_M, k * block_K:(k + 1) * block_K], A_shared)
                    if b_mn_major:
                        T.copy(B[group, k * block_K:(k + 1) * block_K,
                                 bx * block_N:(bx + 1) * block_N], B_shared)
                    else:
                        T.copy(B[group, bx * block_N:(bx + 1) * block_N,
                                 k * block_K:(k + 1) * block_K], B_shared)
                    if fp8:
                        for i in T.Parallel(block_M):
                            if masked:
                                row_scale[i] = SFA[group, row0 + i, k]
                            else:
                                row_scale[i] = SFA[row0 + i, k]
                        # block_N divides 128: one weight scale per block and K group
                        scale = SFB[group, bx * block_N // GROUP, k]
                        T.gemm(A_shared, B_shared, partial, transpose_B=True, clear_accum=True)
                        for i, j in T.Parallel(block_M, block_N):
                            total[i, j] += partial[i, j] * (row_scale[i] * scale)
                    else:
                        T.gemm(A_shared, B_shared, total, transpose_B=not b_mn_major)
            columns = slice(bx * block_N, (bx + 1) * block_N)
            if masked:
                # a whole block of valid rows is one tile copy; the block where masked_m
                # ends stores its valid rows one element each, leaving the rest of D
                if row0 + block_M <= end:
                    T.copy(total, D[group, row0:row0 + block_M, columns])
                else:
                    for i, j in T.Parallel(block_M, block_N):
                        if row0 + i < end and bx * block_N + j < N:
                            D[group, row0 + i, bx * block_N + j] = total[i, j]
            else:
                if layout == "psum":
                    for i, j in T.Parallel(block_M, block_N):
                        total[i, j] = T.if_then_else(row0 + i < end, total[i, j], 0.0)
                T.copy(total, D[row0:row0 + block_M, columns])

    if fp8:

        @T.prim_func
        def m_grouped_fp8_gemm(
            A: T.Tensor((*rows_of, K), in_dtype),
            SFA: T.Tensor((*rows_of, k_groups), "float32"),
            B: T.Tensor((G, N, K), in_dtype),
            SFB: T.Tensor((G, T.ceildiv(N, GROUP), k_groups), "float32"),
            Layout: T.Tensor(layout_shape, "int32"),
            D: T.Tensor((*rows_of, N), out_dtype),
        ):
            grouped(A, SFA, B, SFB, Layout, D)

        return m_grouped_fp8_gemm

    @T.prim_func
    def m_grouped_bf16_gemm(
        A: T.Tensor((*rows_of, K), in_dtype),
        B: T.Tensor((G, K, N) if b_mn_major else (G, N, K), in_dtype),
        Layout: T.Tensor(layout_shape, "int32"),
        D: T.Tensor((*rows_of, N), out_dtype),
    ):
        grouped(A, None, B, None, Layout, D)

    return m_grouped_bf16_gemm


def k_grouped_bf16_gemm(alignment: int, block_M: int = 64, block_N: int = 64,
                        block_K: int = 32) -> T.PrimFunc:
    """D[g] (M, N) = C[g] + A[rows of g].T @ B[rows of g] in BF16 (weight gradients):
    A (K_sum, M) and B (K_sum, N) hold the groups' K rows one after the other; group g
    ends at Ends[g] and starts where g - 1 ends, rounded up to `alignment` (DeepGEMM's
    psum layout; its plain layout is the same with ends at multiples of the alignment).
    Rows of a K tile past the group's end are zeroed before the gemm, so a tile never
    adds the next group's rows."""
    assert alignment % block_K == 0, "a group starts on a K tile"
    G, M, N, K = T.symbolic("G"), T.symbolic("M"), T.symbolic("N"), T.symbolic("K")

    @T.prim_func
    def k_grouped_bf16_gemm(
        A: T.Tensor((K, M), "bfloat16"),
        B: T.Tensor((K, N), "bfloat16"),
        Ends: T.Tensor((G,), "int32"),
        C: T.Tensor((G, M, N), "float32"),
        D: T.Tensor((G, M, N), "float32"),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), G, threads=128) as (
                bx, by, bz):
            A_shared = T.alloc_shared((block_K, block_M), "bfloat16")
            B_shared = T.alloc_shared((block_K, block_N), "bfloat16")
            total = T.alloc_fragment((block_M, block_N), "float32")
            previous = Ends[T.max(bz - 1, 0)]
            start = T.if_then_else(bz == 0, 0, T.ceildiv(previous, alignment) * alignment)
            end = Ends[bz]
            T.copy(C[bz, by * block_M:(by + 1) * block_M, bx * block_N:(bx + 1) * block_N],
                   total)
            for k in T.serial(T.ceildiv(T.max(end - start, 0), block_K)):
                row0 = start + k * block_K
                T.copy(A[row0:row0 + block_K, by * block_M:(by + 1) * block_M], A_shared)
                T.copy(B[row0:row0 + block_K, bx * block_N:(bx + 1) * block_N], B_shared)
                for i, j in T.Parallel(block_K, block_M):
                    if row0 + i >= end:
                        A_shared[i, j] = 0
                T.gemm(A_shared, B_shared, total, transpose_A=True)
            T.copy(total, D[bz, by * block_M:(by + 1) * block_M, bx * block_N:(bx + 1) * block_N])

    return k_grouped_bf16_gemm
