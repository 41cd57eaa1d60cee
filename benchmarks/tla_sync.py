"""tilelang-ascend's expert kernels with three kinds of synchronization, side by side.

    python benchmarks/tla_sync.py [--profile 910b|950]

The expert GEMM (examples/gemm/example_gemm.py) and flash attention
(examples/flash_attention/flash_attn_bhsd.py) as ported in
test/python/tilelang_ascend/tla_expert_ports (only the imports changed), run in the
simulator on their examples' sizes shrunk for this machine:

- "author": the kernel as written, the author's `T.barrier_all()` (PIPE_ALL) and flags;
- "tilec": `auto_sync=True` (tilelang's `TL_ASCEND_AUTO_SYNC`): tilec's set/wait flags
  on exact hazards replace the author's intra-core sync;
- "barrier": tilec's own placement with `sync="barrier"`: a PIPE_ALL before every
  dependent op, the style of tilelang-ascend's own auto-sync baseline.

Each is checked against numpy; the table gives simulated cycles, the PIPE_ALL barriers and
the set/wait pairs executed, and the ratio to the author's cycles. Not a test: nothing is
asserted.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path

import numpy as np

import tilec

PORTS = Path(__file__).resolve().parents[1] / "test/python/tilelang_ascend/tla_expert_ports"
MODES = {"author": {}, "tilec": {"auto_sync": True},
         "barrier": {"auto_sync": True, "sync": "barrier"}}


def _port(name: str, profile: str):
    """The port, its `@tilelang.jit` factories made for `ascend:<profile>`."""
    os.environ["TILEC_TARGET"] = f"ascend:{profile}"
    spec = importlib.util.spec_from_file_location(f"port_{name}_{profile}", PORTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _gemm(profile: str):
    m = n = k = 512
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    kernel = _port("example_gemm", profile).matmul(m, n, k, 128, 256, 64)
    reference = a.astype(np.float32) @ b.astype(np.float32)
    return kernel, lambda: [a, b, np.zeros((m, n), np.float16)], (2,), reference


def _attention(profile: str):
    b, s, h, d = 1, 512, 1, 128
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((b, h, s, d)).astype(np.float16) for _ in range(3))
    kernel = _port("flash_attn_bhsd", profile).flash_attention_fwd(b, s, h, d)
    x = [t.astype(np.float32)[0, 0] for t in (q, k, v)]
    scores = x[0] @ x[1].T / np.sqrt(d)
    p = np.exp(scores - scores.max(-1, keepdims=True))
    reference = ((p / p.sum(-1, keepdims=True)) @ x[2])[None, None]
    blocks = s // 64 * h * b

    def arguments():
        return [q, k, v, np.zeros((b, h, s, d), np.float16),
                np.zeros((blocks, 64, 64), np.float32), np.zeros((blocks, 64, 64), np.float16),
                np.zeros((blocks, 64, d), np.float32)]
    return kernel, arguments, (3,), reference


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", choices=("910b", "950"), action="append")
    profiles = parser.parse_args().profile or ["910b", "950"]
    print(f"{'kernel':<18}{'profile':<9}{'sync':<9}{'cycles':>10}{'PIPE_ALL':>10}"
          f"{'set/wait':>10}{'vs author':>11}")
    for profile in profiles:
        for name, case in (("expert gemm 512^3", _gemm), ("expert FA S=512", _attention)):
            jit_kernel, arguments, outputs, reference = case(profile)
            jit_kernel(*arguments()[:outputs[0]])  # builds the author's kernel (inputs only)
            tile_ir = next(iter(jit_kernel._compiled.values())).ir("tile")
            base = None
            for mode, options in MODES.items():
                kernel = tilec.compile(tile_ir, target=f"ascend:{profile}", **options)
                args = arguments()
                kernel(*args)
                got = args[outputs[0]].astype(np.float32)
                error = float(np.abs(got - reference).max())
                report = kernel.report()
                base = base or report.cycles
                print(f"{name:<18}{profile:<9}{mode:<9}{report.cycles:>10}"
                      f"{report.pipe_all_barriers:>10}{report.sync_counts['set_flag']:>10}"
                      f"{report.cycles / base:>10.2f}x  (max err {error:.1e})")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
