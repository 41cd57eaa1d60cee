"""TileLang's compile time for the kernels of benchmarks/peer_kernels.py, as JSON.

    python benchmarks/peer_tilelang.py --arch sm_80 --runs 5

Run by benchmarks/compile_time.py with an interpreter that has TileLang
(`--tilelang-python`; TileLang needs torch and its own TVM, which tilec's
environment does not want). Each kernel is compiled `runs` times after a
warm-up, TileLang's kernel cache disabled, for the arch given (no GPU is
needed: TileLang's CUDA C++ goes through nvcc to a cubin). Prints
{name: {"cubin": median seconds, "source_lines": n}} on the last line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import peer_kernels
import tilelang
import tilelang.language as T


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--arch", default="sm_80")
    args = parser.parse_args()
    tilelang.disable_cache()
    target = {"kind": "cuda", "arch": args.arch}
    rows: dict[str, dict[str, float]] = {}
    for name, build in peer_kernels.KERNELS.items():
        times = []
        kernel = None
        for run in range(args.runs + 1):  # the first run warms TileLang up and is not counted
            start = time.perf_counter()
            kernel = tilelang.compile(build(T), target=target)
            if run:
                times.append(time.perf_counter() - start)
        assert kernel is not None
        rows[name] = {"cubin": statistics.median(times),
                      "source_lines": kernel.get_kernel_source().count("\n")}
    print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
