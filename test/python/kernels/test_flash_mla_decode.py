"""tilec.kernels.flash_mla decoding against FlashMLA's own oracles (tests/
test_flash_mla_dense_decoding.py, test_flash_mla_sparse_decoding.py, ref.py, quant.py,
kernelkit/compare.py), restated here: an FP32 torch reference, the KV past every
sequence (and every unused sparse token) poisoned with NaN so an over-read shows, and
upstream's tolerance check (per element abs OR rel, a cosine bound, inf/nan at the same
places). Shapes are upstream's grid shrunk for a small CPU. A few run on the Ascend
simulator (both profiles) as mix kernels: Q and the paged dense keys are DMAed row by row
into the cube's tiles; the sparse FP8 keys' parts are DMAed row by row into the vector
cores' UB, dequantized there by whole-tile vector code and handed up."""

from __future__ import annotations

import math
import random
import re

import pytest
import torch

import tilec
from tilec.kernels import flash_mla
from tilec.kernels.flash_mla import decode_kernels, metadata
from tilec.kernels.targets import last_report, use_target


def check_is_allclose(name: str, ans: torch.Tensor, ref: torch.Tensor, abs_tol: float,
                      rel_tol: float, cos_diff_tol: float = 1e-7) -> None:
    """kernelkit's check: anomalies (inf, -inf, nan) must coincide, then every element is
    within abs_tol or rel_tol, and the cosine difference within cos_diff_tol."""
    assert ans.shape == ref.shape and ans.dtype == ref.dtype, name
    ans, ref = ans.float().clone(), ref.float().clone()
    for val in (math.inf, -math.inf, math.nan):
        ref_mask = ref.isnan() if math.isnan(val) else ref == val
        ans_mask = ans.isnan() if math.isnan(val) else ans == val
        assert torch.equal(ref_mask, ans_mask), f"{name}: {val} at other places"
        ref[ref_mask], ans[ans_mask] = 0.0, 0.0
    a, r = ans.double(), ref.double()
    cos_diff = 0.0 if (r * r).sum() < 1e-12 else 1 - 2 * (a * r).sum() / (a * a + r * r).sum()
    abs_err = (ans - ref).abs()
    rel_err = abs_err / (ref.abs() + 1e-6)
    passed = (abs_err < abs_tol) | (rel_err < rel_tol)
    assert passed.all(), (f"{name}: {(~passed).sum()} of {passed.numel()} off, max abs err "
                          f"{abs_err.max()}")
    assert abs(cos_diff) <= cos_diff_tol, f"{name}: cosine diff {cos_diff}"


# --- dense ---------------------------------------------------------------------------------

