"""Compile time on the cuda target: DSL -> PTX and PTX -> cubin, for the GEMM and flash attention.

    python benchmarks/compile_time.py [--runs 5] [--arch sm_80]

Each kernel is compiled `runs` times from the DSL (tracing, the tile-to-cuda
pipeline, NVPTX in process: `.source()` is then the PTX) and assembled by
ptxas (`kernel.binary()`, when a CUDA toolkit is installed); the table gives
the medians, and the kernel's registers, spills and shared memory. When
Triton is installed, its compiler builds the same 128x128x32 f16 GEMM for the
same arch in the same run (ASTSource -> cubin, no GPU needed), and the table
shows it beside ours; TileLang is only reported as installed or not (timing
it needs nvcc and is still to do). Benchmarks are not tests: nothing here is
asserted.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))

import flash_attention as attention_example
import gemm as gemm_example

import tilec
from tilec.backends.cuda.compiler import find_ptxas

SIZE = 4096


def kernels() -> dict[str, Callable[[], object]]:
    return {
        "gemm f16 4096^3, 128x128x32 tiles": lambda: gemm_example.matmul(
            SIZE, SIZE, SIZE, in_dtype="float16", block_M=128, block_N=128, block_K=32,
            num_stages=3),
        "flash attention f16 1x32x4096x128": lambda: attention_example.flash_attention(
            1, 32, SIZE, 128, causal=False, dtype="float16", block_M=64, block_N=64),
    }


def tilec_times(make: Callable[[], object], arch: str, runs: int) -> dict[str, object]:
    to_ptx, to_cubin = [], []
    kernel = None
    for _ in range(runs):
        start = time.perf_counter()
        kernel = tilec.compile(make(), target="cuda", arch=arch)
        to_ptx.append(time.perf_counter() - start)
        if find_ptxas():
            start = time.perf_counter()
            kernel.binary()
            to_cubin.append(time.perf_counter() - start)
    assert kernel is not None
    row: dict[str, object] = {"ptx": statistics.median(to_ptx)}
    if to_cubin:
        resources = kernel.binary.resources()
        row["cubin"] = statistics.median(to_cubin)
        row["resources"] = (f"{resources.registers} regs, {resources.spill_stores} B spilled, "
                            f"{resources.dynamic_shared_bytes} B smem")
    return row


def triton_gemm_seconds(arch: str, runs: int) -> float | None:
    """Median time of Triton compiling a 128x128x32 f16 GEMM to cubin, or None."""
    if importlib.util.find_spec("triton") is None:
        return None
    import triton
    import triton.language as tl
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    @triton.jit
    def matmul(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        pm, pn = tl.program_id(0), tl.program_id(1)
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            ka = k * BK + rk
            x = tl.load(a + rm[:, None] * sam + ka[None, :] * sak,
                        mask=(rm[:, None] < M) & (ka[None, :] < K), other=0.0)
            y = tl.load(b + ka[:, None] * sbk + rn[None, :] * sbn,
                        mask=(ka[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc += tl.dot(x, y)
        tl.store(c + rm[:, None] * scm + rn[None, :] * scn, acc,
                 mask=(rm[:, None] < M) & (rn[None, :] < N))

    signature = {name: "*fp16" if name in "ab" else "i32" for name in
                 ("a", "b", "M", "N", "K", "sam", "sak", "sbk", "sbn", "scm", "scn")}
    signature["c"] = "*fp32"
    signature.update({"BM": "constexpr", "BN": "constexpr", "BK": "constexpr"})
    capability = int(arch.removeprefix("sm_").rstrip("a"))
    times = []
    for _ in range(runs):
        source = ASTSource(matmul, signature, constexprs={"BM": 128, "BN": 128, "BK": 32})
        start = time.perf_counter()
        triton.compile(source, target=GPUTarget("cuda", capability, 32),
                       options={"num_stages": 3, "num_warps": 4})
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--arch", default="sm_80")
    args = parser.parse_args()
    if not find_ptxas():
        print("no ptxas found: only DSL -> PTX is timed")
    print(f"{'kernel':<36} {'DSL->PTX':>10} {'PTX->cubin':>11}  resources")
    for name, make in kernels().items():
        row = tilec_times(make, args.arch, args.runs)
        cubin = f"{row['cubin']:.3f} s" if "cubin" in row else "-"
        print(f"{name:<36} {row['ptx']:>8.3f} s {cubin:>11}  {row.get('resources', '')}")
    try:
        triton_seconds = triton_gemm_seconds(args.arch, args.runs)
    except Exception as exc:  # an optional comparison must not end the run
        print(f"triton: could not compile the GEMM ({type(exc).__name__}: {exc})")
    else:
        if triton_seconds is None:
            print("triton: not installed (pip install triton to compare)")
        else:
            print(f"{'triton gemm f16 128x128x32 -> cubin':<36} {triton_seconds:>8.3f} s")
    if importlib.util.find_spec("tilelang") is None:
        print("tilelang: not installed (pip install tilelang, with nvcc, to compare)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
