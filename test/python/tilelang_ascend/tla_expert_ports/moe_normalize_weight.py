"""TileKernels' MoE `normalize_weight` (deepseek-ai/TileKernels, tile_kernels/moe: each
token's top-k routing weights over 1e-20 plus their sum, and that denominator) written
in tilelang-ascend's language as its users write vector kernels (`T.Kernel(n,
is_npu=True) as (cid, vid)`, each AIV on half of a block of tokens in T.alloc_ub tiles,
T.reduce_sum over each row, T.tile.add/broadcast/div, TL_ASCEND_AUTO_SYNC).
tilelang-ascend has no such example; this is the kernel the issue's user wrote, with
only the imports naming tilec."""

import tilec as tilelang
import tilec.language as T

pass_configs = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
}


@tilelang.jit(out_idx=[1, 2], pass_configs=pass_configs)
def normalize_weight(num_tokens, num_topk, block_M=16):
    VEC_NUM = 2
    sub_block_M = block_M // VEC_NUM
    m_num = T.ceildiv(num_tokens, block_M)

    @T.prim_func
    def main(
        topk_weights: T.Tensor((num_tokens, num_topk), "float32"),
        denominator: T.Tensor((num_tokens,), "float32"),
        normalized_weights: T.Tensor((num_tokens, num_topk), "float32"),
    ):
        with T.Kernel(m_num, is_npu=True) as (cid, vid):
            row = cid * block_M + vid * sub_block_M

            w_ub = T.alloc_ub([sub_block_M, num_topk], "float32")
            w_brd = T.alloc_ub([sub_block_M, num_topk], "float32")
            sum_ub = T.alloc_ub([sub_block_M], "float32")

            T.copy(topk_weights[row : row + sub_block_M, :], w_ub)
            T.reduce_sum(w_ub, sum_ub, dim=-1)
            T.tile.add(sum_ub, sum_ub, 1e-20)
            T.tile.broadcast(w_brd, sum_ub, axis=1)
            T.tile.div(w_ub, w_ub, w_brd)

            T.copy(sum_ub, denominator[row : row + sub_block_M])
            T.copy(w_ub, normalized_weights[row : row + sub_block_M, :])

    return main
