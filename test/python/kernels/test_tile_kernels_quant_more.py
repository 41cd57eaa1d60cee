"""`tilec.kernels.tile_kernels.quant`'s e2m1 (FP4) casts, packed UE8M0 scales, the SwiGLU
per-channel cast, `per_block_cast_lossless` and `unpack_from_e2m1fn_x2` against
TileKernels' oracles (tile_kernels/torch/cast.py, swiglu.py and quant/common.py at
36d9e45), restated below and compared bit for bit with dtype, shape and strides.

Packed UE8M0 scales are compared whole, padding bytes included (upstream's tests clear
those first: its kernels leave them unwritten; tilec's write the reference's zeros)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

from test_tile_kernels_quant import _assert_same, _x  # noqa: E402

from tilec.kernels import last_report, use_target  # noqa: E402
from tilec.kernels.tile_kernels import quant  # noqa: E402

MAX = {"e4m3": 448.0, "e2m1": 6.0}
FLOOR = {"e4m3": 1e-4, "e2m1": 6.0 * 2**-126}


def _e2m1_bits(q):
    """The oracle's convert_to_e2m1_bits: float32 -> e2m1 bits (uint8), round to
    nearest even through the float32 fields, saturating at 6."""
    bits = q.contiguous().view(torch.int32)
    sign = (bits >> 28) & 8
    exponent = (bits >> 23) & 0xFF
    mantissa = bits & 0x7FFFFF
    subnormal = exponent < 127
    shift = 126 - exponent
    pre = 0x400000 | (mantissa >> 1)
    dropped = ((mantissa & 1) != 0) | ((pre & ((1 << shift.clamp(max=31)) - 1)) != 0)
    sticky = subnormal & dropped
    mantissa = torch.where(subnormal, pre >> shift, mantissa)
    exponent = exponent.clamp(min=126) - 126
    top = (mantissa >> 21) & 3
    sticky |= (mantissa & ((1 << 21) - 1)) != 0
    up = (top & 1) & (sticky.to(torch.int32) | ((top >> 1) & 1))
    code = ((((exponent << 2) | top) + up) >> 1).clamp(max=7)
    return (sign | code).to(torch.uint8)


def _unpack_e2m1(data, out_dtype=torch.float32):
    """The oracle's unpack_from_e2m1fn_x2: byte -> (low nibble, high nibble) values."""
    nibbles = torch.stack([data & 15, (data >> 4) & 15], dim=-1).to(torch.int32)
    exponent, mantissa = (nibbles >> 1) & 3, (nibbles & 1).float()
    magnitude = torch.where(exponent == 0, mantissa * 0.5,
                            (1.0 + mantissa * 0.5) * 2.0 ** (exponent - 1).float())
    value = torch.where(nibbles >> 3 == 1, -1.0, 1.0) * magnitude
    return value.reshape(*data.shape[:-1], -1).to(out_dtype)


def _sf_float(sf):
    """The oracle's transform_sf: packed UE8M0 int32 words -> float32 per block."""
    if sf.dtype == torch.float32:
        return sf
    sf = sf.contiguous()
    sf = sf.as_strided(sf.shape, (sf.shape[-1], 1))  # a size-1 dim keeps any stride
    return (sf.view(torch.uint8).to(torch.int32) << 23).view(torch.float32)


