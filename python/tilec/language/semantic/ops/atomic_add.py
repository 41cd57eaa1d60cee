"""T.atomic_add: an element, or a tile into a region, added atomically.

A tile of lower rank than its destination gains the region's unit dims as a
view, as T.copy's tiles do (`copy.region_layout`).
"""

from __future__ import annotations

from ... import builder
from ... import values as v
from ..buffers import offsets_of, release
from ..checks import describe, error, format_shape
from ..placement import check_buffer, require_kernel, require_tile_context
from ..scalars import converted, scalar
from .copy import region_layout


def atomic_add(dst_arg: object, value: object) -> None:
    what = "T.atomic_add"
    require_kernel(what)
    region = None
    if isinstance(dst_arg, v.Element | v.BufferRegion):
        region = dst_arg.region if isinstance(dst_arg, v.Element) else dst_arg
        dst, offsets = region.buffer, list(region.offsets)
    elif isinstance(dst_arg, v.Buffer):
        dst, offsets = dst_arg, offsets_of(dst_arg)
    else:
        raise error(
            f"{what}: the destination must be a buffer or a region such as Out[i, j] but got "
            f"{describe(dst_arg)}"
        )
    check_buffer(dst)
    if isinstance(value, v.Buffer) and not isinstance(value, v.Var):
        require_tile_context(f"{what} of a tile")
        check_buffer(value)
        shape = value.static_shape
        if value.ndim > dst.ndim or (value.ndim < dst.ndim and (region is None or shape is None)):
            raise error(
                f"{what}: tile '{value.name}' has {value.ndim} dims but '{dst.name}' has {dst.ndim}"
            )
        if value.dtype != dst.dtype:
            raise error(
                f"{what}: tile '{value.name}' is {value.dtype} but '{dst.name}' is {dst.dtype}; "
                f"T.copy it into a {dst.dtype} tile first"
            )
        addend = value.value
        if value.ndim < dst.ndim:
            # tile.atomic_add adds a tile of the rank of dst: the tile gains the unit
            # dims of the region (`O[b, i:i + 64, h, :]`), as a view.
            assert region is not None and shape is not None
            sizes, laid_out = region_layout(region, value, shape, what)
            if sizes != laid_out:
                raise error(
                    f"{what}: the region of '{dst.name}' is smaller than tile '{value.name}' "
                    f"{format_shape(shape)}; slice it to the tile's extent"
                )
            addend = builder.reshape(value.value, laid_out)
    else:
        if not isinstance(dst_arg, v.Element):
            raise error(
                f"{what} of a scalar needs one element as the destination, such as Out[i, j]"
            )
        addend = converted(value, dst.dtype, what).value
    builder.atomic_add(addend, dst.value, offsets)
    release(dst_arg)


def atomic_fetch_add(dst_arg: object, value: object) -> v.Scalar:
    """`T.atomic_add(Out[i], x, return_prev=True)`: one element, the value it held."""
    what = "T.atomic_add(..., return_prev=True)"
    require_kernel(what)
    if not isinstance(dst_arg, v.Element):
        raise error(f"{what} needs one element as the destination, such as Out[i, j], but got "
                    f"{describe(dst_arg)}")
    dst = dst_arg.region.buffer
    check_buffer(dst)
    if dst.dtype.kind == "bool" or (dst.dtype.is_float and dst.dtype.bits < 16):
        raise error(f"{what}: '{dst.name}' is {dst.dtype}; an atomic that returns the old "
                    "value takes integers and 16-, 32- or 64-bit floats")
    addend = converted(value, dst.dtype, what)
    previous = builder.atomic_fetch_add(addend.value, dst.value, list(dst_arg.region.offsets))
    release(dst_arg)
    return scalar(previous, dst.dtype)
