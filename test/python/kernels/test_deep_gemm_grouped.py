"""DeepGEMM's M-grouped GEMMs against its generators' layouts (tests/generators.py at
54e2261: `generate_m_grouped_contiguous`, `generate_m_grouped_masked`), shrunk: groups
of uneven sizes 0.7-1.3x the expected, an empty group, `-1` padding rows (or the psum
end offsets), and masked groups whose rows past `masked_m` must stay untouched."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from tilec.kernels import deep_gemm, last_report  # noqa: E402
from tilec.kernels.deep_gemm.testing import calc_diff  # noqa: E402


def _align(x, y):
    return -(-x // y) * y


def _quantized_groups(b):
    """B (G, N, K) bf16 cast per 128x128 block, group by group, as upstream's generator."""
    groups, n, k = b.shape
    q = torch.empty((groups, n, k), dtype=torch.float8_e4m3fn)
    sf = torch.empty((groups, -(-n // 128), -(-k // 128)))
    for g in range(groups):
        q[g], sf[g] = deep_gemm.per_block_cast_to_fp8(b[g], use_ue8m0=False)
    return q, sf


def _dequantized(q, sf, rows_per_scale):
    expanded = sf.repeat_interleave(128, dim=-1)
    if rows_per_scale > 1:
        expanded = expanded.repeat_interleave(rows_per_scale, dim=-2)
    return q.double() * expanded[..., : q.shape[-2], : q.shape[-1]].double()


@pytest.mark.parametrize("use_psum_layout", [False, True])
@pytest.mark.parametrize("fp8", [False, True])
def test_m_grouped_contiguous(fp8, use_psum_layout):
    torch.manual_seed(1)
    alignment = deep_gemm.get_mk_alignment_for_contiguous_layout()
    actual = [100, 0, 150, 128]  # ragged, empty, ragged, exactly aligned
    aligned = [_align(m, alignment) for m in actual]
    groups, n, k, m = len(actual), 72, 160, sum(aligned)
    a, b = torch.randn((m, k)).bfloat16(), torch.randn((groups, n, k)).bfloat16()
    layout = torch.empty(groups if use_psum_layout else m, dtype=torch.int32)
    ref = torch.zeros((m, n), dtype=torch.double)
    start = 0
    for g, (rows, padded) in enumerate(zip(actual, aligned, strict=True)):
        if use_psum_layout:
            layout[g] = start + rows
        else:
            layout[start:start + rows], layout[start + rows:start + padded] = g, -1
        a[start + rows:start + padded] = 0
        ref[start:start + padded] = a[start:start + padded].double() @ b[g].double().T
        start += padded
    d = torch.full((m, n), float("nan")).bfloat16()
    if fp8:
        a_q, b_q = deep_gemm.per_token_cast_to_fp8(a, use_ue8m0=False), _quantized_groups(b)
        deep_gemm.m_grouped_fp8_gemm_nt_contiguous(a_q, b_q, d, layout,
                                                   use_psum_layout=use_psum_layout)
        assert calc_diff(d, ref) < 1e-3
        # Element-wise, against the dequantized operands.
        a_deq, b_deq = _dequantized(*a_q, 1), _dequantized(*b_q, 128)
        start = 0
        for g, padded in enumerate(aligned):
            rows = slice(start, start + padded)
            exact = a_deq[rows] @ b_deq[g].T
            bound = 2.0**-7 * exact.abs() + 2.0**-12 * (a_deq[rows].abs() @ b_deq[g].abs().T)
            assert bool(((d[rows].double() - exact).abs() <= bound).all()), f"group {g}"
            start += padded
    else:
        deep_gemm.m_grouped_bf16_gemm_nt_contiguous(a, b, d, layout,
                                                    use_psum_layout=use_psum_layout)
        assert calc_diff(d, ref) < 1e-5
    assert not torch.isnan(d.float()).any()  # padding rows are written (zeros)
    assert [launch.kernel for launch in last_report()] == [
        "m_grouped_fp8_gemm" if fp8 else "m_grouped_bf16_gemm"
    ]


@pytest.mark.parametrize("fp8", [False, True])
def test_m_grouped_masked_leaves_rows_past_masked_m(fp8):
    torch.manual_seed(2)
    groups, max_m, n, k = 3, 100, 136, 256
    a, b = torch.randn((groups, max_m, k)).bfloat16(), torch.randn((groups, n, k)).bfloat16()
    masked_m = torch.tensor([37, 0, 100], dtype=torch.int32)
    d = torch.full((groups, max_m, n), float("nan")).bfloat16()
    ref = torch.einsum("gmk,gnk->gmn", a.double(), b.double())
    if fp8:
        a_q = (torch.empty_like(a, dtype=torch.float8_e4m3fn), torch.empty((groups, max_m, 2)))
        for g in range(groups):
            a_q[0][g], a_q[1][g] = deep_gemm.per_token_cast_to_fp8(a[g], use_ue8m0=False)
        deep_gemm.m_grouped_fp8_gemm_nt_masked(a_q, _quantized_groups(b), d, masked_m, 64)
    else:
        deep_gemm.m_grouped_bf16_gemm_nt_masked(a, b, d, masked_m, 64)
    for g, rows in enumerate(masked_m.tolist()):
        if rows:
            assert calc_diff(d[g, :rows], ref[g, :rows]) < (1e-3 if fp8 else 1e-5)
        assert torch.isnan(d[g, rows:].float()).all()


def test_grouped_misuse_names_the_op():
    a, b = torch.randn((128, 64)).bfloat16(), torch.randn((2, 32, 64)).bfloat16()
    d = torch.empty((128, 32)).bfloat16()
    with pytest.raises(ValueError, match=r"m_grouped_bf16_gemm_nt_contiguous: grouped_layout "
                       r"must be int32 of shape \(128,\)"):
        deep_gemm.m_grouped_bf16_gemm_nt_contiguous(a, b, d, torch.zeros(128, dtype=torch.int64))
    with pytest.raises(ValueError, match=r"m_grouped_bf16_gemm_nt_masked: A must have 3 dims"):
        deep_gemm.m_grouped_bf16_gemm_nt_masked(a, b, d, torch.zeros(2, dtype=torch.int32), 1)


@pytest.mark.parametrize("profile", ["ascend:910b", "ascend:950"])
def test_m_grouped_masked_fp8_on_the_simulated_npu(profile):
    """The 950's cube takes FP8; the 910b's vector cores decode it to f16 for its cube
    (tile-ascend-widen-fp8)."""
    from tilec.kernels import use_target

    torch.manual_seed(3)
    groups, max_m, n, k = 2, 40, 72, 128
    a, b = torch.randn((groups, max_m, k)).bfloat16(), torch.randn((groups, n, k)).bfloat16()
    masked_m = torch.tensor([40, 13], dtype=torch.int32)
    a_q = (torch.empty_like(a, dtype=torch.float8_e4m3fn), torch.empty((groups, max_m, 1)))
    with use_target(profile):
        for g in range(groups):
            a_q[0][g], a_q[1][g] = deep_gemm.per_token_cast_to_fp8(a[g], use_ue8m0=False)
        b_q = _quantized_groups(b)
        d = torch.zeros((groups, max_m, n)).bfloat16()
        deep_gemm.m_grouped_fp8_gemm_nt_masked(a_q, b_q, d, masked_m, 32)
    (launch,) = last_report()
    assert launch.target == profile and launch.sim.cycles > 0
    ref = torch.einsum("gmk,gnk->gmn", a.double(), b.double())
    for g, rows in enumerate(masked_m.tolist()):
        assert calc_diff(d[g, :rows], ref[g, :rows]) < 1e-3


@pytest.mark.parametrize("use_psum_layout", [False, True])
def test_k_grouped_bf16_weight_gradients(use_psum_layout):
    """generate_k_grouped_contiguous's layout: A (K_sum, M), B (K_sum, N), D = C + A_g.T @ B_g,
    groups of uneven K (one empty); with psum ends, a group's rows end before its padded
    end, and the padding rows (garbage here) must not be added."""
    torch.manual_seed(4)
    alignment = deep_gemm.get_mk_alignment_for_contiguous_layout()
    m, n, ks = 72, 40, [256, 0, 128, 384]
    real = [200, 0, 128, 300] if use_psum_layout else ks
    k_sum = sum(ks)
    a, b = torch.randn((k_sum, m)).bfloat16(), torch.randn((k_sum, n)).bfloat16()
    c = torch.randn((len(ks), m, n)) * 32
    ref = c.double().clone()
    ends, start = [], 0
    for g, (padded, rows) in enumerate(zip(ks, real, strict=True)):
        ref[g] += a[start:start + rows].double().T @ b[start:start + rows].double()
        ends.append(start + rows)
        start += padded
    d = c.clone()  # DeepGEMM's test accumulates in place: d = c
    if use_psum_layout:
        deep_gemm.k_grouped_bf16_gemm_tn_contiguous(a, b, d, None,
                                                    torch.tensor(ends, dtype=torch.int32), d,
                                                    use_psum_layout=True)
    else:
        deep_gemm.k_grouped_bf16_gemm_tn_contiguous(a, b, d, ks,
                                                    torch.tensor(ks, dtype=torch.int32), d)
    assert calc_diff(d, ref) < 1e-5
    assert torch.allclose(d.double(), ref, rtol=1e-4, atol=1e-2)
    assert alignment == 128 and [x.kernel for x in last_report()] == ["k_grouped_bf16_gemm"]


def test_cublaslt_baseline_matches():
    a, b = torch.randn((33, 64)).bfloat16(), torch.randn((17, 64)).bfloat16()
    d, c = torch.empty((33, 17)), torch.randn((33, 17))
    deep_gemm.cublaslt_gemm_nt(a, b, d, c=c)
    assert torch.allclose(d, c + a.float() @ b.float().T, rtol=1e-5, atol=1e-4)
    deep_gemm.cublaslt_gemm_tn(a.T.contiguous(), b.T.contiguous(), d)
    assert torch.allclose(d, a.float() @ b.float().T, rtol=1e-5, atol=1e-4)


def test_m_grouped_nn_forms():
    """NN: B stored (G, K, N), as DeepGEMM's nn functions take it (nt on B's transposed
    view): BF16 gives the NT result to the last bits of f32 (on a cpu with AVX512-BF16 the
    NN form's untransposed B goes through vdpbf16ps, which adds each pair of products
    before the accumulator, the NT form through FMAs: the sums round differently, by a
    few ulps); FP8 must be K-major (SM90's rule)."""
    torch.manual_seed(5)
    groups, n, k, rows = 2, 72, 96, [100, 28]
    m = 256
    a, b = torch.randn((m, k)).bfloat16(), torch.randn((groups, n, k)).bfloat16()
    layout = torch.full((m,), -1, dtype=torch.int32)
    layout[:rows[0]], layout[128:128 + rows[1]] = 0, 1
    nt, nn = torch.empty((m, n)), torch.empty((m, n))
    deep_gemm.m_grouped_bf16_gemm_nt_contiguous(a, b, nt, layout)
    deep_gemm.m_grouped_bf16_gemm_nn_contiguous(a, b.transpose(1, 2).contiguous(), nn, layout)
    torch.testing.assert_close(nn, nt, rtol=1e-6, atol=1e-5)
    a_q, b_q = deep_gemm.per_token_cast_to_fp8(a, use_ue8m0=False), _quantized_groups(b)
    b_nn = (b_q[0].transpose(1, 2).contiguous(), b_q[1].transpose(1, 2).contiguous())
    with pytest.raises(ValueError, match="B must be K-major"):
        deep_gemm.m_grouped_fp8_gemm_nn_contiguous(a_q, b_nn, torch.empty((m, n)).bfloat16(),
                                                   layout)
