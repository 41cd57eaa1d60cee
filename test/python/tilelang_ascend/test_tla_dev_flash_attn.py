"""tilelang-ascend's examples/developer_mode/flash_attn_bshd_developer.py: developer-mode flash
attention (`threads=2`, `as cid`, T.alloc_shared / T.alloc_fragment tiles, T.Pipelined,
`T.gemm_v0(..., transpose_B=True, init=True)`, the online softmax in T.tile ops with row
slices `acc_s_ub[h_i, :]` and scalars `m_i[h_i]`, T.reduce_max/sum). Only the imports
changed (`import tilec as tilelang`, numpy arrays for torch's); B, S, H, D are smaller than
the example's (1, 128, 1, 512) to keep the test short, the `@tilelang.jit(out_idx=[3])`
decoration is applied per target and pass_configs are left out. It runs on cpu and in the
simulator on the 910b and the 950 against numpy; each `for h_i in range(block_M)` loop of
row ops is one element-wise op over the rows (see ascend_tile._RowRun), which the AIVs
split between them. (The example's D = 512 overflows L0B in tilec's cube lowering, which
gives each gemm its own 64 KiB L0B buffers.)"""

import numpy as np
import pytest

import tilec as tilelang
from tilec import language as T

TARGETS = ("cpu", "ascend:910b", "ascend:950")
B, S, H, D = 1, 128, 2, 64


def flash_attention_fwd(
    heads,
    dim,
):
    block_M, block_N = 32, 64

    batch = B
    seq_len = S

    dtype = "float16"
    accum_dtype = "float"

    sm_scale = (1.0 / dim) ** 0.5

    shape = [batch, heads, seq_len, dim]

    block_num = seq_len // block_M * heads * batch

    @T.prim_func
    def main(
        Q: T.Tensor(shape, dtype),  # type: ignore
        K: T.Tensor(shape, dtype),  # type: ignore
        V: T.Tensor(shape, dtype),  # type: ignore
        Output: T.Tensor(shape, dtype),  # type: ignore
    ):
        with T.Kernel(block_num, threads=2, is_npu=True) as (cid):
            bx = cid % (seq_len // block_M)
            by = cid // (seq_len // block_M) % heads
            bz = cid // (seq_len // block_M) // heads % batch

            q_l1 = T.alloc_shared([block_M, dim], dtype)
            k_l1 = T.alloc_shared([block_N, dim], dtype)
            v_l1 = T.alloc_shared([block_N, dim], dtype)

            acc_s_l1 = T.alloc_shared([block_M, block_N], dtype)

            acc_s_l0c = T.alloc_fragment([block_M, block_N], accum_dtype)
            acc_o_l0c = T.alloc_fragment([block_M, dim], accum_dtype)

            acc_o = T.alloc_shared([block_M, dim], accum_dtype)
            sumexp = T.alloc_shared([block_M], accum_dtype)
            m_i = T.alloc_shared([block_M], accum_dtype)

            acc_s_ub = T.alloc_shared([block_M, block_N], accum_dtype)
            m_i_prev = T.alloc_shared([block_M], accum_dtype)
            acc_s_ub_ = T.alloc_shared([block_M, block_N], accum_dtype)
            sumexp_i_ub = T.alloc_shared([block_M], accum_dtype)
            acc_s_half = T.alloc_shared([block_M, block_N], dtype)
            acc_o_ub = T.alloc_shared([block_M, dim], accum_dtype)
            acc_o_half = T.alloc_shared([block_M, dim], dtype)

            T.tile.fill(acc_o, 0.0)
            T.tile.fill(sumexp, 0.0)
            T.tile.fill(m_i, -(2**30))
            T.copy(Q[bz, by, bx * block_M : (bx + 1) * block_M, :], q_l1)

            for k in T.Pipelined(T.ceildiv(seq_len, block_N), num_stages=2):
                # acc_s_l0c = Q @ K^T
                T.copy(K[bz, by, k * block_N : (k + 1) * block_N, :], k_l1)
                T.gemm_v0(q_l1, k_l1, acc_s_l0c, transpose_B=True, init=True)
                T.copy(acc_s_l0c, acc_s_ub_)

                T.tile.fill(acc_s_ub, 0.0)
                T.copy(m_i, m_i_prev)
                T.tile.add(acc_s_ub, acc_s_ub, acc_s_ub_)
                # scale
                T.tile.mul(acc_s_ub, acc_s_ub, sm_scale)
                # Update maximum
                T.reduce_max(acc_s_ub, m_i, dim=-1)
                T.tile.max(m_i, m_i, m_i_prev)
                T.tile.sub(m_i_prev, m_i_prev, m_i)
                T.tile.exp(m_i_prev, m_i_prev)

                # current sumexp
                for h_i in range(block_M):
                    T.tile.sub(acc_s_ub[h_i, :], acc_s_ub[h_i, :], m_i[h_i])
                T.tile.exp(acc_s_ub, acc_s_ub)
                # update history sumexp
                T.reduce_sum(acc_s_ub, sumexp_i_ub, dim=-1)
                T.tile.mul(sumexp, sumexp, m_i_prev)
                T.tile.add(sumexp, sumexp, sumexp_i_ub)

                # softmax(S_scaled) @ V
                T.copy(acc_s_ub, acc_s_half)
                T.copy(acc_s_half, acc_s_l1)

                T.copy(V[bz, by, k * block_N : (k + 1) * block_N, :], v_l1)
                T.gemm_v0(acc_s_l1, v_l1, acc_o_l0c, init=True)
                T.copy(acc_o_l0c, acc_o_ub)

                # update history acc_o
                for h_i in range(block_M):
                    T.tile.mul(acc_o[h_i, :], acc_o[h_i, :], m_i_prev[h_i])
                T.tile.add(acc_o, acc_o, acc_o_ub)

            # normalization
            for h_i in range(block_M):
                T.tile.div(acc_o[h_i, :], acc_o[h_i, :], sumexp[h_i])

            T.copy(acc_o, acc_o_half)
            T.copy(acc_o_half, Output[bz, by, bx * block_M : bx * block_M + block_M, :])

    return main


def ref_flash_attn(q, k, v):
    q, k, v = (x.astype(np.float32) for x in (q, k, v))
    acc = np.einsum("bhsd,bhkd->bhsk", q, k) * (1.0 / q.shape[-1]) ** 0.5
    acc = np.exp(acc - acc.max(-1, keepdims=True))
    acc /= acc.sum(-1, keepdims=True)
    return np.einsum("bhsk,bhkd->bhsd", acc, v)


@pytest.mark.parametrize("target", TARGETS)
def test_flash_attention_developer(target):
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((B, H, S, D)).astype(np.float16) for _ in range(3))
    func = tilelang.jit(out_idx=[3], target=target)(flash_attention_fwd)(heads=H, dim=D)
    output = func(q, k, v)
    np.testing.assert_allclose(output.astype(np.float32), ref_flash_attn(q, k, v),
                               rtol=1e-2, atol=1e-2)
