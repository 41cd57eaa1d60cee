"""TileLang's examples/linear_attention/example_mamba_chunk_scan.py (`chunk_scan_fwd`, factory
form, `out_idx=[7]`): the Mamba-2 SSD chunk-scan output kernel, the sibling of
test_tl_mamba_chunk_state. For each (chunk row tile, headdim tile) a block starts from the
carried state, C @ prev_states^T scaled by exp(dA_cumsum[l]), then adds the intra-chunk part
over the causal prefix of the chunk, (cb * exp(dA[l] - dA[s]) * dt[s], masked to s <= l) @ x,
with a loop whose trip count depends on the block index, and finally the D * x skip term.
Uses two make_swizzled_layout annotations, T.no_set_max_nreg, a `scope="shared.dyn"`
tile, 1-D tiles from bare int shapes, T.if_then_else for the causal mask and a gemm with a
float16 fragment as A. The autotuner and the fast-math pass config are left out; the einops
reference is numpy (in float32; upstream rounds its intra-chunk scores to float16).

chunk_size must be a multiple of block_M and block_K (a row tile must stay in its chunk),
and dstate at most block_Dstate (the kernel reads one 0:block_Dstate slice). The ragged
case has a seqlen that ends mid-chunk, a headdim that is not a multiple of block_N and a
dstate below block_Dstate; the tail is clipped on reads and writes."""

import numpy as np
import pytest

import tilec
import tilec.language as T


