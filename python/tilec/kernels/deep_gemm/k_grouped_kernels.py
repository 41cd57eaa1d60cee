"""DeepGEMM's K-grouped FP8 GEMMs (weight gradients of MoE experts) as tilec kernels:
`D[g] = C[g] + dequant(A_g).T-or-not @ dequant(B_g)`, float32 C and D (G, M, N), with
DeepGEMM's 1D1D recipe: one float32 scale per row (of M or N) and gran_k values of K.

Both kernels take `Ends` (G,) int32, each group's end offset along K; group g starts
where g - 1 ends, rounded up to `alignment` (the psum layout; the plain layout is the
same with ends at multiples of the alignment, which the host computes from ks_cpu).

- TN (SM100's layout): A (K_sum, M) and B (K_sum, N) MN-major; the scales
  (SF_K, M) / (SF_K, N) row-major hold ceil(k_g / gran_k) rows per group, one after
  the other. A K tile starts at the group's start, so a tile never spans two groups;
  its rows past the group's end are zeroed.
- NT (SM90's layout): A and B flat buffers; group g's A is (M, k_g) row-major at
  offset start * M, its B (N, k_g) at start * N, and k_g is a multiple of 128. The
  scales are (M, SF_K) / (N, SF_K), row-major or MN-major (see gemm_kernels), the
  group's first K group at start / 128. The tiles are gathered element by element,
  since a group's row stride is its own k_g.
"""

from __future__ import annotations

import tilec.language as T

from .gemm_kernels import GROUP, ScaleLayout, _scale_tensor, _scales


def _group_start(Ends, g, alignment: int):
    """Where group g's rows begin: 0, or the previous group's end rounded up."""
    previous = Ends[T.max(g - 1, 0)]
    return T.if_then_else(g == 0, 0, T.ceildiv(previous, alignment) * alignment)


def k_grouped_fp8_gemm_tn(gran_k: int, alignment: int, partial_tiles: bool, block_M: int = 64,
                          block_N: int = 64) -> T.PrimFunc:
    """The TN kernel: a block owns one (block_M, block_N) tile of one group's D.
    `partial_tiles` says a group's K may end inside a tile (psum ends, or an alignment
    that gran_k does not divide); without it no rows are zeroed, and the kernel's gemm
    operands are only ever loaded (which the NPU's cube needs)."""
    assert gran_k in (32, 128) and alignment % 32 == 0
    G, M, N = T.symbolic("G"), T.symbolic("M"), T.symbolic("N")
    K, SF_K = T.symbolic("K"), T.symbolic("SF_K")

    @T.prim_func
    def k_grouped_fp8_gemm_tn(
        A: T.Tensor((K, M), "float8_e4m3"),
        SFA: T.Tensor((SF_K, M), "float32"),
        B: T.Tensor((K, N), "float8_e4m3"),
        SFB: T.Tensor((SF_K, N), "float32"),
        Ends: T.Tensor((G,), "int32"),
        C: T.Tensor((G, M, N), "float32"),
        D: T.Tensor((G, M, N), "float32"),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), G, threads=128) as (
                bx, by, bz):
            A_shared = T.alloc_shared((gran_k, block_M), "float8_e4m3")
            B_shared = T.alloc_shared((gran_k, block_N), "float8_e4m3")
            row_scale = T.alloc_fragment((block_M,), "float32")
            column_scale = T.alloc_fragment((block_N,), "float32")
            partial = T.alloc_fragment((block_M, block_N), "float32")
            total = T.alloc_fragment((block_M, block_N), "float32")
            start, end = _group_start(Ends, bz, alignment), Ends[bz]
            # the group's first scale row: the scale rows of the groups before it, which
            # without partial tiles is start / gran_k (a value each core computes itself)
            if partial_tiles:
                first_scale = T.alloc_var("int32")
                first_scale = 0
                for h in T.serial(bz):
                    rows = T.max(Ends[h] - _group_start(Ends, h, alignment), 0)
                    first_scale = first_scale + T.ceildiv(rows, gran_k)
            else:
                first_scale = start // gran_k
            T.copy(C[bz, by * block_M:(by + 1) * block_M, bx * block_N:(bx + 1) * block_N],
                   total)
            for t in T.serial(T.ceildiv(T.max(end - start, 0), gran_k)):
                row0 = start + t * gran_k
                T.copy(A[row0:row0 + gran_k, by * block_M:(by + 1) * block_M], A_shared)
                T.copy(B[row0:row0 + gran_k, bx * block_N:(bx + 1) * block_N], B_shared)
                if partial_tiles:  # rows past the group's end (gap or next group) add nothing
                    for i, j in T.Parallel(gran_k, block_M):
                        if row0 + i >= end:
                            A_shared[i, j] = 0
                    for i, j in T.Parallel(gran_k, block_N):
                        if row0 + i >= end:
                            B_shared[i, j] = 0
                T.copy(SFA[first_scale + t, by * block_M:(by + 1) * block_M], row_scale)
                T.copy(SFB[first_scale + t, bx * block_N:(bx + 1) * block_N], column_scale)
                T.gemm(A_shared, B_shared, partial, transpose_A=True, clear_accum=True)
                for i, j in T.Parallel(block_M, block_N):
                    total[i, j] += partial[i, j] * (row_scale[i] * column_scale[j])
            T.copy(total, D[bz, by * block_M:(by + 1) * block_M, bx * block_N:(bx + 1) * block_N])

    return k_grouped_fp8_gemm_tn


