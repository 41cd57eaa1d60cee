"""`tilec.kernels.deep_gemm` against DeepGEMM's own oracles (tests/test_fp8_fp4.py,
tests/generators.py at 54e2261): the product of the BF16 inputs in FP32, judged by
`calc_diff` (< 1e-5 BF16, < 1e-3 FP8), and, since calc_diff accepts a uniform scale
error of a few percent, every element of an FP8 result against the dequantized
product: |d - ref| <= 2^-7 |ref| + 2^-12 sum_k |a_k b_k|. The casts are compared
bit for bit with DeepGEMM's torch definitions. Shapes are upstream's kinds, shrunk
for 2 cores: M of 1 and not a multiple of the tiles, ragged N and K, K = 0."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tilec.kernels import deep_gemm, last_report, use_target  # noqa: E402
from tilec.kernels.deep_gemm.testing import calc_diff  # noqa: E402


def _torch_ceil_to_ue8m0(x):
    bits = x.abs().float().view(torch.int)
    exp = ((bits >> 23) & 0xFF) + (bits & 0x7FFFFF).bool().int()
    return (exp.clamp(1, 254) << 23).view(torch.float)


def _torch_per_token_cast(x, use_ue8m0, gran_k=128):
    """DeepGEMM's `per_token_cast_to_fp8` (deep_gemm/utils/math.py), the oracle."""
    m, n = x.shape
    padded = -(-n // gran_k) * gran_k
    x_padded = torch.zeros((m, padded), dtype=x.dtype)
    x_padded[:, :n] = x
    view = x_padded.view(m, padded // gran_k, gran_k)
    sf = view.abs().float().amax(dim=2).view(m, padded // gran_k).clamp(1e-4) / 448.0
    sf = _torch_ceil_to_ue8m0(sf) if use_ue8m0 else sf
    q = (view * (1.0 / sf.unsqueeze(2))).to(torch.float8_e4m3fn).view(m, padded)[:, :n]
    return q.contiguous(), sf


def _torch_per_block_cast(x, use_ue8m0, gran_k=128):
    """DeepGEMM's `per_block_cast_to_fp8`, the oracle."""
    m, n = x.shape
    rows, cols = -(-m // gran_k) * gran_k, -(-n // gran_k) * gran_k
    x_padded = torch.zeros((rows, cols), dtype=x.dtype)
    x_padded[:m, :n] = x
    view = x_padded.view(-1, gran_k, cols // gran_k, gran_k)
    sf = view.abs().float().amax(dim=(1, 3), keepdim=True).clamp(1e-4) / 448.0
    sf = _torch_ceil_to_ue8m0(sf) if use_ue8m0 else sf
    q = (view * (1.0 / sf)).to(torch.float8_e4m3fn).view_as(x_padded)[:m, :n].contiguous()
    return q, sf.view(view.size(0), view.size(2))


def _torch_per_channel_cast(x, use_ue8m0, gran_k=128):
    """DeepGEMM's `per_channel_cast_to_fp8` (one scale per column and gran_k rows)."""
    m, n = x.shape
    view = x.view(-1, gran_k, n)
    sf = view.abs().float().amax(dim=1).view(-1, n).clamp(1e-4) / 448.0
    sf = _torch_ceil_to_ue8m0(sf) if use_ue8m0 else sf
    return (view * (1.0 / sf.unsqueeze(1))).to(torch.float8_e4m3fn).view(m, n), sf


def _bits(t):
    return t.contiguous().view(torch.uint8) if t.element_size() == 1 else t.contiguous().view(
        torch.int32 if t.element_size() == 4 else torch.int16)


@pytest.mark.parametrize("use_ue8m0", [False, True])
@pytest.mark.parametrize(("m", "n"), [(1, 128), (37, 300), (130, 256)])
def test_casts_match_deep_gemm_bit_for_bit(m, n, use_ue8m0):
    g = torch.Generator().manual_seed(m * n)
    x = (torch.randn((m, n), generator=g) * torch.logspace(-3, 3, n)).to(torch.bfloat16)
    x[0, :5] = 0  # a group with zeros, and the 1e-4 floor when a whole group is
    for ours, theirs in (
        (deep_gemm.per_token_cast_to_fp8(x, use_ue8m0=use_ue8m0),
         _torch_per_token_cast(x, use_ue8m0)),
        (deep_gemm.per_block_cast_to_fp8(x, use_ue8m0=use_ue8m0),
         _torch_per_block_cast(x, use_ue8m0)),
    ):
        assert ours[0].dtype == torch.float8_e4m3fn and ours[1].dtype == torch.float32
        assert ours[1].shape == theirs[1].shape
        assert torch.equal(_bits(ours[0]), _bits(theirs[0]))
        assert torch.equal(_bits(ours[1]), _bits(theirs[1]))
    assert [launch.kernel for launch in last_report()] == ["per_block_cast_to_fp8"]


@pytest.mark.parametrize("use_ue8m0", [False, True])
def test_per_channel_cast_matches_deep_gemm_bit_for_bit(use_ue8m0):
    g = torch.Generator().manual_seed(7)
    x = (torch.randn((256, 300), generator=g) * torch.logspace(-3, 3, 300)).to(torch.bfloat16)
    x[:128, 3] = 0  # a column group of zeros takes the 1e-4 floor
    ours, theirs = deep_gemm.per_channel_cast_to_fp8(x, use_ue8m0), _torch_per_channel_cast(
        x, use_ue8m0)
    assert ours[1].shape == theirs[1].shape == (2, 300)
    assert torch.equal(_bits(ours[0]), _bits(theirs[0]))
    assert torch.equal(_bits(ours[1]), _bits(theirs[1]))
    with pytest.raises(ValueError, match="multiple of gran_k"):
        deep_gemm.per_channel_cast_to_fp8(x[:100], use_ue8m0)


def _dequantized_bound(a, b, ref):
    """2^-7 |ref| + 2^-12 sum_k |a_k b_k|: the rounding of a bf16 output and of float32
    accumulation, far below a wrong scale."""
    return 2.0**-7 * ref.abs() + 2.0**-12 * (a.abs() @ b.abs().T)


def _operands(m, n, k, seed):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn((m, k), generator=g).to(torch.bfloat16),
            torch.randn((n, k), generator=g).to(torch.bfloat16))


GEMM_SHAPES = [(1, 72, 200), (100, 136, 200), (130, 64, 64)]


@pytest.mark.parametrize(("m", "n", "k"), GEMM_SHAPES)
@pytest.mark.parametrize("accumulate", [False, True])
def test_fp8_gemm_nt_matches_the_bf16_product(m, n, k, accumulate):
    a, b = _operands(m, n, k, m + n + k)
    a_fp8 = deep_gemm.per_token_cast_to_fp8(a, use_ue8m0=False)
    b_fp8 = deep_gemm.per_block_cast_to_fp8(b, use_ue8m0=False)
    out_dtype = torch.float if accumulate else torch.bfloat16
    d = (torch.randn((m, n)) * 32).to(out_dtype) if accumulate else torch.empty((m, n),
                                                                                dtype=out_dtype)
    c = d.clone() if accumulate else None
    deep_gemm.fp8_gemm_nt(a_fp8, b_fp8, d, c=d if accumulate else None)
    ref = a.float() @ b.float().T + (c if accumulate else 0)
    assert calc_diff(d, ref) < 1e-3
    # Against the dequantized operands, element by element.
    a_deq = a_fp8[0].float() * a_fp8[1].repeat_interleave(128, dim=1)[:, :k]
    b_deq = b_fp8[0].float() * b_fp8[1].repeat_interleave(128, 0).repeat_interleave(128, 1)[
        :n, :k]
    exact = a_deq.double() @ b_deq.double().T + (c.double() if accumulate else 0)
    error = (d.double() - exact).abs()
    assert bool((error <= _dequantized_bound(a_deq.double(), b_deq.double(), exact)).all())
    assert [launch.kernel for launch in last_report()] == ["fp8_gemm_nt"]


def test_fp8_gemm_with_per_row_and_mn_major_scales():
    m, n, k = 66, 130, 256
    a, b = _operands(m, n, k, 5)
    a_fp8, sfa = deep_gemm.per_token_cast_to_fp8(a, use_ue8m0=True)
    b_fp8, sfb = deep_gemm.per_token_cast_to_fp8(b, use_ue8m0=True)  # recipe_b (1, 128)
    sfa_mn = deep_gemm.get_mn_major_tma_aligned_tensor(sfa)
    assert sfa_mn.stride() == (1, 68) and torch.equal(sfa_mn, sfa)
    d = torch.empty((m, n), dtype=torch.bfloat16)
    deep_gemm.fp8_gemm_nt((a_fp8, sfa_mn), (b_fp8, sfb), d, recipe_a=(1, 128),
                          recipe_b=(1, 128))
    assert calc_diff(d, a.float() @ b.float().T) < 1e-3


@pytest.mark.parametrize(("form", "a_shape", "b_shape"), [
    ("nt", "mk", "nk"), ("nn", "mk", "kn"), ("tn", "km", "kn"), ("tt", "km", "nk"),
])
def test_bf16_gemm_forms_and_majors(form, a_shape, b_shape):
    m, n, k = 70, 50, 90
    a, b = _operands(m, n, k, 11)
    ref = a.float() @ b.float().T
    operands = {"mk": a, "km": a.T.contiguous(), "nk": b, "kn": b.T.contiguous()}
    d = torch.empty((m, n), dtype=torch.float)
    getattr(deep_gemm, f"bf16_gemm_{form}")(operands[a_shape], operands[b_shape], d)
    assert calc_diff(d, ref) < 1e-5
    assert torch.allclose(d, ref, rtol=1e-5, atol=1e-4)
    # MN-major storage (a transposed view of a contiguous tensor) is read as it is.
    d2 = torch.empty((m, n), dtype=torch.bfloat16)
    deep_gemm.bf16_gemm_nt(a.T.contiguous().T, b.T.contiguous().T, d2, c=None)
    assert calc_diff(d2, ref) < 1e-5


def test_bf16_gemm_accumulates_into_c_or_d_and_handles_empty_problems():
    m, n, k = 33, 65, 40
    a, b = _operands(m, n, k, 3)
    c = torch.randn((m, n))
    d = torch.empty((m, n))
    deep_gemm.bf16_gemm_nt(a, b, d, c=c)
    assert torch.allclose(d, c + a.float() @ b.float().T, rtol=1e-5, atol=1e-4)
    before = d.clone()
    deep_gemm.bf16_gemm_nt(a, b, d, c=d)  # in place: D += A @ B.T
    assert torch.allclose(d, before + a.float() @ b.float().T, rtol=1e-5, atol=1e-4)
    deep_gemm.bf16_gemm_nt(a[:, :0], b[:, :0], d, c=c)  # K = 0: D = C
    assert torch.equal(d, c)
    empty = torch.empty((0, n))
    deep_gemm.bf16_gemm_nt(a[:0], b, empty)
    assert last_report() == []


def test_numpy_arrays_work_too():
    import ml_dtypes

    rng = np.random.default_rng(1)
    a = rng.standard_normal((20, 70)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((30, 70)).astype(ml_dtypes.bfloat16)
    d = np.zeros((20, 30), np.float32)
    deep_gemm.bf16_gemm_nt(a, b, d)
    np.testing.assert_allclose(d, a.astype(np.float32) @ b.astype(np.float32).T, rtol=1e-5,
                               atol=1e-4)


def test_misuse_names_the_op():
    a, b = _operands(8, 8, 16, 0)
    with pytest.raises(ValueError, match=r"deep_gemm.bf16_gemm_nt: shapes do not match"):
        deep_gemm.bf16_gemm_nt(a, b[:, :8].contiguous(), torch.empty((8, 8)))
    with pytest.raises(ValueError, match=r"D must be bfloat16 or float32 but is float16"):
        deep_gemm.bf16_gemm_nt(a, b, torch.empty((8, 8), dtype=torch.float16))
    with pytest.raises(ValueError, match=r"A must be K-major or MN-major"):
        deep_gemm.bf16_gemm_nt(torch.empty((8, 32), dtype=torch.bfloat16)[:, ::2], b,
                               torch.empty((8, 8)))
    q, sf = deep_gemm.per_token_cast_to_fp8(a, use_ue8m0=False)
    with pytest.raises(ValueError, match=r"fp8_fp4_gemm_nt: A must be K-major"):
        deep_gemm.fp8_gemm_nn((q.T.contiguous().T, sf), (q, sf), torch.empty((8, 8)))
    with pytest.raises(ValueError, match=r"use_packed_ue8m0 packs UE8M0 scales .* the 1 groups "
                       r"must be a multiple of 4"):
        deep_gemm.per_token_cast_to_fp8(a, use_ue8m0=True, use_packed_ue8m0=True)


@pytest.mark.parametrize("profile", ["ascend:910b", "ascend:950"])
def test_on_the_simulated_npu(profile, monkeypatch):
    m, n, k = 40, 72, 130
    a, b = _operands(m, n, k, 7)
    d = torch.empty((m, n))
    monkeypatch.setenv("TILEC_TARGET", profile)
    deep_gemm.bf16_gemm_nt(a, b, d)
    (launch,) = last_report()
    assert launch.target == profile and launch.sim.cycles > 0
    assert calc_diff(d, a.float() @ b.float().T) < 1e-5
    if profile == "ascend:910b":
        # No fp8 units on the 910b: its vector cores round to e4m3 with integer code
        # (tile-ascend-widen-fp8), to the cpu's bytes
        q, sf = deep_gemm.per_token_cast_to_fp8(a[:8], use_ue8m0=False)
        assert last_report()[0].target == profile
        with use_target("cpu"):
            q_cpu, sf_cpu = deep_gemm.per_token_cast_to_fp8(a[:8], use_ue8m0=False)
        assert torch.equal(q.view(torch.uint8), q_cpu.view(torch.uint8))
        assert torch.equal(sf, sf_cpu)
    with use_target("cpu"):  # the block wins over $TILEC_TARGET
        deep_gemm.per_token_cast_to_fp8(a, use_ue8m0=False)
        assert last_report()[0].target.startswith("cpu")
    a_fp8 = deep_gemm.per_token_cast_to_fp8(a, use_ue8m0=False)
    b_fp8 = deep_gemm.per_block_cast_to_fp8(b, use_ue8m0=False)
    d = torch.empty((m, n), dtype=torch.bfloat16)
    deep_gemm.fp8_gemm_nt(a_fp8, b_fp8, d)
    assert last_report()[0].sim.cycles > 0
    assert calc_diff(d, a.float() @ b.float().T) < 1e-3
    # SM100's packed UE8M0 scales (4 K groups), per-row for B
    a, b = _operands(m, n, 512, 8)
    a_fp8 = deep_gemm.per_token_cast_to_fp8(a, use_ue8m0=True, use_packed_ue8m0=True)
    b_fp8 = deep_gemm.per_token_cast_to_fp8(b, use_ue8m0=True, use_packed_ue8m0=True)
    deep_gemm.fp8_gemm_nt(a_fp8, b_fp8, d, recipe_b=(1, 128))
    assert calc_diff(d, a.float() @ b.float().T) < 1e-3


def test_install_as_upstream_registers_every_library(monkeypatch):
    import sys

    import tilec.kernels

    upstream = ("deep_gemm", "tile_kernels", "flash_mla", "deep_select", "deep_ep")
    for name in [n for n in sys.modules if n.split(".")[0] in upstream]:
        monkeypatch.delitem(sys.modules, name)
    registered = tilec.kernels.install_as_upstream()
    try:
        assert registered["deep_gemm"] == "tilec.kernels.deep_gemm"
        assert registered["deep_gemm.utils.math"] == "tilec.kernels.deep_gemm.utils.math"
        assert registered["tile_kernels.moe"] == "tilec.kernels.tile_kernels.moe"
        from tile_kernels.moe import topk_gate

        assert topk_gate.__module__ == "tilec.kernels.tile_kernels.moe.routing"
        import deep_gemm
        from deep_gemm.testing import calc_diff as upstream_calc_diff
        from deep_gemm.utils import per_token_cast_to_fp8

        assert deep_gemm.fp8_gemm_nt is deep_gemm.fp8_fp4_gemm_nt
        assert upstream_calc_diff is calc_diff and per_token_cast_to_fp8 is not None
        # the other libraries, as their users import them
        from deep_ep import ElasticBuffer
        from deep_ep.utils.envs import init_dist
        from deep_select import topk
        from flash_mla import flash_mla_sparse_fwd, flash_mla_with_kvcache
        from flash_mla.flash_mla_interface import get_mla_metadata

        assert ElasticBuffer.__module__ == "tilec.kernels.deep_ep.elastic"
        assert init_dist.__module__ == "tilec.kernels.deep_ep.utils.envs"
        assert topk.__module__ == "tilec.kernels.deep_select.interface"
        assert flash_mla_with_kvcache.__module__ == "tilec.kernels.flash_mla.decode"
        assert flash_mla_sparse_fwd.__module__ == "tilec.kernels.flash_mla.prefill"
        assert get_mla_metadata.__module__ == "tilec.kernels.flash_mla.metadata"
    finally:
        for name in registered:
            sys.modules.pop(name, None)


def test_packed_ue8m0_scales_as_sm100_takes_them():
    """use_packed_ue8m0: four exponent bytes to an int32, the first group low (upstream's
    pack_ue8m0_to_int); the FP8 GEMM decodes them to the same product as the float scales."""
    m, n, k = 40, 136, 512  # 4 K groups
    a, b = _operands(m, n, k, 9)
    a_fp8, sfa = deep_gemm.per_token_cast_to_fp8(a, use_ue8m0=True)
    q, packed = deep_gemm.per_token_cast_to_fp8(a, use_ue8m0=True, use_packed_ue8m0=True)
    assert [launch.kernel for launch in last_report()] == ["per_token_cast_to_fp8",
                                                           "pack_ue8m0_to_int"]
    assert torch.equal(_bits(q), _bits(a_fp8)) and packed.dtype == torch.int32
    assert torch.equal(packed, (sfa.view(torch.int) >> 23).to(torch.uint8).view(torch.int))
    b_fp8, sfb = deep_gemm.per_token_cast_to_fp8(b, use_ue8m0=True)
    _, sfb_packed = deep_gemm.per_token_cast_to_fp8(b, use_ue8m0=True, use_packed_ue8m0=True)
    d_float, d_packed = torch.empty((m, n)), torch.empty((m, n))
    deep_gemm.fp8_gemm_nt((a_fp8, sfa), (b_fp8, sfb), d_float, recipe_b=(1, 128))
    deep_gemm.fp8_gemm_nt((a_fp8, packed), (b_fp8, sfb_packed), d_packed, recipe_b=(1, 128))
    assert torch.equal(d_packed, d_float)
    assert calc_diff(d_packed, a.float() @ b.float().T) < 1e-3


def _torch_per_token_cast_to_fp4(x, use_ue8m0, gran_k):
    """DeepGEMM's `per_token_cast_to_fp4` (deep_gemm/utils/math.py), the oracle."""
    m, n = x.shape
    padded = -(-n // gran_k) * gran_k
    x_padded = torch.zeros((m, padded), dtype=x.dtype)
    x_padded[:, :n] = x
    view = x_padded.view(m, -1, gran_k)
    sf = view.abs().float().amax(dim=2).clamp_min(1e-4) / 6.0
    sf = _torch_ceil_to_ue8m0(sf) if use_ue8m0 else sf
    scaled = view * (1.0 / sf.unsqueeze(2))
    code = torch.zeros_like(scaled, dtype=torch.uint8)
    for boundary in (0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0):
        code += (scaled.abs() > boundary).to(torch.uint8)
    code = (code | (((scaled < 0) & (code != 0)).to(torch.uint8) << 3)).view(torch.int8)
    pairs = code.view(m, padded // 2, 2)
    packed = (pairs[:, :, 0] & 0x0F) | ((pairs[:, :, 1] & 0x0F) << 4)
    return packed[:, : n // 2].contiguous(), sf


def _e2m1_values(packed):
    codes = torch.stack([packed & 0xF, (packed >> 4) & 0xF], dim=-1).flatten(-2)
    table = torch.tensor([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6],
                         dtype=torch.double)
    return table[codes.long()]


@pytest.mark.parametrize(("m", "n", "k"), [(40, 72, 256), (1, 130, 192)])
def test_fp4_casts_and_the_fp8_fp4_gemm(m, n, k):
    """SM100's mixed recipe (QuantConfig((128, 32, False, True))): FP8 A with 1x128 UE8M0
    scales, FP4 B with 1x32; the cast bit for bit, the product within DeepGEMM's 0.01 and
    element-wise against the dequantized operands."""
    a, b = _operands(m, n, k, m + k)
    for use_ue8m0 in (False, True):
        ours, theirs = (deep_gemm.per_token_cast_to_fp4(b, use_ue8m0=use_ue8m0, gran_k=32),
                        _torch_per_token_cast_to_fp4(b, use_ue8m0, 32))
        assert torch.equal(ours[0], theirs[0]) and torch.equal(_bits(ours[1]), _bits(theirs[1]))
    a_fp8 = deep_gemm.per_token_cast_to_fp8(a, use_ue8m0=True)
    b_fp4 = deep_gemm.per_token_cast_to_fp4(b, use_ue8m0=True, gran_k=32)
    d = torch.empty((m, n), dtype=torch.bfloat16)
    deep_gemm.fp8_fp4_gemm_nt(a_fp8, b_fp4, d, recipe_a=(1, 128), recipe_b=(1, 32))
    assert [launch.kernel for launch in last_report()] == ["fp8_fp4_gemm_nt"]
    assert calc_diff(d, a.float() @ b.float().T) < 0.01
    a_deq = a_fp8[0].double() * a_fp8[1].repeat_interleave(128, dim=1)[:, :k].double()
    b_deq = _e2m1_values(b_fp4[0]) * b_fp4[1].repeat_interleave(32, dim=1)[:, :k].double()
    exact = a_deq @ b_deq.T
    bound = 2.0**-7 * exact.abs() + 2.0**-12 * (a_deq.abs() @ b_deq.abs().T)
    assert bool(((d.double() - exact).abs() <= bound).all())
    # packed UE8M0 scales (padded to whole words with 1.0) give the same product
    b_packed = deep_gemm.per_token_cast_to_fp4(b, use_ue8m0=True, gran_k=32,
                                               use_packed_ue8m0=True)
    d_packed = torch.empty_like(d)
    deep_gemm.fp8_fp4_gemm_nt(a_fp8, b_packed, d_packed, recipe_a=(1, 128), recipe_b=(1, 32))
    assert torch.equal(d_packed, d)


def test_builds_are_kept_on_disk_for_later_processes(tmp_path, monkeypatch):
    from tilec.kernels import targets
    from tilec.runtime import compiler

    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(targets, "_compiled", {})
    a, b = _operands(8, 8, 32, 1)
    first, second = torch.empty((8, 8)), torch.empty((8, 8))
    deep_gemm.bf16_gemm_nt(a, b, first)
    assert len(list(tmp_path.iterdir())) == 1
    # a new process has an empty memory: it loads the build instead of compiling
    monkeypatch.setattr(targets, "_compiled", {})

    def no_compile(*args, **kwargs):
        raise AssertionError("compiled again")

    monkeypatch.setattr(compiler, "compile_module", no_compile)
    deep_gemm.bf16_gemm_nt(a, b, second)
    assert torch.equal(first, second)