@tilec.jit(out_idx=[7])
def chunk_scan_fwd(
    batch,
    seqlen,
    chunk_size,
    ngroups,
    nheads,
    headdim,
    dstate,
    block_M=64,
    block_N=64,
    block_K=64,
    block_Dstate=128,
    num_stages=2,
    threads=128,
):
    dtype = T.float16
    accum_dtype = T.float32
    nchunks = T.ceildiv(seqlen, chunk_size)
    p = 1.44269504

    @T.prim_func
    def main(
        cb: T.Tensor((batch, nchunks, ngroups, chunk_size, chunk_size), dtype),
        x: T.Tensor((batch, seqlen, nheads, headdim), dtype),
        dt: T.Tensor((batch, nheads, nchunks, chunk_size), dtype),
        dA_cumsum: T.Tensor((batch, nheads, nchunks, chunk_size), dtype),
        C: T.Tensor((batch, seqlen, ngroups, dstate), dtype),
        prev_states: T.Tensor((batch, nchunks, nheads, headdim, dstate), dtype),
        D: T.Tensor((nheads), dtype),
        Output: T.Tensor((batch, seqlen, nheads, headdim), dtype),
    ):
        with T.Kernel(
            nheads,
            T.ceildiv(chunk_size, block_M) * T.ceildiv(headdim, block_N),
            batch * nchunks,
            threads=threads,
        ) as (
            bz,
            bx,
            by,
        ):
            acc_o = T.alloc_fragment((block_M, block_N), accum_dtype)
            acc_o_shared = T.alloc_shared((block_M, block_N), dtype)
            cb_shared = T.alloc_shared((block_M, block_K), dtype)
            cb_local = T.alloc_fragment((block_M, block_K), dtype)
            dA_cs_k_shared = T.alloc_shared((block_K), dtype)
            dA_cs_k_local = T.alloc_fragment((block_K), accum_dtype)
            dA_cs_m_local = T.alloc_fragment((block_M), accum_dtype)
            dt_shared = T.alloc_shared((block_K), dtype)
            dt_local = T.alloc_fragment((block_K), accum_dtype)
            x_shared = T.alloc_shared((block_K, block_N), dtype, scope="shared.dyn")
            dA_cs_m_shared = T.alloc_shared((block_M), dtype)
            scale_m_local = T.alloc_fragment((block_M), accum_dtype)
            C_shared = T.alloc_shared((block_M, block_Dstate), dtype)
            prev_state_shared = T.alloc_shared((block_N, block_Dstate), dtype)
            D_local = T.alloc_fragment((1), accum_dtype)
            x_residual_shared = T.alloc_shared((block_M, block_N), dtype)
            x_residual_local = T.alloc_fragment((block_M, block_N), accum_dtype)

            batch_idx = by % batch
            chunk_idx = by // batch
            # m: chunk_size
            # n : headdim
            m_idx = bx // T.ceildiv(headdim, block_N)
            n_idx = bx % T.ceildiv(headdim, block_N)

            T.annotate_layout(
                {
                    cb_shared: tilec.layout.make_swizzled_layout(cb_shared),
                    x_residual_shared: tilec.layout.make_swizzled_layout(x_residual_shared),
                }
            )

            T.no_set_max_nreg()

            T.copy(
                dA_cumsum[batch_idx, bz, chunk_idx, m_idx * block_M : (m_idx + 1) * block_M],
                dA_cs_m_shared,
            )
            T.copy(dA_cs_m_shared, dA_cs_m_local)
            T.clear(acc_o)

            for i in T.Parallel(block_M):
                scale_m_local[i] = T.exp2(dA_cs_m_local[i] * p)
            T.copy(
                C[
                    batch_idx,
                    chunk_idx * chunk_size + m_idx * block_M :
                    chunk_idx * chunk_size + (m_idx + 1) * block_M,
                    bz // (nheads // ngroups),
                    0:block_Dstate,
                ],
                C_shared,
            )
            T.copy(
                prev_states[
                    batch_idx,
                    chunk_idx,
                    bz,
                    n_idx * block_N : (n_idx + 1) * block_N,
                    0:block_Dstate,
                ],
                prev_state_shared,
            )
            T.gemm(C_shared, prev_state_shared, acc_o, transpose_B=True)
            for i, j in T.Parallel(block_M, block_N):
                acc_o[i, j] *= scale_m_local[i]

            loop_range = T.ceildiv((m_idx + 1) * block_M, block_K)

            for k in T.Pipelined(loop_range, num_stages=num_stages):
                T.copy(
                    cb[
                        batch_idx,
                        chunk_idx,
                        bz // (nheads // ngroups),
                        m_idx * block_M : (m_idx + 1) * block_M,
                        k * block_K : (k + 1) * block_K,
                    ],
                    cb_shared,
                )
                T.copy(cb_shared, cb_local)
                T.copy(
                    dA_cumsum[batch_idx, bz, chunk_idx, k * block_K : (k + 1) * block_K],
                    dA_cs_k_shared,
                )
                T.copy(dA_cs_k_shared, dA_cs_k_local)
                for i, j in T.Parallel(block_M, block_K):
                    cb_local[i, j] = cb_local[i, j] * T.exp2(
                        dA_cs_m_local[i] * p - dA_cs_k_local[j] * p
                    )
                T.copy(dt[batch_idx, bz, chunk_idx, k * block_K : (k + 1) * block_K], dt_shared)
                T.copy(dt_shared, dt_local)
                for i, j in T.Parallel(block_M, block_K):
                    cb_local[i, j] *= dt_local[j]
                for i, j in T.Parallel(block_M, block_K):
                    cb_local[i, j] = T.if_then_else(
                        m_idx * block_M + i >= k * block_K + j, cb_local[i, j], 0
                    )
                T.copy(
                    x[
                        batch_idx,
                        chunk_idx * chunk_size + k * block_K :
                        chunk_idx * chunk_size + (k + 1) * block_K,
                        bz,
                        n_idx * block_N : (n_idx + 1) * block_N,
                    ],
                    x_shared,
                )
                T.gemm(cb_local, x_shared, acc_o)

            D_local[0] = D[bz]
            T.copy(
                x[
                    batch_idx,
                    chunk_idx * chunk_size + m_idx * block_M :
                    chunk_idx * chunk_size + (m_idx + 1) * block_M,
                    bz,
                    n_idx * block_N : (n_idx + 1) * block_N,
                ],
                x_residual_shared,
            )
            T.copy(x_residual_shared, x_residual_local)
            for i, j in T.Parallel(block_M, block_N):
                acc_o[i, j] += x_residual_local[i, j] * D_local[0]

            T.copy(acc_o, acc_o_shared)
            T.copy(
                acc_o_shared,
                Output[
                    batch_idx,
                    chunk_idx * chunk_size + m_idx * block_M :
                    chunk_idx * chunk_size + (m_idx + 1) * block_M,
                    bz,
                    n_idx * block_N : (n_idx + 1) * block_N,
                ],
            )

    return main


