"""`tilec.kernels.flash_mla` prefill against FlashMLA's own oracles (9241ae3): the FP32
torch references of tests/ref.py (`ref_sparse_attn_fwd`) and tests/test_fmha_sm100.py
(`sdpa` per sequence, bottom-right causal bias, GQA by repeat_interleave), judged as
tests/kernelkit/compare.py `check_is_allclose` judges (inf/nan positions equal, each
element within abs OR rel, cosine diff), with upstream's tolerances. Inputs are
generated as tests/lib.py does (randn / 10 plus an offset, upstream's list of invalid
indices, attn_sink with +-inf heads, topk_length, strided q/kv/indices); shapes are
shrunk and ragged (no length a multiple of the tiles). The cuda builds compile for
sm_90a and one runs in the Hopper SIMT emulator. On ascend (the simulator, both profiles)
the varlen op runs as a mix kernel (its key loop bound, read from cu_seqlens, is scalar code
both kinds of core compute), and so does sparse prefill with d_qk 512 and 576 (the cube
gathers the keys, a DMA per row, the scores of 16 heads come down to the vector cores)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pytest

import tilec
from tilec import ir
from tilec.backends.cuda.binary import find_ptxas

torch = pytest.importorskip("torch")

from tilec.kernels.flash_mla import prefill_kernels  # noqa: E402
from tilec.kernels.flash_mla.prefill import (  # noqa: E402
    flash_attn_varlen_func,
    flash_attn_varlen_kvpacked_func,
    flash_attn_varlen_qkvpacked_func,
    flash_mla_sparse_fwd,
)
from tilec.kernels.targets import last_report, use_target  # noqa: E402
from tilec.kernels.tensors import kernel_view  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cuda"))
from simt_hopper import run_launches  # noqa: E402

INVALID = [-2147483648, -123456, -1, None, 114514, 1919810, 2147480000, 2147483647]  # None: s_kv


def check_is_allclose(ans, ref, abs_tol, rel_tol, cos_diff_tol=1e-7) -> None:
    """kernelkit's check: equal inf/nan positions, then per element abs or rel, then the
    cosine diff 1 - 2 sum(xy) / sum(x^2 + y^2)."""
    assert ans.shape == ref.shape and ans.dtype == ref.dtype
    ans, ref = ans.clone().float(), ref.clone().float()
    for special in (float("inf"), float("-inf")):
        assert torch.equal(ans == special, ref == special), f"{special} positions differ"
        ans[ans == special], ref[ref == special] = 0.0, 0.0
    assert torch.equal(ans.isnan(), ref.isnan()), "nan positions differ"
    ans, ref = ans.nan_to_num(0.0), ref.nan_to_num(0.0)
    err = (ans - ref).abs()
    rel = err / (ref.abs() + 1e-6)
    assert ((err < abs_tol) | (rel < rel_tol)).all(), f"max abs err {err.max()}"
    a, r = ans.double(), ref.double()
    if (r * r).sum() >= 1e-12:
        assert 1 - 2 * (a * r).sum() / (a * a + r * r).sum() <= cos_diff_tol


def strided(t):
    """kernelkit's non_contiguousify: the same values inside a bigger tensor."""
    base = torch.empty([n + 128 if i == t.dim() - 1 else n + 1 for i, n in enumerate(t.shape)],
                       dtype=t.dtype)
    view = base[tuple(slice(0, n) for n in t.shape)]
    view[:] = t
    return view


def sparse_case(s_q, s_kv, topk, h_q, d_qk, sink, lengths, seed):
    """tests/lib.py generate_testcase, with fewer rows."""
    torch.manual_seed(seed)
    random.seed(seed)
    q = (torch.randn(s_q, h_q, d_qk) / 10 + (random.random() - 0.5) / 10).bfloat16()
    kv = (torch.randn(s_kv, 1, d_qk) / 10 + (random.random() - 0.5) / 10).bfloat16()
    indices = torch.rand(s_q, max(s_kv, topk)).argsort(dim=1)[:, :topk].to(torch.int32)
    fillers = torch.tensor([s_kv if v is None else v for v in INVALID], dtype=torch.int32)
    out_of_range = indices >= s_kv
    indices[out_of_range] = fillers[torch.randint(0, len(INVALID), (int(out_of_range.sum()),))]
    indices[torch.rand(s_q) < 0.1] = -1  # tokens with no valid index at all
    attn_sink = topk_length = None
    if sink:
        attn_sink = torch.randn(h_q)
        mask = torch.randn(h_q)
        attn_sink[mask < -0.5], attn_sink[mask > 0.5] = float("-inf"), float("inf")
    if lengths:
        topk_length = torch.randint(0, topk + 1, (s_q,), dtype=torch.int32)
    return q, kv, indices.view(s_q, 1, topk), attn_sink, topk_length


