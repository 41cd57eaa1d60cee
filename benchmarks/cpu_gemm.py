"""GEMM on the cpu target: tilec vs numpy (OpenBLAS) and torch (MKL/oneDNN), side by side.

    python benchmarks/cpu_gemm.py [--sizes 1024 2048] [--dtype float32] [--rounds 4] [--runs 5]
                                  [--block 128 128 128] [--limit 230]

The kernel is written in the DSL (one block_M x block_N tile of C per
block, K in steps of block_K, `T.Pipelined` with two stages) and compiled
with `tilec.compile`; numpy's and torch's matmul run on the same inputs in
the same process with the same threads available (numpy only for float32:
it has no bf16 GEMM). Prints GFLOP/s of each (median of all timed calls;
the sides take turns in rounds, each after a warm-up call), tilec's ratio
to the best peer and its share of `--limit`, the host's FMA limit: ~230
GFLOP/s on the 2-core AVX-512 AMD EPYC development host (a loop of 12
independent `vfmadd231ps zmm` on registers runs at 113 GFLOP/s per
cpu-second of one thread; 480 was measured on an earlier host). Inputs of
`--dtype` float16/bfloat16 accumulate in float32. The default blocks are
128 x 128 x 128: with AVX-512's 8-row micro-tiles (gemm.py) they divide
into micro-tiles without an edge, and they divide 1024 and 2048 (96-row
blocks compute 2112 rows for 2048, 3 % more). Benchmarks are not tests:
nothing here is asserted.

Measured on 2026-12-02 (default blocks, `nice`; the 2 cores were shared
with other jobs at a load average of ~13, so the absolute rates are a few %
of the limit and only the ratio, measured side by side, says something;
"before" is the same pipeline without tile-cpu-prefetch-copies and without
the vdpbf16ps lowering of bf16 gemms; float32 `--rounds 3`, two runs
before and three after; bfloat16 `--rounds 2 --runs 3`, against torch only):

    dtype     size   ratio to the best of numpy/torch    tilec GFLOP/s per cpu-second
                     before          after               before        after
    float32   1024   0.99, 1.19      1.19, 1.31, 1.18    64.2-70.7     68.6-73.0
    float32   2048   0.78, 0.77      1.04, 0.91, 0.90    59.8-63.6     67.3-76.2
    bfloat16  1024   0.63            0.90
    bfloat16  2048   0.47            0.84

Measured on 2026-12-03 (float32, 2 cores at a load average of 4.4-7.3;
median of four runs of 5 rounds of 3 calls, each run compiling "before"
and "after" in one process next to numpy: "before" is 6-row micro-tiles,
B copied into its tile and packed from it, blocks 96 x 128 x 128; "after"
is this pipeline with the default blocks):

    size   ratio to numpy        tilec GFLOP/s per cpu-second
           before    after       before    after
    1024   1.33      1.42        78.7      82.8
    2048   0.92      0.99        82.5      89.6

In a profile (perf, 2048^3, 96 x 128 x 128 blocks) the GEMM's k loop has
76 % of the kernel's samples before and 79 % after (its code runs at ~95 %
of the register-only FMA rate), the tile copies 14 % after (17 % before,
with the packing of B), the prefetches 3 %. bfloat16 (`--rounds 2 --runs
3`, same day, load ~4): 1.31 at 1024, 0.91 at 2048 against torch.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import ml_dtypes
import numpy as np
from timing import median_seconds

import tilec
import tilec.language as T


def gemm_kernel(block_m: int, block_n: int, block_k: int, dtype: str = "float32"):
    M, N, K = T.symbolic("M"), T.symbolic("N"), T.symbolic("K")

    @T.prim_func
    def gemm(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), "float32"),
    ):
        with T.Kernel(T.ceildiv(N, block_n), T.ceildiv(M, block_m), threads=128) as (bx, by):
            A_s = T.alloc_shared((block_m, block_k), dtype)
            B_s = T.alloc_shared((block_k, block_n), dtype)
            C_f = T.alloc_fragment((block_m, block_n), "float32")
            T.clear(C_f)
            for k in T.Pipelined(T.ceildiv(K, block_k), num_stages=2):
                T.copy(A[by * block_m, k * block_k], A_s)
                T.copy(B[k * block_k, bx * block_n], B_s)
                T.gemm(A_s, B_s, C_f)
            T.copy(C_f, C[by * block_m, bx * block_n])

    return gemm


def peers(a: np.ndarray, b: np.ndarray, dtype: str) -> dict[str, Callable[[], object]]:
    """The matmuls to compare with, by name (those installed)."""
    found: dict[str, Callable[[], object]] = {}
    if dtype == "float32":
        found["numpy"] = lambda: a @ b
    try:
        import torch
    except ImportError:
        return found
    ta = torch.from_numpy(a.astype(np.float32)).to(getattr(torch, dtype))
    tb = torch.from_numpy(b.astype(np.float32)).to(getattr(torch, dtype))
    found["torch"] = lambda: ta @ tb
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048], help="M = N = K")
    parser.add_argument("--dtype", default="float32", choices=["float32", "float16", "bfloat16"])
    parser.add_argument("--runs", type=int, default=5, help="timed calls per side and round")
    parser.add_argument("--rounds", type=int, default=4, help="rounds each side takes in turn")
    parser.add_argument(
        "--block",
        type=int,
        nargs=3,
        default=(128, 128, 128),
        metavar=("M", "N", "K"),
        help="tile sizes of one block",
    )
    parser.add_argument("--limit", type=float, default=230.0, help="the host's FMA limit, GFLOP/s")
    args = parser.parse_args()
    kernel = tilec.compile(gemm_kernel(*args.block, args.dtype))
    blocks = "x".join(map(str, args.block))
    runs = args.rounds * args.runs
    print(f"{args.dtype} gemm, blocks {blocks}, {kernel.target}, median of {runs} runs per side, "
          f"compile {kernel.compile_seconds:.2f} s")  # fmt: skip
    for n in args.sizes:
        print(measure(kernel, n, args))


def measure(kernel: tilec.CompiledKernel, n: int, args: argparse.Namespace) -> str:
    """One line: tilec and its peers on n x n x n."""
    element = ml_dtypes.bfloat16 if args.dtype == "bfloat16" else np.dtype(args.dtype)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32).astype(element)
    b = rng.standard_normal((n, n), dtype=np.float32).astype(element)
    c = np.zeros((n, n), np.float32)
    kernel(a, b, c)
    reference = a.astype(np.float32) @ b.astype(np.float32)
    error = np.abs(c - reference).max() / np.abs(reference).max()
    others = peers(a, b, args.dtype)
    seconds = median_seconds(args.rounds, args.runs, lambda: kernel(a, b, c), *others.values())
    ours, *theirs = (2.0 * n**3 / s / 1e9 for s in seconds)
    line = f"  {n}^3  tilec {ours:6.1f} GFLOP/s ({100 * ours / args.limit:3.0f} % of limit)"
    line += "".join(f"  {name} {rate:6.1f}" for name, rate in zip(others, theirs, strict=True))
    return f"{line}  ratio {ours / max(theirs):.2f} x best   (max rel. error {error:.1e})"


if __name__ == "__main__":
    main()
