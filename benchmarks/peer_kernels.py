"""The kernels of the compile-time comparison, written once in TileLang's language.

Each builder takes the language module `T` (`tilec.language` or
`tilelang.language`), so tilec and TileLang compile the very same source:
a f16 GEMM (f32 accumulation, a 3-stage pipeline) and a non-causal flash
attention forward (online softmax in base 2, both gemms FullRow).
"""

import math

LOG2E = 1.4426950408889634


def gemm(T, M: int, N: int, K: int, block_M: int = 128, block_N: int = 128, block_K: int = 32,
         num_stages: int = 3):
    """C = A @ B, f16 in and out, f32 accumulation."""

    @T.prim_func
    def matmul(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
               C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), "float16")
            B_shared = T.alloc_shared((block_K, block_N), "float16")
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return matmul


def attention(T, batch: int, heads: int, seq_len: int, dim: int, block_M: int = 64,
              block_N: int = 64, num_stages: int = 2):
    """O = softmax(Q Kᵀ / sqrt(dim)) V on (batch, heads, seq_len, dim) f16 tensors."""
    shape = (batch, heads, seq_len, dim)
    scale = LOG2E / math.sqrt(dim)

    @T.prim_func
    def mha(Q: T.Tensor(shape, "float16"), K: T.Tensor(shape, "float16"),
            V: T.Tensor(shape, "float16"), O: T.Tensor(shape, "float16")):  # noqa: E741
        with T.Kernel(T.ceildiv(seq_len, block_M), heads, batch, threads=128) as (bx, by, bz):
            Q_shared = T.alloc_shared((block_M, dim), "float16")
            K_shared = T.alloc_shared((block_N, dim), "float16")
            V_shared = T.alloc_shared((block_N, dim), "float16")
            scores = T.alloc_fragment((block_M, block_N), "float32")
            probs = T.alloc_fragment((block_M, block_N), "float16")
            acc_o = T.alloc_fragment((block_M, dim), "float32")
            row_max = T.alloc_fragment((block_M,), "float32")
            previous_max = T.alloc_fragment((block_M,), "float32")
            rescale = T.alloc_fragment((block_M,), "float32")
            tile_sum = T.alloc_fragment((block_M,), "float32")
            row_sum = T.alloc_fragment((block_M,), "float32")

            T.copy(Q[bz, by, bx * block_M, 0], Q_shared)
            T.fill(acc_o, 0)
            T.fill(row_sum, 0)
            T.fill(row_max, -T.infinity("float32"))
            for k in T.Pipelined(T.ceildiv(seq_len, block_N), num_stages=num_stages):
                T.copy(K[bz, by, k * block_N, 0], K_shared)
                for i, j in T.Parallel(block_M, block_N):
                    scores[i, j] = T.if_then_else(k * block_N + j < seq_len, 0,
                                                  -T.infinity("float32"))
                T.gemm(Q_shared, K_shared, scores, transpose_B=True,
                       policy=T.GemmWarpPolicy.FullRow)
                T.copy(row_max, previous_max)
                T.reduce_max(scores, row_max, dim=1, clear=False)
                for i in T.Parallel(block_M):
                    rescale[i] = T.exp2(previous_max[i] * scale - row_max[i] * scale)
                for i, j in T.Parallel(block_M, block_N):
                    scores[i, j] = T.exp2(scores[i, j] * scale - row_max[i] * scale)
                T.reduce_sum(scores, tile_sum, dim=1)
                for i in T.Parallel(block_M):
                    row_sum[i] = row_sum[i] * rescale[i] + tile_sum[i]
                T.copy(scores, probs)
                for i, j in T.Parallel(block_M, dim):
                    acc_o[i, j] *= rescale[i]
                T.copy(V[bz, by, k * block_N, 0], V_shared)
                T.gemm(probs, V_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)
            for i, j in T.Parallel(block_M, dim):
                acc_o[i, j] /= row_sum[i]
            T.copy(acc_o, O[bz, by, bx * block_M, 0])

    return mha


SIZE = 4096
KERNELS = {
    "gemm f16 4096^3, 128x128x32 tiles": lambda T: gemm(T, SIZE, SIZE, SIZE),
    "flash attention f16 1x32x4096x128": lambda T: attention(T, 1, 32, SIZE, 128),
}
"""Name -> builder over the language module, the same for every compiler."""
