"""Simulated flash attention on the ascend target: time, TFLOPS, cube and vector
utilization and cross-core waits per profile, sequence length and mask.

    python benchmarks/ascend_attention.py [--seq 1024] [--causal-seq 1024] [--heads 12]
                                          [--heads-kv 1] [--dim 128] [--block 64 64]
                                          [--profiles 910b 950] [--full]

The kernel is examples/flash_attention.py's (B=1, f16 inputs, f32 softmax and
accumulation), compiled with `tilec.compile(..., target="ascend",
profile=P)`: a mix kernel whose AIC runs both gemms of the K/V loop and whose
two AIVs run the mask and the online softmax, the tiles S, P and the P V
product going through rings of GM workspace slots. Each case runs once (the
simulator is deterministic) on random inputs and is checked against numpy.

TFLOPS counts the useful work, 4 S^2 D flops per head (half of it for causal
attention), over the simulated time; cube and vector utilization are the
simulator's (busy cycles of the M pipe and of the V pipes over the kernel's
cycles); the cross-core waits are the cycles the AICs and the AIVs spent
blocked on each other's flags, summed over the cores of each kind, as a
share of the kernel's cycles times the number of such cores. The reference
point is ASCEND.md's hand-written AscendC figure, ~176 TFLOPS for B=1,
Hq=12, Hkv=1, D=128, f16, non-causal, S=32K on 910B-class hardware (hence
the default `--heads-kv 1`).

The simulator interprets every instruction of every core: the default sweep
(S=1024, full and causal, both profiles) takes 4 to 8 minutes (one to three
per case), and the time of a case grows with S^2 (S=4096 takes 16 times as
long as 1024). `--full` runs the
issue's sweep, S = 4K, 8K, 16K, 32K and a causal 32K, which takes hours;
`--seq` and `--causal-seq` pick other lengths. The wall time of each
simulation is printed. Benchmarks are not tests: nothing
here is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))

import flash_attention as attention_example

import tilec

ASCENDC_TFLOPS = 176.0
"""Hand-written AscendC flash attention, 910B-class, S=32K (ASCEND.md)."""
FULL_SEQ = [4096, 8192, 16384, 32768]


def run(profile: str, seq: int, heads: int, heads_kv: int, dim: int, block: tuple[int, int],
        causal: bool) -> dict[str, float]:
    rng = np.random.default_rng(seq + heads)
    q = rng.standard_normal((1, heads, seq, dim)).astype(np.float16)
    k, v = (rng.standard_normal((1, heads_kv, seq, dim)).astype(np.float16) for _ in range(2))
    out = np.zeros_like(q)
    kernel = tilec.compile(
        attention_example.flash_attention(1, heads, seq, dim, causal=causal, dtype="float16",
                                          heads_kv=heads_kv, block_M=block[0],
                                          block_N=block[1]),
        target="ascend", profile=profile, max_steps=2_000_000_000)
    start = time.perf_counter()
    kernel(q, k, v, out)
    wall = time.perf_counter() - start
    report = kernel.report()
    reference = attention_example.reference(q, k, v, causal)
    flops = 4.0 * heads * seq * seq * dim * (0.5 if causal else 1.0)
    cores = {kind: sum(1 for name in report.core_cycles if kind in name.split()[-1])
             for kind in ("aic", "aiv")}
    waits = {kind: report.cross_wait_cycles.get(kind, 0) / (report.cycles * count)
             for kind, count in cores.items() if count}
    return {
        "us": report.microseconds,
        "tflops": flops / (report.microseconds * 1e6),
        "cube": 100 * report.cube_utilization,
        "vector": 100 * report.vector_utilization,
        "aic_wait": 100 * waits.get("aic", 0.0),
        "aiv_wait": 100 * waits.get("aiv", 0.0),
        "ok": report.ok,
        "error": float(np.max(np.abs(out.astype(np.float32) - reference))),
        "wall": wall,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seq", type=int, nargs="+", default=[1024])
    parser.add_argument("--causal-seq", type=int, nargs="*", default=[1024])
    parser.add_argument("--full", action="store_true",
                        help="S = 4K, 8K, 16K, 32K and a causal 32K (hours)")
    parser.add_argument("--heads", type=int, default=12)
    parser.add_argument("--heads-kv", type=int, default=1)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--block", type=int, nargs=2, default=[64, 64])
    parser.add_argument("--profiles", nargs="+", default=["910b", "950"])
    args = parser.parse_args()
    cases = [(s, False) for s in (FULL_SEQ if args.full else args.seq)]
    cases += [(s, True) for s in ([FULL_SEQ[-1]] if args.full else args.causal_seq)]
    block = (args.block[0], args.block[1])
    print(f"flash attention B=1, H={args.heads}, Hkv={args.heads_kv}, D={args.dim}, f16, "
          f"tiles {block[0]}x{block[1]}; AscendC reference ~{ASCENDC_TFLOPS:.0f} TFLOPS "
          f"(910B-class, S=32K)")
    print(f"{'profile':<8}{'S':>7} {'mask':<7}{'us':>11}{'TFLOPS':>8}{'cube %':>8}{'vec %':>7}"
          f"{'AIC wait %':>11}{'AIV wait %':>11}{'ok':>4}{'max err':>9}{'sim s':>8}")
    for profile in args.profiles:
        tflops = []
        for seq, causal in cases:
            row = run(profile, seq, args.heads, args.heads_kv, args.dim, block, causal)
            tflops.append(row["tflops"])
            mask = "causal" if causal else "full"
            print(f"{profile:<8}{seq:>7} {mask:<7}{row['us']:>11.1f}{row['tflops']:>8.2f}"
                  f"{row['cube']:>8.1f}{row['vector']:>7.1f}{row['aic_wait']:>11.1f}"
                  f"{row['aiv_wait']:>11.1f}{'yes' if row['ok'] else 'NO':>4}"
                  f"{row['error']:>9.1e}{row['wall']:>8.1f}", flush=True)
        median = statistics.median(tflops)
        print(f"{profile:<8}median {median:.2f} TFLOPS: {median / ASCENDC_TFLOPS:.1%} of the "
              f"AscendC figure")
    return 0


if __name__ == "__main__":
    sys.exit(main())
