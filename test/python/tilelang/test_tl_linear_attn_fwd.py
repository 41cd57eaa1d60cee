"""TileLang's examples/linear_attention/example_linear_attn_fwd.py (`tl_fused_chunk_fwd_kernel`,
`out_idx=[4]`): fused chunked linear attention forward, O = causal(Q K^T) V with a running
(BK, BV) state h carried across chunks of 64 positions, on (B, S, H, D) float16 tensors. The
output O (float32, passed in zeroed) is accumulated with a region T.atomic_add, since each
of the DK // BK key blocks adds its part; the final state is returned. T.Kernel without
`threads=`, T.use_swizzle(10), gemms with transpose_A and clear_accum.

The port leaves out the original's `S % chunk_size == 0` assertion: the last chunk is padded
with zeros (which add nothing to h, and the rows past S are dropped), so ragged S is exact;
DK and DV must still be multiples of 64. fla's kernel and l2norm are replaced by numpy."""

import numpy as np
import pytest

import tilec
import tilec.language as T


def cdiv(a, b):
    return -(-a // b)


@tilec.jit(out_idx=[4])
def tl_fused_chunk_fwd_kernel(B, S, H, DK, DV, dtype=T.float16, scale=None):
    if scale is None:
        scale = DK**-0.5
    accum_dtype = T.float32

    chunk_size = 64
    BK = BV = 64
    assert DK % BK == 0 and DV % BV == 0
    NK = cdiv(DK, BK)
    NV = cdiv(DV, BV)
    NT = cdiv(S, chunk_size)

    @T.prim_func
    def fused_chunk_linear_attn_fwd(
        Q: T.Tensor([B, S, H, DK], dtype),
        K: T.Tensor([B, S, H, DK], dtype),
        V: T.Tensor([B, S, H, DV], dtype),
        O: T.Tensor([B, S, H, DV], accum_dtype),  # noqa: E741
        final_state: T.Tensor([B, H, DK, DV], accum_dtype),
    ):
        with T.Kernel(NV, NK, B * H) as (i_v, i_k, i_bh):
            i_b = i_bh // H
            i_h = i_bh % H

            q = T.alloc_shared([chunk_size, BK], dtype)
            k = T.alloc_shared([chunk_size, BK], dtype)
            v = T.alloc_shared([chunk_size, BV], dtype)
            h = T.alloc_fragment([BK, BV], accum_dtype)
            h_shared = T.alloc_shared([BK, BV], dtype)
            s = T.alloc_fragment([chunk_size, chunk_size], accum_dtype)
            s_shared = T.alloc_shared([chunk_size, chunk_size], dtype)
            o = T.alloc_fragment([chunk_size, BV], accum_dtype)
            o_shared = T.alloc_shared([chunk_size, BV], accum_dtype)

            T.use_swizzle(10)

            T.clear(h)

            for i in T.Pipelined(0, NT):
                for row, col in T.Parallel(chunk_size, BK):
                    q[row, col] = Q[i_b, i * chunk_size + row, i_h, i_k * BK + col] * scale
                T.copy(
                    K[i_b, i * chunk_size : (i + 1) * chunk_size, i_h, i_k * BK : (i_k + 1) * BK],
                    k,
                )
                T.copy(
                    V[i_b, i * chunk_size : (i + 1) * chunk_size, i_h, i_v * BV : (i_v + 1) * BV],
                    v,
                )

                T.gemm(q, k, s, clear_accum=True, transpose_B=True)
                for row, col in T.Parallel(chunk_size, chunk_size):
                    s_shared[row, col] = T.if_then_else(row >= col, s[row, col], 0)

                T.gemm(s_shared, v, o, clear_accum=True)
                T.copy(h, h_shared)
                T.gemm(k, v, h, transpose_A=True)
                T.gemm(q, h_shared, o)
                T.copy(o, o_shared)
                T.atomic_add(
                    O[i_b, i * chunk_size : (i + 1) * chunk_size, i_h, i_v * BV : (i_v + 1) * BV],
                    o_shared,
                )

            # the state after the last chunk
            T.copy(h, final_state[i_b, i_h, i_k * BK : (i_k + 1) * BK, i_v * BV : (i_v + 1) * BV])

    return fused_chunk_linear_attn_fwd


def l2norm(x):
    x = x.astype(np.float32)
    return (x / np.sqrt((x * x).sum(-1, keepdims=True) + 1e-6)).astype(np.float16)


def ref_program(q, k, v, scale):
    q, k, v = (t.astype(np.float32).transpose(0, 2, 1, 3) for t in (q, k, v))  # (B, H, S, D)
    scores = np.tril(q @ k.transpose(0, 1, 3, 2)) * scale
    o = (scores @ v).transpose(0, 2, 1, 3)
    h = k.transpose(0, 1, 3, 2) @ v
    return o, h


@pytest.mark.parametrize(("B", "S", "H", "D"), [(1, 100, 2, 128), (2, 128, 1, 64)])  # ragged S
def test_linear_attn_fwd(B, S, H, D):
    rng = np.random.default_rng(21)
    q, k, v = (rng.standard_normal((B, S, H, D)).astype(np.float16) for _ in range(3))
    q, k = l2norm(q), l2norm(k)

    kernel = tl_fused_chunk_fwd_kernel(B, S, H, D, D)
    o = np.zeros((B, S, H, D), np.float32)
    h = kernel(q, k, v, o)

    o_ref, h_ref = ref_program(q, k, v, D**-0.5)
    np.testing.assert_allclose(o, o_ref, rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(h, h_ref, rtol=1e-2, atol=1e-2)
