"""Tiled GEMM in the DSL: C = op(A) @ op(B), optionally followed by a ReLU.

One block computes a block_M x block_N tile of C: it walks K in steps of
block_K, copying a tile of A and of B into shared memory per step
(T.Pipelined, so a GPU target can overlap the copies with the multiply) and
accumulating into a float32 fragment. f16/bf16 inputs accumulate in float32;
the epilogue runs element-wise on the fragment before the tile is stored
(converted to C's dtype by T.copy). Shapes need not be tile multiples: copies
read zeros past the edges and drop writes past them.

Run `python examples/gemm.py` to check every variant against numpy on the cpu target.
"""

import sys

import numpy as np

import tilec
import tilec.language as T


def matmul(
    M,
    N,
    K,
    *,
    in_dtype="float32",
    out_dtype="float32",
    trans_A=False,
    trans_B=False,
    relu=False,
    block_M=64,
    block_N=64,
    block_K=32,
    num_stages=2,
):
    """A GEMM kernel for (M, K) x (K, N) -> (M, N); M, N, K may be ints or T.symbolic."""
    A_shape = (K, M) if trans_A else (M, K)
    B_shape = (N, K) if trans_B else (K, N)
    A_tile = (block_K, block_M) if trans_A else (block_M, block_K)
    B_tile = (block_N, block_K) if trans_B else (block_K, block_N)

    @T.prim_func
    def gemm(
        A: T.Tensor(A_shape, in_dtype),
        B: T.Tensor(B_shape, in_dtype),
        C: T.Tensor((M, N), out_dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared(A_tile, in_dtype)
            B_shared = T.alloc_shared(B_tile, in_dtype)
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                # Python-level branches on constants pick the copies for each layout.
                if trans_A:
                    T.copy(A[k * block_K, by * block_M], A_shared)
                else:
                    T.copy(A[by * block_M, k * block_K], A_shared)
                if trans_B:
                    T.copy(B[bx * block_N, k * block_K], B_shared)
                else:
                    T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_A=trans_A, transpose_B=trans_B)
            if relu:
                for i, j in T.Parallel(block_M, block_N):
                    C_local[i, j] = T.max(C_local[i, j], 0)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return gemm


def numpy_dtype(name):
    if name == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def reference(a, b, *, trans_A=False, trans_B=False, relu=False):
    """op(A) @ op(B) in float32 (the kernel's accumulation type)."""
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    c = (a32.T if trans_A else a32) @ (b32.T if trans_B else b32)
    return np.maximum(c, 0) if relu else c


def check(M, N, K, dynamic_M=False, target=None, **variant):
    """Runs one variant on random data; returns the max error relative to max |C|.

    With `dynamic_M` the kernel is compiled for any M (a symbolic dim).
    """
    in_dtype = numpy_dtype(variant.get("in_dtype", "float32"))
    out_dtype = numpy_dtype(variant.get("out_dtype", "float32"))
    rng = np.random.default_rng(0)
    trans_A, trans_B = variant.get("trans_A", False), variant.get("trans_B", False)
    a = rng.standard_normal((K, M) if trans_A else (M, K)).astype(in_dtype)
    b = rng.standard_normal((N, K) if trans_B else (K, N)).astype(in_dtype)
    c = np.zeros((M, N), out_dtype)
    kernel = tilec.compile(
        matmul(T.symbolic("M") if dynamic_M else M, N, K, **variant), target=target
    )
    kernel(a, b, c)
    expected = reference(a, b, trans_A=trans_A, trans_B=trans_B, relu=variant.get("relu", False))
    return float(np.max(np.abs(c.astype(np.float32) - expected)) / np.max(np.abs(expected)))


VARIANTS = {
    "f32": ({}, 1e-5),
    "f16 in, f32 accumulate": ({"in_dtype": "float16"}, 1e-3),
    "bf16 in, f32 accumulate": ({"in_dtype": "bfloat16"}, 1e-3),
    "f16 in, f16 out": ({"in_dtype": "float16", "out_dtype": "float16"}, 2e-3),
    "A transposed": ({"trans_A": True}, 1e-5),
    "B transposed": ({"trans_B": True}, 1e-5),
    "both transposed": ({"trans_A": True, "trans_B": True}, 1e-5),
    "ReLU epilogue": ({"relu": True}, 1e-5),
    "symbolic M": ({"dynamic_M": True}, 1e-5),
}


def main():
    failures = 0
    for M, N, K in [(256, 256, 256), (100, 72, 50)]:
        for name, (variant, tolerance) in VARIANTS.items():
            error = check(M, N, K, **variant)
            ok = error <= tolerance
            failures += not ok
            print(f"gemm {M}x{N}x{K} {name:<24} rel. error {error:.2e} {'ok' if ok else 'FAIL'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
