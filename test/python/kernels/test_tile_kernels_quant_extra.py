"""`tilec.kernels.tile_kernels.quant`'s fused casts against TileKernels' oracles
(tile_kernels/torch/swiglu.py, cast.py and per_channel_cast_fused.py at 36d9e45),
restated below for e4m3 with float32 scales and compared bit for bit as upstream's
tests/quant/ do (the weight gradient's row sums, like upstream's, to 1e-4: their order
is the summing library's).

One deliberate difference from the oracle text: e^x is the correctly rounded one
(through float64) on both sides. torch's float32 exp on CPU and CUDA's expf are
1-2 ulp approximations that no kernel can promise to reproduce on every target."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from test_tile_kernels_quant import _assert_same, _ref_cast, _x  # noqa: E402

from tilec.kernels import last_report, use_target  # noqa: E402
from tilec.kernels.tile_kernels import quant  # noqa: E402


def _exp(x):
    return torch.exp(x.double()).float()


def _fma(a, b, c):
    """a * b + c rounded once (the oracle's `elementwise_fma`): the product is exact
    in float64, the sum rounds twice only in cases random inputs do not reach."""
    return (a.double() * b.double() + c).float()


def _row_weights(num_rows, pos_to_token_topk, weights):
    """The oracle's `w_expanded`: the row's top-k weight, 0 where pos_to_token_topk < 0."""
    placed = pos_to_token_topk >= 0
    w = torch.zeros(num_rows)
    w[placed] = weights.flatten()[pos_to_token_topk[placed].long()]
    return w


def _ref_swiglu_forward(x, pos_to_token_topk=None, weights=None, clamp=None, counts=None,
                        pos_to_expert=None):
    """tile_kernels.torch.swiglu_forward, then the test's masked_fill of rows of no
    expert (counting only the rows the kernel reads: upstream's kernel skips them)."""
    hidden = x.shape[1] // 2
    left, right = x.float()[:, :hidden], x.float()[:, hidden:]
    if clamp is not None:
        if counts is not None:
            kept = torch.ones(x.shape[0], 1, dtype=torch.bool) if pos_to_expert is None \
                else (pos_to_expert >= 0).unsqueeze(1)
            counts += torch.stack([(left > clamp) & kept, (right > clamp) & kept,
                                   (right < -clamp) & kept]).flatten(1).sum(1)
        left, right = left.clamp(max=clamp), right.clamp(min=-clamp, max=clamp)
    out = left / (1.0 + _exp(-left)) * right
    if pos_to_token_topk is not None:
        out = out * _row_weights(x.shape[0], pos_to_token_topk, weights).unsqueeze(1)
    if pos_to_expert is not None:
        out = out.masked_fill((pos_to_expert == -1).unsqueeze(1), 0)
    return out


def _ref_swiglu_backward(x, grad_out, weights, pos_to_token_topk, num_per_channels,
                         round_sf=False, clamp=None):
    """tile_kernels.torch.swiglu_backward, its x_grad cast per token as upstream's test
    does, out and x_grad in grad_out's dtype."""
    data, sf = x
    hidden = data.shape[1] // 2
    value = data.float() * sf.repeat_interleave(num_per_channels, dim=1)
    a, b = value[:, :hidden], value[:, hidden:]
    if clamp is not None:
        a_clamped, b_above, b_below = a > clamp, b > clamp, b < -clamp
        a[a_clamped], b[b_above], b[b_below] = clamp, clamp, -clamp
    tmp = 1.0 + _exp(-a)
    s = torch.ones_like(a) / tmp
    w = _row_weights(data.shape[0], pos_to_token_topk, weights).unsqueeze(1)
    g = grad_out.float()
    g_ws = g * w * s
    a_grad, b_grad = g_ws * b * _fma(a, 1.0 - s, 1.0), g_ws * a
    if clamp is not None:
        a_grad[a_clamped], b_grad[b_above | b_below] = 0.0, 0.0
    act = a / tmp * b
    x_grad = torch.cat([a_grad, b_grad], dim=1)
    weight_grad = torch.zeros_like(weights)
    placed = pos_to_token_topk >= 0
    weight_grad.view(-1)[pos_to_token_topk[placed].long()] = (g * act).sum(1)[placed]
    return ((act * w).to(grad_out.dtype), _ref_cast(x_grad, (1, num_per_channels), round_sf),
            x_grad.to(grad_out.dtype), weight_grad)


def _routing(num_tokens, num_topk, num_rows, seed=1):
    """An expert layout: a permutation of the (token, top-k) slots over num_rows rows
    (some rows padding), as pos_to_token_topk and token_topk_to_pos; some slots unplaced."""
    generator = torch.Generator().manual_seed(seed)
    slots = num_tokens * num_topk
    placed = min(slots - 3, num_rows)
    rows = torch.randperm(num_rows, generator=generator)[:placed]
    pos_to_token_topk = torch.full((num_rows,), -1, dtype=torch.int32)
    pos_to_token_topk[rows] = torch.randperm(slots, generator=generator)[:placed].int()
    token_topk_to_pos = torch.full((slots,), -1, dtype=torch.int32)
    token_topk_to_pos[pos_to_token_topk[rows].long()] = rows.int()
    return pos_to_token_topk, token_topk_to_pos.view(num_tokens, num_topk)


def _gather(x, pos_to_token):
    """per_channel_cast_fused's oracle's gather: zero rows where pos_to_token < 0."""
    rows = x[pos_to_token.clamp(min=0).long()]
    return torch.where((pos_to_token >= 0).unsqueeze(1), rows.float(), 0.0).to(x.dtype)


# -- swiglu_forward_and_per_token_cast -------------------------------------------------

@pytest.mark.parametrize("column_major", [False, True])
@pytest.mark.parametrize("round_sf", [False, True])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_swiglu_forward_and_per_token_cast(dtype, round_sf, column_major):
    x = _x((37, 2 * 576), dtype) * 3
    got = quant.swiglu_forward_and_per_token_cast(
        x, "e4m3", 128, use_tma_aligned_col_major_sf=column_major, round_sf=round_sf)
    _assert_same(got, _ref_cast(_ref_swiglu_forward(x), (1, 128), round_sf,
                                column_major=column_major))
    assert [launch.kernel for launch in last_report()] == ["swiglu_forward_and_per_token_cast"]


@pytest.mark.parametrize("clamp", [None, 10.0, 0.5])
def test_swiglu_forward_routed_and_clamped(clamp):
    x = _x((401, 2 * 384), torch.bfloat16, seed=2) * 3
    pos_to_token_topk, _ = _routing(50, 8, 401)
    weights = _x((50, 8), torch.float32, seed=3)
    pos_to_expert = torch.where(pos_to_token_topk >= 0, 1, -1).int()
    counts = torch.tensor([5, 0, 7])  # counts are added to
    ref_counts = counts.clone()
    for num_per_channels in (128, 384):
        with_counts = clamp is not None and num_per_channels == 128
        got = quant.swiglu_forward_and_per_token_cast(
            x, "e4m3", num_per_channels, pos_to_token_topk, weights, pos_to_expert,
            round_sf=True, swiglu_clamp_value=clamp,
            clamped_count=counts if with_counts else None)
        ref = _ref_swiglu_forward(x, pos_to_token_topk, weights, clamp,
                                  ref_counts if with_counts else None, pos_to_expert)
        _assert_same(got, _ref_cast(ref, (1, num_per_channels), True))
    assert torch.equal(counts, ref_counts)
    assert clamp is None or clamp == 10.0 or ref_counts.min() > 100  # 0.5 clamps many


def test_swiglu_forward_sf_clamp_min():
    x = _x((37, 256), torch.bfloat16) * 1e-3
    got = quant.swiglu_forward_and_per_token_cast(x, "e4m3", 128, sf_clamp_min=0.5)
    value = _ref_swiglu_forward(x)
    sf = torch.full((37, 1), 0.5 / 448.0)  # every block's amax is under the floor
    ref = ((value * (448.0 / torch.full_like(sf, 0.5))).clamp(-448, 448)
           .to(torch.float8_e4m3fn), sf)
    _assert_same(got, ref)


# -- swiglu_backward_and_per_token_cast ------------------------------------------------

@pytest.mark.parametrize("clamp", [None, 0.5])
@pytest.mark.parametrize("round_sf", [False, True])
@pytest.mark.parametrize("num_per_channels", [32, 128])
def test_swiglu_backward_and_per_token_cast(num_per_channels, round_sf, clamp):
    pos_to_token_topk, token_topk_to_pos = _routing(13, 3, 45)
    weights = torch.rand((13, 3), generator=torch.Generator().manual_seed(4))
    x = quant.per_token_cast(_x((45, 2 * 256), torch.bfloat16, seed=5), "e4m3",
                             num_per_channels)
    grad_out = _x((45, 256), torch.bfloat16, seed=6)
    out, (x_grad_fp8, x_grad_sf), x_grad, weight_grad = quant.swiglu_backward_and_per_token_cast(
        x, grad_out, weights, pos_to_token_topk, token_topk_to_pos, num_per_channels,
        round_sf=round_sf, swiglu_clamp_value=clamp)
    ref_out, ref_cast, ref_x_grad, ref_weight_grad = _ref_swiglu_backward(
        x, grad_out, weights, pos_to_token_topk, num_per_channels, round_sf, clamp)
    _assert_same(out, ref_out)
    _assert_same(x_grad, ref_x_grad)
    _assert_same((x_grad_fp8, x_grad_sf), ref_cast)
    torch.testing.assert_close(weight_grad, ref_weight_grad, atol=1e-4, rtol=1e-4)
    assert (weight_grad.flatten()[token_topk_to_pos.flatten() < 0] == 0).all()


# -- per_channel_cast_and_transpose, per_channel_cast_fused ----------------------------

@pytest.mark.parametrize("round_sf", [False, True])
@pytest.mark.parametrize(("m", "n", "num_per_tokens"),
                         [(256, 576, 128), (200, 100, 32), (37, 64, 128)])
def test_per_channel_cast_and_transpose(m, n, num_per_tokens, round_sf):
    x = _x((m, n), torch.bfloat16)
    data, sf = _ref_cast(x, (num_per_tokens, 1), round_sf)
    _assert_same(quant.per_channel_cast_and_transpose(x, "e4m3", num_per_tokens, round_sf),
                 (data.T.contiguous(), sf))


@pytest.mark.parametrize("round_sf", [False, True])
def test_per_channel_cast_fused(round_sf):
    x = _x((150, 384), torch.bfloat16)
    pos_to_token = torch.randint(-1, 150, (208,), generator=torch.Generator().manual_seed(7),
                                 dtype=torch.int32)
    _assert_same(quant.per_channel_cast_fused(x, "e4m3", 128, round_sf),
                 _ref_cast(x, (128, 1), round_sf))
    _assert_same(quant.per_channel_cast_fused(x, "e4m3", 128, round_sf, pos_to_token=pos_to_token),
                 _ref_cast(_gather(x, pos_to_token), (128, 1), round_sf))
    data, sf = quant.per_token_cast(x, "e4m3", 128)
    scales = sf.repeat_interleave(128, dim=1)
    _assert_same(quant.per_channel_cast_fused((data, sf), "e4m3", 128, round_sf, 128),
                 _ref_cast(data.float() * scales, (128, 1), round_sf))
    gathered = _gather(data, pos_to_token).float() * _gather(sf, pos_to_token).repeat_interleave(
        128, dim=1)
    _assert_same(quant.per_channel_cast_fused((data, sf), "e4m3", 128, round_sf, 128,
                                              pos_to_token),
                 _ref_cast(gathered, (128, 1), round_sf))


def test_no_tokens():
    x = torch.empty((0, 512), dtype=torch.bfloat16)
    data, sf = quant.swiglu_forward_and_per_token_cast(x, "e4m3", 128)
    assert data.shape == (0, 256) and sf.shape == (0, 2)
    data, sf = quant.per_channel_cast_and_transpose(x, "e4m3", 128)
    assert data.shape == (512, 0) and sf.shape == (0, 512)


def test_checks():
    x = _x((4, 256), torch.bfloat16)
    with pytest.raises(NotImplementedError, match="swiglu_forward_and_per_token_cast: fmt="):
        quant.swiglu_forward_and_per_token_cast(x, "e2m1", 128)
    with pytest.raises(NotImplementedError, match="use_packed_ue8m0"):
        quant.swiglu_forward_and_per_token_cast(x, "e4m3", 128, use_packed_ue8m0=True)
    with pytest.raises(ValueError, match="num_per_channels must be 128 or hidden"):
        quant.swiglu_forward_and_per_token_cast(x, "e4m3", 64)
    with pytest.raises(ValueError, match="clamped_count needs swiglu_clamp_value"):
        quant.swiglu_forward_and_per_token_cast(x, "e4m3", 128,
                                                clamped_count=torch.zeros(3, dtype=torch.long))
    with pytest.raises(ValueError, match="num_per_channels must be 32 or 128"):
        quant.swiglu_backward_and_per_token_cast(quant.per_token_cast(x, "e4m3", 64), x,
                                                 x.float(), None, None, 64)
    with pytest.raises(ValueError, match="num_per_tokens must be 32 or 128"):
        quant.per_channel_cast_and_transpose(x, "e4m3", 64)
    with pytest.raises(ValueError, match="needs num_per_channels == 128"):
        quant.per_channel_cast_fused(quant.per_token_cast(x, "e4m3", 128), "e4m3", 128)


def test_ascend():
    """The per-channel casts run on the simulator bit for bit."""
    x = _x((40, 192), torch.bfloat16)
    with use_target("ascend:950"):
        transposed = quant.per_channel_cast_and_transpose(x, "e4m3", 32, round_sf=True)
        fused = quant.per_channel_cast_fused(x, "e4m3", 128)
    assert all(launch.target.startswith("ascend") for launch in last_report())
    data, sf = _ref_cast(x, (32, 1), True)
    _assert_same(transposed, (data.T.contiguous(), sf))
    _assert_same(fused, _ref_cast(x, (128, 1)))


def _assert_within_an_ulp(got, ref):
    """FP8 data whose codes are the reference's or a neighbour (same sign), and float32
    scales within a few ulps: the NPU's float32 e^x is not the correctly rounded one."""
    (data, sf), (ref_data, ref_sf) = got, ref
    codes, ref_codes = data.view(torch.uint8).int(), ref_data.view(torch.uint8).int()
    assert data.shape == ref_data.shape and sf.shape == ref_sf.shape
    assert ((codes - ref_codes).abs() <= 1).all()
    assert (codes != ref_codes).float().mean() < 0.01
    torch.testing.assert_close(sf, ref_sf, rtol=2.0**-20, atol=0)


def test_swiglu_casts_on_ascend():
    """The SwiGLU casts on the simulated 950, with the NPU's float32 e^x (it has no
    float64), against the exact ones."""
    x = _x((5, 2 * 128), torch.bfloat16) * 3
    wide = _x((40, 2 * 64), torch.bfloat16, seed=8) * 3
    with use_target("ascend:950"):
        per_token = quant.swiglu_forward_and_per_token_cast(x, "e4m3", 128)
        per_channel = quant.swiglu_forward_and_per_channel_cast_and_transpose(wide, "e4m3", 128)
        assert [launch.target for launch in last_report()] == ["ascend:950"]
    _assert_within_an_ulp(per_token, quant.swiglu_forward_and_per_token_cast(x, "e4m3", 128))
    _assert_within_an_ulp(per_channel, quant.swiglu_forward_and_per_channel_cast_and_transpose(
        wide, "e4m3", 128))