def dense_case(b: int, s_q: int, s_k: int, h_q: int, h_kv: int, varlen: bool,
               zero_seqlen: bool = False, block_size: int = 64, seed: int = 0):
    """upstream's generate_test_data: lengths ~ normal(s_k, s_k / 2) (at least s_q) when
    varlen, shuffled pages, NaN in every page slot past a sequence's length."""
    random.seed(seed)
    torch.manual_seed(seed)
    lens = torch.full((b,), s_k, dtype=torch.int32)
    if varlen:
        for i in range(b):
            lens[i] = max(random.normalvariate(s_k, s_k / 2), s_q)
    if zero_seqlen:
        lens[torch.randn(b) > 0] = 0
    pad = -(-int(lens.max()) // 256) * 256
    block_table = torch.randperm(b * pad // block_size).to(torch.int32).view(b, -1)
    blocked_k = (torch.randn(block_table.numel(), block_size, h_kv, 576) / 10).clamp(-1, 1)
    blocked_k = blocked_k.bfloat16()
    for i in range(b):
        n, used = int(lens[i]), -(-int(lens[i]) // block_size)
        blocked_k[block_table[i][used:].long()] = float("nan")
        if n % block_size:
            blocked_k[block_table[i][used - 1].long(), n % block_size:] = float("nan")
        block_table[i][used:] = 2147480000
    q = (torch.randn(b, s_q, h_q, 576) / 10).clamp(-1, 1).bfloat16()
    return lens, q, block_table, blocked_k


def dense_reference(lens, block_table, q, blocked_k, causal: bool):
    """upstream's reference_torch: FP32 attention per batch over the first lens[i] tokens;
    lse natural-log, +inf (and a zero output) where no key is visible."""
    b, s_q, h_q, d = q.shape
    block_size, h_kv = blocked_k.shape[1], blocked_k.shape[2]
    out = torch.empty(b, s_q, h_q, 512)
    lse = torch.empty(b, h_q, s_q)
    for i in range(b):
        n = int(lens[i])
        pages = block_table[i][: -(-n // block_size)].long()
        kv = blocked_k[pages].view(-1, h_kv, d)[:n].transpose(0, 1).float()
        kv = kv.repeat_interleave(h_q // h_kv, dim=0)
        query = q[i].transpose(0, 1).float()
        weight = query @ kv.transpose(-2, -1)
        if causal and s_q > 1:
            visible = torch.ones(s_q, n, dtype=torch.bool).tril(diagonal=n - s_q)
            weight = weight.masked_fill(~visible, float("-inf"))
        weight /= math.sqrt(d)
        row_lse = weight.logsumexp(dim=-1)
        o = torch.softmax(weight, dim=-1) @ kv[..., :512]
        lonely = row_lse == float("-inf")
        o[lonely] = 0.0
        row_lse[lonely] = float("inf")
        out[i], lse[i] = o.transpose(0, 1), row_lse
    return out.bfloat16(), lse


def run_dense(case, causal: bool):
    lens, q, block_table, blocked_k = case
    sched, splits = flash_mla.get_mla_metadata()
    out, lse = flash_mla.flash_mla_with_kvcache(q, blocked_k, block_table, lens, 512, sched,
                                                splits, causal=causal)
    ref_out, ref_lse = dense_reference(lens, block_table, q, blocked_k, causal)
    check_is_allclose("out", out, ref_out, 8e-4, 2.01 / 128, 5e-6)
    check_is_allclose("lse", lse, ref_lse, 1e-6, 8.01 / 65536)
    return out, lse, sched


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("varlen", [False, True])
@pytest.mark.parametrize("h_q", [1, 3, 16])
@pytest.mark.parametrize("s_k", [20, 140])
@pytest.mark.parametrize(("b", "s_q"), [(1, 1), (2, 2)])
def test_dense_decode(b, s_q, s_k, h_q, varlen, causal):
    run_dense(dense_case(b, s_q, s_k, h_q, 1, varlen, seed=s_k + h_q), causal)


def test_dense_layouts_and_reuse():
    """upstream's strides (h_k 1: lse is the (b, s_q, h_q) buffer transposed), and a
    sched_meta reused for new data of the same shapes gives the same plan."""
    case = dense_case(2, 2, 140, 16, 1, True)
    out, lse, sched = run_dense(case, True)
    assert out.is_contiguous() and lse.stride() == (32, 1, 16)
    plan = sched.tile_scheduler_metadata.clone()
    lens, q, block_table, blocked_k = case
    q2 = (torch.randn_like(q.float()) / 10).bfloat16()
    out2, lse2 = flash_mla.flash_mla_with_kvcache(q2, blocked_k, block_table, lens, 512, sched,
                                                  causal=True)
    ref_out, ref_lse = dense_reference(lens, block_table, q2, blocked_k, True)
    check_is_allclose("out", out2, ref_out, 8e-4, 2.01 / 128, 5e-6)
    check_is_allclose("lse", lse2, ref_lse, 1e-6, 8.01 / 65536)
    assert torch.equal(sched.tile_scheduler_metadata, plan)
    with pytest.raises(AssertionError, match=r"sched_meta\.config\.causal"):
        flash_mla.flash_mla_with_kvcache(q2, blocked_k, block_table, lens, 512, sched)


@pytest.mark.parametrize("h_kv", [2, 3])
def test_dense_grouped_kv_heads(h_kv):
    """h_kv > 1 (GQA over MLA): each KV head's query group is one tile; lse contiguous."""
    _, lse, _ = run_dense(dense_case(2, 2, 140, 6, h_kv, True), True)
    assert lse.is_contiguous()


def test_dense_many_splits(monkeypatch):
    """With many workers the scheduler cuts sequences into several splits, which the
    combine kernel merges; a zero-length sequence gives +inf lse and zeros."""
    monkeypatch.setattr(metadata, "worker_count", lambda target: 64)
    case = dense_case(4, 2, 140, 3, 1, True, zero_seqlen=True, seed=3)
    assert (case[0] == 0).any() and (case[0] > 64).any()
    _, _, sched = run_dense(case, True)
    splits = sched.tile_scheduler_metadata[:, 0]
    assert (splits > 1).any() and sched.num_splits.tolist() == splits.tolist()


def test_dense_page_size_and_the_old_interface():
    """A page size other than upstream's 64, and the legacy get_mla_metadata arguments."""
    lens, q, block_table, blocked_k = dense_case(2, 1, 140, 3, 1, True, block_size=16)
    sched, splits = flash_mla.get_mla_metadata(lens, 3, 1)
    assert splits is None and not sched.have_initialized
    out, lse = flash_mla.flash_mla_with_kvcache(q, blocked_k, block_table, lens, 512, sched,
                                                splits)
    ref_out, ref_lse = dense_reference(lens, block_table, q, blocked_k, False)
    check_is_allclose("out", out, ref_out, 8e-4, 2.01 / 128, 5e-6)
    check_is_allclose("lse", lse, ref_lse, 1e-6, 8.01 / 65536)


@pytest.mark.slow
def test_dense_long_sequence():
    run_dense(dense_case(2, 2, 1000, 16, 1, True), True)


def test_dense_errors():
    lens, q, block_table, blocked_k = dense_case(1, 1, 20, 1, 1, False)
    with pytest.raises(AssertionError, match="num_splits must be None"):
        flash_mla.flash_mla_with_kvcache(q, blocked_k, block_table, lens, 512,
                                         flash_mla.get_mla_metadata()[0], lens)
    with pytest.raises(AssertionError, match="must be None when dense attention is used"):
        flash_mla.flash_mla_with_kvcache(q, blocked_k, block_table, lens, 512,
                                         flash_mla.get_mla_metadata()[0],
                                         attn_sink=torch.zeros(1))
    with pytest.raises(RuntimeError, match="query and key must have the same dtype"):
        flash_mla.flash_mla_with_kvcache(q, blocked_k.half(), block_table, lens, 512,
                                         flash_mla.get_mla_metadata()[0])
    with pytest.raises(RuntimeError, match="head_size_v == 512"):
        flash_mla.flash_mla_with_kvcache(q, blocked_k, block_table, lens, 576,
                                         flash_mla.get_mla_metadata()[0])


# --- sparse FP8 ----------------------------------------------------------------------------

def quantize_k_cache(k: torch.Tensor) -> torch.Tensor:
    """quant.py's V32 layout: per token 512 e4m3 values (a power-of-two scale per 128,
    UE8M0 of absmax / 448), the 4 float32 scales, the 64 bfloat16 RoPE values; blocks
    padded by one token (a block stride that is not page * 656)."""
    num_blocks, block_size, _, _ = k.shape
    k = k.squeeze(2)
    result = torch.empty(num_blocks, block_size + 1, 656, dtype=torch.float8_e4m3fn)
    result = result[:, :block_size]
    result[..., 528:].view(torch.bfloat16)[:] = k[..., 512:]
    for tile in range(4):
        part = k[..., tile * 128:(tile + 1) * 128].float()
        scale = part.abs().max(dim=-1).values / 448.0
        scale = torch.pow(2, scale.clamp_min(1e-4).log2().ceil())
        result[..., 512:528].view(torch.float32)[..., tile] = scale
        result[..., tile * 128:(tile + 1) * 128] = (part / scale.unsqueeze(-1)).to(
            torch.float8_e4m3fn)
    return result.view(num_blocks, block_size, 1, 656)


def dequantize_k_cache(quant: torch.Tensor) -> torch.Tensor:
    num_blocks, block_size = quant.shape[:2]
    quant = quant.view(num_blocks, block_size, 656)
    result = torch.empty(num_blocks, block_size, 576, dtype=torch.bfloat16)
    result[..., 512:] = quant[..., 528:].view(torch.bfloat16)
    scales = quant[..., 512:528].view(torch.float32)
    for tile in range(4):
        result[..., tile * 128:(tile + 1) * 128] = (
            quant[..., tile * 128:(tile + 1) * 128].float() * scales[..., tile:tile + 1])
    return result.view(num_blocks, block_size, 1, 576)


def _ue8m0_scales(part: torch.Tensor) -> torch.Tensor:
    """quant.py's scale of a tile: the power of two at or above absmax / 448."""
    scale = part.float().abs().max(dim=-1).values / 448.0
    return torch.pow(2, scale.clamp_min(1e-4).log2().ceil())


def quantize_model1(k: torch.Tensor) -> torch.Tensor:
    """quant.py's MODEL1 layout: a page holds its tokens' 448 e4m3 values and 64
    bfloat16 RoPE values (576 bytes each), then 8 bytes a token (7 UE8M0 scales, one per
    64 values, and a pad byte), the page padded to a multiple of 576 bytes; seen as
    (num_blocks, page, 1, 584) with the page's stride."""
    num_blocks, page = k.shape[:2]
    k = k.squeeze(2)
    stride = -(-page * 584 // 576) * 576
    raw = torch.zeros(num_blocks, stride, dtype=torch.uint8)
    records = raw[:, :page * 576].view(num_blocks, page, 576)
    records[..., 448:].view(torch.bfloat16)[:] = k[..., 448:]
    scales = raw[:, page * 576:page * 584].view(num_blocks, page, 8)
    for tile in range(7):
        part = k[..., tile * 64:(tile + 1) * 64]
        scale = _ue8m0_scales(part)
        scales[..., tile] = scale.log2().to(torch.int32).add(127).to(torch.uint8)
        records[..., tile * 64:(tile + 1) * 64] = (part.float() / scale.unsqueeze(-1)).to(
            torch.float8_e4m3fn).view(torch.uint8)
    return raw.view(torch.float8_e4m3fn).as_strided((num_blocks, page, 1, 584),
                                                    (stride, 584, 584, 1))


def dequantize_model1(quant: torch.Tensor) -> torch.Tensor:
    num_blocks, page = quant.shape[:2]
    raw = quant.as_strided((num_blocks, quant.stride(0)), (quant.stride(0), 1)).view(torch.uint8)
    records = raw[:, :page * 576].reshape(num_blocks, page, 576)
    scales = torch.pow(2.0, raw[:, page * 576:page * 584].reshape(num_blocks, page, 8).float()
                       - 127)
    result = torch.empty(num_blocks, page, 512, dtype=torch.bfloat16)
    result[..., 448:] = records[..., 448:].contiguous().view(torch.bfloat16)
    for tile in range(7):
        values = records[..., tile * 64:(tile + 1) * 64].contiguous().view(torch.float8_e4m3fn)
        result[..., tile * 64:(tile + 1) * 64] = values.float() * scales[..., tile:tile + 1]
    return result.view(num_blocks, page, 1, 512)


def sparse_scope(b: int, s_q: int, s_k: int, topk: int, block_size: int,
                 with_topk_length: bool, d: int = 576):
    """One cache of lib.generate_testcase_for_decode for V3.2 (d 576) or MODEL1 (d 512):
    varlen lengths, per query token a random choice of topk of its sequence's positions
    (-1 once they run out), indices in cache coordinates through a shuffled block table,
    NaN in every unused token before quantization. Returns (quantized, dequantized,
    indices, topk_length)."""
    lens = torch.tensor([max(int(random.normalvariate(s_k, s_k / 2)), s_q) for _ in range(b)])
    pad = -(-int(lens.max()) // (4 * block_size)) * 4 * block_size
    block_table = torch.randperm(b * pad // block_size).view(b, -1)
    blocked_k = (torch.randn(block_table.numel(), block_size, 1, d) / 10).clamp(-1, 1)
    rand = torch.rand(b, s_q, max(pad, topk))
    rand.masked_fill_(torch.arange(max(pad, topk)).view(1, 1, -1) >= lens.view(b, 1, 1),
                      float("-inf"))
    positions = rand.topk(topk, dim=-1).indices
    invalid = positions >= lens.view(b, 1, 1)
    positions[invalid] = 0
    indices = (block_table.gather(1, (positions // block_size).view(b, -1)).view(b, s_q, topk)
               * block_size + positions % block_size)
    indices[invalid] = -1
    topk_length = torch.randint(0, topk + 1, (b,), dtype=torch.int32) if with_topk_length \
        else None
    used = indices.clone()
    if topk_length is not None:
        used.masked_fill_(torch.arange(topk).view(1, 1, -1) >= topk_length.view(b, 1, 1), -1)
    unused = torch.ones(blocked_k.shape[0] * block_size, dtype=torch.bool)
    unused[used[used >= 0]] = False
    blocked_k.view(-1, d)[unused] = float("nan")
    quantize, dequantize = ((quantize_k_cache, dequantize_k_cache) if d == 576
                            else (quantize_model1, dequantize_model1))
    quant = quantize(blocked_k.bfloat16())
    return quant, dequantize(quant), indices.to(torch.int32), topk_length


def sparse_case(b: int, s_q: int, h_q: int, s_k: int, topk: int, block_size: int,
                with_sink: bool, with_topk_length: bool, seed: int = 0, d: int = 576):
    """A cache (`sparse_scope`), sinks with some +-inf, and a non-contiguous q."""
    random.seed(seed)
    torch.manual_seed(seed)
    quant, dequant, indices, topk_length = sparse_scope(b, s_q, s_k, topk, block_size,
                                                        with_topk_length, d)
    sink = None
    if with_sink:
        sink = torch.randn(h_q)
        which = torch.randn(h_q)
        sink[which > 0.5], sink[which < -0.5] = float("inf"), float("-inf")
    q = torch.empty(b, s_q + 1, h_q, 600, dtype=torch.bfloat16)[:, :s_q, :, :d]
    q[:] = torch.randn(b, s_q, h_q, d).clamp(-1, 1)
    return q, quant, dequant, indices, topk_length, sink


def sparse_reference(q, scopes, sink, sm_scale):
    """ref.ref_sparse_attn_decode: FP32 attention over the tokens gathered (dequantized)
    from every scope (dequantized cache, indices, topk_length), invalid slots (-1 or past
    topk_length) masked; the sink scales only the output."""
    b, s_q, h_q, d = q.shape
    gathered, masks = [], []
    for blocked_k, indices, topk_length in scopes:
        topk = indices.shape[-1]
        kv = blocked_k.reshape(-1, d).index_select(0, indices.clamp_min(0).view(-1).long())
        gathered.append(kv.view(b * s_q, topk, d).float())
        invalid = indices == -1
        if topk_length is not None:
            invalid |= torch.arange(topk).view(1, 1, -1) >= topk_length.view(b, 1, 1).long()
        masks.append(invalid.view(b * s_q, 1, topk))
    kv, invalid = torch.cat(gathered, dim=1), torch.cat(masks, dim=2)
    kv[kv != kv] = 0.0
    weight = q.float().reshape(b * s_q, h_q, d) @ kv.transpose(-1, -2) * sm_scale
    weight[invalid.expand_as(weight)] = float("-inf")
    lse = weight.logsumexp(dim=-1)
    out = (torch.exp(weight - lse.unsqueeze(-1)) @ kv[..., :512]).view(b, s_q, h_q, 512)
    lse = lse.view(b, s_q, h_q)
    if sink is not None:
        out *= (1.0 / (1.0 + torch.exp(sink.view(1, 1, h_q) - lse))).unsqueeze(-1)
    lonely = lse == float("-inf")
    out[lonely] = 0.0
    lse[lonely] = float("inf")
    return out.bfloat16(), lse.transpose(1, 2)


def run_sparse(b, s_q, h_q, s_k, topk, block_size, with_sink, with_topk_length, seed=0,
               d=576, extra=None, calls=1):
    """A sparse decode against the reference; `extra` = (s_k, topk, block_size,
    with_topk_length) adds an extra_k_cache of the same format; calls after the first
    reuse the plans in the sched_meta."""
    q, quant, dequant, indices, topk_length, sink = sparse_case(
        b, s_q, h_q, s_k, topk, block_size, with_sink, with_topk_length, seed, d)
    scopes = [(dequant, indices, topk_length)]
    extra_args = {}
    if extra is not None:
        extra_quant, extra_dequant, extra_indices, extra_length = sparse_scope(
            b, s_q, *extra, d)
        scopes.append((extra_dequant, extra_indices, extra_length))
        extra_args = {"extra_k_cache": extra_quant, "extra_indices_in_kvcache": extra_indices,
                      "extra_topk_length": extra_length}
    sm_scale = d ** -0.55
    sched, _ = flash_mla.get_mla_metadata()
    for _ in range(calls):
        out, lse = flash_mla.flash_mla_with_kvcache(
            q, quant, None, None, 512, sched, None, sm_scale, False, True, indices, sink,
            topk_length=topk_length, **extra_args)
        ref_out, ref_lse = sparse_reference(q, scopes, sink, sm_scale)
        check_is_allclose("out", out, ref_out, 1e-3, 2.01 / 128, 5e-6)
        check_is_allclose("lse", lse, ref_lse, 1e-6, 8.01 / 65536)
        assert lse.stride() == (s_q * h_q, 1, h_q)


@pytest.mark.parametrize(("s_k", "topk", "block_size"),
                         [(100, 64, 2), (100, 64, 61), (60, 96, 64), (150, 128, 61)])
@pytest.mark.parametrize("s_q", [1, 2])
def test_sparse_decode(s_k, topk, block_size, s_q):
    run_sparse(2, s_q, 16, s_k, topk, block_size, False, False, seed=s_k + block_size)


@pytest.mark.parametrize("h_q", [3, 64])
def test_sparse_sink_and_topk_length(h_q, monkeypatch):
    monkeypatch.setattr(metadata, "worker_count", lambda target: 64)
    run_sparse(3, 2, h_q, 300, 256, 64, True, True, seed=h_q)


@pytest.mark.parametrize(("s_q", "s_k", "topk", "block_size", "sink_and_lengths"),
                         [(1, 100, 64, 61, False), (2, 60, 96, 64, True)])
def test_sparse_model1(s_q, s_k, topk, block_size, sink_and_lengths):
    """MODEL1's cache: 512-wide q and K, UE8M0 scales per 64 values after a page's
    records, pages padded to 576 bytes."""
    run_sparse(2, s_q, 5, s_k, topk, block_size, sink_and_lengths, sink_and_lengths,
               seed=s_k + topk, d=512)


@pytest.mark.parametrize(("d", "extra"), [(576, (40, 48, 2, True)), (512, (70, 32, 64, False))])
def test_sparse_extra_k_cache(d, extra):
    """A second cache (other pages, top-k and lengths) whose tokens are attended with the
    first's: one softmax over both, the plans kept for a second call."""
    run_sparse(2, 2, 3, 100, 64, 61, True, True, seed=d, d=d, extra=extra, calls=2)


def test_sparse_errors():
    q, quant, _, indices, _, _ = sparse_case(1, 1, 16, 40, 64, 64, False, False)
    with pytest.raises(AssertionError, match="causal must be False"):
        flash_mla.flash_mla_with_kvcache(q, quant, None, None, 512,
                                         flash_mla.get_mla_metadata()[0], causal=True,
                                         is_fp8_kvcache=True, indices=indices)
    with pytest.raises(AssertionError, match="is_fp8_kvcache must be True"):
        flash_mla.flash_mla_with_kvcache(q, quant, None, None, 512,
                                         flash_mla.get_mla_metadata()[0], indices=indices)
    sparse = {"is_fp8_kvcache": True, "indices": indices}
    with pytest.raises(RuntimeError, match="extra_indices_in_kvcache must not be provided"):
        flash_mla.flash_mla_with_kvcache(q, quant, None, None, 512,
                                         flash_mla.get_mla_metadata()[0],
                                         extra_indices_in_kvcache=indices, **sparse)
    with pytest.raises(RuntimeError, match="extra_indices_in_kvcache must be provided"):
        flash_mla.flash_mla_with_kvcache(q, quant, None, None, 512,
                                         flash_mla.get_mla_metadata()[0],
                                         extra_k_cache=quant, **sparse)
    with pytest.raises(RuntimeError, match=r"kv cache must have shape \(.*, 1, 584\)"):
        flash_mla.flash_mla_with_kvcache(q[..., :512], quant, None, None, 512,
                                         flash_mla.get_mla_metadata()[0], **sparse)
    with pytest.raises(RuntimeError, match="head_size_k == 576 or 512"):
        flash_mla.flash_mla_with_kvcache(q[..., :500], quant, None, None, 512,
                                         flash_mla.get_mla_metadata()[0], **sparse)


@pytest.mark.parametrize("target", ["ascend:910b", "ascend:950"])
def test_dense_decode_on_the_ascend_simulator(target):
    """Ragged lengths over a NaN-poisoned paged cache, MTP (s_q = 2) causal, 3 heads."""
    with use_target(target):
        run_dense(dense_case(2, 2, 70, 3, 1, True, seed=5), True)
    assert [launch.target for launch in last_report()] == [target] * 3


@pytest.mark.parametrize("target", ["ascend:910b", "ascend:950"])
def test_sparse_decode_on_the_ascend_simulator(target):
    """The FP8 cache with scales, invalid indices, a sink and topk_length. The gather is
    DMAs and vector code: 17K cycles on the 910b where element-wise scalar code took
    3.5M (the bound leaves the cost model room)."""
    with use_target(target):
        run_sparse(1, 1, 16, 100, 32, 61, True, True, seed=3)
    split = last_report()[1]
    assert split.kernel == "flash_mla_sparse_fp8_split"
    assert split.sim.cycles < 200_000


@pytest.mark.parametrize("profile", ["910b", "950"])
def test_sparse_gather_is_row_dmas(profile):
    """On both profiles each gathered token's 512 e4m3 values, 4 scales and 64 RoPE
    values are one DMA each into the vector cores' UB (the values' and RoPE rows
    copied by the AIV that holds them, 8 of 16 each), decoded there by whole-tile
    vector code; the only scalar reads of global memory left are int32 lengths and
    plans, none of the cache."""
    kernel = tilec.compile(decode_kernels.sparse_fp8_split(16, True, 16, staged=True),
                           target="ascend", profile=profile)
    ir = kernel.ir("ascend")
    for part, width, tile in (("f8E4M3FN", 512, "8x512"), ("f32", 4, "16x8"),
                              ("bf16", 64, "8x64")):
        assert re.search(rf"ascend\.copy .* sizes \[1, {width}\] : memref<1x\?x{part}, "
                         rf"#ascend\.mem<gm>>, memref<{tile}x{part}, #ascend\.mem<ub>>", ir), part
    scalar_reads = re.findall(r"memref\.load .*: (memref<[^>]*#ascend\.mem<gm>>)", ir)
    assert scalar_reads and all("xi32," in read for read in scalar_reads), set(scalar_reads)


@pytest.mark.slow
def test_sparse_model1_with_extra_cache_on_the_950():
    """MODEL1's cache and an extra one, merged by one combine, in the simulator."""
    with use_target("ascend:950"):
        run_sparse(1, 1, 3, 40, 16, 61, True, True, seed=4, d=512, extra=(20, 16, 2, False))
    assert [launch.kernel for launch in last_report()] == [
        "flash_mla_schedule", "flash_mla_sparse_fp8_split", "flash_mla_schedule",
        "flash_mla_sparse_fp8_split", "flash_mla_combine"]
