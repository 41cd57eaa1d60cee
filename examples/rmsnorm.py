"""RMSNorm in the DSL: Y = X / sqrt(mean(X ** 2, axis=1) + eps) * W.

One block owns block_M rows. A first pass over the row in tiles of block_N
columns accumulates the sum of squares (T.reduce_sum with clear=False adds to
the running sum; the zeros copies read past the end of a row add nothing),
then each row's 1 / rms comes from T.rsqrt, and a second pass scales the
tiles by it and by the weight. Inputs may be float16; the arithmetic is float32.

Run `python examples/rmsnorm.py` to check it against numpy on the cpu target.
"""

import sys

import numpy as np

import tilec
import tilec.language as T


def rmsnorm(M, N, *, dtype="float32", eps=1e-6, block_M=16, block_N=128):
    """An RMSNorm kernel over the rows of an (M, N) matrix; M may be symbolic, N is an int."""
    n_tiles = T.ceildiv(N, block_N)

    @T.prim_func
    def rms_norm(X: T.Tensor((M, N), dtype), W: T.Tensor((N,), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            x = T.alloc_fragment((block_M, block_N), "float32")
            w = T.alloc_fragment((block_N,), "float32")
            squares = T.alloc_fragment((block_M, block_N), "float32")
            inv_rms = T.alloc_fragment((block_M,), "float32")
            T.clear(inv_rms)
            for t in T.serial(n_tiles):
                T.copy(X[bx * block_M, t * block_N], x)
                for i, j in T.Parallel(block_M, block_N):
                    squares[i, j] = x[i, j] * x[i, j]
                T.reduce_sum(squares, inv_rms, dim=1, clear=False)
            for i in T.Parallel(block_M):
                inv_rms[i] = T.rsqrt(inv_rms[i] / N + eps)
            for t in T.serial(n_tiles):
                T.copy(X[bx * block_M, t * block_N], x)
                T.copy(W[t * block_N], w)
                for i, j in T.Parallel(block_M, block_N):
                    x[i, j] = x[i, j] * inv_rms[i] * w[j]
                T.copy(x, Y[bx * block_M, t * block_N])

    return rms_norm


def reference(x, w, eps=1e-6):
    x32, w32 = x.astype(np.float32), w.astype(np.float32)
    return x32 / np.sqrt(np.mean(x32 * x32, axis=1, keepdims=True) + eps) * w32


def check(M, N, dtype="float32", dynamic_M=False, target=None):
    """Max error relative to max |Y| against numpy on random data."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((M, N)).astype(dtype)
    w = rng.standard_normal(N).astype(dtype)
    y = np.zeros_like(x)
    kernel = tilec.compile(
        rmsnorm(T.symbolic("M") if dynamic_M else M, N, dtype=dtype), target=target
    )
    kernel(x, w, y)
    expected = reference(x, w)
    return float(np.max(np.abs(y.astype(np.float32) - expected)) / np.max(np.abs(expected)))


def main():
    failures = 0
    for M, N, dtype, dynamic_M, tolerance in [
        (64, 512, "float32", False, 1e-6),
        (45, 200, "float32", True, 1e-6),
        (33, 1000, "float16", False, 1e-3),
    ]:
        error = check(M, N, dtype, dynamic_M)
        ok = error <= tolerance
        failures += not ok
        print(f"rmsnorm {M}x{N} {dtype} rel. error {error:.2e} {'ok' if ok else 'FAIL'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