def ref_sparse_attn_fwd(q, kv, indices, sm_scale, d_v, attn_sink, topk_length):
    """tests/ref.py ref_sparse_attn_fwd: (out fp32, max_logits, lse)."""
    s_q, h_q, _ = q.shape
    s_kv, topk = kv.shape[0], indices.shape[-1]
    indices = indices.clone().squeeze(1)
    if topk_length is not None:
        indices[torch.arange(topk).expand(s_q, topk) >= topk_length.unsqueeze(1)] = -1
    invalid = (indices < 0) | (indices >= s_kv)
    indices[invalid] = 0
    gathered = kv.index_select(0, indices.flatten().long()).reshape(s_q, topk, -1).float()
    p = q.float() @ gathered.transpose(1, 2) * sm_scale
    p[invalid.unsqueeze(1).expand(p.shape)] = float("-inf")
    lse = torch.logsumexp(p, dim=-1)
    max_logits = p.max(dim=-1).values
    lse_for_o = lse if attn_sink is None else torch.logsumexp(
        torch.stack([lse, attn_sink.expand(s_q, h_q)]), dim=0)
    lse_for_o = lse_for_o.clone()
    lse_for_o[lse_for_o == float("-inf")] = float("inf")
    out = torch.exp(p - lse_for_o.unsqueeze(-1)) @ gathered[..., :d_v]
    lse[lse == float("-inf")] = float("inf")
    return out, max_logits, lse


@pytest.mark.parametrize(("s_q", "s_kv", "topk", "sink", "lengths"), [
    (37, 100, 64, False, False),  # s_kv < topk: out-of-range slots in every row
    (64, 300, 100, True, True),  # topk not a multiple of the key tile
])
def test_sparse_prefill_against_flash_mla_reference(s_q, s_kv, topk, sink, lengths):
    q, kv, indices, attn_sink, topk_length = sparse_case(s_q, s_kv, topk, 16, 576, sink, lengths,
                                                         s_q + topk)
    out, max_logits, lse = flash_mla_sparse_fwd(strided(q), strided(kv), strided(indices), 0.5,
                                                attn_sink=attn_sink, topk_length=topk_length)
    assert out.dtype == torch.bfloat16 and out.shape == (s_q, 16, 512)
    ref_out, ref_max_logits, ref_lse = ref_sparse_attn_fwd(q, kv, indices, 0.5, 512, attn_sink,
                                                           topk_length)
    check_is_allclose(out.float(), ref_out, 8e-4, 3.01 / 128, 7e-6)
    check_is_allclose(max_logits, ref_max_logits, 1e-6, 2.01 / 65536)
    check_is_allclose(lse, ref_lse, 1e-6, 2.01 / 65536)
    assert torch.isinf(lse).any() and (out[torch.isinf(lse)] == 0).all()


def test_sparse_prefill_d512_and_odd_heads():
    q, kv, indices, _, _ = sparse_case(5, 70, 64, 20, 512, False, False, 3)
    out, max_logits, lse = flash_mla_sparse_fwd(q, kv, indices, 512 ** -0.5)
    ref_out, ref_max_logits, ref_lse = ref_sparse_attn_fwd(q, kv, indices, 512 ** -0.5, 512,
                                                           None, None)
    check_is_allclose(out.float(), ref_out, 8e-4, 3.01 / 128, 7e-6)
    check_is_allclose(max_logits, ref_max_logits, 1e-6, 2.01 / 65536)
    check_is_allclose(lse, ref_lse, 1e-6, 2.01 / 65536)


