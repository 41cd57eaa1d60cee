"""`tilec.kernels.tile_kernels.quant` against TileKernels' oracle,
`tile_kernels.torch.cast` / `cast_back` (tile_kernels/torch/cast.py at 36d9e45),
restated below for e4m3 with float32 scales and compared bit for bit with dtype,
shape and strides, as upstream's tests/quant/ do. Shapes are upstream's kinds
shrunk for 2 cores, with ragged token counts and hidden sizes."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

from tilec.kernels import last_report, use_target  # noqa: E402
from tilec.kernels.tile_kernels import quant  # noqa: E402


def _ref_cast(x, block_size, round_sf=False, sf=None, column_major=False):
    """tile_kernels.torch.cast(x, 'e4m3', block_size, sf, round_sf=...,
    use_tma_aligned_col_major_sf=...) for a bfloat16/float32 x. Its padding (-1 in
    the amax) never wins over an |x|, so zeros pad here."""
    h, w = x.shape
    bh, bw = block_size
    ph, pw = -(-h // bh) * bh, -(-w // bw) * bw
    blocks = F.pad(x.to(torch.float32), (0, pw - w, 0, ph - h)).view(ph // bh, bh, pw // bw, bw)
    if sf is None:
        amax = blocks.abs().amax(dim=(1, 3), keepdim=True).clamp(min=1e-4)
        dequant = amax / torch.full_like(amax, 448.0)
        if round_sf:
            dequant = ((dequant.view(torch.int32) + 0x7FFFFF) & 0x7F800000).view(torch.float32)
            factor = 1.0 / dequant
        else:
            factor = torch.full_like(amax, 448.0) / amax
    else:
        factor = sf.reciprocal()[:, None, :, None]
    out = (blocks * factor).reshape(ph, pw)[:h, :w].clamp(-448.0, 448.0).to(torch.float8_e4m3fn)
    if sf is not None:
        return out
    dequant = dequant.reshape(ph // bh, pw // bw)
    if column_major:
        rows = dequant.shape[0]
        dequant = F.pad(dequant, (0, 0, 0, -(-rows // 4) * 4 - rows)).T.contiguous().T[:rows]
    return out, dequant


def _ref_cast_back(x, fmt, block_size):
    """tile_kernels.torch.cast_back for e4m3 data and float32 scales."""
    data, sf = x
    sf = sf.repeat_interleave(block_size[0], dim=0).repeat_interleave(block_size[1], dim=1)
    out = data.to(torch.float32) * sf[: data.shape[0], : data.shape[1]]
    return out.to(torch.float32 if fmt == "fp32" else torch.bfloat16)


def _assert_same(y, ref):
    if isinstance(ref, tuple):
        for a, b in zip(y, ref, strict=True):
            _assert_same(a, b)
        return
    assert y.dtype == ref.dtype and y.shape == ref.shape
    # strides of size-1 dims aside: the reference's `.T.contiguous().T` keeps a (rows, 1)
    # tensor's, upstream's kernel returns its TMA-aligned buffer's
    assert y.numel() == 0 or all(
        a == b for a, b, size in zip(y.stride(), ref.stride(), y.shape, strict=True) if size > 1)
    assert torch.equal(y.contiguous().flatten().view(torch.uint8),
                       ref.contiguous().flatten().view(torch.uint8))


def _x(shape, dtype, seed=0):
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=generator).to(dtype)


DTYPES = [torch.bfloat16, torch.float32]


@pytest.mark.parametrize("column_major", [False, True])
@pytest.mark.parametrize("round_sf", [False, True])
@pytest.mark.parametrize("num_per_channels", [16, 32, 128, 576])
@pytest.mark.parametrize("dtype", DTYPES)
def test_per_token_cast(dtype, num_per_channels, round_sf, column_major):
    x = _x((37, 576), dtype)
    got = quant.per_token_cast(x, "e4m3", num_per_channels, round_sf=round_sf,
                               use_tma_aligned_col_major_sf=column_major)
    _assert_same(got, _ref_cast(x, (1, num_per_channels), round_sf, column_major=column_major))
    assert [launch.kernel for launch in last_report()] == ["per_token_cast"]


def test_per_token_cast_of_strided_rows_and_ragged_hidden():
    x = _x((401, 400), torch.bfloat16)[:, :200]
    _assert_same(quant.per_token_cast(x, "e4m3", 128), _ref_cast(x, (1, 128)))
    _assert_same(quant.per_token_cast(x, "e4m3", 128),
                 quant.per_token_cast(x.contiguous(), "e4m3", 128))


@pytest.mark.parametrize("round_sf", [False, True])
def test_per_token_cast_sf_only_and_precomputed(round_sf):
    x = _x((37, 576), torch.bfloat16)
    _, sf = _ref_cast(x, (1, 64), round_sf)
    _assert_same(quant.per_token_cast_with_sf_only(x, "e4m3", 64, round_sf=round_sf), sf)
    given = sf * 1.5  # scales that are not x's own
    _assert_same(quant.per_token_cast_with_precomputed_sf(x, "e4m3", 64, given),
                 _ref_cast(x, (1, 64), sf=given))


@pytest.mark.parametrize("column_major", [False, True])
@pytest.mark.parametrize("round_sf", [False, True])
@pytest.mark.parametrize("block_size", [(32, 32), (128, 128), (32, 128)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_per_block_cast(dtype, block_size, round_sf, column_major):
    x = _x((137, 576), dtype)
    got = quant.per_block_cast(x, "e4m3", block_size, round_sf=round_sf,
                               use_tma_aligned_col_major_sf=column_major)
    _assert_same(got, _ref_cast(x, block_size, round_sf, column_major=column_major))


def test_per_block_cast_sf_only_and_precomputed():
    x = _x((137, 200), torch.float32)
    _, sf = _ref_cast(x, (128, 32), True)
    _assert_same(quant.per_block_cast_with_sf_only(x, "e4m3", (128, 32), round_sf=True), sf)
    given = sf * 0.75
    _assert_same(quant.per_block_cast_with_precomputed_sf(x, "e4m3", (128, 32), given),
                 _ref_cast(x, (128, 32), sf=given))


@pytest.mark.parametrize("round_sf", [False, True])
@pytest.mark.parametrize(("m", "n"), [(256, 576), (200, 100)])
def test_per_channel_cast(m, n, round_sf):
    x = _x((m, n), torch.bfloat16)
    _assert_same(quant.per_channel_cast(x, "e4m3", 128, round_sf),
                 _ref_cast(x, (128, 1), round_sf))


@pytest.mark.parametrize("fmt", ["bf16", "fp32"])
@pytest.mark.parametrize(("block_size", "column_major"),
                         [((1, 128), False), ((1, 128), True), ((1, 576), False),
                          ((128, 1), False), ((128, 128), False), ((32, 32), True)])
def test_cast_back(block_size, column_major, fmt):
    x = _x((137, 576), torch.bfloat16)
    quantized = _ref_cast(x, block_size, round_sf=True, column_major=column_major)
    _assert_same(quant.cast_back(quantized, fmt, block_size),
                 _ref_cast_back(quantized, fmt, block_size))


def test_per_token_cast_back():
    x = _x((37, 576), torch.float32)
    quantized = quant.per_token_cast(x, "e4m3", 32, use_tma_aligned_col_major_sf=True)
    _assert_same(quant.per_token_cast_back(quantized, "fp32", 32),
                 _ref_cast_back(quantized, "fp32", (1, 32)))


def test_no_tokens():
    x = torch.empty((0, 576), dtype=torch.bfloat16)
    data, sf = quant.per_token_cast(x, "e4m3", 128)
    assert data.shape == (0, 576) and data.dtype == torch.float8_e4m3fn and sf.shape == (0, 5)
    data, sf = quant.per_block_cast(x, "e4m3", (128, 128))
    assert data.shape == (0, 576) and sf.shape == (0, 5)
    assert quant.cast_back((data, sf), "bf16", (128, 128)).shape == (0, 576)


def test_numpy_input():
    x = _x((37, 200), torch.float32)
    data, sf = quant.per_token_cast(x.numpy(), "e4m3", 64)
    ref_data, ref_sf = _ref_cast(x, (1, 64))
    assert isinstance(data, np.ndarray)
    np.testing.assert_array_equal(data.view(np.uint8), ref_data.view(torch.uint8).numpy())
    np.testing.assert_array_equal(sf, ref_sf.numpy())


def test_checks():
    x = _x((4, 128), torch.bfloat16)
    with pytest.raises(NotImplementedError, match="per_token_cast: fmt="):
        quant.per_token_cast(x, "e5m6", 128)
    with pytest.raises(ValueError, match="num_per_channels must be"):
        quant.per_token_cast(x, "e4m3", 100)
    with pytest.raises(ValueError, match="block_size must be"):
        quant.per_block_cast(x, "e4m3", (64, 64))
    with pytest.raises(ValueError, match="x must be contiguous"):
        quant.per_block_cast(x.T, "e4m3", (32, 32))
    with pytest.raises(ValueError, match="x must be bfloat16 or float32"):
        quant.per_channel_cast(x.half(), "e4m3", 128)
    with pytest.raises(ValueError, match="fmt must be 'bf16' or 'fp32'"):
        quant.cast_back(quant.per_token_cast(x, "e4m3", 128), "fp16", (1, 128))


def test_ascend():
    x = _x((40, 192), torch.bfloat16)
    with use_target("ascend:950"):
        per_token = quant.per_token_cast(x, "e4m3", 128, use_tma_aligned_col_major_sf=True)
        per_block = quant.per_block_cast(x, "e4m3", (32, 32))
        per_channel = quant.per_channel_cast(x, "e4m3", 128)
        back = quant.cast_back(per_block, "bf16", (32, 32))
    assert all(launch.target.startswith("ascend") for launch in last_report())
    _assert_same(per_token, _ref_cast(x, (1, 128), column_major=True))
    _assert_same(per_block, _ref_cast(x, (32, 32)))
    _assert_same(per_channel, _ref_cast(x, (128, 1)))
    _assert_same(back, _ref_cast_back(per_block, "bf16", (32, 32)))
