"""The library's FlashMLA and DeepSelect calls against torch on the same data, side by side.

    python benchmarks/kernels_attention.py [--batch 4] [--heads 16] [--seq-k 1024]
        [--topk 2048] [--prefill-tokens 64] [--varlen-mean 256] [--select-batch 4 64]
        [--vocab 129280 1048576] [--select-topk 512 2048] [--rounds 3] [--runs 3]
        [--npu-vocab 8192] [--npu-topk 2048] [--npu-prefill 8 128 4096 512]
        [--npu-decode 128 4096 2048]

On cpu, each row is one op at one shape: the median wall time of tilec's call and of
each torch baseline (the sides take turns in rounds, the warm-up call of each round is
not timed, see `timing.py`), and `speed` = torch time / tilec time, so above 1 tilec is
faster. The baselines:

- dense decode (`flash_mla_with_kvcache`, s_q = 1, h_kv = 1, d = 576 / 512, a 64-token
  paged cache): torch's `scaled_dot_product_attention` on the pages gathered to a dense
  (b, s_k, 576) cache beforehand (untimed). With one KV head the query heads are just
  more query rows (FlashMLA's own arrangement), and V is passed as the whole 576-wide
  row with the first 512 output columns kept: torch's CPU flash kernel needs 4-D
  inputs of one width, and anything else falls back to its much slower math path.
  Also FlashMLA's test reference: FP32 attention per batch over the gathered pages.
- sparse decode (FP8 cache of 656-byte tokens, top-k indices) and sparse prefill
  (`flash_mla_sparse_fwd`): FlashMLA's FP32 references, gathering the chosen tokens
  (the sparse decode one from the dequantized cache, as upstream's test does).
- `flash_attn_varlen_func` (ragged causal and full sequences, d = dv = 128 so that
  torch's flash kernel applies): SDPA once per sequence on views of the packed tensors.
- `deep_select.topk` (bf16 and fp32, unsorted): `torch.topk(sorted=False)` on the same
  1024-byte-aligned rows.

TFLOP/s and GB/s use FlashMLA's tests' counts (decode: Q, the attended KV and O
bytes; prefill: 2 x attended pairs x heads x (d_qk + d_v) flops); for topk, GB/s is
the input read once. `err` is the max abs difference from the FP32 reference.

Then the simulated NPU, per profile: each attention op on tiny data (its simulated
cycles, or why it does not run there: `TargetUnsupported`'s message, or the simulator's
error) and one small bf16 `deep_select.topk`, its cycles and the time they take at the
profile's clock (`tilec.targets.ascend.profiles`). Last, sparse prefill on the simulated
950 at a shape it runs in well under a minute (by default 8 tokens of 128 heads, top-k
512 of 4096 keys: 32 blocks of 32 heads, one per AI core): its time at the 950's clock and
TFLOPS with the count above, next to the published 410 TFLOPS; and sparse FP8 decode on
the simulated 910b at the published shape by default (B=1, 128 heads, top-k 2048 of 4096
keys; about a minute), its time next to the published 98-100 us (AscendC) and 109 us
(TileLang) on A3-class hardware.
The published Ascend figures are for other kernels on real hardware, context only.
Nothing here is asserted.
"""

from __future__ import annotations

import argparse
import math
import random
from collections.abc import Callable

import torch
import torch.nn.functional as F
from timing import median_seconds

from tilec.kernels import TargetUnsupported, deep_select, flash_mla, last_report, use_target
from tilec.sim.diagnostics import SimError

D_QK, D_V, PAGE = 576, 512, 64
ASCEND_950_SPARSE_PREFILL_TFLOPS = 410.0  # the seeds' figure on Ascend 950 (~95% of peak)
FP8_TOKEN = 656  # 512 e4m3 values, 4 float32 scales, 64 bfloat16 RoPE values