@pytest.mark.parametrize("target", ["ascend:910b", "ascend:950"])
@pytest.mark.parametrize(("d_qk", "topk", "h_q", "seed"), [
    (512, 64, 16, 7),
    (576, 64, 16, 7),  # upstream's shape: V is the first 512 columns of the gathered rows
    # topk not a multiple of the key tile, more slots than keys: topk_length 75, 64, 66
    # (the last token's indices all -1)
    (576, 100, 16, 19),
    (576, 64, 40, 7),  # blocks of 32 heads, the last one ragged
])
def test_sparse_prefill_on_the_ascend_simulator(target, d_qk, topk, h_q, seed):
    """Three tokens, topk slots of 90 keys with invalid ones, topk_length and a sink with
    +-inf heads: a mix kernel whose cube gathers the keys and hands the scores of a
    block's heads down."""
    q, kv, indices, attn_sink, topk_length = sparse_case(3, 90, topk, h_q, d_qk, True, True,
                                                         seed)
    with use_target(target):
        out, max_logits, lse = flash_mla_sparse_fwd(q, kv, indices, 0.5, attn_sink=attn_sink,
                                                    topk_length=topk_length)
    assert last_report()[-1].target == target
    ref_out, ref_max_logits, ref_lse = ref_sparse_attn_fwd(q, kv, indices, 0.5, 512, attn_sink,
                                                           topk_length)
    check_is_allclose(out.float(), ref_out, 8e-4, 3.01 / 128, 7e-6)
    check_is_allclose(max_logits, ref_max_logits, 1e-6, 2.01 / 65536)
    check_is_allclose(lse, ref_lse, 1e-6, 2.01 / 65536)
    assert torch.isinf(lse).any() and (out[torch.isinf(lse)] == 0).all()


def test_sparse_prefill_rejects_what_upstream_rejects():
    q, kv, indices, _, _ = sparse_case(3, 40, 64, 16, 576, False, False, 0)
    with pytest.raises(ValueError, match="flash_mla_sparse_fwd: d_v must be 512"):
        flash_mla_sparse_fwd(q, kv, indices, 0.5, d_v=128)
    with pytest.raises(ValueError, match="flash_mla_sparse_fwd: indices must be int32"):
        flash_mla_sparse_fwd(q, kv, indices.long(), 0.5)


def varlen_case(seqlens_q, seqlens_k, h, h_k, d, dv, seed):
    torch.manual_seed(seed)
    cu_q = torch.tensor([0, *seqlens_q]).cumsum(0).to(torch.int32)
    cu_k = torch.tensor([0, *seqlens_k]).cumsum(0).to(torch.int32)
    q = (torch.randn(int(cu_q[-1]), h, d) / 10).bfloat16()
    k = (torch.randn(int(cu_k[-1]), h_k, d) / 10).bfloat16()
    v = (torch.randn(int(cu_k[-1]), h_k, dv) / 10).bfloat16()
    return q, k, v, cu_q, cu_k


def ref_varlen(q, k, v, cu_q, cu_k, causal, softmax_scale):
    """tests/test_fmha_sm100.py torch_attn: sdpa per sequence with get_attn_bias."""
    out, lse = [], []
    group = q.shape[1] // k.shape[1]
    for b in range(len(cu_q) - 1):
        qs, ks = slice(cu_q[b], cu_q[b + 1]), slice(cu_k[b], cu_k[b + 1])
        qb = q[qs].float().transpose(0, 1)
        kb = k[ks].float().transpose(0, 1).repeat_interleave(group, dim=0)
        vb = v[ks].float().transpose(0, 1).repeat_interleave(group, dim=0)
        s_q, s_k = qb.shape[1], kb.shape[1]
        bias = torch.zeros(s_q, s_k)
        if causal:
            bias.masked_fill_(~torch.ones(s_q, s_k, dtype=torch.bool).tril(s_k - s_q),
                              float("-inf"))
        weight = qb @ kb.transpose(-2, -1) * softmax_scale + bias
        lse.append(weight.logsumexp(dim=-1).transpose(0, 1))
        out.append((torch.softmax(weight, dim=-1) @ vb).transpose(0, 1))
    return torch.cat(out), torch.cat(lse)


@pytest.mark.parametrize(("seqlens_q", "seqlens_k", "h", "h_k", "d", "causal"), [
    ([37, 5, 70], [50, 20, 70], 2, 2, 64, False),
    ([37, 5, 70], [50, 20, 70], 4, 2, 64, True),  # GQA, s_k > s_q: bottom-right mask
    ([45, 19], [45, 83], 2, 1, 128, True),
])
def test_varlen_against_flash_mla_reference(seqlens_q, seqlens_k, h, h_k, d, causal):
    q, k, v, cu_q, cu_k = varlen_case(seqlens_q, seqlens_k, h, h_k, d, d, sum(seqlens_q) + d)
    scale = (d + 100) ** -0.5  # upstream's test scale
    out, lse = flash_attn_varlen_func(q, k, v, cu_q, cu_k, max(seqlens_q), max(seqlens_k),
                                      softmax_scale=scale, causal=causal)
    assert out.dtype == torch.bfloat16 and lse.stride() == (1, q.shape[0])
    ref_out, ref_lse = ref_varlen(q, k, v, cu_q, cu_k, causal, scale)
    check_is_allclose(out.float(), ref_out, 1e-3, 8.01 / 128, 7e-6)
    check_is_allclose(lse, ref_lse, 1e-6, 2.01 / 65536)


