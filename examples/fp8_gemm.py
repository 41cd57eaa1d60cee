"""DeepGEMM's FP8 GEMM with fine-grained (block) scaling in the DSL.

A (M, K) and B (N, K) are float8_e4m3 (ml_dtypes' float8_e4m3fn arrays), quantized
with a float32 scale per 1 x 128 group of A (per token and K group: A_scale is
(M, ceil(K / 128))) and per 128 x 128 block of B (B_scale is (ceil(N / 128),
ceil(K / 128))). The product undoes the quantization:

    C[m, n] = sum over K blocks kb of (A_kb B_kb^T)[m, n] * A_scale[m, kb] * B_scale[n // 128, kb]

A block computes a block_M x block_N tile of C and walks K in tiles of
block_K = 128, exactly one scale group, so the scales are constant over a
tile's K and can be applied after its gemm. Each tile's gemm accumulates into a
fresh float32 fragment, which is then multiplied by the scales of its rows and
columns and added into the float32 total: DeepGEMM's "promotion", which keeps
the sum of many K blocks out of the (on GPUs) narrow accumulator of the fp8
tensor cores, and is needed anyway since every K block has its own scales.
The column scales are gathered per column, so block_N need not divide 128.

Ragged shapes work: the copies read zeros past the edges of A and B (a partial
last K block adds nothing past K), the scale reads past M give 0 for rows that
are never stored, and the stores past the edge of C are dropped. C is bfloat16 or
float32.

Run `python examples/fp8_gemm.py` to check it against numpy on the cpu target.
"""

import sys

import ml_dtypes
import numpy as np

import tilec
import tilec.language as T

GROUP = 128  # the scale group along K (A and B) and along N (B)
FP8_MAX = 448.0  # the largest finite float8_e4m3fn