def k_grouped_fp8_gemm_nt(sfa_layout: ScaleLayout, sfb_layout: ScaleLayout,
                          block_M: int = 64, block_N: int = 64) -> T.PrimFunc:
    """The NT kernel (groups' K multiples of 128, so no tile is partial along K)."""
    G, M, N = T.symbolic("G"), T.symbolic("M"), T.symbolic("N")
    MK, NK, SF_K = T.symbolic("MK"), T.symbolic("NK"), T.symbolic("SF_K")

    @T.prim_func
    def k_grouped_fp8_gemm_nt(
        A: T.Tensor((MK,), "float8_e4m3"),
        SFA: _scale_tensor(sfa_layout, M, SF_K, "SFA_LD"),
        B: T.Tensor((NK,), "float8_e4m3"),
        SFB: _scale_tensor(sfb_layout, N, SF_K, "SFB_LD"),
        Ends: T.Tensor((G,), "int32"),
        C: T.Tensor((G, M, N), "float32"),
        D: T.Tensor((G, M, N), "float32"),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), G, threads=128) as (
                bx, by, bz):
            A_shared = T.alloc_shared((block_M, GROUP), "float8_e4m3")
            B_shared = T.alloc_shared((block_N, GROUP), "float8_e4m3")
            row_scale = T.alloc_fragment((block_M,), "float32")
            column_scale = T.alloc_fragment((block_N,), "float32")
            partial = T.alloc_fragment((block_M, block_N), "float32")
            total = T.alloc_fragment((block_M, block_N), "float32")
            start, end = _group_start(Ends, bz, GROUP), Ends[bz]
            group_k = T.max(end - start, 0)
            T.copy(C[bz, by * block_M:(by + 1) * block_M, bx * block_N:(bx + 1) * block_N],
                   total)
            for t in T.serial(group_k // GROUP):
                # rows past M or N repeat the last row: their products are not stored
                for i, kk in T.Parallel(block_M, GROUP):
                    row = T.min(by * block_M + i, M - 1)
                    A_shared[i, kk] = A[start * M + row * group_k + t * GROUP + kk]
                for j, kk in T.Parallel(block_N, GROUP):
                    row = T.min(bx * block_N + j, N - 1)
                    B_shared[j, kk] = B[start * N + row * group_k + t * GROUP + kk]
                k_group = start // GROUP + t
                _scales(SFA, sfa_layout, k_group, by * block_M, row_scale, block_M)
                _scales(SFB, sfb_layout, k_group, bx * block_N, column_scale, block_N)
                T.gemm(A_shared, B_shared, partial, transpose_B=True, clear_accum=True)
                for i, j in T.Parallel(block_M, block_N):
                    total[i, j] += partial[i, j] * (row_scale[i] * column_scale[j])
            T.copy(total, D[bz, by * block_M:(by + 1) * block_M, bx * block_N:(bx + 1) * block_N])

    return k_grouped_fp8_gemm_nt
