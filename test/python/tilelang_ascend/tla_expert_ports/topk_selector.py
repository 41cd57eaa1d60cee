# ruff: noqa: E501 - upstream's lines, as written
"""tilelang-ascend's examples/topk_selector/example_topk_selector.py (`as (cid, vid)`, one
row per AIV: the row gathered into one UB tile, T.tile.topk, T.tile.gather_mask of the
indices, T.tile.cast to int32), only the imports changed; left out: argparse, torch, the
mismatch counters and main (the test drives it)."""

from typing import Literal

import tilec as tl
import tilec.language as T


@tl.jit(
    out_idx=[-1],
    pass_configs={
        tl.PassConfigKey.TIR_MERGE_STATIC_SMEM: True,
        tl.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
        tl.PassConfigKey.TL_ASCEND_AUTO_CV_SYNC: True,
        tl.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True,
    },
)
def simple_topk_selector(B: int, N: int, top_k: int, block_N: int, dtype: Literal["float32"] = "float32"):

    VEC_NUM = 2
    INDEX_DTYPE = "int32"

    b_num = T.ceildiv(B, VEC_NUM)
    n_num = T.ceildiv(N, block_N)

    @T.prim_func
    def main(
        x: T.Tensor([B, N], dtype),  # type: ignore
        indices: T.Tensor([B, top_k], INDEX_DTYPE),  # type: ignore
    ):
        with T.Kernel(b_num, is_npu=True) as (cid, vid):
            row_id = (cid * VEC_NUM + vid) % B  # one v-core for one row

            x_ub = T.alloc_ub([block_N], dtype)
            score_accum = T.alloc_ub([N], dtype)
            topk_dst = T.alloc_ub([2 * top_k], dtype)
            topk_index = T.alloc_ub([top_k], dtype)
            output_index = T.alloc_ub([top_k], INDEX_DTYPE)

            # Accumulate all N scores into flat buffer
            for bn in T.serial(n_num):
                T.copy(x[row_id, bn * block_N], x_ub)
                for i in range(block_N):
                    score_accum[bn * block_N + i] = x_ub[i]

            # Sort all N elements and extract top_k
            T.tile.topk(topk_dst, score_accum, top_k, N)
            T.tile.gather_mask(topk_index, topk_dst, "P1010")  # [value, idx] => [idx]
            T.tile.cast(output_index, topk_index, "CAST_ROUND", top_k)

            T.copy(output_index, indices[row_id, :top_k])

    return main
