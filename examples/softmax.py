"""Row softmax in the DSL, for rows of any length: Y = exp(X - max) / sum(exp(X - max)).

One block owns block_M rows. A first pass over the row in tiles of block_N
columns keeps a running max and a running sum of exponentials (online
softmax: when the max grows, the sum so far is rescaled by exp(old - new));
a second pass writes exp(x - max) / sum. Columns past the end of the row are
masked to -inf so the zeros that copies read there do not count. Inputs may
be float16; the arithmetic is float32 (T.copy converts on the way in and out).

-inf inputs are masked entries. While every entry of a row seen so far is
-inf, the running max is -inf too and exp(x - max) would be exp(-inf + inf) =
NaN: the exponentials use 0 in place of a -inf max (as FlashAttention does),
so a row whose first tiles are masked gets the softmax of the rest, and a
row that is all -inf gets 0 / 0 = NaN, as numpy's and torch's softmax do.

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
            safe_max = T.alloc_fragment((block_M,), "float32")
            tile_sum = T.alloc_fragment((block_M,), "float32")
            T.fill(row_max, -T.infinity("float32"))
            T.clear(row_sum)
            for t in T.serial(n_tiles):
                T.copy(X[bx * block_M, t * block_N], x)
                for i, j in T.Parallel(block_M, block_N):
                    x[i, j] = T.if_then_else(t * block_N + j < N, x[i, j], -T.infinity("float32"))
                T.copy(row_max, previous_max)
                T.reduce_max(x, row_max, dim=1, clear=False)
                for i in T.Parallel(block_M):
                    safe_max[i] = T.if_then_else(
                        row_max[i] == -T.infinity("float32"), 0, row_max[i]
                    )
                for i, j in T.Parallel(block_M, block_N):
                    x[i, j] = T.exp(x[i, j] - safe_max[i])
                T.reduce_sum(x, tile_sum, dim=1)
                for i in T.Parallel(block_M):
                    row_sum[i] = row_sum[i] * T.exp(previous_max[i] - safe_max[i]) + tile_sum[i]
            for t in T.serial(n_tiles):
                T.copy(X[bx * block_M, t * block_N], x)
                for i, j in T.Parallel(block_M, block_N):
                    x[i, j] = T.exp(x[i, j] - safe_max[i]) / row_sum[i]
                T.copy(x, Y[bx * block_M, t * block_N])

    return row_softmax


def reference(x):
    x32 = x.astype(np.float32)
    with np.errstate(invalid="ignore"):  # an all -inf row is NaN
        e = np.exp(x32 - x32.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)


def masked_rows(x, block_N=128):
    """x with -inf in some rows: every 3rd row's first 1.5 tiles (its first tile is
    all -inf), every 5th row's last entries, and every 7th row entirely."""
    x = x.copy()
    x[::3, : block_N + block_N // 2] = -np.inf
    x[::5, -3:] = -np.inf
    x[::7] = -np.inf
    return x


def check(M, N, dtype="float32", dynamic_M=False, target=None, masked=False):
    """Max absolute error against numpy on random rows (scaled so exp spans a wide range);
    `masked` puts -inf into some rows (`masked_rows`), whose NaNs must match numpy's."""
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((M, N)) * 4).astype(dtype)
    if masked:
        x = masked_rows(x)
    y = np.zeros_like(x)
    kernel = tilec.compile(
        softmax(T.symbolic("M") if dynamic_M else M, N, dtype=dtype), target=target
    )
    kernel(x, y)
    want = reference(x)
    if not np.array_equal(np.isnan(y), np.isnan(want)):
        return float("inf")
    return float(np.nanmax(np.abs(y.astype(np.float32) - want)))


def main():
    failures = 0
    for M, N, dtype, dynamic_M, masked, tolerance in [
        (64, 256, "float32", False, False, 1e-6),
        (37, 300, "float32", True, False, 1e-6),
        (50, 1000, "float16", False, False, 1e-3),
        (37, 300, "float32", False, True, 1e-6),
    ]:
        error = check(M, N, dtype, dynamic_M, masked=masked)
        ok = error <= tolerance
        failures += not ok
        rows = " masked rows" if masked else ""
        print(f"softmax {M}x{N} {dtype}{rows} max error {error:.2e} {'ok' if ok else 'FAIL'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
