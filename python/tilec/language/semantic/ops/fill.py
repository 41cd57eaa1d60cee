"""T.fill and T.clear: every element of a tile set to one value.

The value is converted to the tile's element type, as a store converts it.
"""

from __future__ import annotations

from ... import builder
from ... import values as v
from ..buffers import release, whole_tile
from ..placement import require_tile_context
from ..scalars import converted


def fill(dst_arg: object, value: object, what: str = "T.fill") -> None:
    require_tile_context(what)
    if isinstance(dst_arg, v.Element):
        # TileLang fills an element (a buffer load) as a region of one element
        buffer, offsets = dst_arg.region.buffer, list(dst_arg.region.offsets)
        release(dst_arg)
        stored = converted(value, buffer.dtype, what)
        builder.store(stored.value, buffer.value, offsets)
        return
    dst = whole_tile(dst_arg, what, "the destination")
    builder.fill(dst.value, converted(value, dst.dtype, what).value)


def clear(dst_arg: object) -> None:
    require_tile_context("T.clear")
    builder.clear(whole_tile(dst_arg, "T.clear", "the destination").value)
