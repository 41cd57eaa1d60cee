"""Tunes the GEMM example's tiles with tilec's autotuner, as TileLang's
`examples/gemm/example_gemm_autotune.py` does, and prints what it measured.

    python benchmarks/autotune_gemm.py [--size 512] [--target cpu] [--rep 200]

Every config of a small grid (block_M x block_N x block_K) is compiled in
parallel, checked against numpy and measured: the median wall time of a call
on cpu (and cuda), the simulated cycles on ascend. Prints each config's
measure, the winner, and numpy's median on the same inputs. The tuning cache
is bypassed (a fresh folder), so the run measures. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

from gemm import matmul

from tilec.autotuner import AutoTuner, TensorSupplyType


def configs() -> list[dict[str, int]]:
    return [
        {"block_M": m, "block_N": n, "block_K": k}
        for m, n, k in itertools.product((32, 64, 128), (64, 128), (32, 64))
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=512, help="M = N = K")
    parser.add_argument("--target", default="auto", help="a tilec target spec, or auto")
    parser.add_argument("--warmup", type=float, default=25, help="warm-up budget (ms)")
    parser.add_argument("--rep", type=float, default=200, help="timing budget per config (ms)")
    args = parser.parse_args()
    os.environ["TILEC_CACHE_DIR"] = tempfile.mkdtemp(prefix="tilec-autotune-")
    size = args.size

    def kernel(block_M=None, block_N=None, block_K=None):
        return matmul(size, size, size, block_M=block_M, block_N=block_N, block_K=block_K)

    result = (
        AutoTuner.from_kernel(kernel=kernel, configs=configs())
        .set_compile_args(out_idx=[-1], target=args.target)
        .set_profile_args(supply_type=TensorSupplyType.Auto, ref_prog=lambda A, B: A @ B,
                          skip_check=False, rtol=1e-3, atol=1e-3)
        .run(warmup=args.warmup, rep=args.rep)
    )
    print(f"gemm {size}x{size}x{size} on {result.kernel.target}")
    for trial in result.trials:
        print("  " + trial.describe())
    flops = 2 * size**3
    best = f"{result.cycles} cycles, " if result.cycles is not None else ""
    print(f"winner: {result.config}: {best}{result.latency:.4g} ms, "
          f"{flops / result.latency / 1e6:.1f} GFLOP/s")
    if result.ref_latency is not None:
        print(f"numpy: {result.ref_latency:.4g} ms, {flops / result.ref_latency / 1e6:.1f} "
              f"GFLOP/s; tilec / numpy time {result.latency / result.ref_latency:.2f}")


if __name__ == "__main__":
    main()
