"""TileLang's examples/linear_attention/example_mamba_chunk_state.py (`chunk_state_fwd`,
`out_idx=[4]`): the Mamba-2 SSD chunk-state kernel, states[b, c, h] = sum over the positions
l of chunk c of exp(dA_cumsum[last] - dA_cumsum[l]) * dt[l] * x[l]^T B[l], a gemm of a
decay-scaled transposed x tile with a B tile. Uses T.annotate_layout with
`tilelang.layout.make_swizzled_layout` (spelled `tilec.layout...` here), 1-D tiles declared
with a bare int shape, float16 values stored into float32 tiles and back. The autotuner is
left out; the einops reference is numpy."""

import numpy as np
import pytest

import tilec
import tilec.language as T


@tilec.jit(out_idx=[4])
def chunk_state_fwd(batch, seqlen, chunk_size, ngroups, nheads, headdim, dstate, block_M=64,
                    block_N=64, block_K=64, num_stages=2, threads=128):
    dtype = T.float16
    accum_dtype = T.float32
    nchunks = T.ceildiv(seqlen, chunk_size)
    p = 1.44269504

    @T.prim_func
    def main(
        B: T.Tensor((batch, seqlen, ngroups, dstate), dtype),
        x: T.Tensor((batch, seqlen, nheads, headdim), dtype),
        dt: T.Tensor((batch, nheads, nchunks, chunk_size), dtype),
        dA_cumsum: T.Tensor((batch, nheads, nchunks, chunk_size), dtype),
        Output: T.Tensor((batch, nchunks, nheads, headdim, dstate), dtype),
    ):
        with T.Kernel(
            nheads,
            T.ceildiv(headdim, block_M) * T.ceildiv(dstate, block_N),
            batch * nchunks,
            threads=threads,
        ) as (bz, bx, by):
            x_shared = T.alloc_shared((block_K, block_M), dtype)
            x_local = T.alloc_fragment((block_K, block_M), dtype)
            xt_local = T.alloc_fragment((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            dt_shared = T.alloc_shared((block_K), dtype)
            dA_cumsum_shared = T.alloc_shared((block_K), dtype)
            acc_o = T.alloc_fragment((block_M, block_N), accum_dtype)
            acc_o_shared = T.alloc_shared((block_M, block_N), dtype)
            scale = T.alloc_fragment((block_K), accum_dtype)
            dA_cs_last = T.alloc_fragment((1), accum_dtype)
            dA_cumsum_local = T.alloc_fragment((block_K), accum_dtype)
            dt_local = T.alloc_fragment((block_K), accum_dtype)

            loop_range = T.ceildiv(chunk_size, block_K)

            batch_idx = by % batch
            chunk_idx = by // batch
            m_idx = bx // T.ceildiv(dstate, block_N)
            n_idx = bx % T.ceildiv(dstate, block_N)

            T.annotate_layout({x_shared: tilec.layout.make_swizzled_layout(x_shared)})

            dA_cs_last[0] = dA_cumsum[batch_idx, bz, chunk_idx, chunk_size - 1]
            T.clear(acc_o)
            for k in T.Pipelined(loop_range, num_stages=num_stages):
                row = chunk_idx * chunk_size + k * block_K
                T.copy(
                    x[batch_idx, row : row + block_K, bz, m_idx * block_M : (m_idx + 1) * block_M],
                    x_shared,
                )
                T.copy(
                    dA_cumsum[batch_idx, bz, chunk_idx, k * block_K : (k + 1) * block_K],
                    dA_cumsum_shared,
                )
                T.copy(dt[batch_idx, bz, chunk_idx, k * block_K : (k + 1) * block_K], dt_shared)
                T.copy(dA_cumsum_shared, dA_cumsum_local)
                T.copy(dt_shared, dt_local)
                for i in T.Parallel(block_K):
                    scale[i] = T.exp2(dA_cs_last[0] * p - dA_cumsum_local[i] * p) * dt_local[i]
                T.copy(x_shared, x_local)
                for i, j in T.Parallel(block_M, block_K):
                    xt_local[i, j] = x_local[j, i] * scale[j]
                T.copy(
                    B[
                        batch_idx,
                        row : row + block_K,
                        bz // (nheads // ngroups),
                        n_idx * block_N : (n_idx + 1) * block_N,
                    ],
                    B_shared,
                )
                T.gemm(xt_local, B_shared, acc_o)
            T.copy(acc_o, acc_o_shared)
            T.copy(
                acc_o_shared,
                Output[
                    batch_idx,
                    chunk_idx,
                    bz,
                    m_idx * block_M : (m_idx + 1) * block_M,
                    n_idx * block_N : (n_idx + 1) * block_N,
                ],
            )

    return main


def ref_program(B, x, dt, dA_cumsum):
    batch, seqlen, nheads, headdim = x.shape
    _, _, nchunks, chunk_size = dt.shape
    ngroups = B.shape[2]
    B = np.repeat(B.astype(np.float32), nheads // ngroups, axis=2)
    x = x.astype(np.float32)
    pad = nchunks * chunk_size - seqlen
    x = np.pad(x, ((0, 0), (0, pad), (0, 0), (0, 0)))
    B = np.pad(B, ((0, 0), (0, pad), (0, 0), (0, 0)))
    x = x.reshape(batch, nchunks, chunk_size, nheads, headdim)
    B = B.reshape(batch, nchunks, chunk_size, nheads, -1)
    dA = dA_cumsum.astype(np.float32)
    decay_states = np.exp(dA[:, :, :, -1:] - dA)
    return np.einsum("bclhn,bhcl,bhcl,bclhp->bchpn", B, decay_states, dt.astype(np.float32), x)


@pytest.mark.parametrize(
    ("batch", "seqlen", "chunk_size", "ngroups", "nheads", "headdim", "dstate"),
    [(1, 300, 128, 1, 2, 80, 48), (2, 256, 128, 2, 4, 64, 64)],  # ragged, aligned
)
def test_mamba_chunk_state(batch, seqlen, chunk_size, ngroups, nheads, headdim, dstate):
    rng = np.random.default_rng(26)
    nchunks = -(-seqlen // chunk_size)
    B = rng.standard_normal((batch, seqlen, ngroups, dstate)).astype(np.float16)
    x = rng.standard_normal((batch, seqlen, nheads, headdim)).astype(np.float16)
    dt = (rng.random((batch, nheads, nchunks, chunk_size)) * 0.1).astype(np.float16)
    dA_cumsum = np.cumsum(-rng.random((batch, nheads, nchunks, chunk_size)) * 0.05, -1).astype(
        np.float16
    )

    kernel = chunk_state_fwd(batch, seqlen, chunk_size, ngroups, nheads, headdim, dstate)
    out = kernel(B, x, dt, dA_cumsum)

    np.testing.assert_allclose(
        out.astype(np.float32), ref_program(B, x, dt, dA_cumsum), rtol=1e-2, atol=2e-2
    )
