"""Simulated GEMM on the ascend target: cycles, TFLOPS and cube utilization per profile,
and what automatic synchronization saves against PIPE_ALL-style barriers.

    python benchmarks/ascend_gemm.py [--size 4096] [--block M N K] [--stages 2]
                                     [--profiles 910b 950] [--dtypes float16 bfloat16]
                                     [--syncs flags barrier]

The kernel is examples/gemm.py's, compiled with `tilec.compile(...,
target="ascend", profile=P)` with TileLang's usual tiles, 128 x 256 x 64 (what
a kernel written for GPUs brings unchanged), and with the tiles a kernel
author picks for the profile (the largest accumulator its L0C holds with
two-slot operands: 128 x 256 x 64 on the 910b's 128 KiB, 256 x 256 x 64 on
the 950's 256 KiB; `--block` replaces both), twice: with the sync pass's flags (set right
after the producer, wait right before the consumer) and with `sync="barrier"`
(a PIPE_ALL barrier between every pair of dependent ops, what an
over-synchronizing tool produces). Both run in the simulator on the same
inputs and are checked against numpy; the table gives the simulated time,
TFLOPS, cube utilization, the sync instructions executed and the PIPE_ALL
barriers among them, and the wall time of each simulation. The cycle model is
the simulator's (ASCEND.md): the real 910B takes ~500 us for f16 4096^3, so a
910b figure far below that means the model misses a cost. Benchmarks are not
tests: nothing here is asserted.

Measured (f16, flags; cube % of the simulated time). The K loop is walked in
L1 slabs of 256 (tile-ascend-k-slabs: one copy of 4 iterations per operand,
whose A rows are then whole 512 B DMA bursts), each slab cut into 64-deep
mmad steps on two L0A/L0B buffers, and the slabs double-buffered in L1 while
the L0 buffers that already take turns keep theirs (tile-ascend-multi-buffer
per memory). Before, every 64-deep step paid its own MTE2 copies (A at 70 %
of the L2 rate: 128 B rows), 640 cycles of MTE2 per 520 of cube:

    tiles        profile   2048^3                 4096^3
    128x256x64   950       77.0 -> 87.8 -> 93.5   79.8 (issue 30) -> 94.7 -> 98.8
    128x256x64   910b      -> 72.2                -> 88.4
    256x256x64   950       75.6 -> 88.4

The last step on the 950: two L0C slots across the blocks of a core (the
128 x 256 f32 accumulator holds nothing from one block to the next, and two
fill the 950's 256 KiB; tile-ascend-multi-buffer unrolls the grid loop by
two), so each tile's fixpipe drain (1557 cycles, GM-write bound) overlaps
the next tile's mmads instead of stalling them, about 6 % of a core's time
at 2048^3. The two copies' K loops share their L1 and L0 buffers, and the
sync pass gives each hazard on them one flag for both copies (the second
copy's first wait takes the first copy's last set): no more event ids than
one K loop. What is left at 2048^3 is mostly the first slab's fill (~3K
cycles of the 4 tiles' 66K per core). The 910b's L0C holds one such tile;
there 2048^3 makes 128 tiles for 24 cores (6 on some, 5.3 on average: 89 %
at best).

`--syncs flags` skips the barrier baseline (it simulates about as long again).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))

import gemm as gemm_example

import tilec

AUTHOR_TILES = {"910b": (128, 256, 64), "950": (256, 256, 64)}
TILELANG_TILES = (128, 256, 64)
"""TileLang's usual GEMM tiles, which a kernel written for GPUs brings unchanged."""


def run(size: int, block: tuple[int, int, int], stages: int, profile: str, dtype: str,
        sync: str, a: np.ndarray, b: np.ndarray, expected: np.ndarray) -> dict[str, float]:
    block_m, block_n, block_k = block
    kernel = tilec.compile(
        gemm_example.matmul(size, size, size, in_dtype=dtype, block_M=block_m, block_N=block_n,
                            block_K=block_k, num_stages=stages),
        target="ascend", profile=profile, sync=sync, max_steps=50_000_000)
    c = np.zeros((size, size), np.float32)
    start = time.perf_counter()
    kernel(a, b, c)
    wall = time.perf_counter() - start
    report = kernel.report()
    error = float(np.max(np.abs(c - expected)) / np.max(np.abs(expected)))
    return {
        "us": report.microseconds,
        "tflops": report.tflops,
        "cube": 100 * report.cube_utilization,
        "syncs": report.sync_instructions,
        "pipe_all": report.pipe_all_barriers,
        "wall": wall,
        "error": error,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--block", type=int, nargs=3, default=None)
    parser.add_argument("--stages", type=int, default=2)
    parser.add_argument("--profiles", nargs="+", default=["910b", "950"])
    parser.add_argument("--dtypes", nargs="+", default=["float16", "bfloat16"])
    parser.add_argument("--syncs", nargs="+", default=["flags", "barrier"],
                        choices=["flags", "barrier"])
    args = parser.parse_args()
    size = args.size
    rng = np.random.default_rng(0)
    print(f"GEMM {size}^3, num_stages={args.stages}, f32 accumulation")
    print(f"{'profile':<8}{'dtype':<10}{'tiles':<12}{'sync':<9}{'us':>10}{'TFLOPS':>9}"
          f"{'cube %':>8}{'syncs':>10}{'PIPE_ALL':>10}{'sim s':>8}{'rel err':>10}")
    for dtype in args.dtypes:
        np_dtype = gemm_example.numpy_dtype(dtype)
        a = rng.standard_normal((size, size)).astype(np_dtype)
        b = rng.standard_normal((size, size)).astype(np_dtype)
        expected = gemm_example.reference(a, b)
        for profile, block in ((p, b) for p in args.profiles
                               for b in ([tuple(args.block)] if args.block else
                                         dict.fromkeys([TILELANG_TILES, AUTHOR_TILES[p]]))):
            tiles = "x".join(map(str, block))
            rows = {}
            for sync in args.syncs:
                rows[sync] = row = run(size, block, args.stages, profile, dtype, sync,
                                       a, b, expected)
                print(f"{profile:<8}{dtype:<10}{tiles:<12}{sync:<9}{row['us']:>10.1f}"
                      f"{row['tflops']:>9.1f}{row['cube']:>8.1f}{row['syncs']:>10}"
                      f"{row['pipe_all']:>10}{row['wall']:>8.1f}{row['error']:>10.1e}")
            if len(rows) < 2:
                continue
            flags, barrier = rows["flags"], rows["barrier"]
            print(f"{'':<30}{barrier['us'] / flags['us']:.2f}x faster with flags, which execute "
                  f"{flags['syncs'] / max(barrier['syncs'], 1):.2f}x the sync instructions "
                  f"(a set/wait pair per hazard against one barrier per dependent op)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
