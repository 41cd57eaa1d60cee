"""Compile time: on cuda DSL -> PTX -> cubin for the GEMM and flash attention, on cpu gemm chains.

    python benchmarks/compile_time.py [--runs 5] [--arch sm_80] [--tilelang-python PATH]
                                      [--targets cuda,cpu] [--cpu-gemms 4 16 64]

The kernels are benchmarks/peer_kernels.py, written once in TileLang's
language. Each is compiled `runs` times from the DSL by tilec (tracing, the
tile-to-cuda pipeline, NVPTX in process: `.source()` is then the PTX) and
assembled by ptxas (`kernel.binary()`, when a CUDA toolkit is installed);
the table gives the medians (after one warm-up run), the kernel's
registers, spills and shared memory, and its tensor-core and copy instruction
counts. When Triton is installed (`pip install triton`: an optional
benchmark dependency, not in requirements.txt), its compiler builds the
same GEMM (128x128x32 tiles, 3 stages) and flash attention (64x64 tiles,
head dim 128) for the same arch in the same run (ASTSource -> cubin with a
GPUTarget: no GPU needed; its on-disk cache bypassed), shown beside ours
with the same PTX counts. TileLang compiles the very same source
(benchmarks/peer_tilelang.py, cache disabled, CUDA C++ through nvcc) in an
interpreter that has it: this one if it imports tilelang, else
`--tilelang-python` (TileLang brings torch and its own TVM; a separate venv
keeps them out of tilec's). The ->cubin column is every compiler's total,
ptxas or nvcc included; the last column of a peer's row is its time over
tilec's.

On the cpu target (`--targets cpu`) it times kernels of N chained 64x64x64
gemms (`--cpu-gemms`, default 4 16 64): the whole compile and the part LLVM
takes (optimization and code generation of the JIT). LLVM's loop passes take
time quadratic in a function's length, so past a few gemms the cpu lowering
calls shared functions instead (tile-cpu-outline-gemms); without that, 64
gemms took 7.1 s of LLVM time and 16 took 0.9 s. Benchmarks are not tests:
nothing here is asserted.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import peer_kernels

import tilec
import tilec.language as T
from tilec.backends.cuda.binary import find_ptxas

PEER_TILELANG = Path(__file__).resolve().parent / "peer_tilelang.py"


def tilec_times(make: Callable[[], object], arch: str, runs: int) -> dict[str, object]:
    to_ptx, to_cubin = [], []
    kernel = None
    for run in range(runs + 1):  # the first run warms MLIR up and is not counted
        start = time.perf_counter()
        kernel = tilec.compile(make(), target="cuda", arch=arch)
        ptx_seconds = time.perf_counter() - start
        if find_ptxas():
            start = time.perf_counter()
            kernel.binary()
            if run:
                to_cubin.append(time.perf_counter() - start)
        if run:
            to_ptx.append(ptx_seconds)
    assert kernel is not None
    row: dict[str, object] = {"ptx": statistics.median(to_ptx),
                              "instructions": _tensor_core_counts(kernel.source())}
    if to_cubin:
        resources = kernel.binary.resources()
        row["cubin"] = statistics.median(to_cubin)
        row["resources"] = (f"{resources.registers} regs, {resources.spill_stores} B spilled, "
                            f"{resources.dynamic_shared_bytes} B smem")
    return row


def _triton_kernels() -> dict[str, tuple[object, dict[str, str], dict[str, int], dict]]:
    """The same GEMM and flash attention in Triton: (jit function, signature,
    constexprs, options) by the names of `kernels()`."""
    import triton
    import triton.language as tl

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

    @triton.jit
    def attention(q, k, v, o, S, scale,
                  BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):
        # One (batch x head, BM query rows) tile; online softmax in base 2.
        pm, bh = tl.program_id(0), tl.program_id(1)
        base = bh * S * D
        rm = pm * BM + tl.arange(0, BM)
        rd = tl.arange(0, D)
        qt = tl.load(q + base + rm[:, None] * D + rd[None, :], mask=rm[:, None] < S, other=0.0)
        row_max = tl.full((BM,), float("-inf"), tl.float32)
        row_sum = tl.zeros((BM,), tl.float32)
        acc = tl.zeros((BM, D), tl.float32)
        for start in range(0, S, BN):
            rn = start + tl.arange(0, BN)
            kt = tl.load(k + base + rn[None, :] * D + rd[:, None], mask=rn[None, :] < S,
                         other=0.0)
            scores = tl.dot(qt, kt) * scale
            scores = tl.where(rn[None, :] < S, scores, float("-inf"))
            new_max = tl.maximum(row_max, tl.max(scores, 1))
            probs = tl.math.exp2(scores - new_max[:, None])
            rescale = tl.math.exp2(row_max - new_max)
            row_sum = row_sum * rescale + tl.sum(probs, 1)
            vt = tl.load(v + base + rn[:, None] * D + rd[None, :], mask=rn[:, None] < S,
                         other=0.0)
            acc = acc * rescale[:, None] + tl.dot(probs.to(tl.float16), vt)
            row_max = new_max
        tl.store(o + base + rm[:, None] * D + rd[None, :],
                 (acc / row_sum[:, None]).to(tl.float16), mask=rm[:, None] < S)

    gemm_signature = {name: "*fp16" if name in "ab" else "i32" for name in
                      ("a", "b", "M", "N", "K", "sam", "sak", "sbk", "sbn", "scm", "scn")}
    gemm_signature["c"] = "*fp32"
    attention_signature = {"q": "*fp16", "k": "*fp16", "v": "*fp16", "o": "*fp16",
                           "S": "i32", "scale": "fp32"}
    gemm_name, attention_name = peer_kernels.KERNELS
    return {
        gemm_name: (matmul, gemm_signature, {"BM": 128, "BN": 128, "BK": 32},
                    {"num_stages": 3, "num_warps": 4}),
        attention_name: (attention, attention_signature, {"BM": 64, "BN": 64, "D": 128},
                         {"num_stages": 2, "num_warps": 4}),
    }


def triton_times(arch: str, runs: int) -> dict[str, dict[str, object]] | None:
    """Per kernel: Triton's median seconds from source to cubin (its pipeline
    runs to the end, ptxas included; the on-disk cache is bypassed) and the
    tensor-core instructions of its PTX; None when Triton is not installed."""
    if importlib.util.find_spec("triton") is None:
        return None
    os.environ["TRITON_ALWAYS_COMPILE"] = "1"  # every run compiles, none is a cache hit
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    capability = int(arch.removeprefix("sm_").rstrip("a"))
    target = GPUTarget("cuda", capability, 32)
    rows: dict[str, dict[str, object]] = {}
    for name, (fn, signature, constexprs, options) in _triton_kernels().items():
        full = {**signature, **{key: "constexpr" for key in constexprs}}
        times = []
        compiled = None
        for run in range(runs + 1):  # the first run warms Triton up and is not counted
            source = ASTSource(fn, full, constexprs=constexprs)
            start = time.perf_counter()
            compiled = triton.compile(source, target=target, options=options)
            if run:
                times.append(time.perf_counter() - start)
        assert compiled is not None
        rows[name] = {"cubin": statistics.median(times),
                      "instructions": _tensor_core_counts(compiled.asm["ptx"])}
    return rows


def tilelang_times(python: str | None, arch: str, runs: int) -> dict[str, dict] | None:
    """Per kernel: TileLang's median seconds from the same DSL source to a
    cubin, measured by peer_tilelang.py under `python`; None without one."""
    if python is None:
        return None
    done = subprocess.run([python, str(PEER_TILELANG), "--arch", arch, "--runs", str(runs)],
                          capture_output=True, text=True, check=False)
    lines = done.stdout.strip().splitlines()
    if done.returncode or not lines:
        print(f"tilelang: peer_tilelang.py failed ({done.stderr.strip().splitlines()[-1:]})")
        return {}
    return json.loads(lines[-1])


_COUNTED = ("mma.sync", "ldmatrix", "cp.async.cg", "cp.async.ca", "wgmma.mma_async",
            "cp.async.bulk.tensor", "mbarrier.try_wait")
"""The tensor-core and data-movement instructions of the PTX column (sm_80 and sm_90a)."""


def _tensor_core_counts(ptx: str) -> str:
    counts = {word: ptx.count(word) for word in _COUNTED}
    return ", ".join(f"{count} {word}" for word, count in counts.items() if count)


def gemm_chain(gemms: int, n: int = 64):
    """A kernel that accumulates `gemms` n x n x n gemms, each on its own tile of A."""

    @T.prim_func
    def chain(A: T.Tensor((gemms * n, n), "float32"), B: T.Tensor((n, n), "float32"),
              C: T.Tensor((n, n), "float32")):
        with T.Kernel(1, threads=128) as _:
            a = T.alloc_shared((n, n), "float32")
            b = T.alloc_shared((n, n), "float32")
            c = T.alloc_fragment((n, n), "float32")
            T.clear(c)
            T.copy(B, b)
            for s in range(gemms):
                T.copy(A[s * n, 0], a)
                T.gemm(a, b, c)
            T.copy(c, C[0, 0])

    return chain


def cpu_times(gemms: list[int], runs: int) -> None:
    """Median compile and LLVM seconds of gemm chains on the cpu target."""
    tilec.compile(gemm_chain(1), target="cpu")  # warms MLIR and LLVM up
    print(f"{'cpu kernel':<36} {'compile':>8} {'LLVM':>8}")
    for count in gemms:
        totals, llvm = [], []
        for _ in range(runs):
            kernel = tilec.compile(gemm_chain(count), target="cpu", timing=True)
            totals.append(kernel.compile_seconds)
            llvm.append(kernel.timings()["llvm-codegen"])
        print(f"{f'{count} chained 64x64x64 f32 gemms':<36} {statistics.median(totals):>7.2f}s "
              f"{statistics.median(llvm):>7.2f}s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--arch", default="sm_80")
    parser.add_argument("--tilelang-python", help="an interpreter that imports tilelang")
    parser.add_argument("--targets", default="cuda,cpu", help="comma-separated: cuda, cpu")
    parser.add_argument("--cpu-gemms", type=int, nargs="+", default=[4, 16, 64])
    args = parser.parse_args()
    targets = set(args.targets.split(","))
    if "cpu" in targets:
        cpu_times(args.cpu_gemms, args.runs)
    if "cuda" not in targets:
        return 0
    if not find_ptxas():
        print("no ptxas found: only DSL -> PTX is timed")
    print(f"medians of {args.runs} runs, {args.arch}")
    print(f"{'kernel':<36} {'compiler':<8} {'->PTX':>8} {'->cubin':>8}  resources / PTX")
    try:
        triton_rows = triton_times(args.arch, args.runs)
    except Exception as exc:  # an optional comparison must not end the run
        print(f"triton: could not compile the kernels ({type(exc).__name__}: {exc})")
        triton_rows = {}
    tilelang_python = args.tilelang_python or (
        sys.executable if importlib.util.find_spec("tilelang") else None)
    tilelang_rows = tilelang_times(tilelang_python, args.arch, args.runs)
    for name, build in peer_kernels.KERNELS.items():
        row = tilec_times(lambda build=build: build(T), args.arch, args.runs)
        total = row["ptx"] + row.get("cubin", 0.0)
        shown = f"{total:.3f}s" if "cubin" in row else "-"
        print(f"{name:<36} {'tilec':<8} {row['ptx']:>7.3f}s {shown:>8}  "
              f"{row.get('resources', '')}; {row['instructions']}")
        for peer, rows in (("triton", triton_rows), ("tilelang", tilelang_rows)):
            if rows and name in rows:
                theirs = rows[name]
                ratio = f"{theirs['cubin'] / total:.2f}x tilec's time" if "cubin" in row else ""
                print(f"{'':<36} {peer:<8} {'-':>8} {theirs['cubin']:>7.3f}s  "
                      f"{theirs.get('instructions', '')}{'; ' if 'instructions' in theirs else ''}"
                      f"{ratio}")
    if triton_rows is None:
        print("triton: not installed (pip install triton to compare; optional)")
    if tilelang_python is None:
        nvcc = shutil.which("nvcc")
        print("tilelang: not installed (pip install tilelang into a venv and pass "
              "--tilelang-python; it compiles CUDA C++ with nvcc, "
              f"{'found at ' + nvcc if nvcc else 'which is not installed here'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