@pytest.mark.parametrize("target", ["ascend:910b", "ascend:950"])
def test_varlen_on_the_ascend_simulator(target):
    """Two ragged sequences, GQA, causal with s_k > s_q on one: a mix kernel whose key loop
    bound comes from cu_seqlens through an `if` on both kinds of core."""
    q, k, v, cu_q, cu_k = varlen_case([45, 19], [45, 83], 4, 2, 64, 64, 11)
    with use_target(target):
        out, lse = flash_attn_varlen_func(q, k, v, cu_q, cu_k, 45, 83, softmax_scale=0.1,
                                          causal=True)
    assert last_report()[-1].target == target
    ref_out, ref_lse = ref_varlen(q, k, v, cu_q, cu_k, True, 0.1)
    check_is_allclose(out.float(), ref_out, 1e-3, 8.01 / 128, 7e-6)
    check_is_allclose(lse, ref_lse, 1e-6, 2.01 / 65536)


def test_varlen_packed_forms_are_views_of_the_same_op():
    q, k, v, cu, _ = varlen_case([21, 40], [21, 40], 2, 2, 64, 64, 5)
    qkv = torch.cat([q, k, v], dim=-1)
    out, lse = flash_attn_varlen_qkvpacked_func(qkv, cu, 40, 64, causal=True)
    ref_out, ref_lse = ref_varlen(q, k, v, cu, cu, True, 64 ** -0.5)
    check_is_allclose(out.float(), ref_out, 1e-3, 8.01 / 128, 7e-6)
    check_is_allclose(lse, ref_lse, 1e-6, 2.01 / 65536)
    out_kv, lse_kv = flash_attn_varlen_kvpacked_func(q, torch.cat([k, v], dim=-1), cu, cu, 40,
                                                     40, 64, causal=True)
    assert torch.equal(out_kv, out) and torch.equal(lse_kv, lse)


def test_varlen_has_no_backward():
    q, k, v, cu, _ = varlen_case([9], [9], 1, 1, 64, 64, 1)
    out, _ = flash_attn_varlen_func(q.requires_grad_(), k, v, cu, cu, 9, 9)
    with pytest.raises(NotImplementedError, match="flash_attn_varlen_func: backward"):
        out.float().sum().backward()



@pytest.mark.skipif(find_ptxas() is None, reason="no CUDA assembler (ptxas) here")
@pytest.mark.parametrize("build", [
    lambda: prefill_kernels.sparse_prefill(576, 512, True, True),
    lambda: prefill_kernels.varlen_prefill(128, 128, True),
])
def test_compiles_for_sm_90a(build):
    kernel = tilec.compile(build(), target="cuda:sm_90a")
    assert "mma.sync.aligned" in kernel.source() and kernel.resources().spill_stores == 0


def test_varlen_in_the_hopper_emulator():
    """The cuda build on two ragged GQA sequences, causal. The emulator's harness reads a
    Python float argument as an int64 (0.125 -> 0), so the scale goes as a 0-d array."""
    q, k, v, cu_q, cu_k = varlen_case([9, 4], [13, 4], 2, 1, 64, 64, 2)
    out = torch.zeros(13, 2, 64, dtype=torch.bfloat16)
    lse_t = torch.zeros(2, 13)
    kernel = tilec.compile(prefill_kernels.varlen_prefill(64, 64, True), target="cuda:sm_90a")
    args = [kernel_view(t, "arg") for t in (q, k, v, cu_q, cu_k)]
    args += [9, np.array(0.125, np.float32), kernel_view(out, "out"), kernel_view(lse_t, "lse")]
    with ir.make_context() as context:
        run_launches(ir.parse_module(kernel.ir("cse"), "<cuda>", context), kernel.name, args)
    ref_out, ref_lse = ref_varlen(q, k, v, cu_q, cu_k, True, 0.125)
    check_is_allclose(out.float(), ref_out, 1e-3, 8.01 / 128, 7e-6)
    check_is_allclose(lse_t.T, ref_lse, 1e-6, 2.01 / 65536)
