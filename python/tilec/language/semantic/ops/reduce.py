"""T.reduce_* and T.cumsum: a reduction or a scan along one dim of an on-chip tile.

As TileLang allows, the result of a reduction may keep the reduced dim (an
[M, 1] tile) and may be wider than the source (float16 summed into float32);
tile.reduce keeps the element type, so the wider one reduces a converting copy.
"""

from __future__ import annotations

from ... import builder
from ...dtypes import DType, index
from ..buffers import on_chip, reshape
from ..checks import describe, error, flag, format_shape, python_int
from ..placement import require_tile_context
from ..scalars import literal


def _axis(dim: object, rank: int, what: str) -> int:
    axis = python_int(dim, f"{what}: dim")
    if axis is None:
        raise error(f"{what}: dim must be a Python int but got {describe(dim)}")
    if not -rank <= axis < rank:
        raise error(f"{what}: dim {axis} is out of range for a {rank}-D tile")
    return axis % rank


def _widens(src: DType, dst: DType) -> bool:
    """Whether every `src` value is a `dst` value: a float into a wider float, an integer
    into a wider one of its signedness."""
    if src.is_float and dst.is_float:
        return dst.bits > src.bits
    return src.kind == dst.kind and src.kind in ("int", "uint") and dst.bits > src.bits


def reduce(kind: str, src_arg: object, dst_arg: object, dim: object, clear: object) -> None:
    what = f"T.reduce_{kind}"
    require_tile_context(what)
    src, dst = on_chip(src_arg, what, "src"), on_chip(dst_arg, what, "dst")
    axis = _axis(dim, src.ndim, what)
    expected = tuple(d for i, d in enumerate(src.shape) if i != axis) or (1,)
    kept = tuple(1 if i == axis else d for i, d in enumerate(src.shape))
    if tuple(dst.shape) == kept != expected:
        # tilelang-ascend's [M, 1] result (the reduced dim kept): the same elements
        dst = reshape(dst, expected, None, what)
    if tuple(dst.shape) != expected:
        raise error(
            f"{what}: dst ('{dst.name}') must have shape {format_shape(expected)} (src shape "
            f"{format_shape(src.shape)} without dim {axis}) but has {format_shape(dst.shape)}"
            f" (or {format_shape(kept)}, keeping the reduced dim)"
        )
    if dst.dtype != src.dtype:
        if not _widens(src.dtype, dst.dtype):
            raise error(
                f"{what}: dst ('{dst.name}') is {dst.dtype} but src ('{src.name}') is "
                f"{src.dtype}; reduce into a tile of the src element type or a wider one of "
                "its kind"
            )
        # tile.reduce keeps the element type, so a wider dst (float16 summed into
        # float32, as TileLang allows) reduces a converting copy of src.
        shape = src.static_shape
        assert shape is not None, "on-chip tiles have static shapes"
        wide = builder.alloc(shape, dst.dtype, src.scope)
        zero = [literal(0, index, "an offset").value for _ in src.shape]
        builder.copy(src.value, zero, wide, zero, None)
        builder.reduce(kind, wide, dst.value, axis, flag(clear, what, "clear"))
        return
    builder.reduce(kind, src.value, dst.value, axis, flag(clear, what, "clear"))


def cumsum(src_arg: object, dst_arg: object, dim: object, reverse: object) -> None:
    what = "T.cumsum"
    require_tile_context(what)
    src = on_chip(src_arg, what, "src")
    dst = src if dst_arg is None else on_chip(dst_arg, what, "dst")
    axis = _axis(dim, src.ndim, what)
    if dst.shape != src.shape or dst.dtype != src.dtype:
        raise error(
            f"{what}: dst ('{dst.name}', {format_shape(dst.shape)} {dst.dtype}) must have the "
            f"shape and dtype of src ('{src.name}', {format_shape(src.shape)} {src.dtype})"
        )
    builder.cumsum(src.value, dst.value, axis, flag(reverse, what, "reverse"))