def _report(name: str, shape: str, ours: float, theirs: dict[str, float], flop: float = 0,
            nbytes: float = 0, err: float | None = None) -> None:
    rate = (f"  {flop / ours / 1e12:7.4f} TFLOP/s" if flop else "") + \
        (f"  {nbytes / ours / 1e9:6.2f} GB/s" if nbytes else "")
    print(f"cpu  {name:<14} {shape:<34} tilec {ours * 1e3:8.2f} ms{rate}"
          + (f"  err {err:.1e}" if err is not None else ""))
    for other, seconds in theirs.items():
        other_rate = f"  {nbytes / seconds / 1e9:6.2f} GB/s" if nbytes else ""
        print(f"     {'':<14} {'':<34} {other:<5} {seconds * 1e3:8.2f} ms{other_rate}  "
              f"speed tilec/{other} {seconds / ours:.2f}")


def _timed(rounds: int, runs: int, ours: Callable[[], object],
           **theirs: Callable[[], object]) -> tuple[float, dict[str, float]]:
    tilec_s, *other_s = median_seconds(rounds, runs, ours, *theirs.values())
    return tilec_s, dict(zip(theirs, other_s, strict=True))


def _max_err(ans: torch.Tensor, ref: torch.Tensor) -> float:
    return float((ans.float() - ref.float()).abs().max())


# ---- MLA decoding ------------------------------------------------------------------------


