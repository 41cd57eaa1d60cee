"""Flash-attention forward on the cpu target: tilec vs torch's SDPA and numpy.

    python benchmarks/cpu_attention.py [--batch 1] [--heads 8] [--seq 1024] [--dim 64]

tilec runs examples/flash_attention.py (online softmax, one block per
block_M query rows of a head); torch runs
`torch.nn.functional.scaled_dot_product_attention` (its fused flash kernel on
cpu; torch is an optional benchmark dependency, skipped when not installed);
numpy computes softmax(Q K^T / sqrt(d)) V with batched matmuls and a
materialized score matrix. All in the same process, on the same inputs.
Prints GFLOP/s of each (median of all timed calls, the sides taking turns in
rounds), tilec's ratio to each peer (above 1: tilec is faster) and tilec's
compile time, for full and causal attention. Nothing here is asserted.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
from timing import median_seconds

import tilec

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
from flash_attention import flash_attention


def numpy_attention(q, k, v, causal: bool) -> np.ndarray:
    scores = q @ np.swapaxes(k, -1, -2) / np.float32(math.sqrt(q.shape[-1]))
    if causal:
        seq = q.shape[-2]
        scores = np.where(np.tri(seq, dtype=bool), scores, -np.inf)
    scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (scores / scores.sum(axis=-1, keepdims=True)) @ v


def torch_attention(q, k, v, causal: bool):
    """torch's SDPA on the same arrays (no copies: from_numpy shares memory), or
    None without torch."""
    try:
        import torch
    except ImportError:
        return None
    tq, tk, tv = (torch.from_numpy(x) for x in (q, k, v))
    return lambda: torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, is_causal=causal)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--seq", type=int, default=1024)
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--runs", type=int, default=3, help="timed calls per side and round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds each side takes in turn")
    args = parser.parse_args()
    shape = (args.batch, args.heads, args.seq, args.dim)
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal(shape, dtype=np.float32) for _ in range(3))
    out = np.zeros(shape, np.float32)

    print(f"f32 attention forward {'x'.join(map(str, shape))} (batch x heads x seq x dim)")
    for causal in (False, True):
        kernel = tilec.compile(flash_attention(*shape, causal=causal))
        kernel(q, k, v, out)
        expected = numpy_attention(q, k, v, causal)
        error = float(np.abs(out - expected).max())
        # Two matmuls of seq x seq x dim per head; causal attention needs half.
        flops = 4.0 * args.batch * args.heads * args.seq**2 * args.dim / (2 if causal else 1)
        peers = {"numpy": lambda causal=causal: numpy_attention(q, k, v, causal)}
        sdpa = torch_attention(q, k, v, causal)
        if sdpa is not None:
            peers["torch"] = sdpa
        ours, *theirs = median_seconds(
            args.rounds,
            args.runs,
            lambda kernel=kernel: kernel(q, k, v, out),
            *peers.values(),
        )
        print(f" {'causal' if causal else 'full'}:")
        print(f"  tilec  {flops / ours / 1e9:8.1f} GFLOP/s   (max abs. error {error:.1e})")
        for name, seconds in zip(peers, theirs, strict=True):
            ratio = seconds / ours
            print(f"  {name:<6} {flops / seconds / 1e9:8.1f} GFLOP/s   tilec/{name} {ratio:5.2f} x")
        if sdpa is None:
            print("  torch  not installed (pip install torch to compare with its SDPA)")
        print(f"  compile {kernel.compile_seconds:7.2f} s")


if __name__ == "__main__":
    main()
