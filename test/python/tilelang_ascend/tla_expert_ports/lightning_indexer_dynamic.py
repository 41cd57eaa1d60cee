# ruff: noqa: E501 - upstream's lines, as written
"""tilelang-ascend's examples/lightning_indexer/example_lightning_indexer_dynamic_shape.py
(the lightning indexer with B, S1 and S2 symbolic: the scores of a row gathered into a UB
tile of MAX_S2 and T.tile.topk over the first S2 of them), only the imports changed; left
out: torch, the cache disabling, the sizes, golden and main (the test drives it)."""

import tilec as tilelang
import tilec.language as T

pass_configs = {
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
}


@tilelang.jit(out_idx=[-1], workspace_idx=[-3], pass_configs=pass_configs, target="ascendc")
def indexer(N2, G, D, TOP_K, VECTOR_BASEN, VECTOR_BASEG, BLOCK_M, BLOCK_N, BLOCK_K, MAX_S2=4096, input_dtype="float16", calc_dtype="float"):

    B = T.symbolic("B")
    S1 = T.symbolic("S1")
    S2 = T.symbolic("S2")

    @T.prim_func
    def main(
        Query: T.Tensor((B, S1, N2, G * D), input_dtype),
        KEY: T.Tensor((B, S2, N2, D), input_dtype),
        QK_RES: T.Tensor((B, N2, S1, G, S2), calc_dtype),
        WEIGHTS: T.Tensor((B, S1, N2, G), calc_dtype),
        OUT: T.Tensor((B, N2, S1, TOP_K), "int"),
    ):

        total_process_num = N2 * S1
        each_core_process_num = total_process_num // 2
        with T.Kernel(B * N2, is_npu=True) as (cid, vid):
            n2_id = cid % N2

            with T.Scope("C"):
                Q_L1 = T.alloc_L1((BLOCK_M, BLOCK_K), input_dtype)
                K_L1 = T.alloc_L1((BLOCK_N, BLOCK_K), input_dtype)

                C_L0 = T.alloc_L0C((BLOCK_M, BLOCK_N), calc_dtype)

                T.barrier_all()
                for n2 in T.serial(N2):
                    for g in T.serial(G):
                        for m in T.serial(S1 // BLOCK_M):
                            for n in T.serial(S2 // BLOCK_N):
                                T.barrier_all()
                                T.copy(Query[cid, m * BLOCK_M : (m + 1) * BLOCK_M, n2, g * D : (g + 1) * D], Q_L1)
                                T.barrier_all()
                                T.copy(KEY[cid, n * BLOCK_N : (n + 1) * BLOCK_N, n2, 0:D], K_L1)
                                T.barrier_all()
                                T.gemm_v0(Q_L1, K_L1, C_L0, transpose_B=True, init=True)
                                T.barrier_all()
                                T.copy(
                                    C_L0,
                                    QK_RES[
                                        cid, n2, m * BLOCK_M : (m + 1) * BLOCK_M, g, n * BLOCK_N : (n + 1) * BLOCK_N
                                    ],  # [B, N2, S1, G, S2]
                                    enable_relu=True,
                                )
                                T.barrier_all()
                T.set_cross_flag("FIX", 0)

            with T.Scope("V"):
                mm_res_ub = T.alloc_ub((VECTOR_BASEG, VECTOR_BASEN), calc_dtype)
                weight_ub = T.alloc_ub(VECTOR_BASEG, calc_dtype)
                reduce_tmp_ub = T.alloc_ub((VECTOR_BASEG, VECTOR_BASEN), calc_dtype)
                reduce_g_ub = T.alloc_ub(VECTOR_BASEN, calc_dtype)
                # Accumulate all S2 scores, then topk once
                # Use MAX_S2 for buffer sizes since S2 is dynamic
                score_accum_ub = T.alloc_ub(MAX_S2, calc_dtype)
                topk_dst_ub = T.alloc_ub(2 * TOP_K, calc_dtype)
                topk_index_ub = T.alloc_ub(TOP_K, calc_dtype)
                output_ub = T.alloc_ub(TOP_K, "int")

                s1_start_idx = vid * each_core_process_num
                s1_end_idx = s1_start_idx + each_core_process_num

                T.wait_cross_flag(0)
                for s1_id in T.serial(s1_start_idx, s1_end_idx):
                    T.barrier_all()
                    for s2_id in T.serial(S2 // VECTOR_BASEN):
                        T.barrier_all()
                        T.tile.fill(reduce_tmp_ub, 0)
                        T.tile.fill(reduce_g_ub, 0)
                        T.barrier_all()

                        for g_id in T.serial(G // VECTOR_BASEG):
                            T.barrier_all()
                            T.copy(
                                QK_RES[
                                    cid,
                                    n2_id,
                                    s1_id,
                                    g_id * VECTOR_BASEG : (g_id + 1) * VECTOR_BASEG,
                                    s2_id * VECTOR_BASEN : (s2_id + 1) * VECTOR_BASEN,
                                ],
                                mm_res_ub,
                            )
                            T.barrier_all()
                            T.copy(WEIGHTS[cid, s1_id, n2_id, g_id * VECTOR_BASEG : (g_id + 1) * VECTOR_BASEG], weight_ub)
                            T.barrier_all()
                            for i in range(VECTOR_BASEG):
                                T.barrier_all()
                                T.tile.mul(mm_res_ub[i, :], mm_res_ub[i, :], weight_ub[i])
                                T.barrier_all()
                            T.barrier_all()
                            T.tile.add(reduce_tmp_ub, mm_res_ub, reduce_tmp_ub)
                            T.barrier_all()
                        T.barrier_all()
                        T.reduce_sum(reduce_tmp_ub, reduce_g_ub, 0)
                        T.barrier_all()
                        # Accumulate scores into flat buffer
                        for i in range(VECTOR_BASEN):
                            score_accum_ub[s2_id * VECTOR_BASEN + i] = reduce_g_ub[i]
                        T.barrier_all()
                    # After all s2 iterations, extract top K
                    T.barrier_all()
                    T.tile.topk(topk_dst_ub, score_accum_ub, TOP_K, S2)
                    T.barrier_all()
                    T.tile.gather_mask(topk_index_ub, topk_dst_ub, "P1010")
                    T.barrier_all()
                    T.tile.cast(output_ub, topk_index_ub, "CAST_ROUND", TOP_K)
                    T.barrier_all()
                    T.copy(output_ub, OUT[cid, n2_id, s1_id, 0:TOP_K])
                    T.barrier_all()

    return main
