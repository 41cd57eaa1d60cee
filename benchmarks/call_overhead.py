"""The cost of calling a compiled cpu kernel, against a numpy op on the same arrays.

    python benchmarks/call_overhead.py [--size 256] [--calls 20000] [--profile]

Compiles `Y = 2 * X` (one block) and `C = A + B` with `out_idx` (the outputs
allocated per call, as TileLang's kernels return them), then times single
calls of each and of the numpy op doing the same (`np.multiply(x, 2, out=y)`,
`a + b`): the median of `--calls` timed calls after a warm-up. With tiny
arrays the kernel's own work is a few ns, so the time is what a call costs:
argument checks, packing the arguments for the C interface, the call. With
`--profile`, cProfile's top entries for the kernel call. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import time
from collections.abc import Callable

import numpy as np

import tilec
import tilec.language as T


def scale(n: int):
    @T.prim_func
    def double(X: T.Tensor((n,), "float32"), Y: T.Tensor((n,), "float32")):
        with T.Kernel(T.ceildiv(n, 256), threads=128) as bx:
            t = T.alloc_fragment((256,), "float32")
            T.copy(X[bx * 256], t)
            for i in T.Parallel(256):
                t[i] = t[i] * 2.0
            T.copy(t, Y[bx * 256])

    return double


def add(n: int):
    @T.prim_func
    def add(A: T.Tensor((n,), "float32"), B: T.Tensor((n,), "float32"),
            C: T.Tensor((n,), "float32")):
        with T.Kernel(T.ceildiv(n, 256), threads=128) as bx:
            a = T.alloc_fragment((256,), "float32")
            b = T.alloc_fragment((256,), "float32")
            T.copy(A[bx * 256], a)
            T.copy(B[bx * 256], b)
            for i in T.Parallel(256):
                a[i] = a[i] + b[i]
            T.copy(a, C[bx * 256])

    return add


def median_us(call: Callable[[], object], calls: int) -> float:
    for _ in range(calls // 10):
        call()
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=256, help="elements per array")
    parser.add_argument("--calls", type=int, default=20000, help="timed calls per case")
    parser.add_argument("--profile", action="store_true", help="cProfile the kernel calls")
    args = parser.parse_args()
    n = args.size
    x, y = np.arange(n, dtype=np.float32), np.zeros(n, np.float32)
    doubled = tilec.compile(scale(n))
    added = tilec.compile(add(n), out_idx=[-1])
    doubled_jit = tilec.jit(scale(n))
    doubled(x, y)
    np.testing.assert_array_equal(y, 2 * x)
    np.testing.assert_array_equal(added(x, y), x + y)
    cases = [
        ("Y = 2X (kernel(x, y))", lambda: doubled(x, y), lambda: np.multiply(x, 2, out=y)),
        ("Y = 2X (tilec.jit)", lambda: doubled_jit(x, y), lambda: np.multiply(x, 2, out=y)),
        ("C = A + B (out_idx)", lambda: added(x, y), lambda: x + y),
    ]
    print(f"median per call, {n} float32 elements, {args.calls} calls, on {doubled.target}")
    for name, kernel, numpy in cases:
        ours, theirs = median_us(kernel, args.calls), median_us(numpy, args.calls)
        print(f"  {name:<24} tilec {ours:7.2f} us   numpy {theirs:6.2f} us   "
              f"ratio {ours / theirs:5.1f}")
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(lambda: [doubled(x, y) for _ in range(args.calls)])
        pstats.Stats(profile).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
