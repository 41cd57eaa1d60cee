"""DeepGEMM's scale-layout utilities as upstream's tests/test_layout.py (54e2261) judges
them, shrunk: scales from per_token_cast_to_fp8 of ragged shapes, 2-D and batched,
row-major or MN-major (transpose-contiguous-transpose), rewritten MN-major and
TMA-aligned (float32, bit for bit, with upstream's strides) or packed to UE8M0 (against a
restatement of upstream's torch reference)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from tilec.kernels import deep_gemm, last_report, use_target  # noqa: E402


def _packed_reference(x):
    """get_mn_major_tma_aligned_packed_ue8m0_tensor_torch_impl: exponent bytes, K padded
    to 4 with zeros, four to an int32, stored MN-major with MN padded to 4."""
    batched = x if x.dim() == 3 else x[None]
    b, mn, k = batched.shape
    aligned_mn, aligned_k = -(-mn // 4) * 4, -(-k // 4) * 4
    padded = torch.zeros((b, aligned_mn, aligned_k), dtype=torch.uint8)
    padded[:, :mn, :k] = (batched.view(torch.int) >> 23).to(torch.uint8)
    words = padded.view(-1).view(torch.int).view(b, aligned_mn, aligned_k // 4)
    out = torch.zeros((b, aligned_k // 4, aligned_mn), dtype=torch.int).mT
    out[:] = words
    return out[:, :mn] if x.dim() == 3 else out[0, :mn]


def _scales(mn, k, num_groups, use_ue8m0, mn_major):
    x = torch.randn((num_groups * mn, k)).bfloat16()
    _, sf = deep_gemm.per_token_cast_to_fp8(x, use_ue8m0=use_ue8m0)
    sf = sf if num_groups == 1 else sf.view(num_groups, mn, -1)
    return sf.mT.contiguous().mT if mn_major else sf


@pytest.mark.parametrize("mn_major", [False, True])
@pytest.mark.parametrize("num_groups", [1, 2])
@pytest.mark.parametrize("mn, k", [(37, 576), (64, 256)])
def test_mn_major_tma_aligned(mn, k, num_groups, mn_major):
    sf = _scales(mn, k, num_groups, False, mn_major)
    out = deep_gemm.get_mn_major_tma_aligned_tensor(sf)
    aligned, sf_k = -(-mn // 4) * 4, -(-k // 128)
    assert out.shape[-2:] == (mn, sf_k) and out.stride()[-2:] == (1, aligned)
    if num_groups > 1:
        assert out.shape[0] == num_groups and out.stride(0) == aligned * sf_k
    assert torch.equal(out, sf)
    if mn % 4 == 0 and mn_major:  # already the required layout: returned as it is
        assert out.data_ptr() == sf.data_ptr() and last_report() == []


@pytest.mark.parametrize("mn_major", [False, True])
@pytest.mark.parametrize("num_groups", [1, 2])
@pytest.mark.parametrize("mn, k", [(37, 576), (64, 1152)])
def test_packed_ue8m0(mn, k, num_groups, mn_major):
    sf = _scales(mn, k, num_groups, True, mn_major)
    packed, ref = deep_gemm.get_mn_major_tma_aligned_packed_ue8m0_tensor(sf), _packed_reference(sf)
    assert packed.dtype == torch.int32 and packed.shape == ref.shape
    assert packed.stride() == ref.stride() and torch.equal(packed, ref)


def test_packed_ue8m0_psum_gaps_pack_as_zero():
    """An M-grouped psum layout's gap rows (never written: NaN here) pack as 0."""
    alignment = deep_gemm.get_mk_alignment_for_contiguous_layout()
    ends = [100, alignment, alignment + 5]  # ragged, empty, ragged
    sf = _scales(2 * alignment + 8, 512, 1, True, False)
    valid = torch.zeros(sf.shape[0], dtype=torch.bool)
    for g, end in enumerate(ends):
        valid[(-(-ends[g - 1] // alignment) * alignment if g else 0):end] = True
    sf[~valid] = float("nan")
    packed = deep_gemm.get_mn_major_tma_aligned_packed_ue8m0_tensor(
        sf, torch.tensor(ends, dtype=torch.int32))
    ref = _packed_reference(torch.where(valid[:, None], sf, torch.zeros(())))
    assert torch.equal(packed, ref) and bool((packed[~valid] == 0).all())


def test_transform_sf_into_required_layout():
    m, n, k = 37, 72, 576
    sfa = _scales(m, k, 1, False, False)
    out = deep_gemm.transform_sf_into_required_layout(sfa, m, k, (1, 128, 128), is_sfa=True)
    assert out.stride() == (1, 40) and torch.equal(out, sfa)
    _, sfb = deep_gemm.per_block_cast_to_fp8(torch.randn((n, k)).bfloat16(), use_ue8m0=False)
    assert deep_gemm.transform_sf_into_required_layout(sfb, n, k, (1, 128, 128),
                                                       is_sfa=False) is sfb
    assert deep_gemm.transform_sf_into_required_layout(sfb.T.contiguous().T, n, k,
                                                       (128, 128)) is not None
    fine = _scales(m, 1024, 1, True, False)  # 8 scales: as (1, 32) ones, K = 256
    packed = deep_gemm.transform_sf_into_required_layout(fine, m, 256, (1, 32))
    assert torch.equal(packed, _packed_reference(fine))
    assert deep_gemm.transform_sf_into_required_layout(packed, m, 256, (1, 32)) is packed
    with pytest.raises(ValueError, match=r"transform_sf_into_required_layout: a 3-element "
                       r"recipe needs is_sfa"):
        deep_gemm.transform_sf_into_required_layout(sfa, m, k, (1, 128, 128))
    with pytest.raises(ValueError, match=r"sf must have shape \(2, 37, 5\)"):
        deep_gemm.transform_sf_into_required_layout(sfa, m, k, (1, 128), num_groups=2)
    with pytest.raises(ValueError, match=r"packed scales must be MN-major"):
        deep_gemm.transform_sf_into_required_layout(packed.contiguous(), m, 256, (1, 32))


@pytest.mark.parametrize("target", ["ascend:910b", "ascend:950"])
def test_on_the_simulated_npus(target):
    sf = _scales(12, 256, 1, True, False)
    with use_target(target):
        transposed = deep_gemm.get_mn_major_tma_aligned_tensor(sf)
        assert [launch.target for launch in last_report()] == [target]
        packed = deep_gemm.get_mn_major_tma_aligned_packed_ue8m0_tensor(sf)
        assert [launch.target for launch in last_report()] == [target]
    assert torch.equal(transposed, sf) and torch.equal(packed, _packed_reference(sf))
