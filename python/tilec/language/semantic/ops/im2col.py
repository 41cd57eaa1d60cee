"""T.im2col: a tile of the patch matrix of an NHWC image, as a T.Parallel gather.

No target has an im2col op of its own; the gather is what TileLang lowers it
to on targets without TMA's im2col mode.
"""

from __future__ import annotations

from ... import builder
from ... import values as v
from ...dtypes import index
from ..buffers import on_chip, store, subscript
from ..checks import describe, error, format_shape, python_int
from ..placement import check_buffer, close_region, require_tile_context
from ..scalars import Number, binary, compare, select
from .copy import EVICTION_POLICIES


def _positive_int(value: object, what: str, name: str, least: int = 1) -> int:
    number = python_int(value, f"{what}: {name}")
    if number is None or number < least:
        raise error(f"{what}: {name} must be a Python int of at least {least} but got {value!r}")
    return number


def im2col(
    img_arg: object,
    col_arg: object,
    nhw_step: object,
    c_step: object,
    kernel: object,
    stride: object,
    dilation: object,
    pad: object,
    eviction_policy: object = None,
) -> None:
    """TileLang's im2col: tile (`nhw_step`, `c_step`) of the (N*OH*OW) x (KH*KW*C) patch
    matrix of an NHWC image, for a square `kernel`, into `col` (block_M x block_K).

    Row m of the matrix is output position (n, oh, ow) = divmod of m by OH*OW and
    OW; column k is filter tap (kh, kw, c) = divmod of k by KW*C and C, read at
    image row oh*stride + kh*dilation - pad and column ow*stride + kw*dilation - pad.
    Taps in the padding, and rows or columns past the end of the matrix (a ragged
    last tile), are 0: TileLang leaves the last ones to whatever the image holds
    there, which the filter's zero padding cancels unless it is inf or NaN.
    Traced as the T.Parallel gather TileLang lowers it to on targets without
    TMA im2col.
    """
    what = "T.im2col"
    require_tile_context(what)
    if not isinstance(img_arg, v.Buffer) or img_arg.ndim != 4:
        raise error(
            f"{what}: the image must be a 4-D (N, H, W, C) buffer but got {describe(img_arg)}"
        )
    img = img_arg
    check_buffer(img)
    col = on_chip(col_arg, what, "col")
    if col.ndim != 2:
        raise error(
            f"{what}: col ('{col.name}') must be a 2-D (block_M, block_K) tile but has shape "
            f"{format_shape(col.shape)}"
        )
    if col.dtype != img.dtype:
        raise error(
            f"{what}: col ('{col.name}') is {col.dtype} but the image '{img.name}' is "
            f"{img.dtype}; both need one element type"
        )
    taps = _positive_int(kernel, what, "kernel")
    step = _positive_int(stride, what, "stride")
    spread = _positive_int(dilation, what, "dilation")
    border = _positive_int(pad, what, "pad", least=0)
    batch, height, width, channels = img.shape
    reach = spread * (taps - 1) + 1  # the extent of the filter in the image

    def outputs(size: v.Dim) -> v.Scalar | Number:
        """The output positions along an image dim: (size + 2 pad - reach) // stride + 1."""
        padded = binary("+", size, 2 * border)
        return binary("+", binary("//", binary("-", padded, reach), step), 1)

    out_h, out_w = outputs(height), outputs(width)
    out_hw = binary("*", out_h, out_w)
    rows = binary("*", batch, out_hw)
    columns = binary("*", taps * taps, channels)
    block_m, block_k = col.shape
    assert isinstance(block_m, int) and isinstance(block_k, int), "tiles have static shapes"
    hints: dict[str, builder.Hint] = {}
    if eviction_policy is not None:
        if eviction_policy not in EVICTION_POLICIES:
            raise error(
                f"{what}: eviction_policy must be one of "
                f"{', '.join(map(repr, EVICTION_POLICIES))} but got {eviction_policy!r}"
            )
        hints["eviction_policy"] = str(eviction_policy)
    region, (i, j) = builder.open_parallel([block_m, block_k], hints)
    i, j = v.Scalar(i, index, region), v.Scalar(j, index, region)
    m = binary("+", binary("*", nhw_step, block_m), i)
    k = binary("+", binary("*", c_step, block_k), j)
    n, position = binary("//", m, out_hw), binary("%", m, out_hw)
    oh, ow = binary("//", position, out_w), binary("%", position, out_w)
    kh, tap = binary("//", k, binary("*", taps, channels)), binary("//", k, channels)
    kw, c = binary("%", tap, taps), binary("%", k, channels)
    h = binary("-", binary("+", binary("*", oh, step), binary("*", kh, spread)), border)
    w = binary("-", binary("+", binary("*", ow, step), binary("*", kw, spread)), border)
    inside = compare("<", m, rows)
    for condition in (
        compare("<", k, columns),
        compare(">=", h, 0),
        compare(">=", w, 0),
        compare("<", h, height),
        compare("<", w, width),
    ):
        inside = binary("&", inside, condition)
    pixel = subscript(img, (n, h, w, c))
    store(col, (i, j), select(inside, pixel, 0))
    close_region(region)
