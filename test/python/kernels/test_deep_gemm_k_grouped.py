"""DeepGEMM's K-grouped FP8 GEMMs against its generators' layouts (tests/generators.py at
54e2261: `generate_k_grouped_contiguous`, `generate_k_grouped_contiguous_psum`,
`k_grouped_per_channel_cast_to_fp8`), shrunk: groups of uneven K with an empty one, M
and N not multiples of the tile, C accumulated in place (d = c). Judged as upstream's
test_fp8_fp4.py judges them (calc_diff < 1e-3 against the BF16 product) and element-wise
against the product of the dequantized operands."""

from __future__ import annotations

import itertools

import pytest

torch = pytest.importorskip("torch")

from tilec.kernels import deep_gemm, last_report, use_target  # noqa: E402
from tilec.kernels.deep_gemm.testing import calc_diff  # noqa: E402


def _align(x, y):
    return -(-x // y) * y


def _per_group_cast(x, ks, ends, gran_k):
    """k_grouped_per_channel_cast_to_fp8: each group cast on its own (its K padded to
    gran_k with zeros), so each has ceil(k / gran_k) scale rows; rows outside every group
    stay zero."""
    q = torch.zeros(x.shape, dtype=torch.float8_e4m3fn)
    scales = []
    for k, end in zip(ks, ends, strict=True):
        if k:
            padded = torch.zeros((_align(k, gran_k), x.shape[1]), dtype=x.dtype)
            padded[:k] = x[end - k:end]
            group_q, group_sf = deep_gemm.per_channel_cast_to_fp8(padded, False, gran_k)
            q[end - k:end] = group_q[:k]
            scales.append(group_sf)
    return q, torch.cat(scales) if scales else torch.empty((0, x.shape[1]))


def _dequantized(q, sf, ks, ends, gran_k):
    """FP32 values of a per-group cast, (K_sum, MN); zero outside the groups."""
    out, row = torch.zeros(q.shape, dtype=torch.double), 0
    for k, end in zip(ks, ends, strict=True):
        groups = -(-k // gran_k)
        expanded = sf[row:row + groups].double().repeat_interleave(gran_k, dim=0)[:k]
        out[end - k:end] = q[end - k:end].double() * expanded
        row += groups
    return out


def _check(d, c, a, b, a_deq, b_deq, ks, ends):
    """upstream's bound, and |D - (C + A_deq^T B_deq)| <= 2^-12 (|C| + |A_deq|^T |B_deq|)
    per element (D is float32: only the order of the sums differs)."""
    ref, exact, scale = c.double().clone(), c.double().clone(), c.double().abs()
    for g, (k, end) in enumerate(zip(ks, ends, strict=True)):
        rows = slice(end - k, end)
        ref[g] += a[rows].double().T @ b[rows].double()
        exact[g] += a_deq[rows].T @ b_deq[rows]
        scale[g] += a_deq[rows].abs().T @ b_deq[rows].abs()
    assert calc_diff(d, ref) < 1e-3
    assert bool(((d.double() - exact).abs() <= 2.0**-12 * scale).all())


def _generate(m, n, ks, ends, total_k, gran_k, seed):
    torch.manual_seed(seed)
    a, b = torch.zeros((total_k, m)).bfloat16(), torch.zeros((total_k, n)).bfloat16()
    for k, end in zip(ks, ends, strict=True):
        a[end - k:end], b[end - k:end] = torch.randn((k, m)), torch.randn((k, n))
    c = torch.randn((len(ks), m, n)) * 32
    a_q, b_q = _per_group_cast(a, ks, ends, gran_k), _per_group_cast(b, ks, ends, gran_k)
    a_deq, b_deq = _dequantized(*a_q, ks, ends, gran_k), _dequantized(*b_q, ks, ends, gran_k)
    return a, b, c, a_q, b_q, a_deq, b_deq


@pytest.mark.parametrize("gran_k", [32, 128])
def test_tn_plain_layout(gran_k):
    m, n, ks = 72, 40, [256, 0, 128, 384]  # the alignment (128) multiples, one empty
    ends = list(itertools.accumulate(ks))
    a, b, c, a_q, b_q, a_deq, b_deq = _generate(m, n, ks, ends, sum(ks), gran_k, 0)
    d = c.clone()
    deep_gemm.k_grouped_fp8_gemm_tn_contiguous(a_q, b_q, d, ks, torch.tensor(ks, dtype=torch.int32),
                                               d, recipe=(1, 1, gran_k))
    _check(d, c, a, b, a_deq, b_deq, ks, ends)
    assert [x.kernel for x in last_report()] == ["k_grouped_fp8_gemm_tn"]


@pytest.mark.parametrize("ks_cpu", ["aligned", None, []])
def test_tn_psum_layout_skips_the_gaps(ks_cpu):
    """generate_k_grouped_contiguous_psum: group g starts at the previous end rounded up to
    the alignment; the gap rows hold garbage here (upstream zeroes them) and must not be
    added. ks_cpu given (the aligned K), None or [] (read from the device)."""
    alignment, gran_k, m, n = 128, 128, 72, 40
    real = [200, 0, 128, 300]
    ends, previous = [], 0
    for k in real:
        ends.append(_align(previous, alignment) + k)
        previous = ends[-1]
    total_k = _align(ends[-1], alignment)
    a, b, c, a_q, b_q, a_deq, b_deq = _generate(m, n, real, ends, total_k, gran_k, 1)
    gaps = torch.ones(total_k, dtype=torch.bool)
    for k, end in zip(real, ends, strict=True):
        gaps[end - k:end] = False
    for q in (a_q[0], b_q[0]):
        q.view(torch.uint8)[gaps] = 0x5C  # 256.0
    aligned = [_align(k, alignment) for k in real]
    d = c.clone()
    deep_gemm.k_grouped_fp8_gemm_tn_contiguous(
        a_q, b_q, d, aligned if ks_cpu == "aligned" else ks_cpu,
        torch.tensor(ends, dtype=torch.int32), d, use_psum_layout=True)
    _check(d, c, a, b, a_deq, b_deq, real, ends)


@pytest.mark.parametrize("sf_major", ["mn", "k"])
def test_nt_flat_per_group_buffers(sf_major):
    """generate_k_grouped_contiguous's K-major form (SM90's): group g's A_g (M, k_g)
    flattened one after the other, scales sfa.T (MN-major, the generator's) or row-major;
    D separate from C."""
    m, n, ks = 72, 40, [256, 0, 128, 384]
    ends = list(itertools.accumulate(ks))
    a, b, c, (a8, sfa), (b8, sfb), a_deq, b_deq = _generate(m, n, ks, ends, sum(ks), 128, 2)
    flat = [torch.cat([x[end - k:end].T.flatten() for k, end in zip(ks, ends, strict=True)])
            for x in (a8, b8)]
    scales = (sfa.T, sfb.T) if sf_major == "mn" else (sfa.T.contiguous(), sfb.T.contiguous())
    d = torch.full_like(c, float("nan"))
    deep_gemm.k_grouped_fp8_gemm_nt_contiguous((flat[0], scales[0]), (flat[1], scales[1]), d, ks,
                                               torch.tensor(ks, dtype=torch.int32), c)
    _check(d, c, a, b, a_deq, b_deq, ks, ends)
    assert [x.kernel for x in last_report()] == ["k_grouped_fp8_gemm_nt"]


def test_upstream_argument_checks():
    f8 = torch.float8_e4m3fn
    d = torch.zeros((2, 8, 16))
    a, b = (torch.zeros((256, 8), dtype=f8), torch.ones((2, 8))), \
        (torch.zeros((256, 16), dtype=f8), torch.ones((2, 16)))
    layout = torch.tensor([128, 128], dtype=torch.int32)
    tn, nt = deep_gemm.k_grouped_fp8_gemm_tn_contiguous, deep_gemm.k_grouped_fp8_gemm_nt_contiguous
    with pytest.raises(ValueError, match=r"tn_contiguous: the recipe must be 1D1D"):
        tn(a, b, d, [128, 128], layout, d, recipe=(1, 128, 128))
    with pytest.raises(ValueError, match=r"tn_contiguous: gran_k must be 32 or 128"):
        tn(a, b, d, [128, 128], layout, d, recipe=(1, 1, 64))
    with pytest.raises(ValueError, match=r"tn_contiguous: ks_cpu \[128, 96\] must be multiples"):
        tn(a, b, d, [128, 96], layout, d)
    with pytest.raises(ValueError, match=r"tn_contiguous: ks_cpu must list each group's K"):
        tn(a, b, d, None, layout, d)
    with pytest.raises(ValueError, match=r"tn_contiguous: C must be given"):
        tn(a, b, d, [128, 128], layout)
    with pytest.raises(ValueError, match=r"tn_contiguous: SFA must be 2-D float32 scales"):
        tn((a[0], a[1].int()), b, d, [128, 128], layout, d)
    with pytest.raises(ValueError, match=r"tn_contiguous: D must be float32"):
        tn(a, b, d.bfloat16(), [128, 128], layout, d.bfloat16())
    with pytest.raises(ValueError, match=r"nt_contiguous: the NT form has no psum layout"):
        nt(a, b, d, [128, 128], layout, d, use_psum_layout=True)
    with pytest.raises(ValueError, match=r"nt_contiguous: the recipe must be \(1, 1, 128\)"):
        nt(a, b, d, [128, 128], layout, d, recipe=(1, 1, 32))
    with pytest.raises(ValueError, match=r"nt_contiguous: A and B hold 2048 and 4096 values"):
        nt(a, b, d, [128, 0], layout, d)


@pytest.mark.parametrize("profile", ["ascend:910b", "ascend:950"])
def test_fp8_on_the_simulated_npu(profile):
    """One tiny TN case on each simulated profile: the 950's cube takes FP8, the 910b's
    vector cores decode it to f16 for its cube (tile-ascend-widen-fp8)."""
    m, n, ks = 16, 24, [128, 0]
    ends = list(itertools.accumulate(ks))
    a, b, c, a_q, b_q, a_deq, b_deq = _generate(m, n, ks, ends, sum(ks), 128, 3)
    layout = torch.tensor(ks, dtype=torch.int32)
    d = c.clone()
    with use_target(profile):
        deep_gemm.k_grouped_fp8_gemm_tn_contiguous(a_q, b_q, d, ks, layout, d)
    (launch,) = last_report()
    assert launch.target == profile and launch.sim.cycles > 0
    _check(d, c, a, b, a_deq, b_deq, ks, ends)


def test_nt_on_the_950():
    """SM90's NT form on the simulated 950: its element-by-element gathers of the FP8
    operands run on the vector cores, which hand each tile up to the cube."""
    m, n, ks = 16, 24, [128, 0, 128]
    ends = list(itertools.accumulate(ks))
    a, b, c, (a8, sfa), (b8, sfb), a_deq, b_deq = _generate(m, n, ks, ends, sum(ks), 128, 2)
    flat = [torch.cat([x[end - k:end].T.flatten() for k, end in zip(ks, ends, strict=True)])
            for x in (a8, b8)]
    d = torch.full_like(c, float("nan"))
    with use_target("ascend:950"):
        deep_gemm.k_grouped_fp8_gemm_nt_contiguous((flat[0], sfa.T), (flat[1], sfb.T), d, ks,
                                                   torch.tensor(ks, dtype=torch.int32), c)
    (launch,) = last_report()
    assert launch.target == "ascend:950" and launch.sim.ok
    _check(d, c, a, b, a_deq, b_deq, ks, ends)
