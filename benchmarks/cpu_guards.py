"""What bounds-checked element accesses cost on the cpu target, side by side.

    python benchmarks/cpu_guards.py [--size 4194304] [--rounds 4] [--runs 5]

Every element load and store of a tensor or tile is checked
(`tile-guard-accesses`): an affine access in a T.Parallel region is
checked once per region, a gather's index once per element, and so is a
tile's index read at run time (buckets). Three kernels, each compiled twice in this
process — through the real `tile-to-cpu` pipeline and through the same
pipeline without the guard pass (unsafe, for the comparison only) — and
numpy on the same inputs. Prints the median time of each, the guarded /
unguarded ratio and the ratio to numpy. Benchmarks are not tests: nothing
here is asserted.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from timing import median_seconds

import tilec
import tilec.language as T
from tilec import backends
from tilec import ir as tilec_ir
from tilec.runtime.compiler import CompiledKernel, compile_module, load_module

N = T.symbolic("N")
R = T.symbolic("R")


@T.prim_func
def axpy(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32")):
    with T.Kernel(T.ceildiv(N, 1024), threads=128) as bx:
        for i in T.Parallel(1024):
            Y[bx * 1024 + i] = X[bx * 1024 + i] * 2.0 + Y[bx * 1024 + i]


@T.prim_func
def gather(
    X: T.Tensor((R,), "float32"), Idx: T.Tensor((N,), "int32"), G: T.Tensor((N,), "float32")
):
    with T.Kernel(T.ceildiv(N, 1024), threads=128) as bx:
        for i in T.Parallel(1024):
            G[bx * 1024 + i] = X[Idx[bx * 1024 + i]]


@T.prim_func
def buckets(
    X: T.Tensor((N,), "float32"), Idx: T.Tensor((N,), "int32"),
    S: T.Tensor((T.ceildiv(N, 1024), 64), "float32"),
):
    """Sums into a tile at indices read at run time: each access of the tile is checked."""
    with T.Kernel(T.ceildiv(N, 1024), threads=128) as bx:
        t = T.alloc_fragment((64,), "float32")
        T.clear(t)
        for i in T.serial(1024):
            t[Idx[bx * 1024 + i]] = t[Idx[bx * 1024 + i]] + X[bx * 1024 + i]
        T.copy(t, S[bx, 0])


def unguarded(kernel: object) -> CompiledKernel:
    """`kernel` through tile-to-cpu without tile-guard-accesses."""
    target, backend = backends.resolve("cpu")
    options = backends.parse_options(backend.options_type, {}, target.spec)

    class Unguarded(type(backend)):  # type: ignore[misc]
        def pipeline(self, target, options):
            passes = super().pipeline(target, options).split(",tile-guard-accesses")
            return "".join(passes)

    module = load_module(kernel, tilec_ir.make_context())
    return compile_module(module, target, Unguarded(), options, time.perf_counter())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1 << 22, help="elements, a multiple of 1024")
    parser.add_argument("--runs", type=int, default=5, help="timed calls per side and round")
    parser.add_argument("--rounds", type=int, default=4, help="rounds each side takes in turn")
    args = parser.parse_args()
    n = args.size
    if n % 1024:
        parser.error("--size must be a multiple of 1024 for the unguarded build to be safe")
    rng = np.random.default_rng(0)
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    rows = n // 2
    table = rng.random(rows, dtype=np.float32)
    idx = rng.integers(0, rows, n).astype(np.int32)
    out = np.zeros(n, np.float32)
    bucket = rng.integers(0, 64, n).astype(np.int32)
    sums = np.zeros((n // 1024, 64), np.float32)
    keys = np.arange(n) // 1024 * 64 + bucket

    cases = [
        ("axpy", axpy, (x, y), lambda: np.add(2 * x, y, out=y)),
        ("gather", gather, (table, idx, out), lambda: np.take(table, idx, out=out)),
        ("buckets", buckets, (x, bucket, sums),
         lambda: np.bincount(keys, weights=x, minlength=n // 16)),
    ]
    print(f"{n} elements, medians")
    for name, kernel, kernel_args, reference in cases:
        guarded, raw = tilec.compile(kernel, target="cpu"), unguarded(kernel)
        t_guarded, t_raw, t_numpy = median_seconds(
            args.rounds,
            args.runs,
            lambda g=guarded, a=kernel_args: g(*a),
            lambda r=raw, a=kernel_args: r(*a),
            reference,
        )
        print(
            f"  {name:7s} guarded {t_guarded * 1e3:8.3f} ms   unguarded {t_raw * 1e3:8.3f} ms   "
            f"numpy {t_numpy * 1e3:8.3f} ms   guard cost {t_guarded / t_raw:5.2f} x   "
            f"vs numpy {t_numpy / t_guarded:5.2f} x"
        )


if __name__ == "__main__":
    main()
