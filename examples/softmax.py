"""Row softmax in the DSL, for rows of any length: Y = exp(X - max) / sum(exp(X - max)).

One block owns block_M rows. A first pass over the row in tiles of block_N
columns keeps a running max and a running sum of exponentials (online
softmax: when the max grows, the sum so far is rescaled by exp(old - new));
a second pass writes exp(x - max) / sum. Columns past the end of the row are
masked to -inf so the zeros that copies read there do not count. Inputs may
be float16; the arithmetic is float32 (T.copy converts on the way in and out).

Run `python examples/softmax.py` to check it against numpy on the cpu target.
"""

import sys

import numpy as np

import tilec
import tilec.language as T


def softmax(M, N, *, dtype="float32", block_M=16, block_N=128):
    """A row softmax kernel for an (M, N) matrix; M may be symbolic, N is an int."""
    n_tiles = T.ceildiv(N, block_N)

    @T.prim_func
    def row_softmax(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            x = T.alloc_fragment((block_M, block_N), "float32")
            row_max = T.alloc_fragment((block_M,), "float32")
            previous_max = T.alloc_fragment((block_M,), "float32")
            row_sum = T.alloc_fragment((block_M,), "float32")
            tile_sum = T.alloc_fragment((block_M,), "float32")
            T.fill(row_max, -T.infinity("float32"))
            T.clear(row_sum)
            for t in T.serial(n_tiles):
                T.copy(X[bx * block_M, t * block_N], x)
                for i, j in T.Parallel(block_M, block_N):
                    x[i, j] = T.if_then_else(t * block_N + j < N, x[i, j], -T.infinity("float32"))
                T.copy(row_max, previous_max)
                T.reduce_max(x, row_max, dim=1, clear=False)
                for i, j in T.Parallel(block_M, block_N):
                    x[i, j] = T.exp(x[i, j] - row_max[i])
                T.reduce_sum(x, tile_sum, dim=1)
                for i in T.Parallel(block_M):
                    row_sum[i] = row_sum[i] * T.exp(previous_max[i] - row_max[i]) + tile_sum[i]
            for t in T.serial(n_tiles):
                T.copy(X[bx * block_M, t * block_N], x)
                for i, j in T.Parallel(block_M, block_N):
                    x[i, j] = T.exp(x[i, j] - row_max[i]) / row_sum[i]
                T.copy(x, Y[bx * block_M, t * block_N])

    return row_softmax


def reference(x):
    x32 = x.astype(np.float32)
    e = np.exp(x32 - x32.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def check(M, N, dtype="float32", dynamic_M=False, target=None):
    """Max absolute error against numpy on random rows (scaled so exp spans a wide range)."""
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((M, N)) * 4).astype(dtype)
    y = np.zeros_like(x)
    kernel = tilec.compile(
        softmax(T.symbolic("M") if dynamic_M else M, N, dtype=dtype), target=target
    )
    kernel(x, y)
    return float(np.max(np.abs(y.astype(np.float32) - reference(x))))


def main():
    failures = 0
    for M, N, dtype, dynamic_M, tolerance in [
        (64, 256, "float32", False, 1e-6),
        (37, 300, "float32", True, 1e-6),
        (50, 1000, "float16", False, 1e-3),
    ]:
        error = check(M, N, dtype, dynamic_M)
        ok = error <= tolerance
        failures += not ok
        print(f"softmax {M}x{N} {dtype} max error {error:.2e} {'ok' if ok else 'FAIL'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
