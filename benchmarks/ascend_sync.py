"""tilec's automatic synchronization next to AscendNPU-IR's, on the same three small kernels.

    python benchmarks/ascend_sync.py [--profile 910b]

The kernels are those of benchmarks/peer_hivm/ (see its README.md), written
here in the DSL: a double-buffered vector add (8 chunks of 512 f16), a row
softmax (32 x 256 f32 in blocks of 8 rows) and a double-buffered GEMM K loop
(64 x 64 = 64 x 512 . 512 x 64, f16, K steps of 64), each on one core. For
each, tilec's `ascend` IR is compiled with the flags strategy and with
`sync="barrier"` (a PIPE_ALL barrier between dependent ops) and run in the
simulator (checked against numpy); the table gives, per core, the sync
instructions in the IR and those executed, the PIPE_ALL barriers and the
simulated cycles, then AscendNPU-IR's counts for its version of the kernel
(`bishengir-opt --hivm-plan-memory --hivm-inject-sync`, when installed:
benchmarks/peer_hivm.py). Benchmarks are not tests: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import re
import sys

import numpy as np
from peer_hivm import hivm_sync_counts

import tilec
import tilec.language as T


def vadd_db():
    chunks, chunk = 8, 512

    @T.prim_func
    def vadd(X: T.Tensor((chunks * chunk,), "float16"), Y: T.Tensor((chunks * chunk,), "float16"),
             Z: T.Tensor((chunks * chunk,), "float16")):
        with T.Kernel(1, threads=64):
            x = T.alloc_fragment((chunk,), "float16")
            y = T.alloc_fragment((chunk,), "float16")
            z = T.alloc_fragment((chunk,), "float16")
            for c in T.Pipelined(chunks, num_stages=2):
                T.copy(X[c * chunk], x)
                T.copy(Y[c * chunk], y)
                for i in T.Parallel(chunk):
                    z[i] = x[i] + y[i]
                T.copy(z, Z[c * chunk])

    rng = np.random.default_rng(0)
    x = rng.standard_normal(chunks * chunk).astype(np.float16)
    y = rng.standard_normal(chunks * chunk).astype(np.float16)
    return vadd, (x, y, np.zeros_like(x)), 2, x + y


def softmax_rows():
    rows, cols, block = 32, 256, 8

    @T.prim_func
    def softmax(X: T.Tensor((rows, cols), "float32"), Y: T.Tensor((rows, cols), "float32")):
        with T.Kernel(1, threads=64):
            x = T.alloc_fragment((block, cols), "float32")
            row_max = T.alloc_fragment((block,), "float32")
            row_sum = T.alloc_fragment((block,), "float32")
            for b in T.serial(rows // block):
                T.copy(X[b * block, 0], x)
                T.reduce_max(x, row_max, dim=1)
                for i, j in T.Parallel(block, cols):
                    x[i, j] = T.exp(x[i, j] - row_max[i])
                T.reduce_sum(x, row_sum, dim=1)
                for i, j in T.Parallel(block, cols):
                    x[i, j] = x[i, j] / row_sum[i]
                T.copy(x, Y[b * block, 0])

    x = np.random.default_rng(0).standard_normal((rows, cols)).astype(np.float32)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return softmax, (x, np.zeros_like(x)), 1, e / e.sum(axis=1, keepdims=True)


def gemm_db():
    m = n = 64
    k, block_k = 512, 64

    @T.prim_func
    def gemm(A: T.Tensor((m, k), "float16"), B: T.Tensor((k, n), "float16"),
             C: T.Tensor((m, n), "float32")):
        with T.Kernel(1, threads=64):
            a = T.alloc_shared((m, block_k), "float16")
            b = T.alloc_shared((block_k, n), "float16")
            c = T.alloc_fragment((m, n), "float32")
            T.clear(c)
            for s in T.Pipelined(k // block_k, num_stages=2):
                T.copy(A[0, s * block_k], a)
                T.copy(B[s * block_k, 0], b)
                T.gemm(a, b, c)
            T.copy(c, C[0, 0])

    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    return gemm, (a, b, np.zeros((m, n), np.float32)), 2, a.astype(np.float32) @ b.astype(
        np.float32)


KERNELS = {"vadd_db": vadd_db, "softmax_rows": softmax_rows, "gemm_db": gemm_db}
_SYNC_OPS = re.compile(r"\bascend\.(set_flag|wait_flag|pipe_barrier)\b")


def ours(name: str, profile: str, sync: str) -> dict[str, float]:
    kernel_fn, args, output, expected = KERNELS[name]()
    kernel = tilec.compile(kernel_fn, target="ascend", profile=profile, sync=sync, block_dim=1)
    kernel(*args)
    error = float(np.max(np.abs(args[output].astype(np.float32) - expected)))
    report = kernel.report()
    static = len(_SYNC_OPS.findall(kernel.source()))
    return {"static": static, "executed": report.sync_instructions,
            "pipe_all": report.pipe_all_barriers, "cycles": report.cycles, "error": error}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="910b")
    args = parser.parse_args()
    peer = hivm_sync_counts()
    print(f"per core; tilec on the {args.profile} profile; static = set/wait/barrier ops in the "
          f"IR, executed = run by the core")
    print(f"{'kernel':<14}{'who':<22}{'static':>8}{'executed':>10}{'PIPE_ALL':>10}{'cycles':>9}"
          f"{'max err':>10}")
    for name in KERNELS:
        for sync in ("flags", "barrier"):
            row = ours(name, args.profile, sync)
            print(f"{name:<14}{'tilec ' + sync:<22}{row['static']:>8}{row['executed']:>10}"
                  f"{row['pipe_all']:>10}{row['cycles']:>9}{row['error']:>10.1e}")
        if name in peer:
            counts = peer[name]
            static = sum(counts[op] for op in ("set_flag", "wait_flag", "pipe_barrier"))
            executed = sum(counts[f"{op}_exec"] for op in ("set_flag", "wait_flag", "pipe_barrier"))
            print(f"{'':<14}{'AscendNPU-IR inject':<22}{static:>8}{executed:>10}"
                  f"{counts['pipe_all_exec']:>10}{'-':>9}{'-':>10}")
    if not peer:
        print("(AscendNPU-IR's bishengir-opt is not installed: see benchmarks/peer_hivm/README.md)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
