"""The scale-layout kernels of `deep_gemm.utils.layout`: scales (B, MN, SF_K) rewritten
into the MN-major, TMA-aligned storage DeepGEMM's kernels read, (B, SF_K, ALIGNED_MN)
with ALIGNED_MN = MN rounded up to four 4-byte elements (16 bytes); as float32, or as
SM100's UE8M0 exponents packed four K groups to an int32, the first in the low byte.

The input is either row-major (B, MN, SF_K) or already MN-major, passed as its storage
(B, SF_K, LD) with LD >= MN. The padding columns MN .. ALIGNED_MN are not written
(upstream leaves them uninitialized too).
"""

from __future__ import annotations

import tilec.language as T


def _input(mn_major: bool, B, SF_K):
    """The scales' storage; MN comes as the scalar `mn` (an MN-major input's leading
    dimension may exceed it)."""
    if mn_major:
        return T.Tensor((B, SF_K, T.symbolic("LD")), "float32")
    return T.Tensor((B, T.symbolic("ROWS"), SF_K), "float32")


def _load(X, mn_major: bool, b, r, k):
    return X[b, k, r] if mn_major else X[b, r, k]


def transpose_sf(mn_major: bool, block: int = 32) -> T.PrimFunc:
    """float32 scales -> their MN-major TMA-aligned storage."""
    B, SF_K, ALIGNED_MN = (T.symbolic(name) for name in ("B", "SF_K", "ALIGNED_MN"))

    @T.prim_func
    def transpose_fp32(X: _input(mn_major, B, SF_K),
                       Y: T.Tensor((B, SF_K, ALIGNED_MN), "float32"), mn: T.int32):
        with T.Kernel(T.ceildiv(mn, block), T.ceildiv(SF_K, block), B, threads=128) as (
                bx, by, bz):
            for k, r in T.Parallel(block, block):
                row, group = bx * block + r, by * block + k
                if row < mn and group < SF_K:
                    Y[bz, group, row] = _load(X, mn_major, bz, row, group)

    return transpose_fp32


def pack_ue8m0_mn_major(mn_major: bool, psum_alignment: int | None,
                        block: int = 32) -> T.PrimFunc:
    """float32 scales (powers of two) -> int32 (B, ceil(SF_K / 4), ALIGNED_MN): each word
    the exponent bytes of four consecutive K groups (0 past SF_K). With a psum layout,
    the rows outside every group of `Ends` (the gaps between a group's end and the next
    group's start, its end rounded up to `psum_alignment`) are packed as 0, since their
    scales are never written (B is then 1); without one, Ends is not read."""
    psum = psum_alignment is not None
    B, SF_K, ALIGNED_MN = (T.symbolic(name) for name in ("B", "SF_K", "ALIGNED_MN"))
    G = T.symbolic("G")
    packed_k = T.ceildiv(SF_K, 4)

    @T.prim_func
    def pack_fp32_into_ue8m0(X: _input(mn_major, B, SF_K),
                             Ends: T.Tensor((G,), "int32"),
                             Y: T.Tensor((B, packed_k, ALIGNED_MN), "int32"), mn: T.int32):
        with T.Kernel(T.ceildiv(mn, block), T.ceildiv(packed_k, block), B, threads=128) as (
                bx, by, bz):
            valid = T.alloc_fragment((block,), "int32")
            for r in T.Parallel(block):
                valid[r] = 0 if psum else 1
            if psum:
                for g in T.serial(G):
                    previous = Ends[T.max(g - 1, 0)]
                    start = T.if_then_else(g == 0, 0, T.ceildiv(previous, psum_alignment)
                                          * psum_alignment)
                    for r in T.Parallel(block):
                        row = bx * block + r
                        if row >= start and row < Ends[g]:
                            valid[r] = 1
            for w, r in T.Parallel(block, block):
                row, word = bx * block + r, by * block + w
                if row < mn and 4 * word < SF_K:
                    packed = 0
                    for j in range(4):
                        group = 4 * word + j
                        bits = T.reinterpret(_load(X, mn_major, bz, row, T.min(group, SF_K - 1)),
                                             "int32")
                        exponent = T.if_then_else((group < SF_K) & (valid[r] != 0),
                                                  (bits >> 23) & 0xFF, 0)
                        packed = packed | (exponent << (8 * j))
                    Y[bz, word, row] = packed

    return pack_fp32_into_ue8m0