def fp8_gemm(
    M, N, K, *, out_dtype="bfloat16", block_M=64, block_N=128, num_stages=2, threads=128
):
    """C (M, N) = block-scaled A (M, K) @ B (N, K)^T.

    Any of M, N and K may be T.symbolic: the scale tensors' dims are then expressions
    of them (`T.ceildiv(K, 128)`), which a call checks against A's and B's shapes.
    """
    block_K = GROUP
    in_dtype = "float8_e4m3"
    k_groups = T.ceildiv(K, GROUP)

    @T.prim_func
    def gemm(
        A: T.Tensor((M, K), in_dtype),
        B: T.Tensor((N, K), in_dtype),
        A_scale: T.Tensor((M, k_groups), "float32"),
        B_scale: T.Tensor((T.ceildiv(N, GROUP), k_groups), "float32"),
        C: T.Tensor((M, N), out_dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), in_dtype)
            B_shared = T.alloc_shared((block_N, block_K), in_dtype)
            row_scale = T.alloc_fragment((block_M,), "float32")
            column_scale = T.alloc_fragment((block_N,), "float32")
            partial = T.alloc_fragment((block_M, block_N), "float32")
            total = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(total)
            for k in T.Pipelined(k_groups, num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * block_K], B_shared)
                for i in T.Parallel(block_M):
                    row_scale[i] = A_scale[by * block_M + i, k]
                for j in T.Parallel(block_N):
                    column_scale[j] = B_scale[(bx * block_N + j) // GROUP, k]
                T.gemm(A_shared, B_shared, partial, transpose_B=True, clear_accum=True)
                for i, j in T.Parallel(block_M, block_N):
                    total[i, j] += partial[i, j] * (row_scale[i] * column_scale[j])
            T.copy(total, C[by * block_M, bx * block_N])

    return gemm


def numpy_dtype(name):
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def quantize(x, block_rows):
    """float8_e4m3fn values and float32 scales of x, one scale per block_rows x 128 block
    (1 x 128 per token for activations, 128 x 128 for weights): x ~ q * scale."""
    rows, cols = x.shape
    row_blocks, col_blocks = -(-rows // block_rows), -(-cols // GROUP)
    padded = np.zeros((row_blocks * block_rows, col_blocks * GROUP), np.float32)
    padded[:rows, :cols] = x
    blocks = padded.reshape(row_blocks, block_rows, col_blocks, GROUP)
    scale = np.maximum(np.abs(blocks).max(axis=(1, 3)), 1e-4) / FP8_MAX
    q = (blocks / scale[:, None, :, None]).astype(ml_dtypes.float8_e4m3fn)
    return q.reshape(padded.shape)[:rows, :cols].copy(), scale.astype(np.float32)


def reference(a, b, a_scale, b_scale):
    """The block-scaled product in float64, one K block at a time as the definition reads."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    column_scale = np.repeat(b_scale, GROUP, axis=0)[: b.shape[0]]  # (N, K blocks)
    c = np.zeros((a.shape[0], b.shape[0]))
    for kb in range(a_scale.shape[1]):
        cols = slice(kb * GROUP, (kb + 1) * GROUP)
        c += (a64[:, cols] @ b64[:, cols].T) * a_scale[:, kb, None] * column_scale[None, :, kb]
    return c


def random_inputs(M, N, K, rng):
    """Quantized random A and B whose scale groups differ in magnitude (2**-4 to 2**4) along
    M, N and K, so a scale applied to the wrong row, column or K block shows."""

    def magnitudes(count, group):
        return 2.0 ** rng.integers(-4, 5, -(-count // group)).repeat(group)[:count]

    a = rng.standard_normal((M, K)) * magnitudes(M, 1)[:, None] * magnitudes(K, GROUP)
    b = rng.standard_normal((N, K)) * magnitudes(N, GROUP)[:, None] * magnitudes(K, GROUP)
    a_fp8, a_scale = quantize(a, 1)
    b_fp8, b_scale = quantize(b, GROUP)
    return a_fp8, b_fp8, a_scale, b_scale


def check(
    M, N, K, *, out_dtype="bfloat16", dynamic_M=False, dynamic_NK=False, target=None, **tiles
):
    """Runs the GEMM on random quantized inputs; returns the max error relative to max |C|.

    With `dynamic_M` the kernel is compiled for any M (a symbolic dim), with `dynamic_NK`
    for any N and K; tiles (block_M, block_N, num_stages, threads) reach the kernel.
    """
    rng = np.random.default_rng(0)
    a, b, a_scale, b_scale = random_inputs(M, N, K, rng)
    c = np.zeros((M, N), numpy_dtype(out_dtype))
    dims = (
        T.symbolic("M") if dynamic_M else M,
        T.symbolic("N") if dynamic_NK else N,
        T.symbolic("K") if dynamic_NK else K,
    )
    kernel = tilec.compile(fp8_gemm(*dims, out_dtype=out_dtype, **tiles), target=target)
    kernel(a, b, a_scale, b_scale, c)
    expected = reference(a, b, a_scale, b_scale)
    return float(np.max(np.abs(c.astype(np.float64) - expected)) / np.max(np.abs(expected)))


def main():
    failures = 0
    for M, N, K, out_dtype, tiles, tolerance in [
        (256, 256, 512, "float32", {}, 1e-5),
        (256, 256, 512, "bfloat16", {}, 5e-3),
        (100, 200, 300, "float32", {"block_N": 64}, 1e-5),
        (77, 300, 200, "bfloat16", {"block_N": 256}, 5e-3),
        (90, 129, 257, "float32", {"dynamic_M": True, "dynamic_NK": True}, 1e-5),
    ]:
        error = check(M, N, K, out_dtype=out_dtype, **tiles)
        ok = error <= tolerance
        failures += not ok
        dynamic = " (M, N, K symbolic)" if tiles.get("dynamic_NK") else ""
        print(
            f"fp8 gemm {M}x{N}x{K} {out_dtype:<8} block_N {tiles.get('block_N', 128):<3} "
            f"rel. error {error:.2e} {'ok' if ok else 'FAIL'}{dynamic}"
        )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