def _paged_cache(b: int, s_k: int, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """A (b * s_k / PAGE, PAGE, 1, 576) bf16 cache and its shuffled (b, s_k / PAGE) block
    table, every sequence s_k tokens long (values as upstream: randn / 10, clamped)."""
    pages = b * -(-s_k // PAGE)
    block_table = torch.randperm(pages, generator=gen).to(torch.int32).view(b, -1)
    cache = (torch.randn(pages, PAGE, 1, D_QK, generator=gen) / 10).clamp(-1, 1).bfloat16()
    return cache, block_table


def _gathered(cache: torch.Tensor, block_table: torch.Tensor, s_k: int) -> torch.Tensor:
    """The (b, s_k, 576) cache rows of each sequence, in order."""
    return cache[block_table.long()].view(block_table.shape[0], -1, D_QK)[:, :s_k]


def dense_decode(b: int, h_q: int, s_k: int, rounds: int, runs: int) -> None:
    gen = torch.Generator().manual_seed(0)
    cache, block_table = _paged_cache(b, s_k, gen)
    q = (torch.randn(b, 1, h_q, D_QK, generator=gen) / 10).clamp(-1, 1).bfloat16()
    lens = torch.full((b,), s_k, dtype=torch.int32)
    sched, _ = flash_mla.get_mla_metadata()
    dense_kv = _gathered(cache, block_table, s_k).unsqueeze(1).contiguous()  # (b, 1, s_k, 576)

    def tilec() -> torch.Tensor:
        return flash_mla.flash_mla_with_kvcache(q, cache, block_table, lens, D_V, sched)[0]

    def sdpa() -> torch.Tensor:  # q (b, s_q = 1, h_q, 576) is read as 1 head of h_q rows
        return F.scaled_dot_product_attention(q, dense_kv, dense_kv)[..., :D_V]

    def fp32() -> torch.Tensor:  # FlashMLA's reference_torch, per batch
        out = torch.empty(b, 1, h_q, D_V)
        for i in range(b):
            kv = cache[block_table[i].long()].view(-1, D_QK)[:s_k].float()
            weight = q[i, 0].float() @ kv.T / math.sqrt(D_QK)
            out[i, 0] = torch.softmax(weight, dim=-1) @ kv[:, :D_V]
        return out.bfloat16()

    ref = fp32()
    err = _max_err(tilec(), ref)
    ours, theirs = _timed(rounds, runs, tilec, sdpa=sdpa, fp32=fp32)
    flop = b * h_q * (2 * D_QK * s_k + 2 * s_k * D_V)
    nbytes = b * (h_q * D_QK * 2 + s_k * D_QK * 2 + h_q * D_V * 2)
    _report("dense decode", f"b={b} h_q={h_q} s_k={s_k}", ours, theirs, flop, nbytes, err)
    print(f"     {'':<14} {'':<34} (sdpa err {_max_err(sdpa(), ref):.1e})")


def _quantized(cache: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The cache in FlashMLA's FP8 token layout (per 128 NoPE values a power-of-two
    scale, UE8M0 of absmax / 448; RoPE kept bf16), and its dequantized bf16 values."""
    pages = cache.shape[0]
    rows = cache.view(pages, PAGE, D_QK)
    fp8 = torch.empty(pages, PAGE, FP8_TOKEN, dtype=torch.float8_e4m3fn)
    nope = rows[..., :D_V].float().view(pages, PAGE, 4, 128)
    scale = torch.pow(2, (nope.abs().amax(-1) / 448.0).clamp_min(1e-4).log2().ceil())
    values = (nope / scale.unsqueeze(-1)).to(torch.float8_e4m3fn)
    fp8[..., :D_V] = values.view(pages, PAGE, D_V)
    fp8[..., D_V:D_V + 16].view(torch.float32)[:] = scale
    fp8[..., D_V + 16:].view(torch.bfloat16)[:] = rows[..., D_V:]
    dequant = torch.cat([(values.float() * scale.unsqueeze(-1)).view(pages, PAGE, D_V),
                         rows[..., D_V:].float()], dim=-1).bfloat16()
    return fp8.view(pages, PAGE, 1, FP8_TOKEN), dequant.view(-1, D_QK)


def _sparse_decode_case(b: int, h_q: int, s_k: int, topk: int
                        ) -> tuple[Callable[[], torch.Tensor], Callable[[], torch.Tensor],
                                   torch.Tensor]:
    """tilec's sparse FP8 decode and FlashMLA's FP32 reference on the same random data
    (every index valid), and the indices."""
    gen = torch.Generator().manual_seed(1)
    cache, block_table = _paged_cache(b, s_k, gen)
    fp8, dequant = _quantized(cache)
    q = torch.randn(b, 1, h_q, D_QK, generator=gen).clamp(-1, 1).bfloat16()
    positions = torch.rand(b, s_k, generator=gen).argsort(dim=1)[:, :topk]
    indices = (block_table.long().gather(1, positions // PAGE) * PAGE + positions % PAGE)
    indices = indices.to(torch.int32).view(b, 1, topk)
    scale = D_QK ** -0.5
    sched, _ = flash_mla.get_mla_metadata()

    def tilec() -> torch.Tensor:
        return flash_mla.flash_mla_with_kvcache(q, fp8, None, None, D_V, sched, None, scale,
                                                False, True, indices)[0]

    def fp32() -> torch.Tensor:  # ref_sparse_attn_decode without sinks or topk_length
        kv = dequant.index_select(0, indices.view(-1).long()).view(b, topk, D_QK).float()
        weight = q.float().view(b, h_q, D_QK) @ kv.transpose(1, 2) * scale
        return (torch.softmax(weight, dim=-1) @ kv[..., :D_V]).view(b, 1, h_q, D_V).bfloat16()

    return tilec, fp32, indices


def sparse_decode(b: int, h_q: int, s_k: int, topk: int, rounds: int, runs: int) -> None:
    tilec, fp32, indices = _sparse_decode_case(b, h_q, s_k, topk)
    err = _max_err(tilec(), fp32())
    ours, theirs = _timed(rounds, runs, tilec, fp32=fp32)
    flop = 2 * h_q * b * topk * (D_QK + D_V)
    nbytes = 2 * b * h_q * (D_QK + D_V) + int(indices.unique().numel()) * FP8_TOKEN
    _report("sparse decode", f"b={b} h_q={h_q} s_k={s_k} topk={topk} fp8", ours, theirs, flop,
            nbytes, err)


# ---- prefill -----------------------------------------------------------------------------


def _sparse_prefill_case(s_q: int, h_q: int, s_kv: int, topk: int
                         ) -> tuple[Callable[[], torch.Tensor], Callable[[], torch.Tensor]]:
    """tilec's sparse prefill and FlashMLA's FP32 reference on the same random data."""
    gen = torch.Generator().manual_seed(2)
    q = (torch.randn(s_q, h_q, D_QK, generator=gen) / 10).bfloat16()
    kv = (torch.randn(s_kv, 1, D_QK, generator=gen) / 10).bfloat16()
    indices = torch.rand(s_q, s_kv, generator=gen).argsort(dim=1)[:, :topk]
    indices = indices.to(torch.int32).view(s_q, 1, topk)
    scale = D_QK ** -0.5

    def tilec() -> torch.Tensor:
        return flash_mla.flash_mla_sparse_fwd(q, kv, indices, scale)[0]

    def fp32() -> torch.Tensor:  # ref_sparse_attn_fwd, every index valid
        chosen = kv.view(s_kv, D_QK).index_select(0, indices.view(-1).long())
        chosen = chosen.view(s_q, topk, D_QK).float()
        weight = q.float() @ chosen.transpose(1, 2) * scale
        return torch.softmax(weight, dim=-1) @ chosen[..., :D_V]

    return tilec, fp32


def _sparse_prefill_flop(s_q: int, h_q: int, topk: int) -> int:
    return 2 * s_q * topk * h_q * (D_QK + D_V)


def sparse_prefill(s_q: int, h_q: int, s_kv: int, topk: int, rounds: int, runs: int) -> None:
    tilec, fp32 = _sparse_prefill_case(s_q, h_q, s_kv, topk)
    err = _max_err(tilec(), fp32())
    ours, theirs = _timed(rounds, runs, tilec, fp32=fp32)
    flop = _sparse_prefill_flop(s_q, h_q, topk)
    nbytes = s_q * topk * D_QK * 2 + s_q * h_q * (D_QK + D_V) * 2
    _report("sparse prefill", f"s_q={s_q} h_q={h_q} s_kv={s_kv} topk={topk}", ours, theirs,
            flop, nbytes, err)


def varlen(mean: int, heads: int, causal: bool, rounds: int, runs: int, b: int = 4,
           dim: int = 128) -> None:
    random.seed(3)
    gen = torch.Generator().manual_seed(3)
    lens = [max(int(random.normalvariate(mean, mean / 2)), 1) for _ in range(b)]
    cu = torch.tensor([0, *torch.tensor(lens).cumsum(0).tolist()], dtype=torch.int32)
    total = sum(lens)
    q, k, v = ((torch.randn(total, heads, dim, generator=gen) / 10).bfloat16() for _ in range(3))

    def tilec() -> torch.Tensor:
        return flash_mla.flash_attn_varlen_func(q, k, v, cu, cu, max(lens), max(lens),
                                                causal=causal)[0]

    def sdpa() -> list[torch.Tensor]:
        return [F.scaled_dot_product_attention(*(t[s:e].transpose(0, 1).unsqueeze(0)
                                                 for t in (q, k, v)), is_causal=causal)
                for s, e in zip(cu[:-1].tolist(), cu[1:].tolist(), strict=True)]

    ref = torch.cat([o.squeeze(0).transpose(0, 1) for o in sdpa()])
    err = _max_err(tilec(), ref)
    ours, theirs = _timed(rounds, runs, tilec, sdpa=sdpa)
    pairs = sum(n * (n + 1) // 2 if causal else n * n for n in lens)
    shape = f"{'causal' if causal else 'full'} lens={','.join(map(str, lens))} h={heads}"
    _report("varlen fwd", shape, ours, theirs, pairs * heads * 2 * (dim + dim))
    print(f"     {'':<14} {'':<34} (max abs diff from sdpa {err:.1e})")


# ---- DeepSelect --------------------------------------------------------------------------


def _aligned(rows: int, vocab: int, dtype: torch.dtype, gen: torch.Generator) -> torch.Tensor:
    """(rows, vocab) random values whose row stride meets get_stride_requirement()."""
    per_row = deep_select.get_stride_requirement()[0] // dtype.itemsize
    x = torch.empty(rows, -(-vocab // per_row) * per_row, dtype=dtype)[:, :vocab]
    x.copy_(torch.randn(rows, vocab, generator=gen))
    return x


def select(batches: list[int], vocabs: list[int], topks: list[int], rounds: int,
           runs: int) -> None:
    gen = torch.Generator().manual_seed(4)
    for b in batches:
        for vocab in vocabs:
            for dtype in (torch.bfloat16, torch.float32):
                x = _aligned(b, vocab, dtype, gen)
                for k in topks:
                    ours, theirs = _timed(
                        rounds, runs, lambda x=x, k=k: deep_select.topk(x, k),
                        torch=lambda x=x, k=k: torch.topk(x, k, sorted=False))
                    name = str(dtype).removeprefix("torch.")
                    _report("topk", f"{name} b={b} vocab={vocab} k={k}", ours, theirs,
                            nbytes=x.numel() * x.element_size())


# ---- the simulated NPU -------------------------------------------------------------------


def _attention_calls() -> dict[str, Callable[[], object]]:
    """The four attention ops on tiny data (they stop at compilation on ascend)."""
    gen = torch.Generator().manual_seed(5)
    cache, block_table = _paged_cache(1, PAGE, gen)
    q = torch.randn(1, 1, 16, D_QK, generator=gen).bfloat16()
    lens = torch.full((1,), PAGE, dtype=torch.int32)
    indices = torch.arange(PAGE, dtype=torch.int32).view(1, 1, PAGE)
    fp8, _ = _quantized(cache)
    rows = torch.randn(PAGE, 16, 128, generator=gen).bfloat16()
    cu = torch.tensor([0, PAGE], dtype=torch.int32)
    return {
        "dense decode": lambda: flash_mla.flash_mla_with_kvcache(
            q, cache, block_table, lens, D_V, flash_mla.get_mla_metadata()[0]),
        "sparse decode": lambda: flash_mla.flash_mla_with_kvcache(
            q, fp8, None, None, D_V, flash_mla.get_mla_metadata()[0], None, None, False, True,
            indices),
        "sparse prefill": lambda: flash_mla.flash_mla_sparse_fwd(
            q.view(1, 16, D_QK), cache.view(PAGE, 1, D_QK), indices, D_QK ** -0.5),
        "varlen fwd": lambda: flash_mla.flash_attn_varlen_func(rows, rows, rows, cu, cu, PAGE,
                                                               PAGE, causal=True),
    }


def npu_sparse_prefill(s_q: int, h_q: int, s_kv: int, topk: int) -> None:
    """`flash_mla_sparse_fwd` on the simulated 950: its cycles at the profile's clock, and
    TFLOPS with FlashMLA's flop count, next to the published figure."""
    tilec, fp32 = _sparse_prefill_case(s_q, h_q, s_kv, topk)
    with use_target("ascend:950"):
        err = _max_err(tilec(), fp32())
    sim = last_report()[-1].sim
    tflops = _sparse_prefill_flop(s_q, h_q, topk) / sim.microseconds / 1e6
    busy = ", ".join(f"{pipe} {share:.0%}" for pipe, share in sim.pipe_utilization.items())
    print(f"950  sparse prefill s_q={s_q} h_q={h_q} s_kv={s_kv} topk={topk}: {sim.cycles} "
          f"cycles = {sim.microseconds:.1f} us at {sim.profile.clock_ghz} GHz, "
          f"{tflops:.2f} TFLOPS (published: {ASCEND_950_SPARSE_PREFILL_TFLOPS:.0f} TFLOPS, "
          f"ratio {tflops / ASCEND_950_SPARSE_PREFILL_TFLOPS:.3f}); err {err:.1e}; "
          f"pipes busy {busy}")


def npu_sparse_decode(h_q: int, s_k: int, topk: int) -> None:
    """`flash_mla_with_kvcache`'s sparse FP8 decode (B = 1, one query token) on the
    simulated 910b: the cycles of its split kernel and the time of all its launches at
    the profile's clock, next to the published A3 figure for B=1, 128 heads, top-k 2048
    (also per key, for other top-k)."""
    tilec, fp32 = _sparse_decode_case(1, h_q, s_k, topk)[:2]
    with use_target("ascend:910b"):
        err = _max_err(tilec(), fp32())
    sims = [launch.sim for launch in last_report()]
    split = next(launch.sim for launch in last_report()
                 if launch.kernel == "flash_mla_sparse_fp8_split")
    us = sum(sim.microseconds for sim in sims)
    busy = ", ".join(f"{pipe} {share:.0%}" for pipe, share in split.pipe_utilization.items())
    print(f"910b sparse decode b=1 h_q={h_q} s_k={s_k} topk={topk}: split {split.cycles} "
          f"cycles, all launches {us:.1f} us at {split.profile.clock_ghz} GHz "
          f"({us / topk * 1e3:.1f} ns a key; published for h_q=128 topk=2048 on A3: "
          f"98-100 us AscendC = {99e3 / 2048:.0f} ns a key, 109 us TileLang); err "
          f"{err:.1e}; split pipes busy {busy}")


def npu(vocab: int, topk: int) -> None:
    calls = _attention_calls()
    gen = torch.Generator().manual_seed(6)
    for profile in ("ascend:950", "ascend:910b"):
        name = profile.removeprefix("ascend:")
        with use_target(profile):
            for op, call in calls.items():
                try:
                    call()
                    cycles = sum(launch.sim.cycles for launch in last_report())
                    print(f"{name:<5}{op:<15} runs: {cycles} cycles")
                except (TargetUnsupported, SimError) as exc:
                    print(f"{name:<5}{op:<15} {type(exc).__name__}: {exc}")
            x = _aligned(1, vocab, torch.bfloat16, gen)
            deep_select.topk(x, topk, indices_type=torch.int32)
            sim = last_report()[0].sim
            print(f"{name:<5}{'topk':<15} bf16 b=1 vocab={vocab} k={topk}: {sim.cycles} cycles "
                  f"= {sim.microseconds:.1f} us at {sim.profile.clock_ghz} GHz "
                  f"({vocab * 2 / sim.microseconds / 1e3:.3f} GB/s of input)")
    print("published, for context only (other kernels on other hardware, not comparable): "
          f"sparse prefill {ASCEND_950_SPARSE_PREFILL_TFLOPS:.0f} TFLOPS on Ascend 950 (~95% "
          "of peak); sparse decode B=1, 128 heads, D=512+64, top-k 2048 on A3-class hardware "
          "98-100 us (AscendC), 109 us (TileLang)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=4, help="decode batch")
    parser.add_argument("--heads", type=int, nargs="+", default=[16], help="MLA h_q (16..128)")
    parser.add_argument("--seq-k", type=int, default=1024, help="decode KV tokens per sequence")
    parser.add_argument("--sparse-seq-k", type=int, default=4096,
                        help="sparse decode / prefill KV tokens")
    parser.add_argument("--topk", type=int, default=2048, help="sparse decode / prefill top-k")
    parser.add_argument("--prefill-tokens", type=int, default=64, help="sparse prefill s_q")
    parser.add_argument("--varlen-mean", type=int, default=256, help="mean varlen length")
    parser.add_argument("--varlen-heads", type=int, default=16)
    parser.add_argument("--select-batch", type=int, nargs="+", default=[4, 64])
    parser.add_argument("--vocab", type=int, nargs="+", default=[129280, 1 << 20])
    parser.add_argument("--select-topk", type=int, nargs="+", default=[512, 2048])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--npu-vocab", type=int, default=8192, help="simulated topk vocab")
    parser.add_argument("--npu-topk", type=int, default=2048, help="simulated topk k")
    parser.add_argument("--npu-prefill", type=int, nargs=4, default=[8, 128, 4096, 512],
                        metavar=("S_Q", "H_Q", "S_KV", "TOPK"),
                        help="the simulated 950's sparse prefill shape")
    parser.add_argument("--npu-decode", type=int, nargs=3, default=[128, 4096, 2048],
                        metavar=("H_Q", "S_K", "TOPK"),
                        help="the simulated 910b's sparse decode shape (B=1)")
    args = parser.parse_args()
    rounds, runs = args.rounds, args.runs
    for h_q in args.heads:
        dense_decode(args.batch, h_q, args.seq_k, rounds, runs)
        sparse_decode(args.batch, h_q, args.sparse_seq_k, args.topk, rounds, runs)
        sparse_prefill(args.prefill_tokens, h_q, args.sparse_seq_k, args.topk, rounds, runs)
    for causal in (True, False):
        varlen(args.varlen_mean, args.varlen_heads, causal, rounds, runs)
    select(args.select_batch, args.vocab, args.select_topk, rounds, runs)
    npu(args.npu_vocab, args.npu_topk)
    npu_sparse_prefill(*args.npu_prefill)
    npu_sparse_decode(*args.npu_decode)


if __name__ == "__main__":
    main()
