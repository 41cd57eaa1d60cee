"""TileLang's examples/topk/example_topk.py (factory form, `out_idx=[1, 2]`): the top-k
gates and their column indices of each row of a float32 logits matrix (MoE routing). Each of
the k rounds takes the row max, the largest column holding it (a reduce_max over an int32 tile
of candidate indices) and knocks the winners out with -10000; results are written element by
element into the global outputs. The autotuner is left out."""

import numpy as np
import pytest

import tilec
import tilec.language as T


@tilec.jit(out_idx=[1, 2])
def tl_topk(M, N, topk, blk_m, threads=128):
    dtype = T.float32

    @T.prim_func
    def topk_kernel(
        logits: T.Tensor([M, N], dtype),
        topk_gates: T.Tensor([M, topk], dtype),
        topk_indices: T.Tensor([M, topk], T.int32),
    ):
        with T.Kernel(T.ceildiv(M, blk_m), threads=threads) as bx:
            logits_frag = T.alloc_fragment([blk_m, N], dtype=dtype)
            max_val = T.alloc_fragment([blk_m], dtype=dtype)
            expand_max_idx = T.alloc_fragment([blk_m, N], T.int32)
            max_idx = T.alloc_fragment([blk_m], T.int32)

            T.copy(logits[bx * blk_m, 0], logits_frag)

            for k in T.serial(topk):
                T.fill(expand_max_idx, -1)
                T.reduce_max(logits_frag, max_val, dim=1, clear=True)

                for i, j in T.Parallel(blk_m, N):
                    expand_max_idx[i, j] = T.if_then_else(
                        max_val[i] == logits_frag[i, j], j, expand_max_idx[i, j]
                    )

                T.reduce_max(expand_max_idx, max_idx, dim=1, clear=True)

                for i, j in T.Parallel(blk_m, N):
                    logits_frag[i, j] = T.if_then_else(
                        max_val[i] == logits_frag[i, j], -10000.0, logits_frag[i, j]
                    )

                for i in T.Parallel(blk_m):
                    topk_gates[bx * blk_m + i, k] = max_val[i]
                    topk_indices[bx * blk_m + i, k] = max_idx[i]

    return topk_kernel


def ref_program(logits, top_k):
    # distinct random values: the order is unique; ties in torch.topk are not checked
    order = np.argsort(-logits, axis=1, kind="stable")[:, :top_k]
    return np.take_along_axis(logits, order, axis=1), order.astype(np.int32)


@pytest.mark.parametrize(("M", "N", "topk"), [(100, 48, 6), (128, 64, 4)])  # ragged M, aligned
def test_topk(M, N, topk):
    logits = np.random.default_rng(11).random((M, N)).astype(np.float32)
    gates, indices = tl_topk(M, N, topk, blk_m=64)(logits)

    ref_gates, ref_indices = ref_program(logits, topk)
    np.testing.assert_array_equal(gates, ref_gates)
    np.testing.assert_array_equal(indices, ref_indices)