def ref_program(cb, x, dt, dA_cumsum, C, prev_states, D):
    batch, seqlen, nheads, headdim = x.shape
    _, _, nchunks, chunk_size = dt.shape
    ngroups = C.shape[2]
    f32 = np.float32
    pad = nchunks * chunk_size - seqlen
    pad_l = ((0, 0), (0, pad), (0, 0), (0, 0))
    x = np.pad(x.astype(f32), pad_l)
    C = np.pad(np.repeat(C.astype(f32), nheads // ngroups, axis=2), pad_l)
    cb = np.repeat(cb.astype(f32), nheads // ngroups, axis=2)  # b c h l s
    dA = dA_cumsum.astype(f32)  # b h c l
    decay = np.exp(dA[..., :, None] - dA[..., None, :])  # b h c l s
    scores_decay = cb * decay.transpose(0, 2, 1, 3, 4)
    scores_decay = np.where(np.tril(np.ones((chunk_size, chunk_size), bool)), scores_decay, 0)
    x = x.reshape(batch, nchunks, chunk_size, nheads, headdim)
    out = np.einsum("bchls,bhcs,bcshp->bclhp", scores_decay, dt.astype(f32), x)
    state_decay_out = np.exp(dA.transpose(0, 2, 3, 1))[..., None]  # b c l h 1
    C = C.reshape(batch, nchunks, chunk_size, nheads, -1)
    out = out + np.einsum("bclhn,bchpn->bclhp", C, prev_states.astype(f32)) * state_decay_out
    out = out + x * D.astype(f32)[:, None]
    return out.reshape(batch, nchunks * chunk_size, nheads, headdim)[:, :seqlen]


@pytest.mark.parametrize(
    ("batch", "seqlen", "chunk_size", "ngroups", "nheads", "headdim", "dstate"),
    [(1, 300, 128, 1, 2, 80, 48), (2, 256, 128, 2, 4, 64, 128)],  # ragged, aligned
)
def test_mamba_chunk_scan(batch, seqlen, chunk_size, ngroups, nheads, headdim, dstate):
    rng = np.random.default_rng(27)
    nchunks = -(-seqlen // chunk_size)
    cb = rng.standard_normal((batch, nchunks, ngroups, chunk_size, chunk_size)).astype(np.float16)
    x = rng.standard_normal((batch, seqlen, nheads, headdim)).astype(np.float16)
    dt = (rng.random((batch, nheads, nchunks, chunk_size)) * 0.1).astype(np.float16)
    dA_cumsum = np.cumsum(-rng.random((batch, nheads, nchunks, chunk_size)) * 0.05, -1).astype(
        np.float16
    )
    C = rng.standard_normal((batch, seqlen, ngroups, dstate)).astype(np.float16)
    prev_states = rng.standard_normal((batch, nchunks, nheads, headdim, dstate)).astype(np.float16)
    D = rng.standard_normal(nheads).astype(np.float16)

    kernel = chunk_scan_fwd(batch, seqlen, chunk_size, ngroups, nheads, headdim, dstate)
    out = kernel(cb, x, dt, dA_cumsum, C, prev_states, D)

    np.testing.assert_allclose(
        out.astype(np.float32),
        ref_program(cb, x, dt, dA_cumsum, C, prev_states, D),
        rtol=1e-2,
        atol=2e-2,
    )
