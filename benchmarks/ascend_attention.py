"""Simulated flash attention on the ascend target: time, TFLOPS, cube and vector
utilization and cross-core waits per profile, sequence length and mask.

    python benchmarks/ascend_attention.py [--seq 4096 8192 16384 32768] [--causal-seq 32768]
                                          [--heads 12] [--heads-kv 1] [--dim 128]
                                          [--block 128 128] [--causal-block 128 128]
                                          [--stages 2] [--profiles 910b 950]
                                          [--exact] [--check-sampling 1024 2048]

The kernel is examples/flash_attention.py's (B=1, f16 inputs, f32 softmax and
accumulation), compiled with `tilec.compile(..., target="ascend",
profile=P)`: a mix kernel whose AIC runs both gemms of the K/V loop and whose
two AIVs run the mask and the online softmax, the tiles S, P and the P V
product going through rings of slots: in GM workspaces on the 910b; on the
950 S and P V go from L0C straight into slots in the AIVs' UBs and only P
goes up through GM. The launch has one block
per AI core, and the lowering makes the grid a grid-stride loop: core c runs
the query blocks c, c + n, c + 2n, ... (n cores, the first grid dimension,
the query block, fastest); causally, where the blocks' work differs, in snake
order: each odd round of n blocks in reverse (`block_run`).

Sampling (the default). The simulator interprets every instruction of every
core, about a millisecond of wall time per instruction, and S = 32K has
6144 query blocks x 512 key tiles: hours per case. So each case simulates a
sample: the grid-stride loop of the simulated IR is changed to run one query
block per core, every core at once (the blocks of round o), each over the
*full* K/V length. Nothing else of the kernel changes. What is extrapolated:
the time, as the sampled cycles times W / w (column x), where W is the
largest number of key tiles any core works through in the full launch and w
the largest in the sample -- that is, it assumes a core's time is
proportional to the key tiles it walks (exact for a non-causal kernel, where
every block walks all of them and W / w is the number of blocks per core;
for a causal one the per-block overhead is scaled with the key tiles, and
the sample is the round whose longest block is closest to the mean block,
so that W / w is near the number of blocks per core: 96 on the 950 at S=32K,
128 on the 910b). The busy cycles behind the utilizations scale with the
total key tiles instead (sum over the cores, full over sampled), which is
the same factor unless the cores' work differs (causal); the cross-core
waits are the sampled run's shares of its cycles, not extrapolated. The
sampled time includes one fill and drain of each core's pipelines where the
full launch has one per block but overlaps them with the neighbouring
blocks: with S=2048 (16 key tiles per full-mask block) the sample read
+6.1% (full mask) against the exact simulation on the 950, so the TFLOPS
err low, and less as S grows. The causal sample read -13.0% there: every
round of that grid holds a block of all 16 key tiles, so W / w is half the
blocks per core and half their overhead is left out; at S=32K W / w is the
number of blocks per core (see above).
`--check-sampling S...` runs both on smaller S and prints the full
simulation next to the sampled estimate; `--exact` simulates every block.
The sampled outputs are checked against numpy on the query blocks that ran.

Where the time goes (910b). These changes took the 910b from 68 to 214
TFLOPS at S=32K: the ring flags no longer fence all of GM (FIX and MTE2
had run one after the other), the cores run two iterations apart (one
apart, each waited for most of a round trip through the other), 64x128
tiles fit L0B (two K/V buffers instead of three), and 128x128 ones fit UB
(element-wise chains in place, the handed tiles received straight into
their working tiles). With 64x128 tiles an AI core's cube works 512 cycles
per 128 keys while its MTE2 moves K, V (32 KiB each) and P (16 KiB) into
L1, about 1070 cycles at 70% of the L2 rate (256-byte rows): 163 TFLOPS,
the cube 47.5% busy against the 48% MTE2 allows. 128x128 tiles double the
cube's work per key tile for 1.2 times the bytes (P grows with the rows);
FIX, which moves S and P V (64 KiB each) out of L0C, and MTE2 are then
about as long as each other, and the cube is busy 61%. On the 950 S and P V skip GM (L0C straight
into the AIVs' UBs), so only K, V and P load MTE2 there.

Causal. The loop stops at the diagonal key tile, so a query block walks
half the key tiles on average; the mask is applied to the scores after
their gemm (the place-tiles pass moves TileLang's mask-before-gemm there,
`late_masks`), so they arrive in place as unmasked ones do, and only the
diagonal key tile runs it: for every other tile one scalar test in front
of the mask's region shows the compare holds everywhere and the region is
skipped (`decided_compares.uniform_compares`). The pipelined loop and its
first stages sit under one test that the loop runs at all, so a run-time
trip count keeps the flags (and event ids) of a constant one
(`cross_core_pipelining`), and the snake order evens out the cores' key
tiles: in plain order the busiest core of the 950 (32 cores) walked 12%
more than the mean, which alone held causal to 1.78x the full speed. The diagonal tile's mask
runs a row at a time, its index tiles 128 elements rather than 64x128, so
128x128 tiles fit UB. Column `vs full` is the causal case's time over the
full one's at the same S and profile (issue 30 asks for at most 1/1.8).

TFLOPS counts the useful work, 4 S^2 D flops per head (half of it for causal
attention), over the (estimated) simulated time; cube and vector utilization
are the simulator's (busy cycles of the M pipe and of the V pipes over the
kernel's cycles); the cross-core waits are the cycles the AICs and the AIVs
spent blocked on each other's flags, summed over the cores of each kind, as
a share of the kernel's cycles times the number of such cores. The
reference point is ASCEND.md's hand-written AscendC figure, ~176 TFLOPS for
B=1, Hq=12, Hkv=1, D=128, f16, non-causal, S=32K on 910B-class hardware
(hence the default `--heads-kv 1`); column /176 is the ratio to it. The
wall time of each simulation is printed. Benchmarks are not tests: nothing
here is asserted.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
from mlir import ir
from mlir.dialects import arith

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))

import flash_attention as attention_example

import tilec
from tilec import ir as tilec_ir
from tilec.backends.ascend.driver import extra_arguments
from tilec.passes.conversion.tile_to_ascend.ops.kernel import SNAKE
from tilec.sim import simulate

ASCENDC_TFLOPS = 176.0
"""Hand-written AscendC flash attention, 910B-class, S=32K (ASCEND.md)."""
DEFAULT_SEQ = [4096, 8192, 16384, 32768]
MAX_STEPS = 2_000_000_000


def _owner_name(value: ir.Value) -> str | None:
    owner = value.owner
    operation = getattr(owner, "operation", None)
    return operation.name if operation is not None else None


def _grid_loops(op: ir.Operation) -> list[ir.Operation]:
    """The grid-stride loops: `scf.for` from `ascend.block_idx` step `ascend.block_num`."""
    found = []
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                inner = inner.operation
                operands = inner.operands
                if (inner.name == "scf.for" and _owner_name(operands[0]) == "ascend.block_idx"
                        and _owner_name(operands[2]) == "ascend.block_num"):
                    found.append(inner)
                else:
                    found.extend(_grid_loops(inner))
    return found


def sampled_module(text: str, offset: int, stride: int) -> ir.Module:
    """The kernel with each grid-stride loop running blocks idx + num*offset,
    step num*stride: the same code on a subset of the grid."""
    module = tilec_ir.parse_module(text, "<sampled>", tilec_ir.make_context())
    with module.context:
        loops = _grid_loops(module.operation)
        if not loops:
            raise RuntimeError("no grid-stride loop in the kernel: cannot sample it")
        index = ir.IndexType.get()
        for loop in loops:
            lower, _, step = list(loop.operands)[:3]
            with ir.InsertionPoint(loop), loop.location:
                shift = arith.MulIOp(step, arith.ConstantOp(index, offset).result).result
                first = arith.AddIOp(lower, shift).result
                wide = arith.MulIOp(step, arith.ConstantOp(index, stride).result).result
            loop.operands[0] = first
            loop.operands[2] = wide
    return module


def block_run(iteration: int, cores: int, grid: int, snake: bool) -> int:
    """The block that grid-stride iteration `iteration` runs: itself, or in snake
    order (the lowering's choice for a causal kernel, `SNAKE`) its mirror image
    in an odd round that the grid fills."""
    start = iteration - iteration % cores
    if snake and (iteration // cores) % 2 and start + cores <= grid:
        return 2 * start + cores - 1 - iteration
    return iteration


def key_tiles(bx: int, seq: int, block: tuple[int, int], causal: bool) -> int:
    """Key tiles query block `bx` walks (as the example's loop bound)."""
    tiles = -(-seq // block[1])
    return min(-(-(bx + 1) * block[0] // block[1]), tiles) if causal else tiles


def attention_rows(q: np.ndarray, k: np.ndarray, v: np.ndarray, head: int, rows: slice,
                   causal: bool) -> np.ndarray:
    """Reference output of query rows `rows` of `head` (float32), without the S x S scores."""
    group = q.shape[1] // k.shape[1]
    q32 = q[0, head, rows].astype(np.float32)
    k32, v32 = (t[0, head // group].astype(np.float32) for t in (k, v))
    scores = q32 @ k32.T / math.sqrt(q.shape[-1])
    if causal:
        query = np.arange(rows.start, rows.start + q32.shape[0])[:, None]
        scores = np.where(np.arange(k32.shape[0])[None, :] <= query, scores, -np.inf)
    scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (scores / scores.sum(axis=-1, keepdims=True)) @ v32


def run(profile: str, seq: int, heads: int, heads_kv: int, dim: int, block: tuple[int, int],
        stages: int, causal: bool, sampled: bool) -> dict[str, float]:
    rng = np.random.default_rng(seq + heads)
    q = rng.standard_normal((1, heads, seq, dim)).astype(np.float16)
    k, v = (rng.standard_normal((1, heads_kv, seq, dim)).astype(np.float16) for _ in range(2))
    out = np.zeros_like(q)
    kernel = tilec.compile(
        attention_example.flash_attention(1, heads, seq, dim, causal=causal, dtype="float16",
                                          heads_kv=heads_kv, block_M=block[0],
                                          block_N=block[1], num_stages=stages),
        target="ascend", profile=profile, max_steps=MAX_STEPS)
    binary = kernel.binary
    cores = binary.block_dim()
    query_blocks = -(-seq // block[0])
    grid = query_blocks * heads
    snake = SNAKE in binary.program.func.attributes
    per_core = [[block_run(i, cores, grid, snake) for i in range(c, grid, cores)]
                for c in range(cores)]
    if sampled:
        def tiles(b: int) -> int:
            return key_tiles(b % query_blocks, seq, block, causal)

        def round_run(o: int) -> list[int]:
            return [block_run(i, cores, grid, snake) for i in range(o * cores, (o + 1) * cores)
                    if i < grid]

        # The round whose longest block is closest to the mean block (the first one
        # when all blocks are alike).
        mean = sum(tiles(b) for b in range(grid)) / grid
        offset = min(range(max(1, grid // cores)),
                     key=lambda o: abs(max(tiles(b) for b in round_run(o)) - mean))
        stride = -(-grid // cores)  # more than the blocks left: one block per core
        ran = [[b] for b in round_run(offset)]
        module = sampled_module(binary.text, offset, stride)
    else:
        ran = per_core
        module = binary.program.module
    start = time.perf_counter()
    inputs = [q, k, v, out]
    report = simulate(module, inputs + extra_arguments(binary.program.func, cores, inputs),
                      profile=profile, block_dim=cores, max_steps=MAX_STEPS)
    wall = time.perf_counter() - start
    out = list(report.outputs.values())[3].reshape(q.shape)  # the 4th argument, O

    def work(lists: list[list[int]]) -> list[int]:
        return [sum(key_tiles(b % query_blocks, seq, block, causal) for b in blocks)
                for blocks in lists]

    scale = max(work(per_core)) / max(work(ran))
    # Busy cycles scale with all the work, the time with the largest core's.
    busy_scale = sum(work(per_core)) / sum(work(ran)) / scale
    error = 0.0
    for b in (b for blocks in ran for b in blocks):
        rows = slice((b % query_blocks) * block[0], min(seq, (b % query_blocks + 1) * block[0]))
        expected = attention_rows(q, k, v, b // query_blocks, rows, causal)
        got = out[0, b // query_blocks, rows].astype(np.float32)
        error = max(error, float(np.max(np.abs(got - expected))))
    us = report.microseconds * scale
    flops = 4.0 * heads * seq * seq * dim * (0.5 if causal else 1.0)
    counts = {kind: sum(1 for name in report.core_cycles if kind in name.split()[-1])
              for kind in ("aic", "aiv")}
    waits = {kind: report.cross_wait_cycles.get(kind, 0) / (report.cycles * count)
             for kind, count in counts.items() if count}
    return {
        "us": us,
        "tflops": flops / (us * 1e6),
        "cube": 100 * report.cube_utilization * busy_scale,
        "vector": 100 * report.vector_utilization * busy_scale,
        "aic_wait": 100 * waits.get("aic", 0.0),
        "aiv_wait": 100 * waits.get("aiv", 0.0),
        "ok": report.ok,
        "error": error,
        "scale": scale,
        "wall": wall,
    }


HEADER = (f"{'profile':<8}{'S':>7} {'mask':<7}{'run':<8}{'us':>11}{'TFLOPS':>8}{'/176':>6}"
          f"{'cube %':>8}{'vec %':>7}{'AIC wait %':>11}{'AIV wait %':>11}{'x':>6}{'ok':>4}"
          f"{'max err':>9}{'sim s':>8}")


def line(profile: str, seq: int, causal: bool, how: str, row: dict[str, float]) -> str:
    return (f"{profile:<8}{seq:>7} {'causal' if causal else 'full':<7}{how:<8}{row['us']:>11.1f}"
            f"{row['tflops']:>8.2f}{row['tflops'] / ASCENDC_TFLOPS:>6.2f}{row['cube']:>8.1f}"
            f"{row['vector']:>7.1f}{row['aic_wait']:>11.1f}{row['aiv_wait']:>11.1f}"
            f"{row['scale']:>6.0f}{'yes' if row['ok'] else 'NO':>4}{row['error']:>9.1e}"
            f"{row['wall']:>8.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seq", type=int, nargs="*", default=DEFAULT_SEQ)
    parser.add_argument("--causal-seq", type=int, nargs="*", default=[DEFAULT_SEQ[-1]])
    parser.add_argument("--exact", action="store_true",
                        help="simulate every query block (hours for S >= 4K)")
    parser.add_argument("--check-sampling", type=int, nargs="*", default=[], metavar="S",
                        help="full simulation and sampled estimate side by side at these S "
                             "(full and causal)")
    parser.add_argument("--heads", type=int, default=12)
    parser.add_argument("--heads-kv", type=int, default=1)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--block", type=int, nargs=2, default=[128, 128])
    parser.add_argument("--causal-block", type=int, nargs=2, default=[128, 128],
                        help="the tiles of the causal cases")
    parser.add_argument("--stages", type=int, default=2,
                        help="num_stages of the key loop (the depth of its pipelining)")
    parser.add_argument("--profiles", nargs="+", default=["910b", "950"])
    args = parser.parse_args()
    blocks = {False: (args.block[0], args.block[1]),
              True: (args.causal_block[0], args.causal_block[1])}
    shapes = {causal: (args.heads, args.heads_kv, args.dim, block, args.stages)
              for causal, block in blocks.items()}
    print(f"flash attention B=1, H={args.heads}, Hkv={args.heads_kv}, D={args.dim}, f16, "
          f"tiles {'x'.join(map(str, blocks[False]))} (causal "
          f"{'x'.join(map(str, blocks[True]))}), {args.stages} stages; AscendC reference "
          f"~{ASCENDC_TFLOPS:.0f} TFLOPS (910B-class, S=32K); run: 'exact' simulates every "
          f"block, 'sampled' one per core and scales the time by x")
    print(HEADER)
    for profile in args.profiles:
        for seq in args.check_sampling:
            for causal in (False, True):
                exact = run(profile, seq, *shapes[causal], causal, sampled=False)
                print(line(profile, seq, causal, "exact", exact), flush=True)
                estimate = run(profile, seq, *shapes[causal], causal, sampled=True)
                print(line(profile, seq, causal, "sampled", estimate)
                      + f"  ({estimate['us'] / exact['us'] - 1:+.1%} vs exact)", flush=True)
        cases = [(s, False) for s in args.seq] + [(s, True) for s in args.causal_seq]
        full_us: dict[int, float] = {}
        for seq, causal in cases:
            row = run(profile, seq, *shapes[causal], causal, sampled=not args.exact)
            ratio = ""
            if causal and seq in full_us:
                ratio = f"  vs full {row['us'] / full_us[seq]:.2f}x the time"
            elif not causal:
                full_us[seq] = row["us"]
            print(line(profile, seq, causal, "exact" if args.exact else "sampled", row) + ratio,
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
