"""The library's DeepGEMM calls against torch on the same data, side by side in one process.

    python benchmarks/kernels_gemm.py [--size 1024] [--rounds 3] [--runs 3] [--npu 512]

On cpu: `deep_gemm.bf16_gemm_nt` against torch's bf16 matmul (`a @ b.T`, oneDNN), and
`deep_gemm.fp8_gemm_nt` against what torch has for it on a CPU, dequantizing then
multiplying in float32; medians of the timed calls, TFLOP/s and the ratios. Then, on
the simulated ascend:950, the cube utilization of the two GEMMs on a DeepGEMM-like
shape scaled to what simulates in seconds (`--npu`, M = N = K), next to the upstream
claim of 99.5 % (BF16) / 99.8 % (FP8). Needs torch. Nothing here is asserted.
"""

from __future__ import annotations

import argparse

import torch
from timing import median_seconds

from tilec.kernels import deep_gemm, last_report, use_target


def _operands(m: int, n: int, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(0)
    return (torch.randn((m, k), generator=generator).bfloat16(),
            torch.randn((n, k), generator=generator).bfloat16())


def cpu(size: int, rounds: int, runs: int) -> None:
    a, b = _operands(size, size, size)
    d = torch.empty((size, size), dtype=torch.bfloat16)
    a_fp8 = deep_gemm.per_token_cast_to_fp8(a, use_ue8m0=False)
    b_fp8 = deep_gemm.per_block_cast_to_fp8(b, use_ue8m0=False)
    a_scales = a_fp8[1].repeat_interleave(128, dim=1)[:, :size]
    b_scales = b_fp8[1].repeat_interleave(128, 0).repeat_interleave(128, 1)[:size, :size]

    def torch_fp8() -> torch.Tensor:
        return (a_fp8[0].float() * a_scales) @ (b_fp8[0].float() * b_scales).T

    flops = 2 * size**3
    for name, ours, theirs in (
        ("bf16_gemm_nt", lambda: deep_gemm.bf16_gemm_nt(a, b, d), lambda: a @ b.T),
        ("fp8_gemm_nt", lambda: deep_gemm.fp8_gemm_nt(a_fp8, b_fp8, d), torch_fp8),
    ):
        tilec_s, torch_s = median_seconds(rounds, runs, ours, theirs)
        print(f"cpu  {name:<13} {size}^3  tilec {flops / tilec_s / 1e12:6.3f} TFLOP/s  "
              f"torch {flops / torch_s / 1e12:6.3f} TFLOP/s  tilec/torch {torch_s / tilec_s:.2f}")


def npu(size: int) -> None:
    a, b = _operands(size, size, size)
    d = torch.empty((size, size), dtype=torch.bfloat16)
    with use_target("ascend:950"):
        a_fp8 = deep_gemm.per_token_cast_to_fp8(a, use_ue8m0=False)
        b_fp8 = deep_gemm.per_block_cast_to_fp8(b, use_ue8m0=False)
        for name, call, claim in (
            ("bf16_gemm_nt", lambda: deep_gemm.bf16_gemm_nt(a, b, d), 99.5),
            ("fp8_gemm_nt", lambda: deep_gemm.fp8_gemm_nt(a_fp8, b_fp8, d), 99.8),
        ):
            call()
            sim = last_report()[0].sim
            print(f"950  {name:<13} {size}^3  cube {100 * sim.cube_utilization:5.1f} %  "
                  f"{sim.cycles} cycles  (DeepGEMM on its hardware: {claim} %)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1024, help="cpu: M = N = K")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--npu", type=int, default=512, help="simulated 950: M = N = K")
    args = parser.parse_args()
    cpu(args.size, args.rounds, args.runs)
    npu(args.npu)


if __name__ == "__main__":
    main()
