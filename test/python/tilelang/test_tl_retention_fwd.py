"""TileLang's examples/linear_attention/example_retention_fwd.py (`chunk_retention_fwd_kernel`,
`@tl.jit(out_idx=3)`): chunked retention forward, o_t = sum_{s<=t} gamma_h^(t-s) (q_t . k_s)
v_s * DK^-0.5 with a per-head decay gamma_h = 1 - 2^(-5-h), carried across chunks of 64 in a
decayed state. The decay `log_decay` is a T.alloc_var reassigned to a float computed from the
head index (`1.0 * i_h`), and the decay factors multiply index expressions such as
`(row - col) * log_decay`: int values mixed into float arithmetic, as TVM promotes them.
O holds one float16 partial per key block (NK, B, S, H, DV), summed on the host
(`postprocess`). T.use_swizzle(10).

The port leaves out the `S % chunk_size == 0` assertion: padded rows of the last chunk add
nothing to the outputs of the rows before them, so ragged S is exact."""

import numpy as np
import pytest

import tilec as tl
import tilec.language as T


def cdiv(a, b):
    return -(-a // b)


@tl.jit(out_idx=3)
def chunk_retention_fwd_kernel(B, S, H, DK, DV, dtype=T.float16, scale=None):
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
    def chunk_retention_fwd(
        Q: T.Tensor([B, S, H, DK], dtype),
        K: T.Tensor([B, S, H, DK], dtype),
        V: T.Tensor([B, S, H, DV], dtype),
        O: T.Tensor([NK, B, S, H, DV], dtype),  # noqa: E741
    ):
        with T.Kernel(NV, NK, B * H) as (i_v, i_k, i_bh):
            i_b = i_bh // H
            i_h = i_bh % H
            log_decay = T.alloc_var(T.float32)
            log_decay = T.log2(1 - T.exp2(-5.0 - 1.0 * i_h))  # the decay of this head

            q = T.alloc_shared([chunk_size, BK], dtype)
            k = T.alloc_shared([chunk_size, BK], dtype)
            v = T.alloc_shared([chunk_size, BV], dtype)
            h = T.alloc_fragment([BK, BV], accum_dtype)
            h_shared = T.alloc_shared([BK, BV], dtype)
            s = T.alloc_fragment([chunk_size, chunk_size], accum_dtype)
            s_shared = T.alloc_shared([chunk_size, chunk_size], dtype)
            o = T.alloc_fragment([chunk_size, BV], accum_dtype)
            T.clear(h)

            T.use_swizzle(10)

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
                    s_shared[row, col] = T.if_then_else(
                        row >= col, s[row, col] * T.exp2((row - col) * log_decay), 0
                    )

                T.copy(h, h_shared)
                T.gemm(q, h_shared, o, clear_accum=True)
                for row, col in T.Parallel(chunk_size, BV):
                    o[row, col] = T.exp2((row + 1) * log_decay) * o[row, col]
                T.gemm(s_shared, v, o)

                for row, col in T.Parallel(chunk_size, BV):
                    v[row, col] = v[row, col] * T.exp2((chunk_size - row - 1) * log_decay)
                for row, col in T.Parallel(BK, BV):
                    h[row, col] = T.exp2(chunk_size * log_decay) * h[row, col]
                T.copy(
                    o,
                    O[
                        i_k, i_b, i * chunk_size : (i + 1) * chunk_size, i_h,
                        i_v * BV : (i_v + 1) * BV,
                    ],
                )
                T.gemm(k, v, h, transpose_A=True)

    return chunk_retention_fwd


def postprocess(o):
    return o[0] if o.shape[0] == 1 else o.astype(np.float32).sum(0)


def ref_program(q, k, v):
    q, k, v = (t.astype(np.float32).transpose(0, 2, 1, 3) for t in (q, k, v))  # (B, H, S, D)
    S, H = q.shape[2], q.shape[1]
    t = np.arange(S)
    gamma = 1 - 2.0 ** (-5.0 - np.arange(H))
    decay = gamma[:, None, None] ** np.maximum(t[:, None] - t[None, :], 0)  # (H, S, S)
    decay = np.where(t[:, None] >= t[None, :], decay, 0)
    scores = (q @ k.transpose(0, 1, 3, 2)) * q.shape[-1] ** -0.5 * decay
    return (scores @ v).transpose(0, 2, 1, 3)


@pytest.mark.parametrize(("B", "S", "H", "D"), [(1, 100, 2, 128), (2, 128, 2, 64)])  # ragged S
def test_retention_fwd(B, S, H, D):
    rng = np.random.default_rng(22)
    q, k, v = ((rng.standard_normal((B, S, H, D)) * 0.3).astype(np.float16) for _ in range(3))

    kernel = chunk_retention_fwd_kernel(B, S, H, D, D)
    o = postprocess(kernel(q, k, v))

    np.testing.assert_allclose(o.astype(np.float32), ref_program(q, k, v), rtol=2e-2, atol=2e-2)
