"""TileLang's examples/gemv/example_gemv.py, two of its kernels for c = B @ a (B is N x K):

- `naive_gemv`: thread-level (SIMT) code: `tn = T.get_thread_binding(0)` is the thread's
  row of the block; each thread stages a K tile of `a` and of its row of B in shared memory
  with T.serial loops and accumulates into a one-element T.alloc_local register, with
  `.astype(accum_dtype)` conversions and TileLang's `T.float` alias;
- `gemv_alloc_reducer`: tile-level: each block reduces its rows into a T.alloc_reducer
  buffer in T.Parallel, finalized with T.finalize_reducer; tiles allocated inside the
  pipelined loop.

The autotuner, pass configs and the other SIMT variants (T.vectorized, thread all-reduce
through T.attr / T.comm_reducer) are left out."""

import numpy as np
import pytest

import tilec as tl
import tilec.language as T


@tl.jit(out_idx=[-1])
def naive_gemv(N, K, BLOCK_N, BLOCK_K, dtype=T.float16, accum_dtype=T.float):
    @T.prim_func
    def main(
        A: T.Tensor((K,), dtype),
        B: T.Tensor((N, K), dtype),
        C: T.Tensor((N,), dtype),
    ):
        with T.Kernel(T.ceildiv(N, BLOCK_N)) as bn:
            tn = T.get_thread_binding(0)  # threadIdx.x
            A_shared = T.alloc_shared((BLOCK_K,), dtype)
            B_shared = T.alloc_shared((BLOCK_N, BLOCK_K), dtype)
            C_reg = T.alloc_local((1,), accum_dtype)
            T.clear(C_reg)
            for bk in T.serial(T.ceildiv(K, BLOCK_K)):
                for tk in T.serial(BLOCK_K):
                    A_shared[tk] = A[bk * BLOCK_K + tk]
                    B_shared[tn, tk] = B[bn * BLOCK_N + tn, bk * BLOCK_K + tk]
                for tk in T.serial(BLOCK_K):
                    C_reg[0] += A_shared[tk].astype(accum_dtype) * B_shared[tn, tk].astype(
                        accum_dtype
                    )
            C[bn * BLOCK_N + tn] = C_reg[0]

    return main


@tl.jit(out_idx=[2])
def gemv_alloc_reducer(M, N, block_M=128, block_N=128, num_stages=2, threads=256,
                       dtype=T.float16, accum_dtype=T.float):
    @T.prim_func
    def main(a: T.Tensor((M, N), dtype), x: T.Tensor(N, dtype), o: T.Tensor(M, dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as i0_m:
            o_reducer = T.alloc_reducer(block_M, accum_dtype, replication="all")
            T.clear(o_reducer)
            for i0_n in T.Pipelined(T.ceildiv(N, block_N), num_stages=num_stages):
                a_smem = T.alloc_shared((block_M, block_N), dtype)
                T.copy(a[i0_m * block_M, i0_n * block_N], a_smem)
                a_frag = T.alloc_fragment((block_M, block_N), dtype)
                T.copy(a_smem, a_frag)
                x_frag = T.alloc_fragment(block_N, dtype)
                T.copy(x[i0_n * block_N], x_frag)
                for i1_m, i1_n in T.Parallel(block_M, block_N):
                    o_reducer[i1_m] += a_frag[i1_m, i1_n] * x_frag[i1_n]
            T.finalize_reducer(o_reducer)
            T.copy(o_reducer, o[i0_m * block_M])

    return main


SHAPES = [(200, 300), (256, 512)]  # ragged, aligned (N rows, K columns)


@pytest.mark.parametrize(("N", "K"), SHAPES)
def test_naive_gemv(N, K):
    rng = np.random.default_rng(23)
    a = rng.standard_normal(K).astype(np.float16)
    b = rng.standard_normal((N, K)).astype(np.float16)
    c = naive_gemv(N, K, 128, 128)(a, b)
    ref = b.astype(np.float32) @ a.astype(np.float32)
    np.testing.assert_allclose(c.astype(np.float32), ref, rtol=1e-2, atol=5e-2)


@pytest.mark.parametrize(("M", "N"), SHAPES)
def test_gemv_alloc_reducer(M, N):
    rng = np.random.default_rng(24)
    a = rng.standard_normal((M, N)).astype(np.float16)
    x = rng.standard_normal(N).astype(np.float16)
    o = gemv_alloc_reducer(M, N)(a, x)
    ref = a.astype(np.float32) @ x.astype(np.float32)
    np.testing.assert_allclose(o.astype(np.float32), ref, rtol=1e-2, atol=5e-2)