def _ref_cast(x, fmt, block_size, round_sf=False, sf=None, column_major=False,
              packed=False):
    """tile_kernels.torch.cast of a bfloat16/float32 x (its -1 padding never wins an
    amax, so zeros pad here)."""
    h, w = x.shape
    bh, bw = block_size
    ph, pw = -(-h // bh) * bh, -(-w // bw) * bw
    blocks = F.pad(x.float(), (0, pw - w, 0, ph - h)).view(ph // bh, bh, pw // bw, bw)
    top = MAX[fmt]
    if sf is None:
        amax = blocks.abs().amax(dim=(1, 3), keepdim=True).clamp(min=FLOOR[fmt])
        dequant = amax / torch.full_like(amax, top)
        if round_sf:
            dequant = ((dequant.view(torch.int32) + 0x7FFFFF) & 0x7F800000).view(torch.float32)
            factor = 1.0 / dequant
        else:
            factor = torch.full_like(amax, top) / amax
    else:
        factor = sf.reciprocal()[:, None, :, None]
    q = (blocks * factor).reshape(ph, pw)[:h, :w]
    if fmt == "e4m3":
        out = q.clamp(-top, top).to(torch.float8_e4m3fn)
    else:
        codes = _e2m1_bits(q).view(h, w // 2, 2)
        out = (codes[..., 0] | (codes[..., 1] << 4)).view(torch.int8)
    if sf is not None:
        return out
    return out, _layout(dequant.reshape(ph // bh, pw // bw).view(torch.int32), column_major,
                        packed)


def _layout(bits, column_major, packed):
    """The oracle's scale output from the scales' float32 bits: float32, or column-major
    with rows padded to 4, or packed UE8M0 (exponent bytes, four a word, zero padded)."""
    if not column_major:
        return bits.view(torch.float32)
    rows, columns = bits.shape
    bits = F.pad(bits, (0, (-columns) % 4 if packed else 0, 0, (-rows) % 4))
    scales = (bits >> 23).to(torch.int8).view(torch.int32) if packed else bits.view(torch.float32)
    return scales.T.contiguous().T[:rows]


def _ref_cast_back(x, fmt, block_size):
    """tile_kernels.torch.cast_back."""
    data, sf = x
    sf = _sf_float(sf).repeat_interleave(block_size[0], 0).repeat_interleave(block_size[1], 1)
    data = _unpack_e2m1(data) if data.dtype == torch.int8 else data.float()
    out = data * sf[: data.shape[0], : data.shape[1]]
    return out.to(torch.float32 if fmt == "fp32" else torch.bfloat16)


# -- e2m1 and packed UE8M0 in per_token_cast / per_block_cast / cast_back ---------------

LAYOUTS = [(False, False, False), (False, True, False), (True, False, False), (True, True, True)]
PACKED = (True, True, True)


@pytest.mark.parametrize(("fmt", "num_per_channels", "layout"),
                         [("e2m1", 16, LAYOUTS[0]), ("e2m1", 16, LAYOUTS[2]), ("e2m1", 576, PACKED),
                          ("e2m1", 128, LAYOUTS[1]), ("e4m3", 32, PACKED)])
def test_per_token_cast(fmt, num_per_channels, layout):
    column_major, round_sf, packed = layout
    x = _x((37, 576), torch.bfloat16, seed=3)
    got = quant.per_token_cast(x, fmt, num_per_channels, use_tma_aligned_col_major_sf=column_major,
                               round_sf=round_sf, use_packed_ue8m0=packed)
    _assert_same(got, _ref_cast(x, fmt, (1, num_per_channels), round_sf,
                                column_major=column_major, packed=packed))
    _assert_same(quant.per_token_cast_back(got, "fp32", num_per_channels),
                 _ref_cast_back(got, "fp32", (1, num_per_channels)))


def test_per_token_cast_of_strided_rows_to_e2m1():
    x = _x((40, 400), torch.float32)[:, :200]
    _assert_same(quant.per_token_cast(x, "e2m1", 64, round_sf=True),
                 _ref_cast(x, "e2m1", (1, 64), True))


@pytest.mark.parametrize(("fmt", "block_size", "layout"),
                         [("e2m1", (32, 32), LAYOUTS[0]), ("e2m1", (128, 32), LAYOUTS[2]),
                          ("e2m1", (32, 128), PACKED), ("e4m3", (128, 128), PACKED)])
def test_per_block_cast(fmt, block_size, layout):
    column_major, round_sf, packed = layout
    x = _x((137, 576), torch.float32, seed=4)
    got = quant.per_block_cast(x, fmt, block_size, use_tma_aligned_col_major_sf=column_major,
                               round_sf=round_sf, use_packed_ue8m0=packed)
    _assert_same(got, _ref_cast(x, fmt, block_size, round_sf, column_major=column_major,
                                packed=packed))
    _assert_same(quant.cast_back(got, "bf16", block_size),
                 _ref_cast_back(got, "bf16", block_size))
    _assert_same(quant.per_block_cast_with_sf_only(
        x, fmt, block_size, use_tma_aligned_col_major_sf=column_major, round_sf=round_sf,
        use_packed_ue8m0=packed), got[1])


def test_e2m1_sf_only_and_precomputed():
    x = _x((37, 576), torch.bfloat16, seed=5)
    _, sf = _ref_cast(x, "e2m1", (1, 32))
    _assert_same(quant.per_token_cast_with_sf_only(x, "e2m1", 32), sf)
    given = sf * 1.5
    _assert_same(quant.per_token_cast_with_precomputed_sf(x, "e2m1", 32, given),
                 _ref_cast(x, "e2m1", (1, 32), sf=given))
    _, sf = _ref_cast(x, "e2m1", (32, 128), True)
    _assert_same(quant.per_block_cast_with_precomputed_sf(x, "e2m1", (32, 128), sf * 0.75),
                 _ref_cast(x, "e2m1", (32, 128), sf=sf * 0.75))


def test_e2m1_rounding_ties_signs_and_saturation():
    """With amax 6 and rounded scales the factor is 1: every e2m1 midpoint (ties go to
    the even code), values just off them, -0 and small negatives that round to -0."""
    ties = [0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0]
    values = [6.0, 0.0, -0.0, -0.1, 0.1, 7.0 / 8.0] + [v + d for v in ties
                                                       for d in (0.0, 2**-10, -2**-10)]
    row = torch.tensor(values + [-v for v in values], dtype=torch.float32)
    x = F.pad(row, (0, 64 - row.numel())).reshape(1, 64).repeat(3, 1)
    x[1] *= 2.0**-130  # scales near float32's smallest normal: the e2m1 floor
    x[2] *= 0.0
    _assert_same(quant.per_token_cast(x, "e2m1", 64, round_sf=True),
                 _ref_cast(x, "e2m1", (1, 64), True))


def test_packed_scales_of_no_tokens():
    x = torch.empty((0, 576), dtype=torch.bfloat16)
    data, sf = quant.per_token_cast(x, "e2m1", 128, use_tma_aligned_col_major_sf=True,
                                    round_sf=True, use_packed_ue8m0=True)
    assert data.shape == (0, 288) and data.dtype == torch.int8
    assert sf.shape == (0, 2) and sf.dtype == torch.int32


def test_checks():
    x = _x((4, 128), torch.bfloat16)
    with pytest.raises(NotImplementedError, match="per_token_cast: fmt='e5m6'"):
        quant.per_token_cast(x, "e5m6", 128)
    with pytest.raises(ValueError, match="use_packed_ue8m0 needs"):
        quant.per_block_cast(x, "e4m3", (128, 128), use_packed_ue8m0=True)
    with pytest.raises(ValueError, match="hidden must be even"):
        quant.per_token_cast(_x((4, 65), torch.float32), "e2m1", 16)
    with pytest.raises(ValueError, match="only e2m1"):
        quant.per_block_cast_lossless(quant.per_token_cast(x, "e4m3", 32), "e4m3", (1, 32),
                                      (1, 128))


# -- per_block_cast_lossless, unpack_from_e2m1fn_x2 ------------------------------------

def _ref_lossless(x, in_block, out_block, column_major, packed):
    """upstream's lossless kernel restated: e_out = max(e_in in the block) - 6 (>= 0),
    data = e4m3(value * 2^(e_in - e_out))."""
    data, sf = x
    rows, columns = data.shape[0], 2 * data.shape[1]
    e_in = (_sf_float(sf).view(torch.int32) >> 23) & 511
    e_in = e_in.repeat_interleave(in_block[0], 0).repeat_interleave(in_block[1], 1)
    e_in = e_in[:rows, :columns]
    bh, bw = out_block
    padded = F.pad(e_in, (0, (-columns) % bw, 0, (-rows) % bh))
    e_max = padded.view(padded.shape[0] // bh, bh, -1, bw).amax(dim=(1, 3))
    e_out = torch.where(e_max >= 6, e_max - 6, 0)
    spread = e_out.repeat_interleave(bh, 0).repeat_interleave(bw, 1)[:rows, :columns]
    factor = ((e_in - spread + 127) << 23).view(torch.float32)
    out = (_unpack_e2m1(data) * factor).to(torch.float8_e4m3fn)
    return out, _layout((e_out << 23).to(torch.int32), column_major, packed)


@pytest.mark.parametrize(("out_block", "in_layout", "out_layout"),
                         [((1, 128), LAYOUTS[1], LAYOUTS[1]), ((32, 32), PACKED, PACKED),
                          ((128, 128), LAYOUTS[1], PACKED), ((128, 128), PACKED, LAYOUTS[2])])
def test_per_block_cast_lossless(out_block, in_layout, out_layout):
    x = _x((137, 576), torch.bfloat16, seed=6)
    fp4 = _ref_cast(x, "e2m1", (1, 32), True, column_major=in_layout[0], packed=in_layout[2])
    got = quant.per_block_cast_lossless(fp4, "e4m3", (1, 32), out_block,
                                        use_tma_aligned_col_major_sf=out_layout[0],
                                        round_sf=True, use_packed_ue8m0=out_layout[2])
    _assert_same(got, _ref_lossless(fp4, (1, 32), out_block, out_layout[0], out_layout[2]))
    _assert_same(_ref_cast_back(got, "fp32", out_block), _ref_cast_back(fp4, "fp32", (1, 32)))


@pytest.mark.parametrize("out_dtype", [torch.float32, torch.bfloat16])
def test_unpack_from_e2m1fn_x2(out_dtype):
    x = torch.arange(256, dtype=torch.int32).to(torch.uint8).reshape(2, 8, 16)
    _assert_same(quant.unpack_from_e2m1fn_x2(x, out_dtype), _unpack_e2m1(x, out_dtype))
    signed = x.view(torch.int8)[:, :3]
    _assert_same(quant.unpack_from_e2m1fn_x2(signed.contiguous()), _unpack_e2m1(signed))


# -- swiglu_forward_and_per_channel_cast_and_transpose --------------------------------

def _ref_swiglu_per_channel(x, num_per_tokens, round_sf, without_transpose, clamp):
    """The oracle's test: cast(swiglu_forward(x, clamp).bfloat16(), 'e4m3',
    (num_per_tokens, 1)), transposed unless without_transpose; e^x correctly rounded
    (see test_tile_kernels_quant_extra)."""
    hidden = x.shape[1] // 2
    left, right = x.float()[:, :hidden], x.float()[:, hidden:]
    if clamp is not None:
        left, right = left.clamp(max=clamp), right.clamp(min=-clamp, max=clamp)
    act = (left / (1.0 + torch.exp(-left.double()).float()) * right).bfloat16()
    data, sf = _ref_cast(act, "e4m3", (num_per_tokens, 1), round_sf)
    return (data if without_transpose else data.T.contiguous()), sf


@pytest.mark.parametrize(("shape", "num_per_tokens", "round_sf", "without_transpose", "clamp"),
                         [((256, 512), 128, False, False, None),
                          ((37, 200), 32, True, True, 0.5),
                          ((200, 576), 32, False, False, 10.0),
                          ((130, 256), 128, True, True, None)])
def test_swiglu_forward_and_per_channel_cast_and_transpose(shape, num_per_tokens, round_sf,
                                                           without_transpose, clamp):
    x = _x(shape, torch.bfloat16, seed=8) * 3
    got = quant.swiglu_forward_and_per_channel_cast_and_transpose(
        x, "e4m3", num_per_tokens, round_sf, without_transpose, clamp)
    _assert_same(got, _ref_swiglu_per_channel(x, num_per_tokens, round_sf, without_transpose,
                                              clamp))
    assert [launch.kernel for launch in last_report()] == [
        "swiglu_forward_and_per_channel_cast"]


def test_swiglu_per_channel_checks_and_no_tokens():
    data, sf = quant.swiglu_forward_and_per_channel_cast_and_transpose(
        torch.empty((0, 512), dtype=torch.bfloat16), "e4m3", 128)
    assert data.shape == (256, 0) and data.dtype == torch.float8_e4m3fn and sf.shape == (0, 256)
    with pytest.raises(ValueError, match="x must be bfloat16"):
        quant.swiglu_forward_and_per_channel_cast_and_transpose(_x((4, 64), torch.float32),
                                                                "e4m3", 128)
    with pytest.raises(ValueError, match="num_per_tokens must be 32 or 128"):
        quant.swiglu_forward_and_per_channel_cast_and_transpose(_x((4, 64), torch.bfloat16),
                                                                "e4m3", 64)


def test_ascend():
    """e2m1 casts, packed scales and their cast_back on the simulator (the lossless cast's
    per-block maximum of two exponents is a reduction AscendC cannot start unaligned)."""
    x = _x((8, 64), torch.bfloat16)
    with use_target("ascend:950"):
        per_token = quant.per_token_cast(x, "e2m1", 32, use_tma_aligned_col_major_sf=True,
                                         round_sf=True, use_packed_ue8m0=True)
        per_block = quant.per_block_cast(x, "e2m1", (32, 32))
        back = quant.cast_back(per_token, "bf16", (1, 32))
        unpacked = quant.unpack_from_e2m1fn_x2(per_block[0])
    assert all(launch.target.startswith("ascend") for launch in last_report())
    _assert_same(per_token, _ref_cast(x, "e2m1", (1, 32), True, column_major=True, packed=True))
    _assert_same(per_block, _ref_cast(x, "e2m1", (32, 32)))
    _assert_same(back, _ref_cast_back(per_token, "bf16", (1, 32)))
    _assert_same(unpacked, _unpack_e2m1(per_block[0]))
