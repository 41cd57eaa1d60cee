"""f32 GEMM on the cpu target: tilec vs numpy, side by side in one process.

    python benchmarks/cpu_gemm.py [--size 1024] [--rounds 4] [--runs 5] [--block 96 128 128]

The kernel is written in the DSL (one block_M x block_N tile of C per
block, K in steps of block_K) and compiled with `tilec.compile`; numpy's
matmul runs on the same inputs in the same process with the same number of
threads available. Prints GFLOP/s of each (median of all timed calls; the
sides take turns in rounds, each round after a warm-up call), their ratio
and tilec's compile time. Benchmarks are not tests: nothing here is
asserted.
"""

from __future__ import annotations

import argparse

import numpy as np
from timing import median_seconds

import tilec
import tilec.language as T


def gemm_kernel(block_m: int, block_n: int, block_k: int):
    M, N, K = T.symbolic("M"), T.symbolic("N"), T.symbolic("K")

    @T.prim_func
    def gemm(
        A: T.Tensor((M, K), "float32"),
        B: T.Tensor((K, N), "float32"),
        C: T.Tensor((M, N), "float32"),
    ):
        with T.Kernel(T.ceildiv(N, block_n), T.ceildiv(M, block_m), threads=128) as (bx, by):
            A_s = T.alloc_shared((block_m, block_k), "float32")
            B_s = T.alloc_shared((block_k, block_n), "float32")
            C_f = T.alloc_fragment((block_m, block_n), "float32")
            T.clear(C_f)
            for k in T.Pipelined(T.ceildiv(K, block_k), num_stages=2):
                T.copy(A[by * block_m, k * block_k], A_s)
                T.copy(B[k * block_k, bx * block_n], B_s)
                T.gemm(A_s, B_s, C_f)
            T.copy(C_f, C[by * block_m, bx * block_n])

    return gemm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1024, help="M = N = K")
    parser.add_argument("--runs", type=int, default=5, help="timed calls per side and round")
    parser.add_argument("--rounds", type=int, default=4, help="rounds each side takes in turn")
    parser.add_argument(
        "--block",
        type=int,
        nargs=3,
        default=(96, 128, 128),
        metavar=("M", "N", "K"),
        help="tile sizes of one block",
    )
    args = parser.parse_args()
    n = args.size
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    c = np.zeros((n, n), np.float32)

    kernel = tilec.compile(gemm_kernel(*args.block))
    kernel(a, b, c)
    error = np.abs(c - a @ b).max() / np.abs(a @ b).max()

    flops = 2.0 * n**3
    ours, theirs = median_seconds(args.rounds, args.runs, lambda: kernel(a, b, c), lambda: a @ b)
    blocks = "x".join(map(str, args.block))
    runs = args.rounds * args.runs
    print(f"f32 gemm {n}x{n}x{n}, blocks {blocks}, median of {runs} runs per side")
    print(f"  tilec  {flops / ours / 1e9:8.1f} GFLOP/s   (max rel. error {error:.1e})")
    print(f"  numpy  {flops / theirs / 1e9:8.1f} GFLOP/s")
    print(f"  ratio  {theirs / ours:8.2f} x numpy")
    print(f"  compile {kernel.compile_seconds:7.2f} s")


if __name__ == "__main__":
    main()
